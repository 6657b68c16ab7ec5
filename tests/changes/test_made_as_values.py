"""Issue 36, item 2: each of the base's own changes is its checks, then its value, then one
``make``: the method builds the value, a log hears the value (its entry is the value's), the
effect comes from one table, and a replay reads the value back and runs that same effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, open_ledger, rule, tool
from corollary.changes import Call, Change, Remember, Retract
from corollary.changes.base_changes import BaseChange
from corollary.facade.effects import EFFECTS
from corollary.facade.journal_entries import decode_entry, encode_entry, pack_args
from corollary.facade.operations import OperationCall, install_log, operations_of
from corollary.foundations.errors import JournalReplayError
from corollary.models import Reply, ScriptedModel, ToolCall


class Heard:
    """A log that hears each change of the base as its value."""

    def __init__(self) -> None:
        self.calls: list[OperationCall] = []

    def run(self, call: OperationCall) -> Any:
        self.calls.append(call)
        return call.proceed()

    def resolved(self, what: str, value: Any) -> None:
        pass


@rule(output="doubled", inputs={"x": "n"}, name="tests.changes.made.doubled")
def doubled(x: int) -> int:
    return 2 * x


@tool(trust=0.8, key="made_shelf:{item}")
def made_shelf(item: str) -> int:
    return len(item)


def _changes(kb: BeliefBase) -> list[str]:
    kb.add_tool(made_shelf)
    kb.assert_("a", 1, source="tool:one")
    kb.assert_many([("b", 2, "tool:one"), ("c", 3, "tool:two")])
    kb.claim("sum", 3, source="model:m", inputs={"x": "a", "y": "b"}, formula="x + y")
    kb.assert_("ceo", "Ann", source="tool:one")
    kb.assert_("ceo", "Bob", source="tool:two")
    kb.resolve("ceo", winner="Ann")
    kb.nogood("a", ("b", 2))
    kb.record_outcome("tool:one", True, reason="audited", key="a")
    kb.add_rule(doubled)
    kb.assert_("n", 7, source="tool:one")
    kb.depend("m", 8, on=["n"], source="model:m")
    kb.replace_when("r", 9, changes="n", source="model:m")
    kb.retract("sum", reason="wrong")
    kb.end("c", source="tool:two", at=1001.0, reason="sold")
    kb.remove_rule(doubled)
    kb.forget("n")
    return ["add_tool", "assert_", "assert_many", "claim", "assert_", "assert_", "resolve",
            "nogood", "record_outcome", "add_rule", "assert_", "depend", "replace_when",
            "retract", "end", "remove_rule", "forget"]


def test_every_change_of_the_base_s_own_reaches_its_log_as_its_value() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    log = Heard()
    install_log(kb, log)
    expected = _changes(kb)
    assert set(expected) <= {c.name for c in log.calls}  # and the changes made inside them
    for call in log.calls:
        assert isinstance(call.change, BaseChange), call.name
        assert call.change.op == call.name
        assert call.method is EFFECTS[type(call.change)]  # its effect, from the one table
        assert (call.args, dict(call.kwargs)) == call.change.to_entry()


@tool(trust=0.8, key="made_stock:{item}")
def made_stock(item: str) -> int:
    return len(item)


def test_a_tool_call_and_a_remember_make_their_values() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    log = Heard()
    install_log(kb, log)
    assert kb.call(made_stock, None, "tea") == 3
    kb.remember("I live in Lyon.", source="human:ann",
                model=ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": [
                    {"subject": "I", "attribute": "city", "value": "Lyon",
                     "quote": "I live in Lyon"}]})])]))
    made = [c.change for c in log.calls if isinstance(c.change, (Call, Remember))]
    assert [type(c) for c in made] == [Call, Remember]
    assert made[0].call.key == "made_stock:tea" and made[0].result == 3


def test_the_effect_table_holds_every_value_of_the_base_s_own() -> None:
    import corollary.changes as changes

    kinds = {getattr(changes, n) for n in changes.__all__}
    own = {k for k in kinds if isinstance(k, type) and issubclass(k, BaseChange)
           and k is not BaseChange}
    assert set(EFFECTS) == own
    declared = {d.change for d in operations_of(BeliefBase).values() if d.change is not None}
    assert declared == own


def test_a_replay_runs_the_effect_of_the_value_its_entry_keeps(tmp_path: Path) -> None:
    # a class whose table runs another effect for a retract: its replay of a retract entry
    # runs that effect (the table's), not the method again
    seen: list[Change] = []

    def noted(kb: BeliefBase, change: Retract) -> None:
        seen.append(change)
        EFFECTS[Retract](kb, change)

    class Noting(BeliefBase):
        effects = {**BeliefBase.effects, Retract: noted}

    with open_ledger(str(tmp_path / "l.db")) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.retract("hq", reason="moved")
        again = Noting.open_session(ledger, "s", clock=ManualClock(1000))
        assert seen == [Retract("hq", reason="moved")]
        assert again.value("hq") is None


@pytest.mark.parametrize("op, args, kwargs", [
    ("call", (1, 2), {}),                                  # no declaration, key, result
    ("add_tool", ({"name": "t", "bogus": 1},), {}),        # not a tool's declaration
    ("add_rule", ("no.such.rule",), {}),                   # a rule not known here
    ("retract", (), {"key": "hq", "nope": 1}),             # no field of a Retract
    ("resolve", (), {"conflict": "nothing"}),              # a conflict that is not there
])
def test_a_corrupt_entry_of_the_base_s_own_is_a_typed_replay_error(
        tmp_path: Path, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with open_ledger(str(tmp_path / "l.db")) as ledger:
        BeliefBase.open_session(ledger, "s", clock=ManualClock(1000)).assert_(
            "hq", "Austin", source="tool:registry")
        body = {"op": op, "at": 1001.0, "a": pack_args(args, kwargs), "ops": [1, 2],
                "subj": [], "after": [], "n": 2}
        entries = ledger.store.journal_entries("s", 0)  # type: ignore[attr-defined]
        body["inc"] = decode_entry(*entries[0]).inc
        with ledger.store.journal("s") as w:  # type: ignore[attr-defined]
            w.append(encode_entry(body), 1001.0)
        with pytest.raises(JournalReplayError):
            BeliefBase.open_session(ledger, "s", clock=ManualClock(1002))

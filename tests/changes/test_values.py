"""Issue 36, item 1: each change of the base as a value, applied through one ``apply``.

A change made through its value is the change its method makes: the same journal entries (so
the same history, the same replay) and the same state. A user's change is applied only once
registered (never by its class being defined), and registration refuses what cannot be one.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest
from support.journal_workers import state

from corollary import BeliefBase, ManualClock, open_ledger, rule, tool
from corollary.changes import (
    AddRule,
    AddTool,
    Answer,
    Assert,
    AssertMany,
    Change,
    Claim,
    End,
    FitCalibrator,
    Forget,
    Guarantee,
    Nogood,
    RecordOutcome,
    RemoveGuarantee,
    RemoveRule,
    Resolve,
    Retract,
    apply,
    register_change,
)
from corollary.foundations.errors import InvalidInputError, InvalidTypeError, NameTakenError


@rule(output="tripled", inputs={"x": "n"}, name="tests.changes.tripled")
def tripled(x: int) -> int:
    return 3 * x


@tool(trust=0.8, key="shelf:{item}")
def shelf(item: str) -> int:
    return len(item)


def _examples() -> list[tuple[float, bool]]:
    rng = np.random.default_rng(0)
    s = rng.random(500)
    return list(zip(s.tolist(), (rng.random(500) < s).tolist(), strict=True))


def _as_methods(kb: BeliefBase) -> None:
    kb.add_tool(shelf)
    kb.assert_("a", 1, source="tool:one")
    kb.assert_many([("b", 2, "tool:one"), ("c", 3, "tool:two")])
    kb.claim("sum", 3, source="model:m", inputs={"x": "a", "y": "b"}, formula="x + y")
    kb.assert_("ceo", "Ann", source="tool:one")
    kb.assert_("ceo", "Bob", source="tool:two")
    kb.resolve("ceo", winner="Ann")
    kb.nogood("a", ("b", 2))
    kb.record_outcome("tool:one", True, reason="audited", key="a")
    kb.add_rule(tripled)
    kb.assert_("n", 7, source="tool:one")
    kb.retract("sum", reason="wrong")
    kb.end("c", source="tool:two", at=1001.0, reason="sold")
    kb.remove_rule(tripled)
    kb.guarantee("g", _examples(), max_error=0.2)
    kb.answer("a", "g")
    kb.remove_guarantee("g")
    kb.fit_calibrator(_examples())
    kb.forget("n")


VALUES: list[Change] = [
    AddTool(shelf), Assert("a", 1, "tool:one"),
    AssertMany([("b", 2, "tool:one"), ("c", 3, "tool:two")]),
    Claim("sum", 3, "model:m", {"x": "a", "y": "b"}, formula="x + y"),
    Assert("ceo", "Ann", "tool:one"), Assert("ceo", "Bob", "tool:two"),
    Resolve("ceo", winner="Ann"), Nogood(("a", ("b", 2))),
    RecordOutcome("tool:one", True, reason="audited", key="a"), AddRule(tripled),
    Assert("n", 7, "tool:one"), Retract("sum", reason="wrong"),
    End("c", source="tool:two", at=1001.0, reason="sold"), RemoveRule(tripled),
    Guarantee("g", _examples(), settings={"max_error": 0.2}), Answer("a", "g"),
    RemoveGuarantee("g"), FitCalibrator(_examples()), Forget("n"),
]


def _history(kb: BeliefBase) -> list[tuple[Any, ...]]:
    return [(h.operation, h.key, repr(h.value), h.label) for h in kb.history()]


def test_a_change_made_through_its_value_is_the_change_its_method_makes(tmp_path: Path) -> None:
    ledger = open_ledger(str(tmp_path / "ledger.db"))
    try:
        by_method = BeliefBase.open_session(ledger, "methods", clock=ManualClock(1000))
        by_value = BeliefBase.open_session(ledger, "values", clock=ManualClock(1000))
        _as_methods(by_method)
        for change in VALUES:
            apply(by_value, change)
        assert _history(by_value) == _history(by_method)
        assert len(_history(by_value)) == len(VALUES)
        assert state(by_value) == state(by_method)
        again = BeliefBase.open_session(ledger, "values", clock=ManualClock(1000))
        assert state(again) == state(by_method)
    finally:
        ledger.close()


def test_a_value_s_entry_reads_back_as_the_value() -> None:
    # an entry keeps what a replay needs: a tool's declaration (not its function), a rule's
    # name, a promise's name, a forget's who and why (those entries carry the state); the value read back keeps the
    # same entry, and a value of plain data reads back as itself
    plain = (AddTool, AddRule, RemoveRule, Guarantee, RemoveGuarantee, FitCalibrator, Forget)
    for change in VALUES:
        args, kwargs = change.to_entry()
        again = type(change).from_entry(args, kwargs)
        assert again.to_entry() == (args, kwargs), change
        if not isinstance(change, plain):
            assert again == change


@attrs.frozen(slots=True)
class Restock(Change):
    op = f"test_restock_{uuid.uuid4().hex[:6]}"
    item: str


def test_a_user_s_change_is_applied_only_once_registered() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    with pytest.raises(InvalidTypeError, match="not a registered change"):
        apply(kb, Restock("tea"))  # defined, not registered: no change of the base
    register_change(Restock, lambda kb, c: kb.assert_(f"stock:{c.item}", 1, source="tool:a"))
    apply(kb, Restock("tea"))
    assert kb.value("stock:tea") == 1


def test_registration_refuses_what_cannot_be_a_change() -> None:
    class Plain(Change):  # not an attrs class
        op = "test_plain"

    @attrs.frozen(slots=True)
    class Taken(Change):
        op = "assert_"  # the base's own operation

    @attrs.frozen(slots=True)
    class Nameless(Change):
        pass

    with pytest.raises(InvalidTypeError):
        register_change(Plain, lambda kb, c: None)
    with pytest.raises(NameTakenError):
        register_change(Taken, lambda kb, c: None)
    with pytest.raises(InvalidInputError):
        register_change(Nameless, lambda kb, c: None)
    with pytest.raises(InvalidTypeError):
        register_change(Assert, lambda kb, c: None)


def test_each_base_value_has_its_method_s_parameters() -> None:
    # a value missing a parameter cannot say a change its method makes (Remember had no links:
    # a remember whose facts link to each other could not be a value)
    import inspect

    import corollary.changes as changes
    from corollary.changes.base_changes import BaseChange

    for name in changes.__all__:
        kind = getattr(changes, name)
        if not (isinstance(kind, type) and issubclass(kind, BaseChange)) or kind is BaseChange:
            continue
        parameters = [p for p in inspect.signature(getattr(BeliefBase, kind.method)).parameters.values()
                      if p.kind is not p.VAR_KEYWORD][1:]  # not self (kb)
        fields = [f.name for f in attrs.fields(kind)]
        if kind is changes.Guarantee:  # its keyword settings are one field
            fields.remove("settings")
        assert fields == [p.name for p in parameters], kind.__name__


def test_a_value_left_at_its_defaults_gets_its_method_s_own_check() -> None:
    # apply calls the method with the fields said (not at their default): a field whose value
    # has a default but whose method requires it must still be passed, or the method raises a
    # TypeError for a missing argument where its own check names the bad input (End's source)
    kb = BeliefBase()
    kb.assert_("k", 1, source="tool:one")
    with pytest.raises(InvalidInputError) as direct:
        kb.end("k", source="")
    with pytest.raises(InvalidInputError) as applied:
        apply(kb, End("k"))
    assert str(applied.value) == str(direct.value)
    assert kb.value("k") == 1


def test_every_field_a_method_requires_is_said() -> None:
    # the general form of the test above: each value's said() holds every parameter its method
    # has no default for, whatever the value's own defaults
    import inspect

    import corollary.changes as changes
    from corollary.changes.base_changes import BaseChange

    for name in changes.__all__:
        kind = getattr(changes, name)
        if not (isinstance(kind, type) and issubclass(kind, BaseChange)) or kind is BaseChange:
            continue
        signature = inspect.signature(getattr(BeliefBase, kind.method))
        required = [f for f in attrs.fields(kind) if f.default is attrs.NOTHING]
        value = kind(*[object() for _ in required])
        said = value.said()
        for p in list(signature.parameters.values())[1:]:
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                assert p.name in said, (kind.__name__, p.name)

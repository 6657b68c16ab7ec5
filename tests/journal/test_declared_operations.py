"""Issue 26, point 2: a changing method is journaled by declaring it once (``@operation``,
corollary.facade.operations), and a base announces its changes through one hook, its operation
log. Before, a session's changes were wrappers copied onto the class from tables in
corollary/facade/journaled.py (a subclass's new changing method was not journaled: its inner
assertions were entries of their own, and a replay could not tell it was one change)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.declared_base import Shop

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger
from corollary.facade.operations import (
    OperationCall,
    install_log,
    operation,
    operations_of,
)
from corollary.facade.parts import Parts
from corollary.facade.saving import STATE_ATTRIBUTES, take_state
from corollary.foundations.errors import InvalidTypeError, JournalReplayError, UnknownBeliefError

ROOT = Path(__file__).resolve().parents[2]


def test_a_new_declared_method_of_a_subclass_is_one_entry_replayed_elsewhere(
        tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with open_ledger(path) as ledger:
        kb = Shop.open_session(ledger, "shop", clock=ManualClock(100))
        kb.list_price("tea", 4.5, currency="GBP")
        history = kb.history()
        assert [(h.operation, h.key, h.value) for h in history] == [
            ("list_price", "price:tea", 4.5)]
        again = Shop.open_session(ledger, "shop", clock=ManualClock(100))  # replays the entry
        assert (again.value("price:tea"), again.value("currency:tea")) == (4.5, "GBP")
        other = Shop.open_session(ledger, "shop", clock=ManualClock(100))
        other.list_price("jam", 3.0)
        assert kb.sync() == 1 and kb.value("currency:jam") == "EUR"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        from corollary import ManualClock, open_ledger
        from support.declared_base import Shop
        with open_ledger({str(path)!r}) as ledger:
            kb = Shop.open_session(ledger, "shop", clock=ManualClock(100))
            print(kb.value("price:tea"), kb.value("currency:jam"), kb.journal_seq)
    """)
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert ran.stdout.split() == ["4.5", "EUR", "2"], ran.stderr


def test_a_session_holds_no_copy_of_the_changes() -> None:
    from corollary.facade.journaled import Journal

    kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
    # a session is the base itself with a journal: no class of its own, and the journal holds
    # no copy of any change (issue 36, item 3)
    assert type(kb) is BeliefBase and type(kb.journal) is Journal
    assert vars(Journal).keys().isdisjoint(
        {op.method for op in operations_of(BeliefBase).values()})
    assert {op.method for op in operations_of(BeliefBase).values()} >= {
        "assert_", "assert_many", "claim", "retract", "nogood", "resolve", "record_outcome",
        "answer", "guarantee", "remove_guarantee", "fit_calibrator", "add_tool", "add_rule",
        "remove_rule", "_called", "_remembered"}


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []

    def run(self, call: OperationCall) -> Any:
        self.seen.append(("begin", call.name, call.bind().get("key")))
        try:
            result = call.proceed()
        except Exception as exc:
            self.seen.append(("fail", call.name, type(exc).__name__))
            raise
        self.seen.append(("end", call.name))
        return result

    def resolved(self, what: str, value: Any) -> None:
        self.seen.append(("resolved", what, value))


def test_a_plain_base_has_no_log_and_an_installed_log_hears_each_change() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    assert kb.parts.log is None
    log = Recorder()
    assert install_log(kb, log) is None
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.retract("hq")
    with pytest.raises(UnknownBeliefError):
        kb.retract("nowhere")
    assert log.seen == [("begin", "assert_", "hq"), ("end", "assert_"),
                        ("begin", "retract", "hq"), ("resolved", "retracted", "Austin"),
                        ("end", "retract"),
                        ("begin", "retract", "nowhere"), ("fail", "retract", "UnknownBeliefError")]
    assert install_log(kb, None) is log and kb.parts.log is None
    with pytest.raises(InvalidTypeError):
        install_log(kb, object())  # type: ignore[arg-type]


def test_an_override_of_a_declared_method_is_the_same_operation() -> None:
    class Counting(BeliefBase):
        def assert_(self, key, value, source, **options):  # type: ignore[no-untyped-def]
            return super().assert_(key, value, source, **options)

    assert Counting.assert_.__operation__ is BeliefBase.assert_.__operation__  # type: ignore[attr-defined]
    kb = Counting.open_session(TrustLedger(), "s", clock=ManualClock(0))
    kb.assert_("a", 1, source="tool:x")
    assert [h.operation for h in kb.history()] == ["assert_"]


def test_an_entry_of_an_operation_this_class_does_not_declare_is_refused(
        tmp_path: Path) -> None:
    with open_ledger(tmp_path / "l.db") as ledger:
        Shop.open_session(ledger, "s", clock=ManualClock(0)).list_price("tea", 1.0)
        with pytest.raises(JournalReplayError, match="list_price"):
            BeliefBase.open_session(ledger, "s", clock=ManualClock(0))


def test_operation_names_its_method_by_default() -> None:
    class Mine(BeliefBase):
        @operation("mine")
        def _change(self) -> None:
            pass

    assert operations_of(Mine)["mine"].method == "_change"


def test_a_declared_method_keeps_its_signature_and_hands_the_log_its_value() -> None:
    # issue 36: the base's own method checks, builds its change's value and makes it; a log
    # hears the value, whose entry (its fields by name, defaults left out) the call carries
    import inspect

    from corollary.changes import Assert, Nogood

    plain = BeliefBase(clock=ManualClock(0))
    with pytest.raises(TypeError, match="assert_"):
        plain.assert_("k")  # type: ignore[call-arg]
    kb = BeliefBase(clock=ManualClock(0))
    log = Kept()
    install_log(kb, log)
    assert inspect.signature(kb.assert_) == inspect.signature(plain.assert_)
    assert kb.assert_.__doc__ == plain.assert_.__doc__
    kb.assert_("k", 1, "tool:x", certainty=0.5)
    kb.assert_("j", 2, source="tool:x")
    kb.nogood("k", ("j", 2), name="n")
    assert log.calls == [
        ("assert_", (), {"key": "k", "value": 1, "source": "tool:x", "certainty": 0.5}),
        ("assert_", (), {"key": "j", "value": 2, "source": "tool:x"}),
        ("nogood", ("k", ("j", 2)), {"name": "n"})]
    assert log.changes == [Assert("k", 1, "tool:x", certainty=0.5), Assert("j", 2, "tool:x"),
                           Nogood(("k", ("j", 2)), name="n")]


class Refuses:
    def run(self, call: OperationCall) -> Any:
        raise RuntimeError("refused")

    def resolved(self, what: str, value: Any) -> None:
        pass


@pytest.mark.parametrize("logged", [False, True])
def test_a_traceback_through_a_declared_change_shows_its_source(logged: bool) -> None:
    """Issue 36: the wrappers were made from source text with ``exec``, so tracebacks and
    debuggers showed no line for them; now every frame of a declared change has its source."""
    import linecache
    import traceback

    kb = BeliefBase(clock=ManualClock(0))
    if logged:
        install_log(kb, Refuses())
    with pytest.raises(Exception) as caught:  # noqa: PT011 - refused by the log, or the base
        kb.assert_("k", 1, source="no-kind-here")
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert len(frames) >= 2
    assert all(linecache.getline(f.filename, f.lineno or 0).strip() for f in frames), [
        (f.filename, f.lineno) for f in frames]


class Kept:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.changes: list[Any] = []

    def run(self, call: OperationCall) -> Any:
        self.calls.append((call.name, call.args, dict(call.kwargs)))
        self.changes.append(call.change)
        return call.proceed()

    def resolved(self, what: str, value: Any) -> None:
        pass


def test_no_test_helper_is_left_in_the_journal() -> None:
    from corollary.facade.journaled import Journal, JournalClock

    assert not hasattr(Journal, "exhaustive") and not hasattr(Journal, "verify")
    assert not hasattr(JournalClock, "held")


class Notebook(BeliefBase):
    """A subclass with state of its own, which is not the base's snapshot state."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notes: list[str] = []


def test_taking_another_writer_s_state_takes_only_the_parts_it_lists() -> None:
    # issue 26 point 2: a replayed promise change used to replace vars(self) wholesale (the
    # journal kept what started with "_j" and a list of names): a subclass's own attributes
    # were lost, and the journal reached into every private attribute of the base
    import numpy as np

    rng = np.random.default_rng(0)
    s = rng.random(500)
    examples = list(zip(s.tolist(), (rng.random(500) < s).tolist(), strict=True))
    ledger = TrustLedger()
    kb = Notebook.open_session(ledger, "s", clock=ManualClock(0), max_rule_firings=77)
    kb.notes.append("mine")
    other = Notebook.open_session(ledger, "s", clock=ManualClock(0))
    other.assert_("hq", "Austin", source="tool:a")
    other.fit_calibrator(examples)
    engine = kb.engine
    assert kb.sync() == 2  # the calibrator's entry carries a state: kb takes it
    assert kb.engine is not engine and kb.value("hq") == "Austin"
    assert kb.notes == ["mine"] and kb.parts.log is kb.journal  # its own, and the journal's, stay
    assert kb.max_rule_firings == 77 and kb.parts.rules.max_firings == 77  # this process's
    assert kb.calibrator is not None
    fresh = BeliefBase(clock=ManualClock(0))
    taken = BeliefBase(clock=ManualClock(0))
    take_state(taken, fresh)
    for name in STATE_ATTRIBUTES:
        assert getattr(taken, name) is getattr(fresh, name)
    for name in Parts.STATE:
        assert getattr(taken.parts, name) is getattr(fresh.parts, name)
    assert taken.parts.uid != fresh.parts.uid and taken.parts.log is None


def test_every_attribute_of_a_base_is_state_or_its_own() -> None:
    # the base's own attributes and its parts' fields are each the base's state (a snapshot's)
    # or this process's own (configuration, operation count and id, saved versions, log)
    kb = BeliefBase(clock=ManualClock(0))
    own = {"conflict_policy", "max_rule_firings", "max_rule_seconds", "parts"}
    state = set(STATE_ATTRIBUTES)
    assert not state & own
    assert set(vars(kb)) == state | own
    process = {"uid", "ops", "sessions", "log"}
    assert not process & set(Parts.STATE)
    assert set(Parts.__slots__) == set(Parts.STATE) | process
    assert all(hasattr(kb.parts, name) for name in Parts.__slots__)


def test_every_option_of_the_base_is_an_option_of_open_session() -> None:
    import inspect

    from corollary.facade.journaled import OPTIONS

    base = set(inspect.signature(BeliefBase.__init__).parameters)
    assert base - {"self", "ledger", "clock", "conflicts"} | {"functions"} == set(OPTIONS)


def test_a_declared_method_may_name_its_parameters_anything() -> None:
    class Odd(BeliefBase):
        @operation(subjects=lambda a, r, d: [[a["log"], None, None, None]])
        def note(this, log: str, *rest: int, changing: int = 0, **more: Any) -> tuple[Any, ...]:
            this.assert_(log, sum(rest) + changing, source="tool:x")  # noqa: UP005
            return (log, rest, changing, more)

    kb = Odd.open_session(TrustLedger(), "s", clock=ManualClock(0))
    assert kb.note("k", 1, 2, changing=3, extra=4) == ("k", (1, 2), 3, {"extra": 4})
    assert [(h.operation, h.key) for h in kb.history()] == [("note", "k")]
    assert Odd(clock=ManualClock(0)).note("j") == ("j", (), 0, {})


def test_a_past_view_keeps_the_declared_priors_and_tiers() -> None:
    # the journal read the ledger's private tables (_declared, _tiers); it asks declarations()
    ledger = TrustLedger()
    ledger.declare_prior("tool:x", 0.7)
    ledger.declare_tier("model:large", "high")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(10))
    kb.assert_("hq", "Austin", source="tool:x")
    past = kb.as_of(10)
    assert past.ledger is not ledger
    assert past.ledger.declarations() == ({"tool:x": 0.7}, {"model:large": "high"})


def test_a_plain_base_calls_its_own_changes_themselves() -> None:
    """A plain base's class holds the base's own changing methods undecorated (no wrapper, so
    no cost); with a log installed they hand it their values, and removing it leaves nothing
    of it in the base (no cycle)."""
    kb = BeliefBase(clock=ManualClock(0))
    assert kb.assert_.__func__ is BeliefBase.__dict__["assert_"]
    kb.assert_("a", 1, source="tool:x")
    log = Kept()
    install_log(kb, log)
    kb.assert_("b", 2, source="tool:x")
    install_log(kb, None)
    kb.assert_("c", 3, source="tool:x")
    assert log.calls == [("assert_", (), {"key": "b", "value": 2, "source": "tool:x"})]
    assert kb.keys() == ["a", "b", "c"]
    assert not any(callable(v) for v in vars(kb).values() if hasattr(v, "__self__"))

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
    kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
    assert type(kb).__dict__.keys().isdisjoint(operations_of(BeliefBase))
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
    assert kb._oplog is None
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
    assert install_log(kb, None) is log and kb._oplog is None
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


def test_a_declared_method_keeps_its_signature_and_the_arguments_as_given() -> None:
    import inspect

    plain = BeliefBase.assert_.__wrapped__  # type: ignore[attr-defined]
    assert inspect.signature(BeliefBase.assert_) == inspect.signature(plain)
    with pytest.raises(TypeError, match="BeliefBase.assert_"):
        BeliefBase().assert_("k")  # type: ignore[call-arg]
    kb = BeliefBase(clock=ManualClock(0))
    log = Kept()
    install_log(kb, log)
    kb.assert_("k", 1, "tool:x", certainty=0.5)
    kb.assert_("j", 2, source="tool:x")
    kb.nogood("k", ("j", 2), name="n")
    assert log.calls == [("assert_", ("k", 1, "tool:x", None, None, None, 0.5), {}),
                         ("assert_", ("j", 2, "tool:x"), {}),
                         ("nogood", ("k", ("j", 2)), {"name": "n"})]


class Kept:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def run(self, call: OperationCall) -> Any:
        self.calls.append((call.name, call.args, dict(call.kwargs)))
        return call.proceed()

    def resolved(self, what: str, value: Any) -> None:
        pass


def test_no_test_helper_is_left_in_the_journal() -> None:
    from corollary.facade.journaled import JournalClock, JournaledMethods

    assert not hasattr(JournaledMethods, "_jexhaustive") and not hasattr(JournaledMethods, "_jverify")
    assert not hasattr(JournalClock, "held")

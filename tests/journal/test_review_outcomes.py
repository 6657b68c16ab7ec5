"""Adversarial review of journaled sessions (issue 19): outcomes exactly once.

Outcome event ids derive from ``session_uid(session_id)`` and the operation counter
(journaled.py ``session_uid``; blame.py ``outcome_events``), not the journal's incarnation. When
a session's journal starts again (``convert_session(overwrite=True)``, or
``store.delete_journal`` and a new open) the counter starts again too, and an acknowledged
``record_outcome`` of the new journal gets the id of an old one: the ledger drops it as known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corollary import BeliefBase, JournalError, ManualClock, open_ledger


def test_review_an_outcome_after_converting_again_is_recorded(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    old = BeliefBase(ledger=ledger, clock=ManualClock(0))
    old.assert_("x", 1, source="tool:a")
    old.save_session("s")
    BeliefBase.convert_session(ledger, "s")
    BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).record_outcome("tool:a", False)
    BeliefBase.convert_session(ledger, "s", overwrite=True)  # the journal starts again
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(100))
    kb.record_outcome("tool:a", False)  # acknowledged: one entry in the new journal
    assert [h.operation for h in kb.history()] == ["record_outcome"]
    assert len(ledger.outcomes()) == 2  # 1 today: the new outcome took the old one's id
    ledger.close()


def test_review_an_outcome_in_a_recreated_session_is_recorded(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    BeliefBase.open_session(ledger, "t", clock=ManualClock(0)).record_outcome("tool:a", False)
    store: Any = ledger.store
    assert store.delete_journal("t")
    BeliefBase.open_session(ledger, "t", clock=ManualClock(50)).record_outcome("tool:a", False)
    assert len(ledger.outcomes()) == 2
    ledger.close()


def test_review_an_open_base_notices_its_journal_was_replaced(tmp_path: Path) -> None:
    """The same root: nothing names a journal's incarnation. A base open on the old journal
    applies the new journal's later entries over its old state (it only checks that the
    journal did not get shorter), silently unlike a fresh open."""
    path = tmp_path / "l.db"
    ledger = open_ledger(path)
    old = BeliefBase(ledger=ledger, clock=ManualClock(0))
    old.assert_("snap", 1, source="tool:a")
    old.save_session("s")
    a = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    a.assert_("a1", 1, source="tool:a")
    a.assert_("a2", 2, source="tool:a")
    BeliefBase.convert_session(ledger, "s", overwrite=True)  # the journal is replaced
    b = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    for i in range(3):
        b.assert_(f"b{i}", i, source="tool:b")
    try:
        a.sync()  # today: applies b's entry 3 on top of a1, a2
    except JournalError:
        return  # a typed refusal ("open the session again") is right too
    fresh = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    assert sorted(a.keys()) == sorted(fresh.keys())  # ['a1', 'a2', 'b2'] vs b0, b1, b2, snap

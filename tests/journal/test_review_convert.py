"""Adversarial review of journaled sessions (issue 19): converting a whole-snapshot session.

A conversion refused because the session already has a journal must write nothing; today the
outcomes of a snapshot that kept a ledger of its own are recorded in the shared ledger first
(journaled.py ``convert_to_journal``: ``ledger.record_many`` before the journal check)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corollary import BeliefBase, JournalError, ManualClock, TrustLedger, open_ledger


def test_review_a_refused_conversion_records_no_outcome(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    own = BeliefBase(clock=ManualClock(0))  # a base with a ledger of its own
    own.assert_("hq", "A", source="tool:a")
    own.record_outcome("tool:a", False, reason="audit")
    own.save_session("s")
    data, _ = own.ledger.store.read_session("s")  # type: ignore[attr-defined]
    ledger.store.save_session("s", data)  # type: ignore[attr-defined]  # the same id, in the ledger
    BeliefBase.convert_session(ledger, "s")  # its outcome joins the ledger, once
    assert len(ledger.outcomes()) == 1
    with pytest.raises(JournalError, match="already has a journal"):
        BeliefBase.convert_session(ledger, "s")
    assert len(ledger.outcomes()) == 1  # was recorded again by the refused conversion
    ledger.close()


def test_review_opening_a_whole_snapshot_session_does_not_start_an_empty_journal(
        tmp_path: Path) -> None:
    """``open_session`` on an id that holds a whole-snapshot session (not converted) opens an
    empty journal under the same id: the agent sees none of its beliefs, its new changes go
    to a journal that a later ``convert_session`` refuses ("already has a journal") or, with
    overwrite=True, throws away. It should convert, or raise a typed error that says to."""
    ledger = open_ledger(tmp_path / "l.db")
    old = BeliefBase(ledger=ledger, clock=ManualClock(0))
    old.assert_("hq", "Austin", source="tool:a")
    old.save_session("s")
    try:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    except JournalError:
        return  # refused, naming convert_session: right too
    assert kb.keys() == ["hq"]  # today: [] (an empty base)
    ledger.close()


def _replaced_under(tmp_path: Path) -> tuple[TrustLedger, BeliefBase]:
    """A base opened on a new session (no entry applied), then the session's journal replaced
    by ``convert_session(overwrite=True)`` of a snapshot holding plan='enterprise'."""
    ledger = open_ledger(tmp_path / "l.db")
    early = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    snap = BeliefBase(clock=ManualClock(0))
    snap.assert_("plan", "enterprise", source="human:sales")
    snap.save_session("s")
    data, _ = snap.ledger.store.read_session("s")  # type: ignore[attr-defined]
    # a journaled id takes no snapshot: the journal goes first (as an operator replacing a
    # session by an older snapshot would do it), then the snapshot is converted in its place
    ledger.store.delete_journal("s")  # type: ignore[attr-defined]
    ledger.store.save_session("s", data)  # type: ignore[attr-defined]
    BeliefBase.convert_session(ledger, "s", overwrite=True)
    return ledger, early


def test_a_replaced_journal_refuses_a_change_of_a_base_that_applied_no_entry(
        tmp_path: Path) -> None:
    """issue 28 item 2: the change was accepted on top of the new journal, and the base read
    plan=None where a fresh open reads 'enterprise'."""
    ledger, early = _replaced_under(tmp_path)
    with pytest.raises(JournalError, match="was replaced"):
        early.assert_("x", 1, source="tool:a")
    fresh = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    assert fresh.value("plan") == "enterprise" and "x" not in fresh
    assert fresh.journal_seq == 0  # type: ignore[attr-defined]  # nothing appended to it
    ledger.close()


def test_a_replaced_journal_refuses_its_entries_to_a_base_that_applied_none(
        tmp_path: Path) -> None:
    ledger, early = _replaced_under(tmp_path)
    BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).assert_("y", 2, source="tool:a")
    with pytest.raises(JournalError, match="was replaced"):
        early.sync()  # type: ignore[attr-defined]
    ledger.close()

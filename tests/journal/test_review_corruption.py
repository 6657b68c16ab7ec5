"""Adversarial review of journaled sessions (issue 19): a damaged journal.

An entry row lost from the end of the journal (the head row says 3, entries stop at 2) opens
silently at seq 2; the next change then appends entry 4 after the gap, and from then on the
session never opens again. A journal shorter than its head is damage: a typed
``JournalCorruptError`` at open, and no append past it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from corollary import BeliefBase, JournalCorruptError, ManualClock, open_ledger


def _journal_with_a_gap(tmp_path: Path) -> Path:
    """A session of three entries whose last entry is gone while its head still says 3."""
    path = tmp_path / "l.db"
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
        for i in range(3):
            kb.assert_(f"k{i}", i, source="tool:a")
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM corollary_journal WHERE seq = 3")
    conn.commit()
    conn.close()
    return path


def test_review_a_journal_shorter_than_its_head_is_a_typed_error(tmp_path: Path) -> None:
    path = _journal_with_a_gap(tmp_path)
    with open_ledger(path) as ledger, pytest.raises(JournalCorruptError):
        BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))  # opens at seq 2 today


def test_review_no_change_is_appended_past_a_gap(tmp_path: Path) -> None:
    path = _journal_with_a_gap(tmp_path)
    with open_ledger(path) as ledger:
        try:
            kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
            kb.assert_("new", 1, source="tool:a")  # today: entry 4 written after the gap
        except JournalCorruptError:
            pass
    conn = sqlite3.connect(path)
    seqs = [s for (s,) in conn.execute("SELECT seq FROM corollary_journal ORDER BY seq")]
    conn.close()
    assert seqs == list(range(1, len(seqs) + 1))  # no gap was written

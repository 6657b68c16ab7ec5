"""Adversarial review of journaled sessions (issue 19): outcomes exactly once.

Outcome event ids derive from ``session_uid(session_id)`` and the operation counter
(journaled.py ``session_uid``; blame.py ``outcome_events``), not the journal's incarnation. When
a session's journal starts again (``convert_session(overwrite=True)``, or
``store.delete_journal`` and a new open) the counter starts again too, and an acknowledged
``record_outcome`` of the new journal gets the id of an old one: the ledger drops it as known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corollary import BeliefBase, ManualClock, open_ledger


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

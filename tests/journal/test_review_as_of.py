"""Adversarial review of journaled sessions (issue 19): ``as_of`` is "a read-only base as it
stood at journal time t" (issue 19, point 3). Its confidences read the ledger as it is now
(docs/journal.md says so), so an ``as_of`` at the time of an entry disagrees with that entry's
own history record (label and confidence once the change was made)."""

from __future__ import annotations

from pathlib import Path

from corollary import BeliefBase, ManualClock, open_ledger


def test_review_as_of_an_entry_agrees_with_its_history_record(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "s", clock=clock)
    kb.assert_("hq", "Austin", source="tool:a")
    clock.advance(10)
    for _ in range(5):
        kb.record_outcome("tool:a", False, reason="audit")  # later: tool:a was often wrong
    first = kb.history("hq")[0]
    assert first.confidence == 0.95
    past = kb.as_of(first.time)
    assert past.label("hq") == first.label
    assert past.confidence("hq") == first.confidence  # 0.63 today: reliability of now
    ledger.close()

"""A journaled base whose clock is behind the journal (another writer's clock is ahead) reads at
the time of the last entry it applied, never before: a read at its own earlier time would see
premises that expired before changes it has applied, fire rules on them, and leave derived
values that a fresh open never has (found by the review's two-writer fuzz)."""

from __future__ import annotations

from pathlib import Path

from support.journal_workers import journal_total, state

from corollary import BeliefBase, ManualClock, open_ledger


def test_a_base_behind_the_journal_reads_at_its_last_entry_time(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    behind = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000),
                                     rules=[journal_total])
    ahead = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1234),
                                    rules=[journal_total])
    behind.assert_("b", 1.0, source="tool:x", ttl=50)  # entry 1 at 1000, expires at 1050
    ahead.assert_("hq", "x", source="tool:y")  # entry 2 at 1234
    behind.assert_("a", 2.0, source="tool:x")  # entry 3 at 1234: b has expired, no total
    assert behind.now() == 1234.0  # its clock says 1000: it reads at the journal's time
    assert behind.label("b") == "OUT"
    assert "total" not in behind.keys()  # a read at 1000 fired journal_total on a and b
    fresh = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1234),
                                    rules=[journal_total])
    assert state(fresh) == state(behind)
    behind.checkpoint()  # the snapshot is taken at 1234 too
    again = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1234),
                                    rules=[journal_total])
    assert state(again) == state(fresh)

"""Adversarial review of journaled sessions (issue 19): time.

Writers' clocks differ (processes, machines). A base whose clock is ahead of an entry's time
replays the entry at the entry's time; afterwards it must read its own time again. Today a
premise whose ttl ran out (OUT at the base's time, before the entry) comes back IN after the
replay, at the base's time, and stays IN, while a fresh open at the same time says OUT."""

from __future__ import annotations

from pathlib import Path

from support.journal_workers import journal_total, state

from corollary import BeliefBase, ManualClock, open_ledger


def test_review_a_replay_at_an_earlier_time_does_not_revive_an_expired_premise(
        tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    behind = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000),
                                     rules=[journal_total])
    ahead = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(5000),
                                    rules=[journal_total])
    behind.assert_("a", 1.0, source="tool:a", ttl=3000)  # expires at 4000
    ahead.sync()
    assert ahead.label("a") == "OUT"  # at 5000: expired
    behind.assert_("b", 2.0, source="tool:b")  # at 1000: fires total from a and b
    ahead.sync()
    fresh = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(5000),
                                    rules=[journal_total])
    assert fresh.label("a") == "OUT"
    assert ahead.label("a") == "OUT"  # IN today
    assert state(ahead) == state(fresh)

"""Adversarial review of journaled sessions (issue 19): one journaled base used by two threads.

A change made by a second thread while the first thread's change is running (its rules firing)
must still be one entry of the journal; today it skips the journal (the base's "inside a change"
depth counter is shared by every thread), so a fresh open lacks it."""

from __future__ import annotations

import threading
from pathlib import Path

from support.journal_workers import state

from corollary import BeliefBase, ManualClock, open_ledger, rule

_entered = threading.Event()
_release = threading.Event()


@rule(output="slow_out", inputs={"x": "slow_in"}, name="tests.journal.review.slow")
def slow(x: int) -> int:
    _entered.set()  # the first thread is inside its change now
    _release.wait(10)
    return x


def test_review_a_change_from_a_second_thread_is_journaled(tmp_path: Path) -> None:
    _entered.clear()
    _release.clear()
    ledger = open_ledger(tmp_path / "l.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000), rules=[slow])
    first = threading.Thread(target=kb.assert_, args=("slow_in", 1, "tool:a"))
    first.start()
    assert _entered.wait(10)
    second_done = threading.Event()

    def second() -> None:
        kb.assert_("other", 2, source="tool:b")
        second_done.set()

    t2 = threading.Thread(target=second)
    t2.start()
    second_done.wait(0.5)  # a journaled change waits for the first one's lock (not done)
    _release.set()
    first.join(10)
    t2.join(10)
    assert kb.value("other") == 2
    ops = [(h.operation, h.key) for h in kb.history()]
    assert ("assert_", "other") in ops  # today: not in the journal at all
    fresh = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000), rules=[slow])
    assert state(fresh) == state(kb)
    ledger.close()

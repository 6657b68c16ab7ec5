"""Adversarial review of journaled sessions (issue 19): checkpoints.

- ``store.prune_checkpoints`` (docs/journal.md recommends it "when storage matters more than
  fast time travel") deletes the checkpoints that promise entries (guarantee,
  remove_guarantee, fit_calibrator) are replayed from, so the session no longer opens and
  ``as_of`` fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from corollary import BeliefBase, ManualClock, open_ledger


def _examples() -> list[tuple[float, bool]]:
    rng = np.random.default_rng(0)
    s = rng.random(500)
    return list(zip(s.tolist(), (rng.random(500) < s).tolist(), strict=True))


def test_review_pruning_checkpoints_keeps_a_session_with_a_promise_openable(
        tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "s", clock=clock)
    kb.assert_("a", 1, source="tool:a")
    kb.guarantee("g", _examples(), max_error=0.2)  # its entry's checkpoint is at seq 2
    clock.advance(10)
    kb.assert_("b", 2, source="tool:a")
    store: Any = ledger.store
    store.prune_checkpoints("s", 0)  # keeps the first only (seq 0)
    fresh = BeliefBase.open_session(ledger, "s", clock=clock)  # JournalReplayError today
    assert set(fresh.promises) == {"g"} and fresh.value("b") == 2
    ledger.close()


def test_review_as_of_after_pruning_to_the_newest_checkpoint(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "s", clock=clock, checkpoint_every=3)
    kb.assert_("a", 1, source="tool:a")
    kb.guarantee("g", _examples(), max_error=0.2)  # seq 2, checkpoint 2
    clock.advance(10)
    for i in range(4):
        kb.assert_(f"k{i}", i, source="tool:a")  # an automatic checkpoint at 3 or later
    store: Any = ledger.store
    store.prune_checkpoints("s", 1)  # the first and the newest
    assert BeliefBase.open_session(ledger, "s", clock=clock).value("k3") == 3  # opens
    past = kb.as_of(1005)  # between the guarantee and the next changes: replays from seq 0
    assert set(past.promises) == {"g"}
    ledger.close()

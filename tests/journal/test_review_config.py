"""Adversarial review of journaled sessions (issue 19): configuration and checkpoints.

The conflict policy is configuration of the process (not an entry, docs/journal.md), yet a
checkpoint saves the policy of whichever process wrote it, and an open without
``conflict_policy=`` takes it from there: two opens with the same arguments, before and after
another process's checkpoint, see different labels and conflicts."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.journal_workers import state

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    SessionPolicyError,
    open_ledger,
)


def test_review_an_open_does_not_take_the_policy_of_another_process_checkpoint(
        tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    a = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    a.assert_("hq", "A", source="tool:a")
    a.assert_("hq", "B", source="document:b")
    before = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    assert len(before.conflicts()) == 1  # no policy: the conflict is open
    with pytest.raises(SessionPolicyError):  # the session keeps its policy (issue 35, item 3)
        BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0),
                                conflict_policy=PreferHigherConfidence())
    b = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    b.checkpoint()  # another process's checkpoint: the session's own policy goes into it
    after = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    assert after.conflict_policy == before.conflict_policy  # PreferHigherConfidence today
    assert after.conflicts() == before.conflicts()
    assert state(after) == state(before)
    assert a.as_of(0).conflict_policy == a.conflict_policy

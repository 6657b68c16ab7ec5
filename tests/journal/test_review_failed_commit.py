"""Adversarial review of journaled sessions (issue 19): a change whose commit fails (a full
disk) "leaves nothing behind, in memory or in the ledger" (issue 19, point 5).

Today the change stays visible in memory until the base's next change or sync, and
``kb.checkpoint()`` in between writes it into the session for good."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.journal_workers import CommitFails, state

from corollary import BeliefBase, ManualClock, StoreError, TrustLedger
from corollary.storage.sqlite import SQLiteStore


def _base(tmp_path: Path) -> tuple[CommitFails, TrustLedger, BeliefBase]:
    store = CommitFails(tmp_path / "l.db")
    ledger = TrustLedger(store=store)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.assert_("hq", "Austin", source="tool:a")
    return store, ledger, kb


def test_review_a_change_whose_commit_failed_is_not_read_back(tmp_path: Path) -> None:
    store, ledger, kb = _base(tmp_path)
    store.fail = True
    with pytest.raises(StoreError):
        kb.retract("hq")
    assert kb.value("hq") == "Austin"  # None today: the uncommitted retraction is read
    assert kb.keys() == ["hq"]
    ledger.close()


def test_review_a_checkpoint_after_a_failed_commit_keeps_only_committed_changes(
        tmp_path: Path) -> None:
    store, ledger, kb = _base(tmp_path)
    store.fail = True
    with pytest.raises(StoreError):
        kb.retract("hq")
    kb.checkpoint()  # today: a snapshot of the uncommitted state, at the last committed seq
    fresh = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    assert fresh.value("hq") == "Austin"
    assert [h.operation for h in fresh.history()] == ["assert_"]
    assert state(fresh) == state(kb)
    ledger.close()


def test_review_watchers_hear_other_writers_entries_applied_by_the_rebuild(
        tmp_path: Path) -> None:
    """After a failed commit the base rebuilds from the journal with its watchers muted
    (journaled.py ``Journal.reload``); entries other writers appended since are applied by that
    rebuild and never reported."""
    store, ledger, kb = _base(tmp_path)
    other = BeliefBase.open_session(TrustLedger(store=SQLiteStore(store.path)), "s",
                                    clock=ManualClock(1000))
    heard: list[tuple[str, str | None, str | None]] = []
    kb.watch(lambda e: heard.append((e.key, e.before, e.after)), keys=["hq"])
    store.fail = True
    with pytest.raises(StoreError):
        kb.assert_("x", 1, source="tool:a")
    other.retract("hq")  # another writer, after the failure
    kb.sync()  # rebuilds, applying other's retraction
    assert kb.value("hq") is None
    assert heard == [("hq", "IN", "OUT")]  # [] today
    ledger.close()

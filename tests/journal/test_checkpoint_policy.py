"""The checkpoint policy of journaled sessions (issue 38 item 4; docs/journal.md): below
``checkpoint_every`` a checkpoint at each power of two from CHECKPOINT_FIRST on, so a small
session reopens replaying at most half its journal; superseded checkpoints pruned (the first,
seq 0, kept), so a session's stored checkpoints stay two however long its history. On SQLite,
in memory and on PostgreSQL (``postgres`` marker)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.journal_workers import state
from support.ledger_targets import PG_URL, Target

from corollary import BeliefBase, ManualClock, TrustLedger
from corollary.facade.journaled import CHECKPOINT_FIRST


@pytest.fixture(params=["sqlite", "memory", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TrustLedger]:
    if request.param == "memory":
        yield TrustLedger()
        return
    target = Target(request.param, tmp_path)
    made = target.open()
    yield made
    made.close()
    target.cleanup()


def kept(store: Any, head: int) -> set[int]:
    return {store.read_checkpoint("s", upto)[0] for upto in range(head + 1)}


def test_a_small_session_reopens_replaying_at_most_half_its_journal(ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))  # every 1,000 entries
    store: Any = ledger.store
    for n in range(1, 131):
        kb.assert_(f"k{n % 40}", n, source="tool:a")
        newest = store.read_checkpoint("s")[0]
        assert n - newest <= max(CHECKPOINT_FIRST - 1, n // 2), n
    assert kept(store, 130) == {0, 128}  # 16, 32 and 64 were pruned as 128 superseded them
    fresh = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    assert fresh.journal_seq == 130 and state(fresh) == state(kb)


def test_a_long_history_keeps_two_checkpoints_and_the_past_is_still_read(
        ledger: TrustLedger) -> None:
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "s", clock=clock, checkpoint_every=10)
    for n in range(1, 96):
        clock.advance(1)
        kb.assert_("count", n, source="tool:a")
    store: Any = ledger.store
    assert kept(store, 95) == {0, 90}
    fresh = BeliefBase.open_session(ledger, "s", clock=ManualClock(2000))
    assert fresh.journal_seq == 95 and fresh.value("count") == 95
    assert kb.as_of(1000 + 42).value("count") == 42  # replayed from the first checkpoint
    assert kb.checkpoint() == 95 and kept(store, 95) == {0, 95}

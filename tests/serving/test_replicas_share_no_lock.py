"""Issue 38 item 5: two replicas writing different users' sessions share no lock. One replica
(a process) holds a user's journal transaction open, with an outcome recorded in it; the other
(another process) writes two other users' sessions, one of them new, and reads them back, and
finishes while the first still holds everything. A wait for a lock of the first would keep the
second from finishing until the first gives up (``patience``), which the first reports.

Needs ``COROLLARY_TEST_PG_URL``; skipped without it.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from support.ledger_targets import PG_URL, Target
from support.replica_workers import hold_a_session, write_meanwhile

pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]
pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")

PATIENCE = 60.0  # how long the holder holds at most: a guard against hanging, not a timing


def test_a_replica_writes_other_sessions_while_another_holds_one(tmp_path: Path) -> None:
    target = Target("postgres", tmp_path)
    ctx = multiprocessing.get_context("spawn")
    try:
        with ctx.Manager() as manager, ctx.Pool(2) as pool:
            holding, done = manager.Event(), manager.Event()
            writer = pool.apply_async(write_meanwhile, (
                target.url, target.options, ["memories:u2", "memories:u3"], holding, done,
                PATIENCE))
            holder = pool.apply_async(hold_a_session, (
                target.url, target.options, "memories:u1", holding, done, PATIENCE))
            assert writer.get(PATIENCE * 2) == 4  # acknowledged, read back
            assert holder.get(PATIENCE * 2) is True  # ...while the holder held its session
    finally:
        target.cleanup()

"""Checkpoints off the request path (corollary/serving/shards.py, docs/many-users.md,
"Checkpoints"): a checkpoint that a change through the cache makes due (by size or age) is
written by the cache's writer thread, never by the change; a process killed before it was
written loses nothing (the journal holds every entry). On SQLite and PostgreSQL
(``postgres`` marker)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.journal_workers import state
from support.ledger_targets import PG_URL, Target
from support.shard_workers import changes_then_killed

from corollary import BeliefBase, ManualClock, TrustLedger
from corollary.facade.journaled import CHECKPOINT_FIRST
from corollary.foundations.errors import InvalidInputError
from corollary.serving.shards import SessionCache

KINDS = ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])]


@pytest.fixture(params=KINDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    found = Target(request.param, tmp_path)
    yield found
    found.cleanup()


def newest(ledger: TrustLedger, session_id: str) -> int:
    store: Any = ledger.store
    found = store.read_checkpoint(session_id)
    return -1 if found is None else int(found[0])


def test_the_change_that_makes_a_checkpoint_due_returns_without_writing_it(
        target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        with cache.session("alice") as held:  # the writer waits for the session, as callers do
            for i in range(CHECKPOINT_FIRST):
                with cache.session("alice", sync=False) as kb:
                    kb.assert_(f"k{i % 5}", i, source="tool:app")
            assert held.journal_seq == CHECKPOINT_FIRST  # a checkpoint is due here...
            assert newest(ledger, "alice") == 0  # ...and the change returned without it
            for i in range(3):  # more entries before the writer gets to it: none due by size
                held.assert_("extra", i, source="tool:app")
        assert cache.wait_checkpoints(60)
        last = CHECKPOINT_FIRST + 3
        assert newest(ledger, "alice") == last  # written once the session was free, at its end
        with cache.session("alice") as kb:
            expected = state(kb)
        fresh = BeliefBase.open_session(ledger, "alice")  # from that checkpoint: the same state
        assert fresh.journal_seq == last and state(fresh) == expected
    finally:
        ledger.close()


def test_a_checkpoint_due_by_age_is_written_by_the_cache_too(target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger, clock=ManualClock(1000), checkpoint_seconds=0.0)
        with cache.session("bob") as held:
            with cache.session("bob", sync=False) as kb:
                kb.assert_("city", "Lisbon", source="tool:app")  # entry 1: due by age at once
            assert held.journal_seq == 1 and newest(ledger, "bob") == 0
        assert cache.wait_checkpoints(60) and newest(ledger, "bob") == 1
        with pytest.raises(InvalidInputError):
            cache.wait_checkpoints(-1)
    finally:
        ledger.close()


def test_a_put_through_the_sharded_store_returns_without_writing_the_checkpoint(
        target: Target) -> None:
    pytest.importorskip("langgraph")
    from corollary.integrations.langgraph import CorollaryStore

    ledger = target.open()
    try:
        store = CorollaryStore.sharded(ledger)
        with store.cache.session("memories:u1"):
            for i in range(CHECKPOINT_FIRST):
                store.put(("memories", "u1"), f"m{i % 3}", {"n": i})
            assert newest(ledger, "memories:u1") == 0
        assert store.cache.wait_checkpoints(60)
        assert newest(ledger, "memories:u1") == CHECKPOINT_FIRST
        assert store.get(("memories", "u1"), "m0").value == {"n": 15}
    finally:
        ledger.close()


def test_a_process_killed_before_its_checkpoints_were_written_loses_nothing(
        target: Target) -> None:
    n = 2 * CHECKPOINT_FIRST + 5  # two checkpoints due (16, 32), neither written
    ctx = multiprocessing.get_context("spawn")
    child = ctx.Process(target=changes_then_killed, args=(target.url, target.options, "carol",
                                                          n))
    child.start()
    child.join(120)
    assert child.exitcode == -9  # killed, holding the session
    ledger = target.open()
    try:
        assert newest(ledger, "carol") == 0
        reopened = BeliefBase.open_session(ledger, "carol")  # every entry replayed
        assert reopened.journal_seq == n
        reference = BeliefBase(clock=ManualClock(0))
        for i in range(n):
            reference.assert_(f"k{i % 7}", {"n": i}, source="tool:app")
        keys = [f"k{j}" for j in range(7)]
        assert [reopened.value(k, None) for k in keys] == [reference.value(k, None)
                                                            for k in keys]
        assert reopened.value("k1", None) == reference.value("k1", None) == {"n": 36}
        cache = SessionCache(ledger)
        with cache.session("carol", sync=False) as kb:  # an open that replayed many entries
            assert kb.journal_seq == n
        assert cache.wait_checkpoints(60) and newest(ledger, "carol") == n  # writes one
        with cache.session("carol", sync=False) as kb:  # and changes go on from it
            kb.assert_("k0", {"n": -1}, source="tool:app")
        assert BeliefBase.open_session(ledger, "carol").value("k0") == {"n": -1}
    finally:
        ledger.close()

"""One look at the outcomes a use of a cached session (corollary/serving/shards.py,
docs/many-users.md, "Reads and other writers' outcomes"): with the ledger's default
``poll_interval=0`` a read through the cache asks PostgreSQL once, in the statement that asks
whether the session's journal moved, not once for each confidence it reads; and outcomes
another process recorded are still seen by the next read. On SQLite and PostgreSQL
(``postgres`` marker); the round trips are counted on PostgreSQL only.
"""

from __future__ import annotations

import multiprocessing
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.ledger_targets import PG_URL, Target, drop_namespace
from support.roundtrips import RoundTrips
from support.shard_workers import record_elsewhere

from corollary import open_ledger
from corollary.serving.shards import SessionCache

KINDS = ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])]
needs_pg = [pytest.mark.postgres,
            pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture(params=KINDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    found = Target(request.param, tmp_path)
    yield found
    found.cleanup()


def test_outcomes_another_process_recorded_are_seen_by_the_next_read(target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        with cache.session("alice", sync=False) as kb:
            kb.assert_("city", "Lisbon", source="tool:flaky")
            kb.assert_("diet", "vegan", source="tool:steady")
        with cache.session("alice") as kb:
            trusted = kb.confidence("city")
            steady = kb.confidence("diet")
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(1) as pool:  # acknowledged: committed before it returns
            assert pool.apply(record_elsewhere, (target.url, target.options, "tool:flaky",
                                                 6)) == 6
        # the next read, on the session still cached, made inside a write of another session
        # (which asks nothing of the outcomes itself)
        with cache.session("bob", sync=False), cache.session("alice") as kb:
            assert kb.confidence("city") < trusted
            assert kb.confidence("diet") == steady
            assert kb.confidence("city") < trusted  # and the read after it
        with cache.session("alice") as kb:
            assert kb.confidence("city") < trusted
        assert cache.stats().misses == 2  # alice, then bob
    finally:
        ledger.close()


@pytest.fixture
def counted() -> Iterator[tuple[RoundTrips, str]]:
    namespace = f"look_{uuid.uuid4().hex[:12]}"
    proxy = RoundTrips(PG_URL)  # type: ignore[arg-type]
    yield proxy, namespace
    proxy.close()
    drop_namespace(namespace)


def _prepares_only(trip: bytes) -> bool:
    """A Parse message followed by a Sync: the driver preparing a statement it has run often
    on a connection, once, before it runs it (the next round trip)."""
    if trip[:1] != b"P":
        return False
    end = 1 + int.from_bytes(trip[1:5], "big")
    return trip[end:end + 1] == b"S"


def _statements(proxy: RoundTrips, before: int) -> list[bytes]:
    """The round trips since ``before`` that ran a statement (a Parse, Bind or Query message
    first): not a connection the pool opens meanwhile, in the background, nor the driver's
    preparing one (:func:`_prepares_only`)."""
    return [trip for trip in proxy.sent[before:]
            if trip[:1] in (b"P", b"B", b"Q") and not _prepares_only(trip)]


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_a_read_of_a_cached_session_is_one_round_trip(counted: tuple[RoundTrips, str]) -> None:
    proxy, namespace = counted
    ledger = open_ledger(proxy.url, namespace=namespace)  # poll_interval=0: ask every read
    try:
        cache = SessionCache(ledger)
        with cache.session("alice", sync=False) as kb:
            kb.assert_many([(f"k{i}", i, "tool:app") for i in range(5)])
        ledger.record_outcome("tool:app", True)
        with cache.session("alice") as kb:
            kb.value("k0")
        before = proxy.count
        with cache.session("alice") as kb:
            values = [kb.value(f"k{i}") for i in range(5)]
            confidences = [kb.confidence(f"k{i}") for i in range(5)]
            labels = [kb.label(f"k{i}") for i in range(5)]
        sent = _statements(proxy, before)
        assert len(sent) == 1, sent  # the journal's head and the newest outcome id, together
        assert b"corollary_journal_head" in sent[0] and b"outcomes" in sent[0]
        assert values == list(range(5)) and labels == ["IN"] * 5
        assert all(0 < c <= 1 for c in confidences)
        # outside a use of the cache, a read still asks each time (poll_interval=0)
        with cache.session("alice") as kb:
            pass
        before = proxy.count
        kb.confidence("k1")
        kb.confidence("k2")
        assert len(_statements(proxy, before)) == 2
    finally:
        ledger.close()


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_a_put_and_a_get_through_the_sharded_store_are_one_round_trip_each(
        counted: tuple[RoundTrips, str]) -> None:
    pytest.importorskip("langgraph")
    from corollary.integrations.langgraph import CorollaryStore

    proxy, namespace = counted
    ledger = open_ledger(proxy.url, namespace=namespace)  # poll_interval=0
    try:
        store = CorollaryStore.sharded(ledger)
        store.put(("memories", "u1"), "diet", {"text": "vegetarian"})
        store.put(("memories", "u1"), "city", {"text": "Lisbon"})
        ledger.store.close_notifier()  # its notifications are off the writer's path
        before = proxy.count
        store.put(("memories", "u1"), "diet", {"text": "vegan"})
        ledger.store.close_notifier()  # sent, then stopped: every round trip is counted
        sent = _statements(proxy, before)
        assert len(sent) == 2, sent  # the append; then the notification, off the path
        assert b"INSERT" in sent[0] and b"pg_notify" in sent[1]
        before = proxy.count
        item = store.get(("memories", "u1"), "diet")
        assert len(_statements(proxy, before)) == 1
        assert item is not None and item.value == {"text": "vegan"}
    finally:
        ledger.close()


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_opening_a_session_through_the_cache_is_one_round_trip(
        counted: tuple[RoundTrips, str]) -> None:
    """A cold open reads the newest checkpoint, the entries after it and the head in one
    statement (docs/many-users.md, "The cache"): a session whose only checkpoint is its
    first (which the open used to read twice) and one checkpointed since alike; a read's
    look at the outcomes rides on the same statement."""
    proxy, namespace = counted
    ledger = open_ledger(proxy.url, namespace=namespace)  # poll_interval=0
    try:
        writer = SessionCache(ledger)
        with writer.session("first", sync=False) as kb:  # one entry: only checkpoint 0
            kb.assert_many([(f"k{i}", {"text": f"v{i}"}, "tool:app") for i in range(5)])
        for i in range(20):  # 20 entries: checkpoints at 0 and 16, then 4 entries after
            with writer.session("later", sync=False) as kb:
                kb.assert_(f"k{i % 3}", i, source="tool:app")
        assert writer.wait_checkpoints(30)
        ledger.record_outcome("tool:app", False)
        ledger.store.close_notifier()  # its notifications are off the reader's path
        for session, sync in [("first", False), ("later", False), ("first", True),
                              ("later", True)]:
            cold = SessionCache(ledger)
            before = proxy.count
            with cold.session(session, sync=sync) as kb:
                if sync:  # a read: the confidences answer from the open's own look
                    read = [kb.confidence(f"k{i}") for i in range(3)]
            sent = _statements(proxy, before)
            # (a prepared statement is sent by name: the count, not the text, is the check)
            assert len(sent) == 1, (session, sync, sent)
            assert kb.journal is not None
            assert kb.journal.seen == (1 if session == "first" else 20)
            if sync:
                assert all(0 < c < 1 for c in read)
        with SessionCache(ledger).session("later") as kb:
            assert [kb.value(f"k{i}") for i in range(3)] == [18, 19, 17]
    finally:
        ledger.close()

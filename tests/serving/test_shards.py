"""SessionCache (corollary/serving/shards.py, docs/many-users.md): many journaled sessions
served from one process, on a SQLite file and on PostgreSQL (``postgres`` marker): opened on
demand, evicted least recently used first and reopened to the same state, a write through
another ledger (another replica, a spawned process) seen by the next read, one lock per
session, counts exact."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.journal_workers import state
from support.ledger_targets import PG_URL, Target
from support.shard_workers import write_elsewhere

from corollary import TrustLedger
from corollary.foundations.errors import InvalidInputError, InvalidTypeError
from corollary.serving.shards import BELIEF_BYTES, SESSION_BYTES, SessionCache

KINDS = ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])]


@pytest.fixture(params=KINDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    found = Target(request.param, tmp_path)
    yield found
    found.cleanup()


def fill(cache: SessionCache, user: str, n: int) -> None:
    with cache.session(user) as kb:
        for i in range(n):
            kb.assert_(f"memories:{user}:k{i}", {"n": i, "user": user}, source="tool:app")


def test_evicted_sessions_reopen_to_the_same_state_and_the_counts_are_exact(
        target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger, max_sessions=3)
        before = {}
        for u in range(5):
            fill(cache, f"u{u}", 4)
            with cache.session(f"u{u}") as kb:
                before[f"u{u}"] = state(kb)
        # u0..u4 each opened once (a miss) then used once more (a hit); two evicted
        stats = cache.stats()
        assert (stats.sessions, stats.misses, stats.hits, stats.evictions) == (3, 5, 5, 2)
        assert cache.open_sessions() == ["u2", "u3", "u4"]
        assert stats.estimated_bytes == 3 * (SESSION_BYTES + 4 * BELIEF_BYTES)
        assert "u0" not in cache and "u4" in cache and len(cache) == 3
        for u in range(5):  # u0 and u1 reopen from their journals, each evicting the oldest
            with cache.session(f"u{u}") as kb:
                assert state(kb) == before[f"u{u}"]
        stats = cache.stats()
        assert (stats.misses, stats.hits, stats.evictions) == (10, 5, 7)
        assert cache.open_sessions() == ["u2", "u3", "u4"]
        assert cache.evict("u3") and not cache.evict("u3") and len(cache) == 2
        assert cache.ledger is ledger  # one ledger, one pool, whatever the number of sessions
    finally:
        ledger.close()


def test_the_bound_in_bytes_evicts_by_the_estimate(target: Target) -> None:
    ledger = target.open()
    try:
        per = SESSION_BYTES + 10 * BELIEF_BYTES
        cache = SessionCache(ledger, max_bytes=2 * per)
        for u in range(4):
            fill(cache, f"u{u}", 10)
        assert cache.open_sessions() == ["u2", "u3"]
        assert cache.stats().estimated_bytes == 2 * per
        fill(cache, "u3", 0)  # the session used last stays even when it alone exceeds it
        small = SessionCache(ledger, max_bytes=1)
        fill(small, "u9", 3)
        assert small.open_sessions() == ["u9"]
    finally:
        ledger.close()


def test_a_write_by_another_replica_is_seen_by_the_next_read(target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        fill(cache, "alice", 2)
        fill(cache, "bob", 1)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(1) as pool:
            seq = pool.apply(write_elsewhere, (target.url, target.options, "alice", "city",
                                               "Lisbon"))
        assert seq == 3  # acknowledged: the other process committed it
        with cache.session("alice") as kb:  # cached, and not notified yet: still seen
            assert kb.value("city") == "Lisbon"
            assert kb.journal_seq == 3
        with cache.session("bob") as kb:
            assert "city" not in kb
        assert cache.stats().misses == 2  # alice was not reopened: she followed her journal
    finally:
        ledger.close()


def test_a_change_without_a_sync_first_still_comes_after_another_replicas(
        target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        fill(cache, "alice", 2)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(1) as pool:
            seq = pool.apply(write_elsewhere, (target.url, target.options, "alice", "city",
                                               "Lisbon"))
        assert seq == 3
        with cache.session("alice", sync=False) as kb:  # not synced: two entries behind
            assert kb.journal_seq == 2
            kb.assert_("diet", "vegan", source="tool:app")  # applies entry 3 first
            assert kb.journal_seq == 4 and kb.value("city") == "Lisbon"
        ours = target.open()
        try:
            fresh = SessionCache(ours)
            with fresh.session("alice") as kb, cache.session("alice") as mine:
                assert state(kb) == state(mine)
                assert [h.key for h in kb.history()][-2:] == ["city", "diet"]
        finally:
            ours.close()
        with pytest.raises(InvalidTypeError), cache.session("alice", sync=1):  # type: ignore[arg-type]
            pass
    finally:
        ledger.close()


def test_callers_of_different_sessions_do_not_wait_for_each_other() -> None:
    cache = SessionCache(TrustLedger())
    holding, release = threading.Event(), threading.Event()
    seen: list[object] = []

    def hold_alice() -> None:
        with cache.session("alice") as kb:
            kb.assert_("x", 1, source="tool:app")
            holding.set()
            release.wait(30)

    worker = threading.Thread(target=hold_alice)
    worker.start()
    try:
        assert holding.wait(30)
        with cache.session("bob") as kb:  # alice's lock is held: bob goes on
            kb.assert_("y", 2, source="tool:app")
            seen.append(kb.value("y"))
        blocked = threading.Thread(target=lambda: fill(cache, "alice", 1))
        blocked.start()
        blocked.join(0.2)
        assert blocked.is_alive()  # alice's second caller waits for her first
    finally:
        release.set()
        worker.join(30)
    blocked.join(30)
    assert seen == [2]
    with cache.session("alice") as kb:
        assert kb.value("x") == 1 and kb.value("memories:alice:k0") == {"n": 0, "user": "alice"}


def test_an_entry_in_use_is_not_evicted_and_a_failed_open_is_not_cached() -> None:
    cache = SessionCache(TrustLedger(), max_sessions=1)
    with cache.session("a"):
        fill(cache, "b", 1)  # a is in use: both stay until a is given back
        assert cache.open_sessions() == ["a", "b"]
    assert cache.open_sessions() == ["b"]  # then a, taken before b, goes
    with pytest.raises(InvalidInputError), cache.session(""):
        pass
    with pytest.raises(InvalidTypeError), cache.session(7):  # type: ignore[arg-type]
        pass
    assert cache.open_sessions() == ["b"] and cache.stats().misses == 2
    with pytest.raises(InvalidTypeError):
        SessionCache("ledger.db")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        SessionCache(TrustLedger(), max_sessions=0)


def test_threads_on_many_sessions_under_eviction_lose_no_change(target: Target) -> None:
    ledger = target.open()
    try:
        cache = SessionCache(ledger, max_sessions=3)
        made: dict[str, int] = {}
        lock = threading.Lock()
        failures: list[BaseException] = []

        def work(me: int) -> None:
            try:
                for n in range(25):
                    user = f"u{(me * 7 + n) % 8}"
                    with cache.session(user) as kb:
                        kb.assert_(f"note:{me}:{n}", n, source="tool:app")
                    with lock:
                        made[user] = made.get(user, 0) + 1
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                failures.append(exc)

        # on PostgreSQL, four threads over a pool of two: changes holding both connections
        # once waited for the totals' lock, whose holder waited for a connection
        assert cache.max_concurrent is None
        threads = [threading.Thread(target=work, args=(me,)) for me in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert failures == []
        assert len(cache) <= 3 and cache.stats().evictions > 0
        for user, count in made.items():
            with cache.session(user) as kb:
                assert kb.journal_seq == count and len(kb) == count
        assert sum(made.values()) == 100
    finally:
        ledger.close()


def test_a_turn_is_taken_once_however_deep_a_thread_goes() -> None:
    cache = SessionCache(TrustLedger(), max_concurrent=1)
    with cache.session("a") as a, cache.session("b") as b:  # one turn: no wait on itself
        a.assert_("x", 1, source="tool:app")
        b.assert_("x", 2, source="tool:app")
    waiting = threading.Thread(target=lambda: fill(cache, "c", 1))
    with cache.session("a"):
        waiting.start()
        waiting.join(0.2)
        assert waiting.is_alive()  # the one turn is taken: c waits for it
    waiting.join(30)
    assert cache.open_sessions() == ["b", "a", "c"]
    with pytest.raises(InvalidInputError):
        SessionCache(TrustLedger(), max_concurrent=0)

"""Appending on assumption (``PostgresStore.journal_after``, docs/journal.md, "One round trip
a change"): a journaled change by the writer that holds a session's latest entry is one
statement, and is refused, writing nothing, when another writer's entry came first.

Needs ``COROLLARY_TEST_PG_URL``; skipped without it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from support.ledger_targets import drop_namespace
from support.roundtrips import RoundTrips

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.facade.journaled import CALM_AFTER_MOVED
from corollary.foundations.errors import ConcurrentWriteError, JournalMovedError
from corollary.trust.outcomes import Outcome

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture
def namespace() -> Iterator[str]:
    ns = f"pa_{uuid.uuid4().hex[:12]}"
    yield ns
    drop_namespace(ns)


@pytest.fixture
def store(namespace: str) -> Iterator[Any]:
    from corollary.storage.postgres import PostgresStore

    s = PostgresStore(PG_URL, namespace=namespace, timeout=10)
    yield s
    s.close()


def _append(store: Any, session: str, entry: bytes) -> int:
    with store.journal(session) as w:
        return int(w.append(entry, 1.0))


def test_an_append_after_the_latest_entry_is_committed(store: Any) -> None:
    _append(store, "s", b"one")
    with store.journal_after("s", 1, b"one") as w:
        assert w.entries(1) == []  # nothing past the head it holds: nothing asked
        assert w.append(b"two", 2.0) == 2
    assert store.journal_entries("s") == [(1, b"one"), (2, b"two")]
    assert store.journal_head("s") == 2


def test_an_append_after_another_writers_entry_writes_nothing(store: Any) -> None:
    _append(store, "s", b"one")
    _append(store, "s", b"theirs")
    with pytest.raises(JournalMovedError) as raised, store.journal_after("s", 1, b"one") as w:
        w.append(b"mine", 2.0)
    assert isinstance(raised.value, ConcurrentWriteError)
    assert store.journal_entries("s") == [(1, b"one"), (2, b"theirs")]
    assert store.journal_head("s") == 2


def test_a_replaced_journal_of_the_same_length_is_told_apart(store: Any) -> None:
    _append(store, "s", b"one")
    store.delete_journal("s")
    _append(store, "s", b"another one")
    with pytest.raises(JournalMovedError), store.journal_after("s", 1, b"one") as w:
        w.append(b"mine", 2.0)
    assert store.journal_entries("s") == [(1, b"another one")]


def test_outcomes_in_the_block_take_the_lock_and_commit_with_the_entry(store: Any) -> None:
    _append(store, "s", b"one")
    outcome = Outcome(source="tool:a", correct=True, at=1.0, recorded_at=2.0, event_id="e1")
    with store.journal_after("s", 1, b"one") as w:
        assert [o.event_id for o in store.add([outcome])] == ["e1"]
        w.append(b"two", 2.0)
    assert store.journal_entries("s", 1) == [(2, b"two")]
    assert [o.event_id for o in store.outcomes()] == ["e1"]


def test_outcomes_after_another_writers_entry_are_not_written(store: Any) -> None:
    _append(store, "s", b"one")
    _append(store, "s", b"theirs")
    outcome = Outcome(source="tool:a", correct=True, at=1.0, recorded_at=2.0, event_id="e1")
    with pytest.raises(JournalMovedError), store.journal_after("s", 1, b"one") as w:
        try:
            store.add([outcome])
        except JournalMovedError:
            pass  # swallowed by the block: the append is refused all the same
        w.append(b"mine", 2.0)
    assert store.outcomes() == []
    assert store.journal_head("s") == 2


def test_two_bases_of_one_session_interleave_without_losing_a_change(namespace: str) -> None:
    ledger = open_ledger(PG_URL, namespace=namespace, poll_interval=1.0)
    try:
        a = BeliefBase.open_session(ledger, "team", clock=ManualClock(10))
        b = BeliefBase.open_session(ledger, "team", clock=ManualClock(10))
        for i in range(6):  # each one's change comes after the other's: assumed, refused, rerun
            (a if i % 2 else b).assert_(f"k{i}", i, source="tool:t")
        a.sync()
        b.sync()
        for kb in (a, b):
            assert [kb.value(f"k{i}") for i in range(6)] == list(range(6))
            assert kb.journal_seq == 6
        fresh = BeliefBase.open_session(ledger, "team", clock=ManualClock(10))
        assert [h.key for h in fresh.history()] == [f"k{i}" for i in range(6)]
    finally:
        ledger.close()


def test_a_put_to_a_users_open_session_is_one_round_trip(namespace: str) -> None:
    pytest.importorskip("langgraph")
    from corollary.integrations.langgraph import CorollaryStore

    proxy = RoundTrips(PG_URL)  # type: ignore[arg-type]
    ledger = open_ledger(proxy.url, namespace=namespace, poll_interval=60.0)
    try:
        store = CorollaryStore.sharded(ledger)
        store.put(("memories", "u1"), "diet", {"text": "vegetarian"})
        store.put(("memories", "u1"), "city", {"text": "Lisbon"})
        ledger.store.close_notifier()  # its notifications are off the writer's path
        before = proxy.count
        store.put(("memories", "u1"), "diet", {"text": "vegan"})
        ledger.store.close_notifier()  # sent, then stopped: every round trip is counted
        # statements only (a Parse, Bind or Query message first): not a connection the pool
        # opens meanwhile, in the background
        sent = [trip for trip in proxy.sent[before:] if trip[:1] in (b"P", b"B", b"Q")]
        assert len(sent) == 2  # the append, checking the head where it writes; then the
        assert b"INSERT" in sent[0] and b"pg_notify" in sent[1]  # notification, off the path
        assert store.get(("memories", "u1"), "diet").value == {"text": "vegan"}
    finally:
        ledger.close()
        proxy.close()


def test_followers_are_notified_of_an_entry_appended_either_way(store: Any) -> None:
    import threading

    def notified(seq: int) -> bool:
        """Whether the listener heard of entry ``seq`` (polled: a guard, not a timing)."""
        for _ in range(300):
            if listener.latest.get("s") == seq:
                return True
            threading.Event().wait(0.1)
        return False

    _append(store, "s", b"one")
    store.wait_journal("s", 1, 0)  # starts the listening connection
    listener = store._listener
    for _ in range(300):  # up before the appends
        if listener.connected:
            break
        threading.Event().wait(0.1)
    with store.journal_after("s", 1, b"one") as w:
        w.append(b"two", 2.0)
    assert notified(2)  # the notification's payload, from the notifier's transaction
    _append(store, "s", b"three")  # under the lock: notified after its commit too
    assert notified(3)
    assert store.wait_journal("s", 2, 30) == 3


def test_reads_in_the_block_take_no_lock(store: Any) -> None:
    _append(store, "s", b"one")
    with store.journal_after("s", 1, b"one") as w:
        assert store.journal_head("s") == 1 and store.outcomes() == []  # read as anyone reads
        assert w.held is None  # nothing taken: the append is still one statement
        w.append(b"two", 2.0)
    assert store.journal_entries("s", 1) == [(2, b"two")]


def test_a_change_stopped_midway_by_another_writer_runs_again_whole(namespace: str) -> None:
    ledger = open_ledger(PG_URL, namespace=namespace, poll_interval=1.0)
    try:
        a = BeliefBase.open_session(ledger, "team", clock=ManualClock(10))
        b = BeliefBase.open_session(ledger, "team", clock=ManualClock(10))
        a.assert_("hq", "Austin", source="tool:registry")
        a.assert_("ceo", "Ann", source="tool:registry")  # a holds the latest entry
        b.sync()
        b.assert_("city", "Lisbon", source="tool:maps")  # ...no longer
        # the retraction records a wrong outcome: the store is needed in the middle of the
        # change, which finds b's entry there, is undone, and runs again under the lock
        a.retract("hq", fault="source")
        assert a.journal.calm == CALM_AFTER_MOVED - 1  # it was stopped, and ran under the lock
        assert a.label("hq") == "OUT" and a.value("city") == "Lisbon"
        assert [o.correct for o in ledger.outcomes("tool:registry")] == [False]
        b.sync()
        fresh = BeliefBase.open_session(ledger, "team", clock=ManualClock(10))
        for kb in (a, b, fresh):
            assert kb.journal_seq == 4 and kb.label("hq") == "OUT"
            assert kb.reliability("tool:registry") == a.reliability("tool:registry")
    finally:
        ledger.close()

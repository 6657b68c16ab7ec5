"""The PostgreSQL store's journal, against a real server (docs/journal.md).

Needs ``COROLLARY_TEST_PG_URL`` (start a server with ``.ci/postgres.sh``); skipped without it.
What must hold: entries are numbered ``head + 1`` under the session's row lock, gap-free and in
lock order across processes; a block that raises writes nothing (entries nor outcomes); the
outcomes recorded inside a block are invisible to others until it commits, and commit with it;
checkpoints are found by number; a follower waiting on the store wakes when another process
appends; an old (version 4) ledger gains the journal tables and keeps its outcomes. The tests
every journal store passes (tests/journal/test_store_journal.py) run here with this module's
PostgreSQL ``store``.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from journal.test_store_journal import (  # noqa: F401 - every journal store's tests, run here
    test_an_error_in_the_block_writes_no_entry_and_no_outcome,
    test_bad_arguments_are_typed_errors,
    test_checkpoints,
    test_entries_are_numbered_in_append_order_without_gaps,
    test_the_journal_is_a_write_lock,
)
from support import pg_journal_workers as workers  # importable by name in spawned children
from support.ledger_targets import drop_namespace

from corollary.foundations.errors import StoreError
from corollary.storage.schema import SCHEMA_VERSION
from corollary.trust.outcomes import Outcome

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture
def namespace() -> Iterator[str]:
    ns = f"pj_{uuid.uuid4().hex[:12]}"
    yield ns
    drop_namespace(ns)


@pytest.fixture
def store(namespace: str) -> Iterator[Any]:
    from corollary.storage.postgres import PostgresStore

    s = PostgresStore(PG_URL, namespace=namespace, timeout=10)
    yield s
    s.close()


def _outcome(event_id: str) -> Outcome:
    return Outcome(source="tool:a", correct=True, at=1.0, recorded_at=2.0, event_id=event_id)


def _server_rows(ns: str, sql: str) -> list[Any]:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        return conn.execute(sql.replace("{ns}", ns)).fetchall()


def test_entries_are_numbered_in_order_and_read_back(store: Any) -> None:
    assert store.journal_head("s") == 0
    assert store.journal_entries("s") == []
    for i in range(3):
        with store.journal("s") as w:
            assert w.head == i
            assert w.entries(0) == [(n + 1, f"e{n}".encode()) for n in range(i)]
            assert w.append(f"e{i}".encode(), at=100.0 + i) == i + 1
            assert w.head == i + 1
    assert store.journal_head("s") == 3
    assert store.journal_entries("s", after=1) == [(2, b"e1"), (3, b"e2")]
    assert store.journal_entries("s", after=0, upto=2) == [(1, b"e0"), (2, b"e1")]
    assert store.journal_changed("s", 2) and not store.journal_changed("s", 3)
    with store.journal("t") as w:
        w.append(b"a", at=1.0)
        w.append(b"b", at=2.0)  # two entries in one transaction
    assert store.journal_entries("t") == [(1, b"a"), (2, b"b")]
    assert store.journal_sessions() == ["s", "t"]
    times = _server_rows(store.namespace, "SELECT seq, at FROM {ns}.corollary_journal "
                         "WHERE session_id = 's' ORDER BY seq")
    assert times == [(1, 100.0), (2, 101.0), (3, 102.0)]


def test_a_block_that_raises_writes_neither_entries_nor_outcomes(store: Any) -> None:
    with store.journal("s") as w:
        w.append(b"kept", at=1.0)
        store.add([_outcome("kept")])
    with pytest.raises(RuntimeError), store.journal("s") as w:
        store.add([_outcome("lost")])
        assert store.count() == 2  # this thread sees its own uncommitted outcome
        assert store.totals("tool:a").total == 2  # and folds it into its cache
        w.append(b"lost", at=2.0)
        raise RuntimeError("refused")
    assert store.journal_entries("s") == [(1, b"kept")]
    assert store.journal_head("s") == 1
    assert [o.event_id for o in store.outcomes()] == ["kept"]
    assert store.totals("tool:a").total == 1  # the cache forgot the rolled-back outcome
    with store.journal("s") as w:  # the number freed by the rollback is given again
        assert w.append(b"next", at=3.0) == 2


def test_outcomes_of_a_block_commit_with_it_and_are_hidden_until_then(
        store: Any, namespace: str) -> None:
    from corollary.storage.postgres import PostgresStore

    other = PostgresStore(PG_URL, namespace=namespace, timeout=10)
    try:
        with store.journal("s") as w:
            assert store.add([_outcome("o1"), _outcome("o2")]) != []
            w.append(b"with outcomes", at=1.0)
            assert other.count() == 0 and other.journal_head("s") == 0
        assert other.count() == 2 and other.journal_head("s") == 1
        assert other.sync() == {"tool:a"} and other.totals("tool:a").total == 2
    finally:
        other.close()


def test_a_second_writer_waits_for_the_lock(store: Any, namespace: str) -> None:
    from corollary.storage.postgres import PostgresStore

    other = PostgresStore(PG_URL, namespace=namespace, timeout=10)
    order: list[str] = []
    started = threading.Event()

    def second() -> None:
        started.set()
        with other.journal("s") as w:
            order.append(f"second saw head {w.head}")
            w.append(b"second", at=2.0)

    try:
        with store.journal("s") as w:
            thread = threading.Thread(target=second)
            thread.start()
            started.wait()
            time.sleep(0.3)  # give the second writer the chance to (wrongly) get in
            order.append(f"first saw head {w.head}")
            w.append(b"first", at=1.0)
        thread.join(10)
        assert order == ["first saw head 0", "second saw head 1"]
        assert store.journal_entries("s") == [(1, b"first"), (2, b"second")]
    finally:
        other.close()


def test_a_lock_held_past_the_timeout_is_a_store_error(namespace: str, store: Any) -> None:
    from corollary.storage.postgres import PostgresStore

    impatient = PostgresStore(PG_URL, namespace=namespace, timeout=0.5)
    try:
        with store.journal("s"), pytest.raises(StoreError), impatient.journal("s"):
            pass
        with impatient.journal("s") as w:  # free again
            assert w.append(b"x", at=1.0) == 1
    finally:
        impatient.close()


def test_nested_blocks_in_one_thread_are_refused(store: Any) -> None:
    with store.journal("s"), pytest.raises(StoreError, match="already open"), \
            store.journal("t"):
        pass


def test_checkpoints_are_found_by_number(store: Any) -> None:
    assert store.read_checkpoint("s") is None
    store.write_checkpoint("s", 10, b"ten")
    store.write_checkpoint("s", 20, b"twenty")
    assert store.read_checkpoint("s") == (20, b"twenty")
    assert store.read_checkpoint("s", upto=19) == (10, b"ten")
    assert store.read_checkpoint("s", upto=9) is None
    store.write_checkpoint("s", 20, b"again")  # one kept there stays
    assert store.read_checkpoint("s", upto=20) == (20, b"twenty")
    store.write_checkpoint("s", 30, b"thirty")
    assert store.prune_checkpoints("s", 1) == 1  # the first and the newest stay
    assert store.read_checkpoint("s", upto=29) == (10, b"ten")


def test_delete_forgets_entries_head_and_checkpoints(store: Any) -> None:
    with store.journal("s") as w:
        w.append(b"x", at=1.0)
    store.write_checkpoint("s", 1, b"snap")
    assert store.delete_journal("s") is True
    assert store.journal_head("s") == 0 and store.journal_entries("s") == []
    assert store.read_checkpoint("s") is None and store.journal_sessions() == []
    assert store.delete_journal("s") is False


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_writer_processes_get_gap_free_numbers_in_lock_order(namespace: str, store: Any,
                                                             method: str) -> None:
    ctx = multiprocessing.get_context(method)
    queue = ctx.Queue()
    start_at = time.time() + (3.0 if method == "spawn" else 0.5)
    each = 40
    procs = [ctx.Process(target=workers.run_in, args=(
        queue, workers.append_entries, PG_URL, namespace, "shared", f"p{k}", each, start_at))
        for k in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
    assert [r for r in results if r[0] != "ok"] == []
    numbers = sorted(n for _, got in results for n in got)
    assert numbers == list(range(1, 4 * each + 1))  # each number given once, no gap
    entries = store.journal_entries("shared")
    assert [s for s, _ in entries] == numbers
    payloads = [e.decode() for _, e in entries]
    assert sorted(payloads) == sorted(f"p{k}-{i}" for k in range(4) for i in range(each))
    for k in range(4):  # each writer's entries keep its own order
        mine = [p for p in payloads if p.startswith(f"p{k}-")]
        assert mine == [f"p{k}-{i}" for i in range(each)]
    # the outcome of each entry committed with it, once
    assert sorted(o.event_id for o in store.outcomes()) == sorted(payloads)


def test_a_follower_wakes_when_another_process_appends(namespace: str, store: Any) -> None:
    assert store.wait_journal("s", after=0, timeout=0.2) == 0  # nothing: times out
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=workers.run_in, args=(
        queue, workers.append_entries, PG_URL, namespace, "s", "w", 1, time.time() + 1.5))
    proc.start()
    try:
        head = store.wait_journal("s", after=0, timeout=60)
        assert head == 1
        assert store.journal_entries("s") == [(1, b"w-0")]
    finally:
        assert queue.get(timeout=60)[0] == "ok"
        proc.join(30)
    assert store.wait_journal("s", after=0, timeout=5) == 1  # already past: at once


def test_a_follower_keeps_waking_after_its_listening_connection_is_cut(
        namespace: str, store: Any) -> None:
    from corollary.storage.postgres import PostgresStore

    writer = PostgresStore(PG_URL, namespace=namespace, timeout=10)
    try:
        store.wait_journal("s", after=0, timeout=0.1)  # starts the listener
        listener = store._listener
        deadline = time.time() + 10
        while not listener.connected and time.time() < deadline:
            time.sleep(0.05)
        _server_rows(namespace, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     f"WHERE query LIKE 'LISTEN \"{store.channel}\"%'")

        def append_later() -> None:
            time.sleep(0.5)
            with writer.journal("s") as w:
                w.append(b"after the cut", at=1.0)

        thread = threading.Thread(target=append_later)
        thread.start()
        assert store.wait_journal("s", after=0, timeout=30) == 1
        thread.join(10)
    finally:
        writer.close()


def test_a_version_4_ledger_gains_the_journal_and_keeps_its_outcomes(
        namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from corollary.storage import postgres as pg_module

    monkeypatch.setattr(pg_module, "SCHEMA_VERSION", 4)
    old = pg_module.PostgresStore(PG_URL, namespace=namespace)
    old.add([_outcome("before")])
    old.save_session("snap", b"whole")
    assert old.schema_version == 4
    old.close()
    monkeypatch.undo()
    new = pg_module.PostgresStore(PG_URL, namespace=namespace)
    try:
        assert new.schema_version == SCHEMA_VERSION
        assert [o.event_id for o in new.outcomes()] == ["before"]
        assert new.load_session("snap") == b"whole"
        with new.journal("snap") as w:
            assert w.append(b"first", at=1.0) == 1
    finally:
        new.close()

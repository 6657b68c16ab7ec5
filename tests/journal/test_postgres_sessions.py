"""Journaled sessions on a real PostgreSQL server: the process tests of
tests/journal/test_journal_processes.py with the ledger in PostgreSQL (4 writers spawned and
forked, 120 mixed changes each), and the server stopped and restarted under writers.

Each test gets a database of its own on the server ``COROLLARY_TEST_PG_URL`` names (skipped
without it); the restart test also needs the server to be the one ``.ci/postgres.sh`` started.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from journal.test_journal_processes import journal_rows
from stores.test_postgres_faults import _why_not_controllable, server
from support.journal_workers import final_state, open_at, writer
from support.pg_journal_workers import restart_writer, run_in

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set"),
              pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")]


@pytest.fixture
def database() -> Iterator[str]:
    """The URL of a new, empty database on the server under test (dropped afterwards)."""
    import psycopg

    name = f"pjdb_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    server_up = _why_not_controllable() is not None or _start_if_stopped()
    if server_up:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _start_if_stopped() -> bool:
    server("start-server")
    return True


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_four_writers_on_postgres_converge_and_keep_every_acknowledged_change_once(
        database: str, method: str) -> None:
    open_at(database).ledger.close()  # the session exists before the writers race
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(4) as pool:
        results = pool.starmap(writer, [(database, me, 120, 31 * me + 7) for me in range(4)])
        finals = pool.map(final_state, [database] * 4)
    acks = [ack for done in results for ack in done]
    assert len(acks) > 300  # most changes were accepted; the refused ones wrote nothing
    rows = journal_rows(database)
    assert [e.seq for e in rows] == list(range(1, len(rows) + 1))  # one order, no gap
    assert len(rows) == len(acks) and len({seq for seq, _, _ in acks}) == len(acks)
    by_seq = {e.seq: e for e in rows}
    for seq, op, tag in acks:  # each acknowledged change at its place, exactly once
        entry = by_seq[seq]
        assert entry.op == op
        if op == "claim":
            assert entry.subjects[0][1] == tag
        elif op == "retract":
            assert entry.subjects[0][3] == tag
    fresh = final_state(database)
    assert all(f == fresh for f in finals)  # the same state in every process and a fresh open
    assert any(len(v) > 1 for k, v in fresh.items() if k.startswith("shared:"))  # conflicts


@pytest.mark.skipif(_why_not_controllable() is not None, reason=str(_why_not_controllable()))
def test_a_server_restart_under_writers_loses_nothing_and_repeats_nothing(
        database: str, tmp_path: Path) -> None:
    open_at(database).ledger.close()
    ctx = multiprocessing.get_context("spawn")
    acks: Any = ctx.Queue()
    results: Any = ctx.Queue()
    stop_file = str(tmp_path / "stop")
    procs = [ctx.Process(target=run_in, args=(results, restart_writer, database, me, acks,
                                              stop_file)) for me in range(3)]
    for p in procs:
        p.start()
    seen: list[tuple[int, str, float]] = []

    def drain(until: float) -> None:
        while time.time() < until:
            try:
                seen.append(acks.get(timeout=0.1))
            except queue.Empty:
                pass

    started = time.time()
    while {tag.split("-")[0] for _, tag, _ in seen} != {"w0", "w1", "w2"}:
        assert time.time() < started + 120, "the writers did not start"
        assert results.empty(), results.get()  # a writer that failed at once says why
        drain(time.time() + 0.2)  # every writer has opened the session and written
    drain(time.time() + 1.0)
    before = len(seen)
    server("stop-server")
    drain(time.time() + 3.0)
    server("start-server")
    up_at = time.time()
    drain(time.time() + 4.0)
    Path(stop_file).write_text("stop")
    outcomes = []
    for _ in procs:
        deadline = time.time() + 120
        while True:  # keep draining: a writer blocks on a full queue otherwise
            drain(time.time() + 0.2)
            try:
                outcomes.append(results.get(timeout=0.1))
                break
            except queue.Empty:
                assert time.time() < deadline, "a writer did not stop"
    for p in procs:
        p.join(30)
    drain(time.time() + 0.5)
    assert [o for o in outcomes if o[0] != "ok"] == []
    refused = [o[1] for o in outcomes]
    assert before > 0
    assert all(r["StoreError"] > 0 for r in refused)  # each writer got typed errors while down
    assert any(at > up_at for _, _, at in seen)  # and changes were acknowledged after
    rows = journal_rows(database)
    assert [e.seq for e in rows] == list(range(1, len(rows) + 1))
    seqs = [seq for seq, _, _ in seen]
    assert len(set(seqs)) == len(seqs)  # no seq acknowledged twice
    tags = [t for e in rows for t in _tags(e)]
    assert len(tags) == len(set(tags))  # nothing written twice
    by_seq = {e.seq: e for e in rows}
    for seq, tag, _ in seen:  # nothing acknowledged lost: each at its place
        assert tag in _tags(by_seq[seq]), (seq, tag)
    assert final_state(database) == final_state(database)


def _tags(entry: Any) -> list[str]:
    """The writer tags an entry of restart_writer carries (a value or a reason: ``w<n>-<i>``)."""
    return [v for v in (*entry.args, *entry.kwargs.values())
            if isinstance(v, str) and v.startswith("w") and "-" in v]

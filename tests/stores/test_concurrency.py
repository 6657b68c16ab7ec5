"""Many processes on one ledger: nothing lost, readers undisturbed, crashes harmless.

Run against real SQLite files and, with ``COROLLARY_TEST_PG_URL`` set, a real PostgreSQL server.
Children are started with multiprocessing's ``spawn`` (a clean interpreter, as separate agent
processes would be).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from support import ledger_workers as workers  # importable by name in spawned children
from support.ledger_targets import Target
from support.pools import spawned_pool

from corollary.storage.postgres import SCHEMA_VERSION as PG_VERSION
from corollary.storage.sqlite import SCHEMA_VERSION as SQLITE_VERSION

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
SPAWN = multiprocessing.get_context("spawn")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def target(request: Any, tmp_path: Path) -> Any:
    t = Target(request.param, tmp_path)
    t.open().close()  # create the schema up front, as a deployment would
    yield t
    t.cleanup()


@pytest.fixture(scope="module")
def pool() -> Any:
    """Eight spawned interpreters, started (and their imports paid for) once for the module."""
    with spawned_pool(8, workers.warm) as executor:
        yield executor


def _gather(futures: list[Any], timeout: float = 120) -> list[Any]:
    return [f.result(timeout=timeout) for f in futures]


def _run_all(processes: list[Any], timeout: float = 120) -> None:
    for p in processes:
        p.start()
    deadline = time.monotonic() + timeout
    for p in processes:
        p.join(max(deadline - time.monotonic(), 1))
    for p in processes:
        if p.is_alive():  # pragma: no cover - a hang is a failure, not a stuck suite
            p.kill()
    assert [p.exitcode for p in processes] == [0] * len(processes)


def test_eight_processes_lose_nothing(target: Target, pool: Any) -> None:
    start_at = time.time() + 0.3  # everyone writes at once
    assert _gather([pool.submit(workers.write_outcomes, target.url, target.options, f"p{k}",
                                200, start_at) for k in range(8)]) == [200] * 8
    ledger = target.open()
    assert ledger.store.count() == 1600
    record = ledger.record_of("tool:shared", at=2_000)
    assert (record.correct, record.wrong) == (1200, 400)
    assert ledger.reliability("tool:shared", at=2_000) == pytest.approx(
        (10 * 0.95 + 1200) / (10 + 1600), rel=1e-12)
    assert ledger.track_record("tool:shared", "t").samples == 800
    # replaying two children's outcomes changes nothing
    _gather([pool.submit(workers.write_outcomes, target.url, target.options, f"p{k}", 200)
             for k in range(2)])
    assert target.open().store.count() == 1600
    ledger.close()


def test_reader_holding_a_transaction(target: Target, pool: Any) -> None:
    seed = target.open()
    seed.record_many([{"source": "tool:shared", "correct": True, "at": 0} for _ in range(10)])
    watcher = target.open()
    assert watcher.record_of("tool:shared", at=0).correct == 10
    if target.kind == "sqlite":
        reader = sqlite3.connect(target.url, isolation_level=None)
        reader.execute("BEGIN")
        count = lambda: reader.execute("SELECT count(*) FROM outcomes").fetchone()[0]  # noqa: E731
        finish = lambda: reader.execute("COMMIT")  # noqa: E731
    else:
        import psycopg

        reader = psycopg.connect(PG_URL, autocommit=True)
        reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        table = f"{target.namespace}.outcomes"
        count = lambda: reader.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
        finish = lambda: reader.execute("COMMIT")  # noqa: E731
    assert count() == 10
    # writers are not blocked by the open read transaction...
    _gather([pool.submit(workers.write_outcomes, target.url, target.options, f"w{k}", 100)
             for k in range(3)], timeout=60)
    # ...and the reader keeps its consistent snapshot until it ends it
    assert count() == 10
    finish()
    assert count() == 310
    reader.close()
    # a ledger reading meanwhile sees the new outcomes when it polls, all of them at once
    assert watcher.record_of("tool:shared", at=0).correct == 10
    assert watcher.poll() == {"tool:shared"}
    assert watcher.record_of("tool:shared", at=2_000).correct == 10 + 3 * 75
    watcher.close()
    seed.close()


def test_writer_killed_mid_write(target: Target) -> None:
    batch = 50
    for round_ in range(2):
        ready = SPAWN.Event()
        proc = SPAWN.Process(target=workers.write_forever,
                             args=(target.url, target.options, ready, batch))
        proc.start()
        assert ready.wait(60), "the writer never wrote"
        time.sleep(0.05 * (round_ + 1))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(30)
        assert proc.exitcode == -signal.SIGKILL
        ledger = target.open()  # opens, intact
        count = ledger.store.count() - round_  # less one "tool:after" per earlier round
        assert count > 0 and count % batch == 0  # whole transactions only
        record = ledger.record_of("tool:victim", at=0)
        assert record.correct + record.wrong == count
        assert record.correct == count // 2
        ledger.record_outcome("tool:after", True, at=0)  # and still takes writes
        ledger.close()
        if target.kind == "sqlite":
            conn = sqlite3.connect(target.url)
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            conn.close()


def test_outcome_from_one_process_reaches_another(target: Target, pool: Any) -> None:
    ledger = target.open()
    heard: list[set[str]] = []
    ledger.subscribe(heard.append)
    assert ledger.reliability("tool:remote", at=0) == 0.95
    pool.submit(workers.record_one, target.url, target.options).result(timeout=60)
    assert ledger.poll() == {"tool:remote"}
    assert heard == [{"tool:remote"}]
    assert ledger.reliability("tool:remote", at=0) == pytest.approx(9.5 / 11)
    ledger.close()


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def test_two_processes_open_an_old_store_at_once(kind: str, tmp_path: Path, pool: Any) -> None:
    t = Target(kind, tmp_path)
    try:
        if kind == "sqlite":
            from support.sqlite_v1 import make_v1

            make_v1(Path(t.url))
        else:  # an empty database: both race to create it from scratch
            pass
        start_at = time.time() + 0.3
        version = SQLITE_VERSION if kind == "sqlite" else PG_VERSION
        assert _gather([pool.submit(workers.open_and_report, t.url, t.options, start_at)
                        for _ in range(2)], timeout=60) == [version, version]
        if kind == "sqlite":
            conn = sqlite3.connect(t.url)
            history = conn.execute("SELECT version, pid FROM schema_history").fetchall()
            conn.close()
            assert [v for v, _ in history] == list(range(2, version + 1))  # each step ran once...
            assert len({pid for _, pid in history}) == 1  # ...by one process
            assert t.open().record_of("tool:scraper", at=0).correct == 20
        else:
            import psycopg

            with psycopg.connect(PG_URL) as conn:
                history = conn.execute(
                    f"SELECT version, pid FROM {t.namespace}.schema_history").fetchall()
            assert sorted(v for v, _ in history) == list(range(1, version + 1))
            assert len({pid for _, pid in history}) == 1
    finally:
        t.cleanup()

"""Ledgers across ``fork``: a parent that opened a ledger, then forks workers, loses nothing.

A forked child inherits the parent's open SQLite connection (its file descriptors and SQLite's
in-memory record of the locks the parent holds) or PostgreSQL pool (its sockets). Using or
closing those in the child corrupts the file or the parent's sessions; so does opening a new
connection to the same file while SQLite believes the inherited locks are held. These tests
fork real children (multiprocessing's ``fork`` context and a raw :func:`os.fork`) that write
known outcomes while the parent closes, drops or keeps using its ledger, then count every
outcome, look for duplicated event ids and run SQLite's integrity check.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sqlite3
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import ledger_targets as concurrency

from corollary import BeliefBase
from corollary.trust.ledger import TrustLedger

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
FORK = multiprocessing.get_context("fork")
CHILDREN = 4
EACH = 150
PARENT_FIRST = 20

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")


def _start(how: str, body: Callable[[], None]) -> Any:
    """Run ``body`` in a forked child; return something :func:`_join` can wait for."""
    if how == "mp":
        proc = FORK.Process(target=body)
        proc.start()
        return proc
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            body()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


def _join(how: str, handle: Any, timeout: float = 60.0) -> int:
    if how == "mp":
        handle.join(timeout)
        if handle.is_alive():  # pragma: no cover - a hang is a failure, not a stuck suite
            handle.kill()
            handle.join()
        return int(handle.exitcode)
    deadline = time.monotonic() + timeout
    while True:
        pid, status = os.waitpid(handle, os.WNOHANG)
        if pid:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:  # pragma: no cover
            os.kill(handle, 9)
            return os.waitstatus_to_exitcode(os.waitpid(handle, 0)[1])
        time.sleep(0.01)


class Target(concurrency.Target):
    """One ledger (a fresh SQLite file or PostgreSQL namespace) and how to inspect it."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        super().__init__(kind, tmp_path)
        if kind == "sqlite":
            self.url = str(tmp_path / "forked.db")

    def rows(self, sql: str) -> list[Any]:
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.url)
            try:
                return conn.execute(sql.replace("{t}", "outcomes")).fetchall()
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            return conn.execute(sql.replace("{t}", f"{self.namespace}.outcomes")).fetchall()

    def check(self, expected: int) -> None:
        """Exactly ``expected`` outcomes, no event id twice, an intact file, replays ignored."""
        assert self.rows("SELECT count(*) FROM {t}")[0][0] == expected
        assert self.rows("SELECT count(DISTINCT event_id) FROM {t}")[0][0] == expected
        assert self.rows("SELECT event_id FROM {t} GROUP BY event_id HAVING count(*) > 1") == []
        if self.kind == "sqlite":
            assert self.rows("PRAGMA integrity_check") == [("ok",)]
        ids = [r[0] for r in self.rows("SELECT event_id FROM {t}")]
        ledger = self.open()
        try:
            replay = [{"source": "tool:replay", "correct": True, "at": 0.0, "event_id": e}
                      for e in ids]
            assert ledger.record_many(replay) == 0  # the unique index still holds every id
            assert ledger.store.count() == expected
        finally:
            ledger.close()


KINDS = ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])]


@pytest.fixture(params=KINDS)
def target(request: Any, tmp_path: Path) -> Any:
    t = Target(request.param, tmp_path)
    yield t
    t.cleanup()


def _write(ledger: TrustLedger, tag: str, n: int) -> None:
    for i in range(n):
        ledger.record_outcome("tool:worker", i % 3 != 0, at=float(i), event_id=f"{tag}-{i}")


def _own_ledger_worker(target: Target, tag: str, collect: bool) -> Callable[[], None]:
    def body() -> None:
        if collect:  # the garbage collector runs in the child, over what the parent dropped
            gc.collect()
        ledger = target.open()
        _write(ledger, tag, EACH)
        ledger.close()
        gc.collect()

    return body


@pytest.mark.parametrize("how", ["mp", "os"])
@pytest.mark.parametrize("parent", ["closes", "drops", "keeps-writing"])
def test_forked_workers_with_their_own_ledgers_lose_nothing(target: Target, how: str,
                                                            parent: str) -> None:
    ledger = target.open()
    _write(ledger, "parent", PARENT_FIRST)
    holder: Any = None
    if parent == "drops":
        # held by a base (a cycle: the base's engine holds one of its bound methods), then
        # dropped without closing: the ledger lives on until a garbage collector runs
        holder = BeliefBase(ledger=ledger)
        holder.assert_("x", 1, source="tool:worker")
        del ledger
        ledger = None
    gc_was = gc.isenabled()
    gc.disable()  # the dropped ledger must still be alive when the children fork
    try:
        del holder
        children = [_start(how, _own_ledger_worker(target, f"c{k}", parent == "drops"))
                    for k in range(CHILDREN)]
        extra = 0
        if parent == "closes":
            time.sleep(0.05)  # the children are writing
            assert ledger is not None
            ledger.close()
        elif parent == "drops":
            time.sleep(0.05)
            gc.collect()  # the parent's copy goes, in the parent
        else:
            assert ledger is not None
            _write(ledger, "parent-more", EACH)
            extra = EACH
            ledger.close()
        codes = [_join(how, c) for c in children]
    finally:
        if gc_was:
            gc.enable()
    assert codes == [0] * CHILDREN
    target.check(PARENT_FIRST + CHILDREN * EACH + extra)


@pytest.mark.parametrize("how", ["mp", "os"])
def test_a_child_may_use_the_inherited_ledger(target: Target, how: str) -> None:
    ledger = target.open()
    _write(ledger, "parent", PARENT_FIRST)
    assert ledger.record_of("tool:worker", at=0).correct == 13

    def body() -> None:
        # the very object the parent opened: it reconnects on first use in this process (and
        # reads afresh: the parent may have written more since the fork)
        record = ledger.record_of("tool:worker", at=0)
        assert record.correct >= 13 and record.correct + record.wrong >= PARENT_FIRST
        _write(ledger, f"inherited-{os.getpid()}", EACH)
        assert ledger.store.count() >= PARENT_FIRST + EACH
        ledger.close()  # closes the child's own connection only

    children = [_start(how, body) for _ in range(2)]
    _write(ledger, "parent-more", EACH)  # the parent keeps writing meanwhile
    assert [_join(how, c) for c in children] == [0, 0]
    # the parent's connection was not disturbed: it still reads and writes
    _write(ledger, "parent-last", 10)
    total = PARENT_FIRST + 2 * EACH + EACH + 10
    assert ledger.store.count() == total
    ledger.poll()
    record = ledger.record_of("tool:worker", at=0)
    assert record.correct + record.wrong == total
    ledger.close()
    target.check(total)

"""Versioned sessions: two writers that load, change and save one session never lose a change.

The store contract (every backend): ``save_session(id, data, expected_version=...)`` writes
only if the stored version is the expected one (0: no session yet; ``None``: unconditionally)
and returns the new version; ``read_session(id)`` gives ``(data, version)``. A base remembers
the version it loaded or saved, so ``kb.save_session(id)`` fails with ConcurrentWriteError,
writing nothing, when someone else saved in between. On a store that keeps journals that holds
until the session is first opened (a load opens it as its journal, docs/journal.md).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sqlite3
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from support import sql_workers as workers
from support.ledger_targets import drop_namespace
from support.sqlite_v1 import make_v1

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger
from corollary.foundations.errors import (
    ConcurrentWriteError,
    InvalidInputError,
    InvalidTypeError,
    SessionJournaledError,
)
from corollary.storage import SessionNotFoundError
from corollary.storage.schema import SCHEMA_VERSION

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
SPAWN = multiprocessing.get_context("spawn")
ROUNDS = 8


def _json_versioned() -> bool:
    from corollary.storage.jsonfile import JSONFileStore

    return hasattr(JSONFileStore, "read_session")


KINDS = [
    "memory",
    "sqlite",
    pytest.param("json", marks=pytest.mark.skipif(
        not _json_versioned(), reason="the JSON-file store has no versioned sessions yet "
        "(implemented on the JSON store's own branch)")),
    pytest.param("postgres", marks=[
        pytest.mark.postgres,
        pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]),
]


class Target:
    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        self.options: dict[str, Any] = {}
        self.url = {"memory": ":memory:", "sqlite": str(tmp_path / "sessions.db"),
                    "json": str(tmp_path / "sessions.json")}.get(kind, PG_URL or "")
        if kind == "postgres":
            self.options = {"namespace": f"v_{uuid.uuid4().hex[:12]}"}
        self.memory = TrustLedger() if kind == "memory" else None

    def open(self) -> TrustLedger:
        if self.memory is not None:
            return self.memory
        return open_ledger(self.url, **self.options)

    def cleanup(self) -> None:
        if self.kind == "postgres":
            drop_namespace(self.options['namespace'])


@pytest.fixture(params=KINDS)
def target(request: Any, tmp_path: Path) -> Any:
    t = Target(request.param, tmp_path)
    yield t
    t.cleanup()


def test_store_contract(target: Target) -> None:
    ledger = target.open()
    store = ledger.store
    with pytest.raises(SessionNotFoundError):
        store.read_session("s")
    assert store.save_session("s", b"one", expected_version=0) == 1
    with pytest.raises(ConcurrentWriteError, match="'s'"):
        store.save_session("s", b"lost", expected_version=0)  # exists already
    assert store.read_session("s") == (b"one", 1)
    assert store.save_session("s", b"two", expected_version=1) == 2
    for stale in (1, 3):
        with pytest.raises(ConcurrentWriteError):
            store.save_session("s", b"lost", expected_version=stale)
    assert store.read_session("s") == (b"two", 2)  # nothing written by the losers
    assert store.load_session("s") == b"two"
    assert store.save_session("s", b"three") == 3  # unconditional
    assert store.save_session("s", b"three") == 4
    with pytest.raises(ConcurrentWriteError):
        store.save_session("new", b"x", expected_version=2)  # no such session
    assert "new" not in store.list_sessions()
    for bad, error in ((True, InvalidTypeError), ("1", InvalidTypeError), (1.0, InvalidTypeError),
                       (-1, InvalidInputError)):
        with pytest.raises(error):
            store.save_session("s", b"bad", expected_version=bad)
    assert store.read_session("s") == (b"three", 4)
    assert store.delete_session("s")
    assert store.save_session("s", b"again", expected_version=0) == 1
    ledger.close()


def test_base_remembers_versions(target: Target) -> None:
    ledger = target.open()
    clock = ManualClock(0)
    kb = BeliefBase(ledger=ledger, clock=clock)
    kb.assert_("a", 1, source="human:ops")
    assert kb.save_session("c") == 1
    kb.assert_("b", 2, source="human:ops")
    assert kb.save_session("c") == 2  # its own earlier save is no conflict
    stranger = BeliefBase(ledger=ledger, clock=clock)
    stranger.assert_("z", 0, source="human:ops")
    with pytest.raises(ConcurrentWriteError) as info:
        stranger.save_session("c")  # never loaded it: must not replace it
    message = str(info.value)
    assert "'c'" in message and "reload" in message.lower() and "reapply" in message.lower()
    if target.kind != "json":
        _journal_from_the_first_load(ledger, kb, stranger, clock)
        return
    assert BeliefBase.load_session(ledger, "c", clock=clock).value("b") == 2
    assert stranger.save_session("c", overwrite=True) == 3
    resumed = BeliefBase.load_session(ledger, "c", clock=clock)
    assert resumed.value("z") == 0
    with pytest.raises(ConcurrentWriteError):
        kb.save_session("c")  # kb last saved version 2; the stranger wrote 3
    resumed.assert_("y", 9, source="human:ops")
    assert resumed.save_session("c") == 4
    with pytest.raises(InvalidTypeError):
        resumed.save_session("c", overwrite="yes")  # type: ignore[arg-type]
    ledger.close()


def _journal_from_the_first_load(ledger: TrustLedger, kb: BeliefBase, stranger: BeliefBase,
                                 clock: ManualClock) -> None:
    """On a store that keeps journals, versions hold until the session is first opened: the
    load opens it as a journal, and no snapshot is written over it afterwards."""
    assert stranger.save_session("c", overwrite=True) == 3  # not opened yet: a snapshot
    resumed = BeliefBase.load_session(ledger, "c", clock=clock)
    assert resumed.value("z") == 0 and resumed.session_id == "c"
    for base in (kb, stranger):
        with pytest.raises(SessionJournaledError):
            base.save_session("c", overwrite=True)
    resumed.assert_("y", 9, source="human:ops")
    assert resumed.save_session("c") == resumed.journal_seq == 1
    assert BeliefBase.load_session(ledger, "c", clock=clock).value("y") == 9
    with pytest.raises(InvalidTypeError):
        resumed.save_session("c", overwrite="yes")  # type: ignore[arg-type]
    ledger.close()


def _check_rounds(results: list[tuple[int, int, str, int]], ledger: TrustLedger) -> None:
    by_round: dict[int, list[tuple[int, str, int]]] = {}
    for me, r, verdict, version in results:
        by_round.setdefault(r, []).append((me, verdict, version))
    assert sorted(by_round) == list(range(ROUNDS))
    if ledger.store.__class__.__name__ != "JSONFileStore":
        # a store that keeps journals: the first load opened the session as a journal, so no
        # save loses; each change is one entry, in the store's one order
        for r, seen in by_round.items():
            assert [v for _, v, _ in seen] == ["won", "won"], (r, seen)
            assert sorted(version for _, _, version in seen) == [1 + 2 * r, 2 + 2 * r]
        kb = BeliefBase.load_session(ledger, "shared")
        for r in range(ROUNDS):
            assert kb.value(f"p0-r{r}") == r and kb.value(f"p1-r{r}") == r
        assert ledger.store.journal_head("shared") == 2 * ROUNDS  # type: ignore[attr-defined]
        return
    for r, seen in by_round.items():
        # exactly one winner per round; the loser's retry lands right after it
        assert sorted(v for _, v, _ in seen) == ["lost", "won"], (r, seen)
        versions = {verdict: version for _, verdict, version in seen}
        assert versions["won"] == 2 + 2 * r and versions["lost"] == 3 + 2 * r
    kb = BeliefBase.load_session(ledger, "shared")
    for r in range(ROUNDS):  # both changes of every round are there
        assert kb.value(f"p0-r{r}") == r and kb.value(f"p1-r{r}") == r
    assert ledger.store.read_session("shared")[1] == 1 + 2 * ROUNDS


def test_two_writers_never_lose_a_change(target: Target) -> None:
    ledger = target.open()
    BeliefBase(ledger=ledger).save_session("shared")  # version 1
    if target.kind == "memory":  # one process: two bases on one store, in two threads
        barrier: Any = threading.Barrier(2)
        results: Any = queue.Queue()
        threads = [threading.Thread(target=workers.rounds_on,
                                    args=(ledger, me, ROUNDS, barrier, results))
                   for me in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        got = [results.get(timeout=5) for _ in range(2 * ROUNDS)]
    else:  # two processes
        barrier = SPAWN.Barrier(2)
        results = SPAWN.Queue()
        procs = [SPAWN.Process(target=workers.session_rounds,
                               args=(target.url, target.options, me, ROUNDS, barrier, results))
                 for me in range(2)]
        for p in procs:
            p.start()
        got = [results.get(timeout=120) for _ in range(2 * ROUNDS)]
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0, 0]
    _check_rounds(got, ledger)
    ledger.close()


# versions 2 and 3 on top of the hand-written version-1 file, as those releases upgraded it
V2_V3_DDL = """
ALTER TABLE outcomes ADD COLUMN topic TEXT;
ALTER TABLE outcomes ADD COLUMN confidence REAL
    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1));
CREATE TABLE sessions (session_id TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE schema_history (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL,
                             pid INTEGER NOT NULL);
INSERT INTO schema_history VALUES (1, 0, 1), (2, 0, 1), (3, 0, 1);
PRAGMA user_version = 3;
"""


def test_a_version_3_sqlite_file_opens_and_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    make_v1(path, n=0)
    conn = sqlite3.connect(path)
    conn.executescript(V2_V3_DDL)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("INSERT INTO outcomes (event_id, source, outcome, observed_at, recorded_at, "
                 "topic) VALUES ('e1', 'tool:x', 1, 0, 0, 'math'), ('e2', 'tool:x', 0, 0, 0, NULL)")
    conn.execute("INSERT INTO sessions VALUES ('old', X'01020304', 0)")
    conn.commit()
    conn.close()
    ledger = open_ledger(path)
    assert ledger.store.schema_version == SCHEMA_VERSION
    assert ledger.store.read_session("old") == (b"\x01\x02\x03\x04", 1)
    assert ledger.store.save_session("old", b"new", expected_version=1) == 2
    record = ledger.record_of("tool:x", at=0)
    assert (record.correct, record.wrong) == (1, 1)
    ledger.close()
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT version FROM schema_history ORDER BY version")
            ] == list(range(1, SCHEMA_VERSION + 1))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert open_ledger(path).store.read_session("old") == (b"new", 2)  # upgraded once


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_a_version_3_postgres_namespace_is_upgraded() -> None:
    import psycopg

    ns = f"v3_{uuid.uuid4().hex[:12]}"
    try:
        ledger = open_ledger(PG_URL, namespace=ns)
        ledger.close()
        with psycopg.connect(PG_URL, autocommit=True) as conn:  # back to version 3 by hand
            conn.execute(f"ALTER TABLE {ns}.sessions DROP COLUMN version")
            conn.execute(f"DROP TABLE {ns}.corollary_journal, {ns}.corollary_journal_head, "
                         f"{ns}.corollary_checkpoint")
            conn.execute(f"DELETE FROM {ns}.schema_history WHERE version >= 4")
            conn.execute(f"INSERT INTO {ns}.sessions VALUES ('old', '\\x0102', 0)")
        ledger = open_ledger(PG_URL, namespace=ns)
        assert ledger.store.schema_version == SCHEMA_VERSION
        assert ledger.store.read_session("old") == (b"\x01\x02", 1)
        assert ledger.store.save_session("old", b"new", expected_version=1) == 2
        ledger.close()
    finally:
        drop_namespace(ns)

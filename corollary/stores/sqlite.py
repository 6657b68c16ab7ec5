"""The SQLite ledger store: the embedded default for a persistent, shared ledger on one host.

One append-only ``outcomes`` table (a unique event id per outcome, right/wrong as 0/1 under a
CHECK), WAL journaling so readers never block the writer, and writes in ``BEGIN IMMEDIATE``
transactions that wait (busy timeout) for each other rather than fail. The schema carries a
version (``PRAGMA user_version``) and an application id (``PRAGMA application_id``); older
files are upgraded step by step, once, under the write lock; newer ones are refused; files that
are not corollary ledgers are refused without being touched.

Examples
--------
>>> import tempfile, os
>>> from corollary.ledger import TrustLedger
>>> path = os.path.join(tempfile.mkdtemp(), "ledger.db")
>>> ledger = TrustLedger.open(path)
>>> _ = ledger.record_outcome("tool:scraper", False, at=0, event_id="run-1")
>>> _ = ledger.record_outcome("tool:scraper", False, at=0, event_id="run-1")  # a replay
>>> ledger.record_of("tool:scraper", at=0).wrong
1
>>> ledger.close()
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..ledger import Outcome
from .base import (
    COLUMNS,
    CachedSQLStore,
    SessionNotFoundError,
    StoreCorruptError,
    StoreVersionError,
    check_half_life,
    check_session,
    outcome_of,
    outcomes_query,
    row_of,
)

#: ``PRAGMA application_id`` of a corollary ledger ("CrLd").
APPLICATION_ID = 0x43724C64
#: The schema version this code writes.
SCHEMA_VERSION = 3


def _step_1(conn: sqlite3.Connection) -> None:
    """Version 1: the outcome table (no topic, no confidence yet)."""
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("""
        CREATE TABLE outcomes (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            event_id    TEXT    NOT NULL UNIQUE,
            source      TEXT    NOT NULL CHECK (length(source) > 0),
            outcome     INTEGER NOT NULL CHECK (outcome IN (0, 1)),
            observed_at REAL    NOT NULL,
            recorded_at REAL    NOT NULL,
            evidence    TEXT,
            reason      TEXT,
            key         TEXT
        )""")
    conn.execute("CREATE INDEX outcomes_by_source ON outcomes (source, id)")


def _step_2(conn: sqlite3.Connection) -> None:
    """Version 2: outcomes get a topic and the belief's confidence at the time."""
    conn.execute("ALTER TABLE outcomes ADD COLUMN topic TEXT")
    conn.execute("ALTER TABLE outcomes ADD COLUMN confidence REAL "
                 "CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1))")


def _step_3(conn: sqlite3.Connection) -> None:
    """Version 3: base snapshots by session id, and ledger settings shared by all openers."""
    conn.execute("""
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            data       BLOB NOT NULL,
            updated_at REAL NOT NULL
        )""")
    conn.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _is_locked(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is SQLite giving up on another connection's lock (busy timeout)."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


#: ``STEPS[v]`` upgrades a version-``v`` file to ``v + 1``.
STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _step_1, 1: _step_2, 2: _step_3}


class SQLiteStore(CachedSQLStore):
    """Outcomes in a SQLite file, shared safely by every process on the host.

    Parameters
    ----------
    path : str or path-like
        The database file (created with its directory if missing), or ``":memory:"``.
    half_life : float, optional
        The ledger's memory half-life in seconds (it only shapes the in-process cache: the
        file keeps raw outcomes, so ledgers with different half-lives can share it).
    timeout : float
        Seconds a write waits for another writer before :class:`~corollary.errors.StoreError`.
    synchronous : str
        SQLite's ``synchronous`` setting: ``"NORMAL"`` (default; safe against crashes of the
        process, may lose the last commits on power loss) or ``"FULL"``.
    """

    def __init__(self, path: str | os.PathLike[str], half_life: float | None = None, *,
                 timeout: float = 30.0, synchronous: str = "NORMAL") -> None:
        self.half_life = check_half_life(half_life)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise StoreError(f"unknown synchronous setting {synchronous!r}")
        self.path = path if str(path) == ":memory:" else Path(path).expanduser()
        self.location = self.path
        self.timeout = float(timeout)
        self._conn_lock = threading.RLock()
        memory = str(self.path) == ":memory:"
        if not memory:
            self._sniff()
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(str(self.path), timeout=self.timeout,
                                         isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the ledger database: {exc}", self.path) from exc
        try:
            self._ensure_schema()
            if not memory:
                self._run("PRAGMA journal_mode=WAL")
            self._run(f"PRAGMA synchronous={synchronous.upper()}")
            self._data_version = self._run("PRAGMA data_version")[0][0]
            self._init_cache()
        except BaseException:
            self._conn.close()
            raise

    # -- opening -------------------------------------------------------------------------
    def _sniff(self) -> None:
        """Refuse a directory. (The file itself is never opened outside SQLite: closing any
        descriptor of a database file drops every POSIX lock this process holds on it, which
        would let another process checkpoint under one of our readers.)"""
        if os.path.isdir(self.path):
            raise StoreCorruptError("is a directory, not a ledger database", self.path)

    def _classify(self) -> str:
        """``"current"``, ``"old"``, ``"empty"``; raise for newer or foreign files."""
        app_id = self._conn.execute("PRAGMA application_id").fetchone()[0]
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        tables = self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id == 0 and version == 0 and tables == 0:
            return "empty"
        if app_id != APPLICATION_ID:
            raise StoreCorruptError("a SQLite database, but not a corollary ledger; "
                                    "left untouched", self.path)
        if version > SCHEMA_VERSION:
            raise StoreVersionError(
                f"ledger schema version {version} is newer than this corollary reads "
                f"({SCHEMA_VERSION}); upgrade corollary", self.path)
        return "current" if version == SCHEMA_VERSION else "old"

    def _ensure_schema(self) -> None:
        try:
            if self._classify() == "current":
                return
            # create or upgrade under the write lock; re-check: another process may have won
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                if self._classify() != "current":
                    self._conn.execute("CREATE TABLE IF NOT EXISTS schema_history ("
                                       "version INTEGER PRIMARY KEY, applied_at REAL NOT NULL, "
                                       "pid INTEGER NOT NULL)")
                    version = self._conn.execute("PRAGMA user_version").fetchone()[0]
                    while version < SCHEMA_VERSION:
                        STEPS[version](self._conn)
                        version += 1
                        self._conn.execute(f"PRAGMA user_version = {version}")
                        self._conn.execute("INSERT INTO schema_history VALUES (?, ?, ?)",
                                           (version, time.time(), os.getpid()))
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            if _is_locked(exc):
                raise self._wrap(exc) from exc
            raise StoreCorruptError(f"corrupt ledger database ({exc}); left untouched",
                                    self.path) from exc

    @property
    def schema_version(self) -> int:
        """The schema version of the file (``PRAGMA user_version``)."""
        return int(self._run("PRAGMA user_version")[0][0])

    # -- queries -------------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._conn_lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise self._wrap(exc) from exc

    def _wrap(self, exc: sqlite3.Error) -> StoreError:
        if _is_locked(exc):
            return StoreError(f"the ledger stayed locked by another writer: {exc}", self.path)
        if isinstance(exc, sqlite3.DatabaseError) and "malformed" in str(exc):
            return StoreCorruptError(f"corrupt ledger database: {exc}", self.path)
        return StoreError(f"ledger database error: {exc}", self.path)

    def _write(self, body: Callable[[sqlite3.Connection], Any]) -> Any:
        with self._conn_lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = body(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise self._wrap(exc) from exc
            return result

    _INSERT = (f"INSERT INTO outcomes ({', '.join(COLUMNS)}) VALUES "
               f"({', '.join('?' * len(COLUMNS))}) ON CONFLICT (event_id) DO NOTHING")

    def _insert(self, batch: list[Outcome]) -> set[str]:
        def body(conn: sqlite3.Connection) -> set[str]:
            added = set()
            cursor = conn.cursor()
            for outcome in batch:
                cursor.execute(self._INSERT, row_of(outcome))
                if cursor.rowcount == 1:
                    added.add(outcome.event_id)
            return added

        return self._write(body)

    def _rows_since(self, after: int) -> Iterable[Sequence[Any]]:
        return self._run("SELECT id, event_id, source, topic, outcome, observed_at FROM outcomes "
                         "WHERE id > ? ORDER BY id", (after,))

    def _rows_of(self, source: str, upto: int) -> Iterable[Sequence[Any]]:
        return self._run("SELECT topic, outcome, observed_at FROM outcomes "
                         "WHERE source = ? AND id <= ? ORDER BY id", (source, upto))

    def _max_id(self) -> int:
        return int(self._run("SELECT coalesce(max(id), 0) FROM outcomes")[0][0])

    def _external_change(self) -> bool:
        version = self._run("PRAGMA data_version")[0][0]
        if version == self._data_version:
            return False
        self._data_version = version
        return True

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Every stored outcome (the file keeps them all), oldest recorded first."""
        sql, params = outcomes_query("outcomes", "?", source, topic)
        return [outcome_of(row) for row in self._run(sql, params)]

    def sources(self) -> list[str]:
        """Every source with at least one outcome."""
        return [row[0] for row in self._run("SELECT DISTINCT source FROM outcomes ORDER BY source")]

    def count(self) -> int:
        """How many outcomes the file holds."""
        return int(self._run("SELECT count(*) FROM outcomes")[0][0])

    # -- settings and sessions -----------------------------------------------------------
    def get_meta(self) -> dict[str, str]:
        """Settings stored beside the outcomes (``prior_weight``, ``memory_half_life``)."""
        return dict(self._run("SELECT name, value FROM meta"))

    def set_meta_defaults(self, values: dict[str, str]) -> None:
        """Store settings that are not stored yet (the first opener's choice sticks)."""
        self._write(lambda conn: conn.executemany(
            "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            list(values.items())))

    def save_session(self, session_id: str, data: bytes) -> None:
        """Keep ``data`` (a base's snapshot) under ``session_id``, replacing any earlier one."""
        check_session(session_id, data)
        self._write(lambda conn: conn.execute(
            "INSERT INTO sessions (session_id, data, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (session_id) DO UPDATE SET data = excluded.data, "
            "updated_at = excluded.updated_at", (session_id, bytes(data), time.time())))

    def load_session(self, session_id: str) -> bytes:
        """The snapshot saved under ``session_id``; ``SessionNotFoundError`` if there is none."""
        check_session(session_id)
        rows = self._run("SELECT data FROM sessions WHERE session_id = ?", (session_id,))
        if not rows:
            raise SessionNotFoundError(f"no session {session_id!r}", self.path)
        return bytes(rows[0][0])

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""
        return [r[0] for r in self._run("SELECT session_id FROM sessions ORDER BY session_id")]

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""
        check_session(session_id)
        return bool(self._write(lambda conn: conn.execute(
            "DELETE FROM sessions WHERE session_id = ?", (session_id,)).rowcount))

    def close(self) -> None:
        """Close the connection."""
        with self._conn_lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

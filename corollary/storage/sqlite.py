"""The SQLite ledger store: the embedded default for a persistent, shared ledger on one host.

One append-only ``outcomes`` table (a unique event id per outcome, right/wrong as 0/1 under a
CHECK), WAL journaling so readers never block the writer, and writes in ``BEGIN IMMEDIATE``
transactions that wait (busy timeout) for each other rather than fail. The schema carries a
version (``PRAGMA user_version``) and an application id (``PRAGMA application_id``); older
files are upgraded step by step, once, under the write lock; newer ones are refused; files that
are not corollary ledgers are refused without being touched.

New files get the mode the process's umask gives any new file (SQLite's ``-wal`` and ``-shm``
follow the database's mode); an existing file's mode is left as it is. A file this process
may read but not write (or in a directory it cannot write) opens read-only: reads work where
SQLite can read it, and every write raises :class:`~corollary.foundations.errors.StoreError`.

Forks: SQLite forbids using a connection in a process other than the one that opened it, and a
child that merely opens a *new* connection to a file its parent has open shares the parent's
in-memory lock records, so it believes it holds locks it does not; the parent closing its
connection then checkpoints and deletes the write-ahead log under the children, losing their
commits. A fork hook therefore waits until no thread is inside one of this store's
transactions, and in the child retires the inherited connection before anything else runs
(see :meth:`SQLiteStore._drop_inherited`); the store reconnects on its next use.

Examples
--------
>>> import tempfile, os
>>> from corollary.trust.ledger import open_ledger
>>> path = os.path.join(tempfile.mkdtemp(), "ledger.db")
>>> ledger = open_ledger(path)
>>> _ = ledger.record_outcome("tool:scraper", False, at=0, event_id="run-1")
>>> _ = ledger.record_outcome("tool:scraper", False, at=0, event_id="run-1")  # a replay
>>> ledger.record_of("tool:scraper", at=0).wrong
1
>>> ledger.close()
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..foundations.errors import (
    StoreCorruptError,
    StoreError,
    StoreVersionError,
)
from ..sources.outcomes import Outcome
from .cached import CachedSQLStore
from .checks import (
    COLUMNS,
    check_entry,
    check_expected_version,
    check_half_life,
    check_seq,
    check_session,
    checked_entry_row,
    outcome_of,
    row_of,
    session_conflict,
    session_journaled,
)
from .dialects.sqlite import SQLITE
from .processes import keep_forever, owned_by
from .queries import SQLQueries, checked_version
from .schema import MIGRATIONS
from .schema import SCHEMA_VERSION as _SCHEMA_VERSION

#: ``PRAGMA application_id`` of a corollary ledger ("CrLd").
APPLICATION_ID = 0x43724C64
#: The schema version this code writes (:data:`corollary.storage.schema.SCHEMA_VERSION`).
SCHEMA_VERSION = _SCHEMA_VERSION
#: Longest a fork waits (seconds) for another thread to finish a transaction on one store.
FORK_WAIT = 10.0

#: Serialises creating a file with opening it in this process (see :meth:`SQLiteStore._create`).
_CREATING = threading.Lock()
#: ``(device, inode)`` of files this (forked) process must not open: it was forked while
#: another thread of its parent was inside a transaction on them.
_UNSAFE: set[tuple[int, int]] = set()


def _step(conn: sqlite3.Connection, version: int) -> None:
    """Upgrade a version-``version`` file to ``version + 1`` (the step of the one list)."""
    if version == 0:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for statement in SQLITE.statements(MIGRATIONS[version]):
        conn.execute(statement)


#: Application id, schema version and table count, read in one statement (one snapshot: as
#: three statements, another process's creation could land between them).
_CLASSIFY = ("SELECT (SELECT application_id FROM pragma_application_id()), "
             "(SELECT user_version FROM pragma_user_version()), "
             "(SELECT count(*) FROM sqlite_master)")


def _error_kind(exc: sqlite3.Error) -> str:
    """What went wrong, from SQLite's error name (Python >= 3.11) or its message."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    message = str(exc).lower()
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in message or (
            "not a database" in message):
        return "corrupt"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in message:
        return "locked"
    if name.startswith("SQLITE_READONLY") or "readonly" in message:
        return "readonly"
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM")) or "unable to open" in message:
        return "cantopen"
    if name.startswith("SQLITE_FULL") or "disk is full" in message:
        return "full"
    return "other"


class SQLiteStore(SQLQueries, CachedSQLStore):
    """Outcomes in a SQLite file, shared safely by every process on the host.

    Parameters
    ----------
    path : str or path-like
        The database file (created with its directory if missing), or ``":memory:"``.
    half_life : float, optional
        The ledger's memory half-life in seconds (it only shapes the in-process cache: the
        file keeps raw outcomes, so ledgers with different half-lives can share it).
    timeout : float
        Seconds a write waits for another writer before :class:`~corollary.foundations.errors.StoreError`.
    synchronous : str
        SQLite's ``synchronous`` setting: ``"NORMAL"`` (default; safe against crashes of the
        process, may lose the last commits on power loss) or ``"FULL"``.

    Attributes
    ----------
    read_only : bool
        Whether the file was opened read-only (this process may not write it or its
        directory).
    """

    dialect = SQLITE

    _one_lock = True  # one connection, shared by every thread: one lock (CachedSQLStore)

    def __init__(self, path: str | os.PathLike[str], half_life: float | None = None, *,
                 timeout: float = 30.0, synchronous: str = "NORMAL") -> None:
        self.half_life = check_half_life(half_life)
        if not isinstance(synchronous, str) or synchronous.upper() not in (
                "OFF", "NORMAL", "FULL", "EXTRA"):
            raise StoreError(f"unknown synchronous setting {synchronous!r}")
        self.path = path if str(path) == ":memory:" else Path(path).expanduser()
        self.location = self.path
        self.timeout = float(timeout)
        self._synchronous = synchronous.upper()
        self._conn_lock = threading.RLock()
        self._pid = os.getpid()
        self._closed = False
        self._fork_held = False
        self._data_version: int | None = None
        self._journal_owner: int | None = None  # the thread inside journal(), if any
        self._memory = str(self.path) == ":memory:"
        self.read_only = False
        self._owned = owned_by(self)
        if not self._memory:
            self._create()
        self._conn = self._connect()
        try:
            self._ensure_schema()
            self._data_version = self._run("PRAGMA data_version")[0][0]
            self._init_cache()
        except BaseException:
            self._owned.release()
            raise

    @property
    def _conn(self) -> sqlite3.Connection | None:
        conn: sqlite3.Connection | None = self._owned.resource
        return conn

    @_conn.setter
    def _conn(self, conn: sqlite3.Connection | None) -> None:
        self._owned.set(conn)

    # -- opening -------------------------------------------------------------------------
    def _create(self, create: bool = True) -> None:
        """Refuse a directory, make the parent directory, create a missing file (if
        ``create``: reconnecting never makes a new, empty file), and decide whether it opens
        read-only.

        A new file is created here rather than by SQLite so that it gets the mode the umask
        gives any new file (SQLite would cap it at 0644); SQLite's ``-wal`` and ``-shm`` copy
        the database's mode. The descriptor is closed at once, under a lock that every opener
        in this process takes first: closing any descriptor of a database file drops every
        POSIX lock this process holds on it, so no connection of ours may be open on the file
        yet. (The file itself is otherwise never opened outside SQLite.)
        """
        path = Path(self.path)
        if os.path.isdir(path):
            raise StoreCorruptError("is a directory, not a ledger database", path)
        with _CREATING:
            if not create and not path.exists():
                raise StoreError("the ledger file is gone", path)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the ledger's directory {str(path.parent)!r}: "
                                 f"{exc.strerror or exc}", path) from exc
            if not path.exists():
                try:
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                                     | getattr(os, "O_CLOEXEC", 0), 0o666))
                except FileExistsError:
                    pass  # another process created it first
                except OSError as exc:
                    raise StoreError(
                        f"cannot create the ledger here ({exc.strerror or exc}): this process "
                        f"may not write the directory {str(path.parent)!r}", path) from exc
        try:
            stat = os.stat(path)
        except OSError as exc:
            raise StoreError(f"cannot open the ledger: {exc.strerror or exc}", path) from exc
        if (stat.st_dev, stat.st_ino) in _UNSAFE:
            raise self._unsafe_after_fork()
        # SQLite needs to write the file, and create its -wal and -shm beside it
        self.read_only = not (os.access(path, os.R_OK | os.W_OK)
                              and os.access(path.parent, os.W_OK | os.X_OK))

    def _connect(self) -> sqlite3.Connection:
        if self._memory:
            target, uri = ":memory:", False
        elif self.read_only:
            target = "file:" + urllib.parse.quote(os.fspath(self.path)) + "?mode=ro"
            uri = True
        else:
            target, uri = str(self.path), False
        try:
            conn = sqlite3.connect(target, timeout=self.timeout, isolation_level=None,
                                   check_same_thread=False, uri=uri)
        except sqlite3.Error as exc:
            raise self._wrap(exc) from exc
        try:
            conn.execute(f"PRAGMA synchronous={self._synchronous}")
            # a deleted or rewritten row's bytes are zeroed, not left in a free page: what
            # kb.forget erases is not in the file (docs/journal.md, "Forgetting")
            conn.execute("PRAGMA secure_delete=ON")
        except sqlite3.Error as exc:
            conn.close()
            raise self._wrap(exc) from exc
        except UnicodeDecodeError as exc:  # SQLite's message quotes a damaged schema
            conn.close()
            raise StoreCorruptError(f"corrupt ledger database (damaged schema: {exc})",
                                    self.path) from exc
        return conn

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (opened again after a fork or on first use)."""
        if self._pid != os.getpid():  # a fork that ran no hooks
            self._after_fork_in_child(forked=False)
        if self._conn is None:
            if self._closed:
                raise StoreError("the ledger is closed", self.path)
            if not self._memory:
                self._create(create=False)
            self._conn = self._connect()
            self._data_version = None
        return self._conn

    def _classify(self) -> str:
        """``"current"``, ``"old"``, ``"empty"``; raise for newer or foreign files."""
        assert self._conn is not None
        app_id, version, tables = self._conn.execute(_CLASSIFY).fetchone()
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
        conn = self._conn
        assert conn is not None
        try:
            state = self._classify()
            if state != "current" and self.read_only:
                raise StoreError(
                    "cannot create or upgrade the ledger: this process may not write the file "
                    f"or its directory (schema {state}, this corollary writes version "
                    f"{SCHEMA_VERSION})", self.path)
            if state == "current":
                if not self._memory and not self.read_only:
                    self._use_wal(conn)
                return
            if state == "empty" and not self._memory:
                # WAL before the first table, so that no one ever sees the mode switch
                self._use_wal(conn)
            # create or upgrade under the write lock; re-check: another process may have won
            conn.execute(SQLITE.write_lock)
            try:
                if self._classify() != "current":
                    conn.execute(SQLITE.create_history())
                    version = conn.execute("PRAGMA user_version").fetchone()[0]
                    while version < SCHEMA_VERSION:
                        _step(conn, version)
                        version += 1
                        conn.execute(f"PRAGMA user_version = {version}")
                        conn.execute(SQLITE.record_step(), (version, time.time(), os.getpid()))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            if not self._memory:
                self._use_wal(conn)  # files from before WAL
        except sqlite3.Error as exc:
            raise self._wrap(exc, opening=True) from exc

    def _use_wal(self, conn: sqlite3.Connection) -> None:
        """Switch the file to WAL journaling (once: the mode is kept in the file).

        Switching needs an exclusive lock, and SQLite reports a conflict at once rather than
        calling its busy handler, so many processes opening a new file together retry here,
        with backoff, for at most the store's timeout.
        """
        if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            return
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if _error_kind(exc) != "locked" or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.1)

    @property
    def schema_version(self) -> int:
        """The schema version of the file (``PRAGMA user_version``)."""
        return int(self._run("PRAGMA user_version")[0][0])

    # -- processes -----------------------------------------------------------------------
    def prepare_fork(self) -> None:
        # no fork while another thread is inside one of our transactions (bounded wait)
        self._fork_held = self._conn_lock.acquire(timeout=min(self.timeout, FORK_WAIT))

    def finish_fork_in_parent(self) -> None:
        if self._fork_held:
            self._fork_held = False
            self._conn_lock.release()

    def _drop_inherited(self, forked: bool) -> None:
        """Retire the connection inherited from the parent (in the child, before it is used).

        Closing it here, before this process opens any connection of its own, clears SQLite's
        in-memory record of the parent's locks, so the connections this process opens next
        take real locks of their own. Closing is safe at this point: the fork hook waited for
        every transaction of this store to end (the parent's connection holds its shared
        lock, so the close cannot take the exclusive lock it would need to checkpoint or
        delete the log; on Python >= 3.12 checkpointing on close is also switched off).
        A connection caught inside a transaction, or a fork that ran no hooks (other
        connections may already share the records), is kept open but unused for the rest of
        the child's life instead; a transaction caught mid-way also bars the file in this
        child, since SQLite would believe its locks held.
        """
        held, self._fork_held = self._fork_held, False
        conn, self._conn = self._conn, None
        self._data_version = None
        if conn is None:
            return
        if self._memory:  # the child's own copy of a private database: keep using it
            self._conn = conn
            return
        if forked and held and not conn.in_transaction:
            setconfig = getattr(conn, "setconfig", None)
            if setconfig is not None:  # Python >= 3.12
                setconfig(getattr(sqlite3, "SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE", 1010), True)
            conn.close()
            return
        keep_forever(conn)
        if forked and not held:
            try:
                stat = os.stat(self.path)
                _UNSAFE.add((stat.st_dev, stat.st_ino))
            except OSError:
                pass

    def _unsafe_after_fork(self) -> StoreError:
        return StoreError("this process was forked while another thread was inside a "
                          "transaction on this ledger, so SQLite cannot be used on it here; "
                          "fork when no write is in flight, or start workers with spawn",
                          self.path)

    # -- queries -------------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._conn_lock:
            try:
                return self._connection().execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise self._wrap(exc) from exc

    _select = _run  # the one-statement read the shared queries use (corollary.storage.queries)

    def _change(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One write statement in its own transaction (or the thread's open journal's)."""
        return int(self._write(lambda conn: conn.execute(sql, params).rowcount))

    def _wrap(self, exc: sqlite3.Error, opening: bool = False) -> StoreError:
        kind = _error_kind(exc)
        where = self.path
        directory = "?" if self._memory else str(Path(self.path).parent)
        if kind == "corrupt":
            left = "; left untouched" if opening else ""
            return StoreCorruptError(f"corrupt ledger database ({exc}){left}", where)
        if kind == "locked":
            return StoreError(f"the ledger stayed locked by another writer for "
                              f"{self.timeout:g} s: {exc}", where)
        if kind == "readonly":
            why = ("opened read-only: this process may not write the file or its directory "
                   f"{directory!r}")
            if opening and self.read_only:
                why += ("; SQLite needs to create the ledger's -shm file there, or another "
                        "process to have the ledger open")
            return StoreError(f"cannot write the ledger ({exc}): {why}", where)
        if kind == "cantopen":
            return StoreError(f"cannot open the ledger ({exc}): check that {directory!r} "
                              "exists and that this process may read and write it", where)
        if kind == "full":
            return StoreError(f"the disk is full; nothing was written ({exc})", where)
        return StoreError(f"ledger database error: {exc}", where)

    def _write(self, body: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``body`` in one ``BEGIN IMMEDIATE`` transaction: all of it commits, or none.

        Success is reported only once ``COMMIT`` has returned; any error rolls back.
        """
        with self._conn_lock:
            if self._journal_owner == threading.get_ident():
                return self._write_joined(body)
            try:
                conn = self._connection()
                conn.execute(SQLITE.write_lock)
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

    def _write_joined(self, body: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``body`` inside this thread's open journal transaction (a savepoint: a body
        that fails takes back only its own writes; the journal commits or rolls back all)."""
        conn = self._connection()
        try:
            conn.execute("SAVEPOINT corollary_joined")
            try:
                result = body(conn)
                conn.execute("RELEASE corollary_joined")
            except BaseException:
                conn.execute("ROLLBACK TO corollary_joined")
                conn.execute("RELEASE corollary_joined")
                raise
        except sqlite3.Error as exc:
            raise self._wrap(exc) from exc
        return result

    _INSERT = SQLITE.upsert("outcomes", COLUMNS, ("event_id",))

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
        value = self._run("SELECT coalesce(max(id), 0) FROM outcomes")[0][0]
        if isinstance(value, bool) or not isinstance(value, int):
            raise StoreCorruptError(f"corrupt ledger: outcome id {value!r}", self.path)
        return value

    def _external_change(self) -> bool:
        version = self._run("PRAGMA data_version")[0][0]
        if version == self._data_version:
            return False
        self._data_version = version
        return True

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Every stored outcome (the file keeps them all), oldest recorded first."""
        sql, params = SQLITE.select_outcomes(COLUMNS, source, topic)
        return [outcome_of(row, self.path) for row in self._run(sql, params)]

    # -- settings and sessions -----------------------------------------------------------
    def set_meta_defaults(self, values: dict[str, str]) -> None:
        """Store settings that are not stored yet (the first opener's choice sticks)."""
        stored = self.get_meta()
        if self.read_only or all(name in stored for name in values):
            return  # nothing to write, or no way to (a read-only ledger keeps what it has)
        sql = SQLITE.upsert("meta", ("name", "value"), ("name",))
        self._write(lambda conn: conn.executemany(sql, list(values.items())))

    def save_session(self, session_id: str, data: bytes, *,
                     expected_version: int | None = None) -> int:
        """Keep ``data`` (a base's snapshot) under ``session_id``; return its new version.

        ``expected_version``: ``None`` writes unconditionally; ``0`` requires that there is
        no such session yet; ``n > 0`` requires the stored version to be exactly ``n``.
        Otherwise :class:`~corollary.foundations.errors.ConcurrentWriteError` is raised and nothing is
        written. The check and the write are one transaction.
        """
        check_session(session_id, data)
        expected = check_expected_version(expected_version)
        blob = bytes(data)

        def body(conn: sqlite3.Connection) -> int:
            if conn.execute("SELECT 1 FROM corollary_checkpoint WHERE session_id = ? UNION ALL "
                            "SELECT 1 FROM corollary_journal_head WHERE session_id = ? AND seq > 0 "
                            "LIMIT 1", (session_id, session_id)).fetchone():
                raise session_journaled(session_id, self.path)
            row = conn.execute("SELECT version FROM sessions WHERE session_id = ?",
                               (session_id,)).fetchone()
            current = 0 if row is None else checked_version(row[0], self.path)
            if expected is not None and current != expected:
                raise session_conflict(session_id, expected, current, self.path)
            conn.execute(
                "INSERT INTO sessions (session_id, data, updated_at, version) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                "data = excluded.data, updated_at = excluded.updated_at, "
                "version = excluded.version", (session_id, blob, time.time(), current + 1))
            return current + 1

        return int(self._write(body))

    # -- session journals (corollary.storage.base.JournalStore) ------------------------
    @contextlib.contextmanager
    def journal(self, session_id: str) -> Iterator[_SQLiteJournal]:
        """Take the session's write lock (``BEGIN IMMEDIATE``, holding the store's connection
        lock until the block ends); yield the journal writer. Outcomes this thread adds
        meanwhile join the transaction: a normal exit commits them with the entries, an
        exception rolls everything back."""
        session_id = check_session(session_id)
        conn, head = self._begin_journal(session_id)
        try:
            self._journal_owner = threading.get_ident()
            with self._lock:  # what the totals cache had folded when the transaction began
                mark = (self._watermark, set(self._own))
            writer = _SQLiteJournal(conn, session_id, head, self.path, self._wrap)
            try:
                yield writer
            except BaseException:
                writer.end()
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # the error raised says more
                        conn.execute("ROLLBACK")
                self._journal_rolled_back(mark)
                raise
            writer.end()
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                self._journal_rolled_back(mark)
                raise self._wrap(exc) from exc
        finally:
            self._journal_owner = None
            self._conn_lock.release()

    def _begin_journal(self, session_id: str) -> tuple[sqlite3.Connection, int]:
        """Take the connection lock and begin the journal's transaction; return the connection
        and the session's head. On any error nothing is held."""
        self._conn_lock.acquire()
        try:
            if self._journal_owner is not None:
                raise StoreError("a journal is already open on this store "
                                 "(journals do not nest)", self.path)
            conn = self._connection()
            conn.execute(SQLITE.write_lock)
            try:
                head = self._checked_head(conn.execute(
                    "SELECT seq FROM corollary_journal_head WHERE session_id = ?",
                    (session_id,)).fetchall())
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            self._conn_lock.release()
            raise self._wrap(exc) from exc
        except BaseException:
            self._conn_lock.release()
            raise
        return conn, head

    def _journal_rolled_back(self, mark: tuple[int, set[str]]) -> None:
        """Forget what the totals cache folded from a journal transaction that did not commit:
        its outcomes are gone and SQLite reuses their row ids, so a watermark left past them
        would skip the next outcomes. The cache reloads from the store, from the watermark
        ``mark`` the transaction began with."""
        watermark, own = mark
        with self._lock:
            if self._watermark == watermark and self._own == own:
                return  # nothing added or folded meanwhile
            self._watermark = watermark
            self._own = own
            self._totals = {}
            self._topics = {}
            self._loaded = set()
            self._dirty = True

    def journal_seq_at(self, session_id: str, at: float) -> int:
        """The last entry whose time is ``<= at`` (0: none)."""
        check_session(session_id)
        rows = self._run("SELECT seq FROM corollary_journal WHERE session_id = ? AND at <= ? "
                         "ORDER BY at DESC, seq DESC LIMIT 1", (session_id, float(at)))
        return int(rows[0][0]) if rows else 0

    def delete_journal(self, session_id: str) -> bool:
        """Forget a session's entries and checkpoints."""
        check_session(session_id)

        def body(conn: sqlite3.Connection) -> int:
            gone = 0
            for table in ("corollary_journal", "corollary_journal_head",
                          "corollary_checkpoint"):
                gone += conn.execute(f"DELETE FROM {table} WHERE session_id = ?",
                                     (session_id,)).rowcount
            return gone

        return bool(self._write(body))

    def reclaim(self) -> None:
        """After ``kb.forget`` committed: copy the write-ahead log into the file and truncate
        it, so that the pages holding the erased bytes are gone from the ``-wal`` file too
        (``PRAGMA secure_delete`` zeroed them in the file's free space). A reader of another
        connection in the middle of a read keeps the log from being truncated: the next
        checkpoint does it (docs/journal.md, "Forgetting")."""
        if self._memory or self.read_only:
            return
        for attempt in range(20):  # a reader finishing its read lets the log go
            busy = self._run("PRAGMA wal_checkpoint(TRUNCATE)")[0][0]
            if not busy:
                return
            time.sleep(0.01 * (attempt + 1))

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called: nothing is read or written from here on (a
        session cache's checkpoint writer gives up its pending ones quietly)."""
        return self._closed

    def close(self) -> None:
        """Close this process's connection (one inherited from a parent is never closed)."""
        with self._conn_lock:
            self._closed = True
            self._owned.release()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"


class _SQLiteJournal:
    """The journal writer of :meth:`SQLiteStore.journal`: appends and reads on the connection
    of the store's ``BEGIN IMMEDIATE`` transaction, while the block runs."""

    __slots__ = ("session_id", "head", "_conn", "_where", "_wrap")

    def __init__(self, conn: sqlite3.Connection, session_id: str, head: int, where: object,
                 wrap: Callable[[sqlite3.Error], StoreError]) -> None:
        self.session_id = session_id
        self.head = head
        self._conn: sqlite3.Connection | None = conn
        self._where = where
        self._wrap = wrap  # the store's: a driver error as the StoreError it means

    def end(self) -> None:
        """The transaction is over: later calls raise ``StoreError``."""
        self._conn = None

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the journal's transaction has ended", self._where)
        return self._conn

    def entries(self, after: int) -> list[tuple[int, bytes]]:
        after = check_seq(after, "after")
        try:
            rows = self._live().execute(
                "SELECT seq, entry FROM corollary_journal WHERE session_id = ? AND seq > ? "
                "ORDER BY seq", (self.session_id, after)).fetchall()
        except sqlite3.Error as exc:
            raise self._wrap(exc) from exc
        return [checked_entry_row(seq, entry, self._where) for seq, entry in rows]

    def append(self, entry: bytes, at: float) -> int:
        entry, when = check_entry(entry, at)
        seq = self.head + 1
        try:
            conn = self._live()
            conn.execute("INSERT INTO corollary_journal (session_id, seq, at, entry) "
                         "VALUES (?, ?, ?, ?)", (self.session_id, seq, when, entry))
            conn.execute("INSERT INTO corollary_journal_head (session_id, seq) VALUES (?, ?) "
                         "ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq",
                         (self.session_id, seq))
        except sqlite3.Error as exc:
            raise self._wrap(exc) from exc
        self.head = seq
        return seq

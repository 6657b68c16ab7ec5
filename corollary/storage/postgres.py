"""The PostgreSQL ledger store: one ledger for a fleet of agent processes on many machines.

The same schema and semantics as :mod:`corollary.storage.sqlite`, in a PostgreSQL schema
(namespace) of its own, ``corollary`` by default. Needs the ``postgres`` extra (psycopg 3 and
psycopg_pool), imported only when a PostgreSQL ledger is opened.

Writers serialise on a transaction-scoped advisory lock, which makes outcome ids follow commit
order: a reader that has seen every id up to ``n`` has seen every outcome committed before it,
so each process can catch up incrementally (``id > n``) and fold the same outcomes in the same
order as every other process. Plain reads take no lock.

A connection that breaks (a server restarting, a network cut) is not the caller's problem until
the store's ``timeout`` has passed: every operation is retried on a fresh connection, with
backoff, until it succeeds or the time is up (then :class:`~corollary.foundations.errors.StoreError`).
Retrying a write is safe because outcomes are keyed by event id: a batch that committed just
before the connection broke is recognised, row by row, on the retry and reported as written,
not stored twice. A versioned session save that committed before the break is recognised the
same way (its bytes and version are already there).

Forks: a forked child never uses, closes or finalises the pool it inherited (its sockets are
the parent's sessions); it opens a pool of its own on first use.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..foundations._validate import check_number
from ..foundations.errors import (
    InvalidInputError,
    JournalMovedError,
    StoreCorruptError,
    StoreError,
    StoreVersionError,
    require,
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
from .dialects.postgres import POSTGRES
from .processes import keep_forever, owned_by
from .queries import SQLQueries
from .schema import MIGRATIONS
from .schema import SCHEMA_VERSION as _SCHEMA_VERSION

#: The schema version this code writes (:data:`corollary.storage.schema.SCHEMA_VERSION`).
SCHEMA_VERSION = _SCHEMA_VERSION
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
#: Rows per page when catching up with other writers.
_PAGE = 50_000
#: SQLSTATEs of a connection that is gone (class 08) or of a server shutting down or starting.
_GONE = ("08", "57P01", "57P02", "57P03")


def _lock_key(namespace: str) -> int:
    """A stable signed 64-bit advisory-lock key for one ledger namespace."""
    digest = hashlib.blake2b(f"corollary-ledger:{namespace}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PostgresStore(SQLQueries, CachedSQLStore):
    """Outcomes in a PostgreSQL database, shared by processes on any number of machines.

    Parameters
    ----------
    url : str
        A libpq connection string or ``postgresql://`` URL.
    half_life : float, optional
        The ledger's memory half-life in seconds (shapes only the in-process cache).
    namespace : str
        The PostgreSQL schema holding the ledger's tables (created if missing), so several
        ledgers can share one database.
    min_size, max_size : int
        Bounds of the connection pool.
    timeout : float
        Seconds to wait for a pooled connection, for another writer's lock, and for a broken
        connection to come back (operations are retried until then).
    poll_interval : float
        Ask the server for other writers' outcomes at most this often (seconds);
        :meth:`changed_sources` (the ledger's ``poll``) answers from memory in between. The
        default 0 asks every time (one round trip); :meth:`sync` always asks.
    """

    def __init__(self, url: str, half_life: float | None = None, *, namespace: str = "corollary",
                 min_size: int = 1, max_size: int = 4, timeout: float = 30.0,
                 poll_interval: float = 0.0) -> None:
        self.half_life = check_half_life(half_life)
        if not isinstance(namespace, str) or not _NAME.match(namespace):
            raise InvalidInputError(f"namespace must be a lower-case SQL identifier, got "
                                    f"{namespace!r}")
        psycopg = require("psycopg", "postgres", "a PostgreSQL ledger")
        self._pool_module = require("psycopg_pool", "postgres", "a PostgreSQL ledger")
        self._psycopg = psycopg
        self.url = url
        self.location = _redact(url)
        self.namespace = namespace
        #: the spelling of this store's statements, its tables in ``namespace``
        self.dialect = POSTGRES.in_namespace(namespace)
        self.timeout = float(timeout)
        self._sizes = (min_size, max_size)
        #: the most connections this process's pool opens (a bound on concurrent operations)
        self.max_size = int(max_size)
        #: the key of the advisory lock this ledger's writers take (outcome ids in commit order)
        self.lock_key = _lock_key(namespace)
        self.poll_interval = float(poll_interval)
        self._last_check = float("-inf")
        self._conn_lock = threading.RLock()
        self._pid = os.getpid()
        self._closed = False
        self._degraded = False  # a connection broke: retry outside the pool until it heals
        self._local = threading.local()  # .writer: this thread's open journal transaction
        self._listener: _Listener | None = None
        self._notifier: _Notifier | None = None
        self._append_sql: str | None = None  # the statement of _append_after
        #: the channel followers of this namespace's journals LISTEN on (docs/journal.md)
        self.channel = "corollary_journal_" + _lock_key(namespace).to_bytes(
            8, "big", signed=True).hex()
        self._owned = owned_by(self)
        self._pool = self._open_pool()
        try:
            self._ensure_schema()
            self._init_cache()
        except BaseException:
            self._owned.release()
            raise

    @property
    def _pool(self) -> Any:
        return self._owned.resource

    @_pool.setter
    def _pool(self, pool: Any) -> None:
        self._owned.set(pool)

    # -- plumbing ------------------------------------------------------------------------
    def _open_pool(self) -> Any:
        min_size, max_size = self._sizes
        try:
            pool = self._pool_module.ConnectionPool(
                self.url, min_size=min_size, max_size=max_size, timeout=self.timeout,
                open=False, kwargs={"autocommit": True}, name=f"corollary-{self.namespace}")
            pool.open(wait=True, timeout=self.timeout)
        except Exception as exc:
            raise StoreError(f"cannot connect to the ledger database: {exc}",
                             self.location) from exc
        return pool

    def _current_pool(self) -> Any:
        """This process's pool (a forked child opens its own on first use)."""
        with self._conn_lock:
            if self._pid != os.getpid():  # a fork that ran no hooks
                self._after_fork_in_child(forked=False)
            if self._pool is None:
                if self._closed:
                    raise StoreError("the ledger is closed", self.location)
                self._pool = self._open_pool()
            return self._pool

    def _drop_inherited(self, forked: bool) -> None:
        """Forget the parent's pool without closing it: its sockets are the parent's sessions,
        and closing (or finalising) a connection would end them. Kept alive, unused, for the
        child's whole life."""
        pool, self._pool = self._pool, None
        if pool is not None:
            keep_forever(pool)
        listener, self._listener = self._listener, None
        if listener is not None:  # its thread is the parent's; its socket too
            keep_forever(listener)
        notifier, self._notifier = self._notifier, None
        if notifier is not None:  # its thread is the parent's
            keep_forever(notifier)
        if forked:
            self._local = threading.local()

    def _gone(self, exc: BaseException) -> bool:
        """Whether ``exc`` is the connection breaking (worth a retry), not a refusal."""
        if not isinstance(exc, self._psycopg.OperationalError):
            return False
        if isinstance(exc, self._pool_module.PoolTimeout):
            return True
        state = getattr(exc, "sqlstate", None)
        return state is None or state.startswith(_GONE)

    def _tx(self, body: Callable[[Any], Any], *, lock: bool = False, single: bool = False,
            again: Callable[[Any], Any] | None = None, read: bool = False) -> Any:
        """Run ``body(conn)`` in one transaction (holding the write lock if ``lock``).

        ``single``: body is one statement, run in autocommit (one round trip). Locked
        transactions are pipelined: BEGIN, the lock, the body and COMMIT go out together.
        ``read``: body only reads (it joins a journal transaction the thread holds, but not one
        that is only assumed and has taken nothing yet: it reads what everyone reads).
        A broken connection is retried (``again`` in place of ``body``, if given: it must
        recognise what a first attempt may have committed) until ``timeout`` has passed.
        """
        writer = getattr(self._local, "writer", None)
        if writer is not None and writer.pid == os.getpid() and not (
                read and isinstance(writer, AssumedJournalWriter) and writer.held is None):
            # this thread has a journal transaction open: the statement joins it, so a change
            # and the outcomes it records commit (or roll back) together
            return writer.run(body, lock)
        deadline = time.monotonic() + self.timeout
        delay = 0.05
        attempt = body
        direct = self._degraded
        while True:
            try:
                result = self._attempt(attempt, lock, single, deadline, direct)
            except StoreError:
                raise
            except Exception as exc:
                left = deadline - time.monotonic()
                if self._gone(exc):
                    # the pool reconnects in the background, with a backoff that grows with
                    # the outage: until it has a connection again, go straight to the server
                    # (this call's next attempt, or the next call's if no time is left)
                    self._degraded = direct = True
                if self._gone(exc) and left > 0:
                    time.sleep(min(delay, left))
                    delay = min(delay * 2, 1.0)
                    attempt = again or body
                    continue
                if self._gone(exc):
                    raise StoreError(f"the ledger database stayed unreachable for "
                                     f"{self.timeout:g} s: {exc}", self.location) from exc
                if isinstance(exc, self._psycopg.Error) or type(exc).__module__.startswith(
                        "psycopg"):
                    raise StoreError(f"ledger database error: {exc}", self.location) from exc
                raise
            if direct and self._pool is not None and self._pool.get_stats().get(
                    "pool_available", 0):
                self._degraded = False  # the pool has a connection again
            return result

    def _attempt(self, body: Callable[[Any], Any], lock: bool, single: bool, deadline: float,
                 direct: bool) -> Any:
        left = max(deadline - time.monotonic(), 0.001)
        with self._connection(left, direct) as conn:
            if single:
                return body(conn)
            if not lock:
                with conn.transaction():
                    return body(conn)
            with conn.pipeline():
                with conn.transaction():
                    conn.execute("SELECT set_config('lock_timeout', %s, true), "
                                 "pg_advisory_xact_lock(%s)",
                                 (f"{int(self.timeout * 1000)}ms", self.lock_key))
                    cursor = body(conn)
            # the pipeline is synced and COMMIT has returned: only now is success reported
            return cursor.fetchall() if cursor is not None else None

    def _connection(self, left: float, direct: bool) -> Any:
        """A connection context: pooled, or (``direct``) one of our own, closed afterwards."""
        if self._closed:
            raise StoreError("the ledger is closed", self.location)
        if direct:
            return self._psycopg.connect(self.url, autocommit=True,
                                         connect_timeout=max(2, int(left + 1)))
        return self._current_pool().connection(timeout=left)

    def as_store_error(self, exc: BaseException) -> BaseException:
        """A psycopg error as the :class:`StoreError` the caller sees (others unchanged): a
        broken connection, or any other driver error, named with this store's location.

        Examples
        --------
        >>> store.as_store_error(ValueError("x"))  # doctest: +SKIP
        ValueError('x')
        """
        if self._gone(exc):
            return StoreError(f"the ledger database connection broke: {exc}", self.location)
        if isinstance(exc, self._psycopg.Error) or type(exc).__module__.startswith("psycopg"):
            return StoreError(f"ledger database error: {exc}", self.location)
        return exc

    def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._tx(lambda conn: conn.execute(sql, params).fetchall(), single=True,
                        read=True)

    _select = _fetch  # the one-statement read the shared queries use (corollary.storage.queries)

    def _change(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One write statement (autocommit, or in the thread's open journal transaction)."""
        return int(self._tx(lambda conn: conn.execute(sql, params).rowcount, single=True))

    # -- schema --------------------------------------------------------------------------
    def _version(self, conn: Any) -> int | None:
        """The schema version; ``None`` for a namespace with no ledger in it."""
        ns = self.namespace
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (ns,)).fetchall()}
        if not tables:
            return None
        if "schema_history" not in tables:
            raise StoreCorruptError(f"schema {ns!r} holds tables that are not a corollary "
                                    "ledger; left untouched", self.location)
        version = conn.execute(f"SELECT coalesce(max(version), 0) FROM {ns}.schema_history"
                               ).fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreVersionError(
                f"ledger schema version {version} is newer than this corollary reads "
                f"({SCHEMA_VERSION}); upgrade corollary", self.location)
        return int(version)

    def _ensure_schema(self) -> None:
        #: whether the namespace has the journal tables (version 5 on; a save_session checks
        #: there that the session is no journal)
        self._keeps_journals = SCHEMA_VERSION >= 5
        if self._tx(self._version) == SCHEMA_VERSION:
            return
        ns = self.namespace

        def upgrade(conn: Any) -> None:
            version = self._version(conn)  # again, under the lock: someone may have won
            dialect = self.dialect
            if version is None:
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ns}")
                conn.execute(dialect.create_history())
                version = 0
            while version < SCHEMA_VERSION:
                for statement in dialect.statements(MIGRATIONS[version]):
                    conn.execute(statement)
                version += 1
                conn.execute(dialect.record_step(), (version, time.time(), os.getpid()))

        self._tx(upgrade, lock=True)  # returns None: nothing to fetch

    @property
    def schema_version(self) -> int:
        """The schema version of the ledger's tables."""
        return int(self._tx(self._version))

    # -- queries -------------------------------------------------------------------------
    def _insert(self, batch: list[Outcome]) -> set[str]:
        ns = self.namespace
        columns = list(zip(*(row_of(o) for o in batch), strict=True))
        types = ("text", "text", "text", "int4", "float8", "float8", "text", "text", "text",
                 "float8")
        arrays = ", ".join(f"%s::{t}[]" for t in types)
        sql = (f"INSERT INTO {ns}.outcomes ({', '.join(COLUMNS)}) "
               f"SELECT {', '.join(COLUMNS)} FROM unnest({arrays}) WITH ORDINALITY "
               f"AS u({', '.join(COLUMNS)}, ord) ORDER BY ord "
               f"ON CONFLICT (event_id) DO NOTHING RETURNING event_id")
        params = [list(c) for c in columns]
        mine: set[str] = set()

        def again(conn: Any) -> Any:
            # the first attempt may have committed before its connection broke: the rows it
            # wrote are exactly ours (same event id, same recording time and verdict)
            for event_id, source, outcome, at, recorded_at in conn.execute(
                    f"SELECT event_id, source, outcome, observed_at, recorded_at "
                    f"FROM {ns}.outcomes WHERE event_id = ANY(%s)", (params[0],)).fetchall():
                o = ours.get(event_id)
                if o is not None and (o.source, int(o.correct), o.at, o.recorded_at) == (
                        source, outcome, at, recorded_at):
                    mine.add(event_id)
            return conn.execute(sql, params)

        ours = {o.event_id: o for o in batch}
        rows = self._tx(lambda conn: conn.execute(sql, params), lock=True, again=again)
        return {r[0] for r in rows} | mine

    def _rows_since(self, after: int) -> Iterable[Sequence[Any]]:
        # in pages with a LIMIT, so that even a generic prepared plan walks the primary key
        page = _PAGE
        sql = (f"SELECT id, event_id, source, topic, outcome, observed_at "
               f"FROM {self.namespace}.outcomes WHERE id > %s ORDER BY id LIMIT {page}")
        while True:
            rows = self._fetch(sql, (after,))
            yield from rows
            if len(rows) < page:
                return
            after = rows[-1][0]

    def _rows_of(self, source: str, upto: int) -> Iterable[Sequence[Any]]:
        return self._fetch(f"SELECT topic, outcome, observed_at FROM {self.namespace}.outcomes "
                           f"WHERE source = %s AND id <= %s ORDER BY id", (source, upto))

    def _max_id(self) -> int:
        return int(self._fetch(f"SELECT coalesce(max(id), 0) FROM {self.namespace}.outcomes"
                               )[0][0])

    def _external_change(self) -> bool:
        look = getattr(self._local, "look", None)
        if look is not None:  # inside one_look(): at most one look for the whole block
            if look.taken:
                return False  # what the look found was caught up with then
            look.taken = True
            if look.newest is not None:  # asked with the journal's head (journal_changed)
                return look.newest > self._watermark
            if not look.ask:
                return False  # a write: the outcomes as of this process's last look
        if self.poll_interval:
            now = time.monotonic()
            if now - self._last_check < self.poll_interval:
                return False
            self._last_check = now
        return self._max_id() > self._watermark  # one backward step along the primary key

    @contextlib.contextmanager
    def one_look(self, *, ask: bool = True) -> Iterator[None]:
        """Within the block, this thread asks for other writers' outcomes at most once.

        With ``poll_interval=0`` every confidence a base reads asks the server whether other
        processes recorded outcomes (one ``max(id)`` round trip each). One use of a session
        reads many (a get reads a label and a confidence, a search one for each item): in the
        block, the first check asks (``ask=True``; it rides on :meth:`journal_changed`'s
        statement when the block syncs a session first, so it costs no round trip of its own)
        and every later check answers from it, so the block sees every outcome committed
        before it began, as one read would. ``ask=False`` (a block that only writes) asks
        nothing: its checks answer as of this process's last look (what a change reads of
        the outcomes goes into its journal entry's history row only; docs/many-users.md,
        "Writes"). A block inside another takes the outer one's look, but for a block that
        may ask inside one that may not, which takes a look of its own.

        Examples
        --------
        >>> with store.one_look():  # doctest: +SKIP
        ...     kb.sync(); kb.value("diet"); kb.confidence("diet")  # one round trip in all
        """
        outer = getattr(self._local, "look", None)
        if outer is not None and (outer.ask or not ask):
            yield
            return
        self._local.look = _Look(ask)  # a read inside a write's block takes a look of its own
        try:
            yield
        finally:
            self._local.look = outer

    def wants_newest_outcome(self) -> bool:
        """Inside :meth:`one_look`, before its look is taken, in a block that may ask (and
        with ``poll_interval=0``): then :meth:`journal_changed` reads the newest outcome id
        with the head, and the block's look costs no round trip of its own."""
        look = getattr(self._local, "look", None)
        return (look is not None and not look.taken and look.ask and look.newest is None
                and not self.poll_interval)

    def take_newest_outcome(self, newest: int) -> None:
        """Keep the newest outcome id for the block's look (:meth:`one_look`)."""
        look = getattr(self._local, "look", None)
        if look is not None and not look.taken:
            look.newest = int(newest)

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Every stored outcome, oldest recorded first."""
        sql, params = self.dialect.select_outcomes(COLUMNS, source, topic)
        return [outcome_of(r, self.location) for r in self._fetch(sql, params)]

    # -- settings and sessions -----------------------------------------------------------
    def set_meta_defaults(self, values: dict[str, str]) -> None:
        """Store settings that are not stored yet (the first opener's choice sticks)."""
        sql = self.dialect.upsert("meta", ("name", "value"), ("name",))
        self._tx(lambda conn: conn.cursor().executemany(sql, list(values.items())))

    def save_session(self, session_id: str, data: bytes, *,
                     expected_version: int | None = None) -> int:
        """Keep ``data`` (a base's snapshot) under ``session_id``; return its new version.

        ``expected_version``: ``None`` writes unconditionally; ``0`` requires that there is
        no such session yet; ``n > 0`` requires the stored version to be exactly ``n``.
        Otherwise :class:`~corollary.foundations.errors.ConcurrentWriteError` is raised and nothing is
        written. Each case is one statement, so the check and the write are atomic.
        """
        check_session(session_id, data)
        expected = check_expected_version(expected_version)
        blob = bytes(data)
        table = f"{self.namespace}.sessions"
        if expected is None:
            sql = (f"INSERT INTO {table} AS s (session_id, data, updated_at, version) "
                   "VALUES (%s, %s, %s, 1) ON CONFLICT (session_id) DO UPDATE SET "
                   "data = excluded.data, updated_at = excluded.updated_at, "
                   "version = s.version + 1 RETURNING version")
            params: tuple[Any, ...] = (session_id, blob, time.time())
        elif expected == 0:
            sql = (f"INSERT INTO {table} (session_id, data, updated_at, version) "
                   "VALUES (%s, %s, %s, 1) ON CONFLICT (session_id) DO NOTHING RETURNING version")
            params = (session_id, blob, time.time())
        else:
            sql = (f"UPDATE {table} SET data = %s, updated_at = %s, version = version + 1 "
                   "WHERE session_id = %s AND version = %s RETURNING version")
            params = (blob, time.time(), session_id, expected)

        def write(conn: Any) -> tuple[list[Any], int]:
            ns = self.namespace
            if getattr(self, "_keeps_journals", True):
                # the head row's share lock waits for a conversion holding it (FOR UPDATE), so
                # a journal that began meanwhile is seen here, and no snapshot written over it
                conn.execute(f"SELECT seq FROM {ns}.corollary_journal_head "
                             "WHERE session_id = %s FOR SHARE", (session_id,))
                if conn.execute(f"SELECT 1 FROM {ns}.corollary_checkpoint "
                                "WHERE session_id = %s LIMIT 1", (session_id,)).fetchall():
                    raise session_journaled(session_id, self.location)
            rows = conn.execute(sql, params).fetchall()
            if rows:
                return rows, 0
            found = conn.execute(f"SELECT version FROM {table} WHERE session_id = %s",
                                 (session_id,)).fetchall()
            return rows, int(found[0][0]) if found else 0

        def again(conn: Any) -> tuple[list[Any], int]:
            # did the attempt whose connection broke commit? then our bytes are there, at
            # the version that attempt would have returned
            found = conn.execute(f"SELECT data, version FROM {table} WHERE session_id = %s",
                                 (session_id,)).fetchall()
            if found and bytes(found[0][0]) == blob and (
                    expected is None or found[0][1] == expected + 1):
                return [(found[0][1],)], 0
            return write(conn)

        rows, current = self._tx(write, again=again)  # one transaction: the share lock holds
        if not rows:
            assert expected is not None
            raise session_conflict(session_id, expected, current, self.location)
        return int(rows[0][0])

    def reclaim(self) -> None:
        """After ``kb.forget`` committed: ``VACUUM`` the namespace's journal, checkpoint,
        session and outcome tables, so that the dead row versions holding the erased bytes are
        reclaimed now rather than by autovacuum (docs/journal.md, "Forgetting")."""
        for table in ("corollary_journal", "corollary_checkpoint", "sessions", "outcomes"):
            statement = f"VACUUM {self._t(table)}"
            self._tx(functools.partial(_run_alone, statement), single=True)

    # -- the journal (docs/journal.md) ---------------------------------------------------
    @contextlib.contextmanager
    def journal(self, session_id: str) -> Iterator[PostgresJournalWriter]:
        """Hold the session's write lock for one transaction; yield its :class:`PostgresJournalWriter`.

        The transaction creates the session's head row if it is missing and locks it
        (``SELECT ... FOR UPDATE``): a second writer of the same session waits there (at most
        ``timeout`` seconds, then :class:`~corollary.foundations.errors.StoreError`), so entries
        are numbered in lock order, ``head + 1``, with no gap. Outcomes this thread writes
        through :meth:`add` while the block runs join the transaction. A normal exit commits
        (followers are notified after it, see :meth:`wait_journal`); an exception rolls
        everything back.

        A connection that breaks before the lock is held is retried until ``timeout``, like
        every other operation; one that breaks during the block fails it (nothing is written).
        A connection lost while COMMIT was under way is resolved by reading back what was
        appended: committed, the block returns normally; not committed, ``StoreError``.

        Examples
        --------
        >>> store = PostgresStore(url)  # doctest: +SKIP
        >>> with store.journal("agent-1") as w:  # doctest: +SKIP
        ...     new = w.entries(after=0)
        ...     seq = w.append(b"...", at=time.time())
        """
        check_session(session_id)
        if getattr(self._local, "writer", None) is not None:
            raise StoreError("a journal transaction is already open in this thread",
                             self.location)
        stack, tx, writer = self.begin_journal(session_id)
        self._local.writer = writer
        try:
            yield writer
        except BaseException as exc:
            self._local.writer = None
            self._journal_failed(stack, tx, writer, exc)
        self._local.writer = None
        self._journal_done(stack, tx, writer)

    def _journal_failed(self, stack: contextlib.ExitStack[Any], tx: Any,
                        writer: PostgresJournalWriter, exc: BaseException) -> None:
        """Roll back a journal transaction whose block raised ``exc``; raise it (a driver
        error as a ``StoreError``). Called in the ``except`` clause."""
        with contextlib.suppress(Exception):
            tx.__exit__(*sys.exc_info())  # ROLLBACK
        with contextlib.suppress(Exception):
            stack.__exit__(*sys.exc_info())
        self._rolled_back(writer)
        wrapped = self.as_store_error(exc)  # a driver error met inside the block: StoreError
        if wrapped is exc:
            raise exc
        raise wrapped from exc

    def _journal_done(self, stack: contextlib.ExitStack[Any], tx: Any,
                      writer: PostgresJournalWriter) -> None:
        """Commit a journal transaction whose block ended normally (the appends and COMMIT
        in one round trip); a COMMIT whose connection broke is resolved by reading back."""
        try:
            if writer.failed is None:
                with writer.conn.pipeline():  # the appends and COMMIT: one round trip
                    writer.flush()
                    tx.__exit__(None, None, None)
            else:
                tx.__exit__(None, None, None)
        except Exception as exc:
            with contextlib.suppress(Exception):
                stack.__exit__(*sys.exc_info())
            if writer.failed is None and self._gone(exc) and self._committed(writer):
                return
            self._rolled_back(writer)
            raise self.as_store_error(writer.failed or exc) from exc
        stack.__exit__(None, None, None)  # the connection goes back to the pool
        if writer.failed is None and writer.appended:
            self._notify(writer.session_id, writer.appended[-1][0])
        if writer.failed is not None:  # a statement failed and the caller swallowed it
            self._rolled_back(writer)
            raise self.as_store_error(writer.failed)

    @contextlib.contextmanager
    def journal_after(self, session_id: str, seq: int,
                      last: bytes) -> Iterator[AssumedJournalWriter]:
        """:meth:`journal` for a writer that holds the session's latest entry: ``seq``, whose
        bytes are ``last``. Nothing is asked of the database until the block needs it.

        A block that only appends (one entry) commits it in **one statement**: it advances the
        head from ``seq`` and inserts the entry only if the head is still ``seq`` and its entry
        still ``last``, atomically (the head row's lock orders it with every other writer);
        followers are notified after it (:class:`_Notifier`). A block that writes anything
        else through the store (an outcome a change records) first takes the lock as
        :meth:`journal` does and finds the
        same head and entry there. Either way, if another writer appended meanwhile (or the
        journal was replaced), :class:`~corollary.foundations.errors.JournalMovedError` is
        raised and nothing is written: the caller runs its change again under
        :meth:`journal`. So a session's entries stay numbered in lock order with no gap, and an
        acknowledged entry is committed, as with :meth:`journal`.

        Examples
        --------
        >>> with store.journal_after("agent-1", 7, last_entry) as w:  # doctest: +SKIP
        ...     seq = w.append(b"...", at=time.time())  # 8, committed in one round trip
        """
        check_session(session_id)
        seq = check_seq(seq)
        if seq < 1 or not isinstance(last, bytes):
            raise InvalidInputError("journal_after takes the seq (>= 1) and bytes of the "
                                    "session's last entry")
        if getattr(self._local, "writer", None) is not None:
            raise StoreError("a journal transaction is already open in this thread",
                             self.location)
        writer = AssumedJournalWriter(self, session_id, seq, hashlib.md5(last).hexdigest())
        self._local.writer = writer
        try:
            yield writer
        except BaseException as exc:
            self._local.writer = None
            if writer.held is not None:
                self._journal_failed(*writer.held, exc)
            wrapped = self.as_store_error(exc)
            if wrapped is exc:
                raise
            raise wrapped from exc
        self._local.writer = None
        if writer.held is not None:
            if writer.moved is not None:  # the block swallowed it: still nothing is written
                try:
                    raise writer.moved
                except JournalMovedError as exc:
                    self._journal_failed(*writer.held, exc)
            self._journal_done(*writer.held)
            return
        if writer.staged is not None:
            self._append_after(writer)

    def _append_after(self, writer: AssumedJournalWriter) -> None:
        """The one statement of :meth:`journal_after`: the entry appended if the head is
        still where the writer found it (else ``JournalMovedError``, nothing written)."""
        assert writer.staged is not None
        seq, blob, at = writer.staged
        t = self._t
        sid = writer.session_id
        params = (seq, sid, seq - 1, sid, seq - 1, writer.digest, sid, at, blob)
        sql = self._append_sql
        if sql is None:  # made once: the driver prepares it on the server after a few uses
            sql = self._append_sql = (
                f"WITH h AS (UPDATE {t('corollary_journal_head')} SET seq = %s "
                "WHERE session_id = %s AND seq = %s AND EXISTS (SELECT 1 FROM "
                f"{t('corollary_journal')} WHERE session_id = %s AND seq = %s AND "
                "md5(entry) = %s) RETURNING seq) "
                f"INSERT INTO {t('corollary_journal')} (session_id, seq, at, entry) "
                "SELECT %s, seq, %s, %s FROM h RETURNING seq")

        def append(conn: Any) -> list[Any]:
            return list(conn.execute(sql, params).fetchall())

        def again(conn: Any) -> Any:
            # the first attempt may have committed before its connection broke: then our
            # entry is there, at our seq
            found = conn.execute(f"SELECT entry FROM {t('corollary_journal')} WHERE "
                                 "session_id = %s AND seq = %s",
                                 (writer.session_id, seq)).fetchall()
            if found and bytes(found[0][0]) == blob:
                return [(seq,)]
            return append(conn)

        rows = self._tx(append, single=True, again=again)
        if not rows:
            raise JournalMovedError(f"the journal of session {writer.session_id!r} moved past "
                                    f"entry {seq - 1} (another writer appended): nothing was "
                                    "written", self.location)
        self._notify(writer.session_id, seq)

    def _notify(self, session_id: str, seq: int) -> None:
        """Have followers notified of entry ``seq`` (committed), off the writer's path: by
        this process's :class:`_Notifier` thread, in a transaction of its own."""
        with self._conn_lock:
            if self._pid != os.getpid() or self._closed:
                return
            if self._notifier is None:
                self._notifier = _Notifier(self)
            notifier = self._notifier
        notifier.tell(session_id, seq)

    def notify_followers(self, told: Mapping[str, int]) -> None:
        """Tell the followers of each session in ``told`` (``LISTEN`` on :attr:`channel`) of
        its entry ``told[session]`` now: one ``NOTIFY`` each, payload ``"<seq> <session>"``,
        in one transaction of their own with ``synchronous_commit`` off (a notification needs
        no durability). Appends call it through this store's notifier thread, off the
        writer's path; a follower that misses one finds the entry at its next look.

        Examples
        --------
        >>> store.notify_followers({"agent-1": 8})  # doctest: +SKIP
        """
        notes = [(self.channel, f"{int(seq)} {check_session(sid)}") for sid, seq in told.items()]
        if not notes:
            return
        sql = ("SELECT set_config('synchronous_commit', 'off', true), "
               + ", ".join("pg_notify(%s, %s)" for _ in notes))
        params = [p for note in notes for p in note]
        self._tx(lambda conn: conn.execute(sql, params), single=True)

    def close_notifier(self) -> None:
        """Send the notifications told so far and end the thread that sends them (one starts
        again with the next append): nothing of this store runs in the background after it.

        Examples
        --------
        >>> store.close_notifier()  # doctest: +SKIP
        """
        with self._conn_lock:
            notifier, self._notifier = self._notifier, None
        if notifier is not None and notifier.pid == os.getpid():
            notifier.stop()

    def begin_journal(self, session_id: str) -> tuple[contextlib.ExitStack[Any], Any,
                                                      PostgresJournalWriter]:
        """Open a transaction holding the session's head row (retried while the server is
        away): ``(stack, tx, writer)``, closed by :meth:`journal`'s end (or, for
        :meth:`journal_after`'s writer, by the same steps when its block ends). A
        lower-level step of :meth:`journal`, which callers use instead.

        Examples
        --------
        >>> stack, tx, writer = store.begin_journal("agent-1")  # doctest: +SKIP
        """
        ns = self.namespace
        deadline = time.monotonic() + self.timeout
        delay = 0.05
        while True:
            stack = contextlib.ExitStack()
            tx: Any = None
            direct = self._degraded
            try:
                conn = stack.enter_context(
                    self._connection(max(deadline - time.monotonic(), 0.001), direct))
                with conn.pipeline():  # BEGIN, the lock and the head: one round trip
                    tx = conn.transaction()
                    tx.__enter__()
                    conn.execute("SELECT set_config('lock_timeout', %s, true)",
                                 (f"{int(self.timeout * 1000)}ms",))
                    conn.execute(f"INSERT INTO {ns}.corollary_journal_head (session_id, seq) "
                                 "VALUES (%s, 0) ON CONFLICT (session_id) DO NOTHING",
                                 (session_id,))
                    cursor = conn.execute(f"SELECT seq FROM {ns}.corollary_journal_head "
                                          "WHERE session_id = %s FOR UPDATE", (session_id,))
                head = int(cursor.fetchone()[0])
            except Exception as exc:
                if tx is not None:
                    with contextlib.suppress(Exception):
                        tx.__exit__(*sys.exc_info())
                with contextlib.suppress(Exception):
                    stack.__exit__(*sys.exc_info())
                left = deadline - time.monotonic()
                if self._gone(exc):
                    self._degraded = True  # as in _tx: straight to the server until it heals
                if self._gone(exc) and left > 0:
                    time.sleep(min(delay, left))
                    delay = min(delay * 2, 1.0)
                    continue
                if self._gone(exc):
                    raise StoreError(f"the ledger database stayed unreachable for "
                                     f"{self.timeout:g} s: {exc}", self.location) from exc
                raise self.as_store_error(exc) from exc
            if direct and self._pool is not None and self._pool.get_stats().get(
                    "pool_available", 0):
                self._degraded = False
            return stack, tx, PostgresJournalWriter(self, conn, session_id, head)

    def _committed(self, writer: PostgresJournalWriter) -> bool:
        """Whether a transaction whose COMMIT lost its connection committed after all."""
        if not writer.appended:
            return False  # nothing to recognise it by: report the failure
        seq, entry = writer.appended[-1]
        try:
            rows = self._fetch(f"SELECT entry FROM {self.namespace}.corollary_journal "
                               "WHERE session_id = %s AND seq = %s", (writer.session_id, seq))
        except StoreError:
            return False
        return bool(rows) and bytes(rows[0][0]) == entry

    def _rolled_back(self, writer: PostgresJournalWriter) -> None:
        """Forget what the cache folded from a transaction that did not commit."""
        if writer.read_outcomes:
            with self._lock:
                self._totals = {}
                self._topics = {}
                self._loaded = set()
                self._dirty = True

    def journal_seq_at(self, session_id: str, at: float) -> int:
        """The seq of the last entry whose time is ``<= at`` (0: none)."""
        check_session(session_id)
        at = check_number(at, "at")
        rows = self._fetch(f"SELECT coalesce(max(seq), 0) FROM {self.namespace}."
                           "corollary_journal WHERE session_id = %s AND at <= %s",
                           (session_id, at))
        return int(rows[0][0])

    def delete_journal(self, session_id: str) -> bool:
        """Forget a session's journal and checkpoints; whether there was any."""
        check_session(session_id)
        ns = self.namespace

        def delete(conn: Any) -> int:
            found = conn.execute(f"SELECT 1 FROM {ns}.corollary_journal_head WHERE "
                                 "session_id = %s FOR UPDATE", (session_id,)).fetchall()
            n = len(found)
            for table in ("corollary_journal", "corollary_checkpoint",
                          "corollary_journal_head"):
                n += conn.execute(f"DELETE FROM {ns}.{table} WHERE session_id = %s",
                                  (session_id,)).rowcount
            return n

        return bool(self._tx(delete))

    def wait_journal(self, session_id: str, after: int, timeout: float) -> int:
        """Wait until the session has an entry past ``after``, at most ``timeout`` seconds.

        Returns the session's head (``> after`` unless the time ran out). A follower wakes on
        the NOTIFY each committed append sends on the store's channel (one per namespace), so
        a change made on another machine is seen within a round trip of its commit; while the
        listening connection is down (a server restart) it polls every
        :data:`POLL_INTERVAL` seconds instead.

        Examples
        --------
        >>> head = store.wait_journal("agent-1", after=kb_seq, timeout=30)  # doctest: +SKIP
        """
        check_session(session_id)
        after = check_seq(after, "after")
        timeout = check_number(timeout, "timeout", low=0)
        deadline = time.monotonic() + timeout
        listener = self._current_listener()
        while True:
            mark = listener.mark()
            head = self.journal_head(session_id)
            left = deadline - time.monotonic()
            if head > after or left <= 0:
                return head
            listener.wait(mark, session_id, after, left)

    def _current_listener(self) -> _Listener:
        with self._conn_lock:
            if self._pid != os.getpid():
                self._after_fork_in_child(forked=False)
            if self._closed:
                raise StoreError("the ledger is closed", self.location)
            if self._listener is None:
                self._listener = _Listener(self.url, self.channel)
            return self._listener

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called: nothing is read or written from here on (a
        session cache's checkpoint writer gives up its pending ones quietly)."""
        return self._closed

    def close(self) -> None:
        """Close this process's connection pool (one inherited from a parent is never
        closed: its connections are the parent's)."""
        self.close_notifier()  # sends what it was told first (outside the lock: it uses the pool)
        with self._conn_lock:
            self._closed = True
            listener, self._listener = self._listener, None
            if listener is not None and listener.pid == os.getpid():
                listener.stop()
            self._owned.release()

    def __repr__(self) -> str:
        return f"PostgresStore({self.location!r}, namespace={self.namespace!r})"


#: Seconds the notifier waits after sending before it sends again: followers of a session
#: written many times a second hear of its newest entry at most this late.
NOTIFY_GAP = 0.005
#: Seconds between looks at the journal head while no notification can arrive.
POLL_INTERVAL = 0.25


def _run_alone(statement: str, conn: Any) -> None:
    """One statement on an autocommit connection (``VACUUM`` runs outside transactions)."""
    conn.execute(statement)


class _Look:
    """One :meth:`PostgresStore.one_look` block: whether it may ask, the newest outcome id a
    statement brought back with the journal's head, and whether a check has used it."""

    __slots__ = ("ask", "newest", "taken")

    def __init__(self, ask: bool) -> None:
        self.ask = ask
        self.newest: int | None = None
        self.taken = False


class PostgresJournalWriter:
    """The open journal transaction of one session (see :meth:`PostgresStore.journal`).

    ``head`` is the session's last entry number: as found under the lock, then the last one
    appended.
    """

    def __init__(self, store: PostgresStore, conn: Any, session_id: str, head: int) -> None:
        self._store = store
        self.conn = conn
        self.session_id = session_id
        self.head = head
        self.pid = os.getpid()
        self.appended: list[tuple[int, bytes]] = []
        self.read_outcomes = False  # outcomes were written or read in this transaction
        self.failed: BaseException | None = None
        self._ledger_locked = False
        self._pending: list[tuple[str, tuple[Any, ...]]] = []  # appends not sent yet

    def entries(self, after: int) -> list[tuple[int, bytes]]:
        """Entries with ``seq > after``, ascending (none past :attr:`head`: the lock is held)."""
        after = check_seq(after, "after")
        if after >= self.head:
            return []
        ns = self._store.namespace
        rows = self.execute(f"SELECT seq, entry FROM {ns}.corollary_journal "
                             "WHERE session_id = %s AND seq > %s ORDER BY seq",
                             (self.session_id, after), fetch=True)
        where = self._store.location
        return [checked_entry_row(seq, entry, where) for seq, entry in rows]

    def append(self, entry: bytes, at: float) -> int:
        """Append one entry (its number is ``head + 1``); it commits with the transaction."""
        blob, at = check_entry(entry, at)
        if self.failed is not None:
            raise StoreError("the journal transaction already failed: " + str(self.failed),
                             self._store.location)
        seq = self.head + 1
        store = self._store
        ns = store.namespace
        # sent with COMMIT (one round trip), or before the next statement of the transaction;
        # followers are notified after the commit (PostgresStore._notification)
        self._pending.append((
            f"WITH j AS (INSERT INTO {ns}.corollary_journal (session_id, seq, at, entry) "
            "VALUES (%s, %s, %s, %s)) "
            f"UPDATE {ns}.corollary_journal_head SET seq = %s WHERE session_id = %s",
            (self.session_id, seq, at, blob, seq, self.session_id)))
        self.head = seq
        self.appended.append((seq, blob))
        return seq

    def run(self, body: Callable[[Any], Any], lock: bool) -> Any:
        """Run a store statement inside this transaction (for :meth:`PostgresStore._tx`)."""
        self.read_outcomes = True
        try:
            if lock and not self._ledger_locked:
                # outcome ids follow commit order, as for every other writer
                self.conn.execute(POSTGRES.write_lock, (self._store.lock_key,))
                self._ledger_locked = True
            self.flush()
            result = body(self.conn)
            if lock:
                return result.fetchall() if result is not None else None
            return result
        except Exception as exc:
            self.failed = exc
            raise self._store.as_store_error(exc) from exc

    def flush(self) -> None:
        """Send the appends not sent yet (in order, before anything else of the transaction)."""
        pending, self._pending = self._pending, []
        for sql, params in pending:
            self.execute(sql, params)

    def execute(self, sql: str, params: Sequence[Any], *, fetch: bool = False) -> Any:
        """Run one statement of the transaction (and, with ``fetch``, read its rows): any
        driver error, from either, is a ``StoreError``."""
        if self.failed is not None:
            raise StoreError("the journal transaction already failed: " + str(self.failed),
                             self._store.location)
        if self._pending:
            self.flush()
        try:
            cursor = self.conn.execute(sql, params)
            return cursor.fetchall() if fetch else cursor
        except Exception as exc:
            self.failed = exc
            raise self._store.as_store_error(exc) from exc


class AssumedJournalWriter:
    """The journal writer of :meth:`PostgresStore.journal_after`: it assumes the session's head
    is ``head`` (whose entry's md5 is ``digest``) and holds no connection until it must.

    Appending stages the entry (committed by one statement when the block ends). Reading the
    journal, or any store statement the block runs (an outcome recorded), takes the lock first
    (:meth:`PostgresStore.begin_journal`) and checks the head there; from then on it is a
    :class:`PostgresJournalWriter`'s transaction (:attr:`held`).
    """

    #: what :meth:`~corollary.facade.journaled.JournaledMethods` reads to skip its own check of
    #: the head (this writer checks it where it writes)
    assumed = True

    def __init__(self, store: PostgresStore, session_id: str, head: int, digest: str) -> None:
        self._store = store
        self.session_id = session_id
        self.head = head
        self.digest = digest
        self.pid = os.getpid()
        self.staged: tuple[int, bytes, float] | None = None  # the entry to append
        self.moved: JournalMovedError | None = None  # found moved (even if swallowed)
        #: the transaction once taken: ``(stack, tx, writer)`` of ``begin_journal``
        self.held: tuple[contextlib.ExitStack[Any], Any, PostgresJournalWriter] | None = None

    def entries(self, after: int) -> list[tuple[int, bytes]]:
        """Entries with ``seq > after`` (none past the assumed head: nothing is asked)."""
        after = check_seq(after, "after")
        if self.held is None and after >= self.head:
            return []
        return self._take().entries(after)

    def append(self, entry: bytes, at: float) -> int:
        """Stage one entry as ``head + 1`` (committed when the block ends)."""
        if self.held is not None or self.staged is not None:
            seq = self._take().append(entry, at)
            self.head = seq
            return seq
        blob, at = check_entry(entry, at)
        self.head += 1
        self.staged = (self.head, blob, at)
        return self.head

    def run(self, body: Callable[[Any], Any], lock: bool) -> Any:
        """A store statement inside the block: in the session's locked transaction."""
        return self._take().run(body, lock)

    def _take(self) -> PostgresJournalWriter:
        """The locked transaction, taken now if not yet, at the assumed head (else
        ``JournalMovedError``); an entry staged before is appended in it."""
        if self.held is not None:
            return self.held[2]
        store = self._store
        staged, self.staged = self.staged, None
        expected = self.head - (staged is not None)
        self.held = stack, tx, writer = store.begin_journal(self.session_id)
        rows = writer.execute(f"SELECT md5(entry) FROM {store.namespace}.corollary_journal "
                               "WHERE session_id = %s AND seq = %s",
                               (self.session_id, expected), fetch=True)
        if writer.head != expected or not rows or rows[0][0] != self.digest:
            self.moved = JournalMovedError(
                f"the journal of session {self.session_id!r} moved past entry {expected} "
                "(another writer appended): nothing was written", store.location)
            raise self.moved
        if staged is not None:
            writer.append(staged[1], staged[2])
        return writer


class _Notifier:
    """A thread sending the notifications of committed entries (``NOTIFY`` on the store's
    channel, payload ``"<seq> <session>"``), off the writers' path.

    A transaction that notifies takes a lock of the whole server at its commit and holds it
    until the commit is durable (so that notifications queue in commit order): sent in the
    entry's transaction, it would make every replica's commits, of every session, wait for each
    other's, one flush at a time. Here the notifications go in a transaction of their own, with
    ``synchronous_commit`` off (a notification needs no durability), those told meanwhile
    together (the newest entry of each session), on a pooled connection. After sending, it
    waits :data:`NOTIFY_GAP` seconds (or until stopped) before the next: the first append after
    a quiet spell is notified at once, a stream of appends once every gap (one notification
    a put cost the writer's process more CPU than the put's own statement).
    """

    def __init__(self, store: PostgresStore) -> None:
        self._store = store
        self.pid = os.getpid()
        self._told: dict[str, int] = {}
        self._cond = threading.Condition()
        self._stopping = False
        self._resting = False  # between two sends: what is told waits for the gap's end
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"corollary-notify-{store.namespace}")
        self._thread.start()

    def tell(self, session_id: str, seq: int) -> None:
        """Notify followers of ``session_id``'s entry ``seq`` soon."""
        with self._cond:
            if seq > self._told.get(session_id, 0):
                self._told[session_id] = seq
            if not self._resting:
                self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._told and not self._stopping:
                    self._cond.wait()
                told, self._told = self._told, {}
            if told:
                self._send(told)
                with self._cond:  # a stream of appends: what comes meanwhile goes together
                    self._resting = True  # tell() wakes no one meanwhile (stop() does)
                    deadline = time.monotonic() + NOTIFY_GAP
                    while not self._stopping and (left := deadline - time.monotonic()) > 0:
                        self._cond.wait(left)
                    self._resting = False
            elif self._stopping:
                return

    def _send(self, told: dict[str, int]) -> None:
        # a follower that misses a wake-up finds the entry at its next look (its timeout)
        with contextlib.suppress(Exception):
            self._store.notify_followers(told)

    def stop(self) -> None:
        """Send what was told, then end the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._thread.join(self._store.timeout + 1)


class _Listener:
    """A thread LISTENing on a store's channel, waking :meth:`PostgresStore.wait_journal`.

    It keeps the newest entry number each session was notified of; while its connection is
    down it reconnects every :data:`POLL_INTERVAL` seconds and waiters poll.
    """

    def __init__(self, url: str, channel: str) -> None:
        self.url = url
        self.channel = channel
        self.pid = os.getpid()
        self.connected = False
        self.latest: dict[str, int] = {}
        self._generation = 0
        self._cond = threading.Condition()
        self._stopping = False
        self._conn: Any = None
        self._connects = -1  # the generation at which the connection was last established
        self._thread = threading.Thread(target=self._run, name=f"corollary-{channel}",
                                        daemon=True)
        self._thread.start()

    def mark(self) -> int:
        """A token for :meth:`wait`: anything notified after it wakes the waiter."""
        with self._cond:
            return self._generation

    def wait(self, mark: int, session_id: str, after: int, left: float) -> None:
        """Sleep until ``session_id`` is notified past ``after``, the connection is
        (re)established after ``mark`` (notices may have been missed: look again), ``left``
        seconds pass, or, while not listening, one poll interval."""
        deadline = time.monotonic() + left
        with self._cond:
            while True:
                remaining = deadline - time.monotonic()
                if (self.latest.get(session_id, 0) > after or self._connects > mark
                        or remaining <= 0):
                    return
                if not self.connected:
                    self._cond.wait(min(remaining, POLL_INTERVAL))
                    return
                self._cond.wait(remaining)

    def _bump(self, connected: bool | None = None) -> None:
        with self._cond:
            self._generation += 1
            if connected is not None:
                self.connected = connected
                if connected:
                    self._connects = self._generation
            self._cond.notify_all()

    def _run(self) -> None:
        import psycopg

        while not self._stopping:
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    self._conn = conn
                    conn.execute(f'LISTEN "{self.channel}"')
                    self._bump(connected=True)
                    while not self._stopping:
                        for note in conn.notifies(timeout=1.0):
                            seq, _, session_id = note.payload.partition(" ")
                            with self._cond:
                                if int(seq) > self.latest.get(session_id, 0):
                                    self.latest[session_id] = int(seq)
                            self._bump()
            except Exception:
                if self.connected:
                    self._bump(connected=False)
                if not self._stopping:
                    time.sleep(POLL_INTERVAL)
            finally:
                self._conn = None

    def stop(self) -> None:
        """End the thread (within a second) and its connection."""
        self._stopping = True
        self._bump(connected=False)


def _redact(url: str) -> str:
    """The URL without its password, for error messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)

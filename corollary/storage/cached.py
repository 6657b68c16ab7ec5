"""The totals cache every SQL store shares: outcomes folded in id order, caught up incrementally.

SQL stores keep the outcomes themselves (append-only); the aggregates behind a reliability are
folded from them in id order with :func:`corollary.trust.outcomes.fold_totals`, the same fold
the in-memory store does, so every backend gives bit-for-bit the same answers for the same
outcomes in the same order. The fold is cached per source in the process and caught up
incrementally (``id > watermark``) at the first read after a write and on
:meth:`CachedSQLStore.changed_sources`, so the belief engine's hot path
(:meth:`~corollary.trust.ledger.TrustLedger.reliability`) is a dict lookup.

The fold is exact whatever fails part-way: the watermark advances with every row folded, and a
source is loaded into a scratch table that replaces nothing until it is complete, so a read
that breaks off (a server stopping, a corrupt row) never folds an outcome twice.

The cache's lock guards the fold in memory only: rows are read from the database before it is
taken, and outcomes written before it. A thread holding it never waits for the database (a
pooled connection, the ledger's advisory lock), so it cannot wait for a thread that holds a
connection (a journal transaction) and waits for the cache (tests/stores/test_postgres_lock_order.py).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, TypeVar

from ..sources.outcomes import Outcome, Totals, fold_totals, totals_rows
from .checks import checked_fold_row, dedupe
from .processes import track

_EMPTY = Totals()
_FINITE = math.isfinite
_Store = TypeVar("_Store", bound="CachedSQLStore")


class CachedSQLStore:
    """The caching half of the SQL stores; subclasses supply the queries.

    Subclasses implement ``_insert(batch) -> set of event ids added``, ``_rows_since(id)``
    (``(id, event_id, source, topic, outcome, observed_at)`` rows with a larger id, by id),
    ``_rows_of(source, upto)`` (``(topic, outcome, observed_at)`` rows of one source up to an
    id, by id), ``_max_id()``, ``_external_change() -> bool``, ``_drop_inherited(forked)``
    (let go of what a forked child inherited, see :meth:`_after_fork_in_child`) and
    ``close()``. They set ``_conn_lock`` before :meth:`_init_cache`, which registers the store
    for the fork hooks.
    """

    half_life: float | None
    location: object
    _conn_lock: threading.RLock
    #: Whether the cache is guarded by the connection's own lock: a store whose one connection
    #: every thread shares (SQLite) takes its cache's lock inside a journal's transaction (the
    #: connection's lock held) and its connection inside a cache read (the cache's lock held);
    #: with two locks, two threads taking them in those two orders wait for each other forever.
    _one_lock: bool = False

    def _cache_lock(self) -> threading.RLock:
        return self._conn_lock if self._one_lock else threading.RLock()

    def _init_cache(self) -> None:
        self._lock = self._cache_lock()
        self._totals: dict[tuple[str, str | None], Totals] = {}
        self._topics: dict[str, set[str]] = {}
        self._loaded: set[str] = set()
        self._pending: set[str] = set()
        self._own: set[str] = set()  # event ids we wrote and have not caught up with yet
        self._dirty = False
        self._writes = 0  # writes made: a catch-up read before a write does not cover it
        self._pid = os.getpid()
        self._watermark = self._max_id()
        track(self)

    # -- processes -----------------------------------------------------------------------
    # The three fork hooks :mod:`corollary.storage.processes` calls on every live store
    # (``os.register_at_fork``); an application never calls them.
    def prepare_fork(self) -> None:
        """Get ready for a fork, in the parent just before it (a subclass may hold its locks,
        so that no thread is inside a transaction when the child is made)."""

    def finish_fork_in_parent(self) -> None:
        """Go on in the parent just after a fork (let go of what :meth:`prepare_fork` held)."""

    def finish_fork_in_child(self) -> None:
        """Make this copy of the store the forked child's own, before anything else runs in
        the child (:meth:`_after_fork_in_child` with ``forked=True``)."""
        self._after_fork_in_child(forked=True)

    def _after_fork_in_child(self, forked: bool) -> None:
        """Make this copy of the store the child's own: no inherited connection in use.

        ``forked`` is ``True`` from the fork hook, before anything else runs in the child:
        the store also gets new locks (another thread of the parent may have held them) and
        an empty cache (that thread may have been half-way through folding into it; the
        watermark stays, so the child hears of the same changes the parent would have).
        ``False`` is a store noticing a new process id on its own (a fork that ran no hooks)
        in the middle of a call: only the connection is replaced then.
        """
        if forked:
            self._conn_lock = threading.RLock()
            self._lock = self._cache_lock()
            self._totals = {}
            self._topics = {}
            self._loaded = set()
            self._dirty = True
        self._pid = os.getpid()
        self._drop_inherited(forked)

    def _drop_inherited(self, forked: bool) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __enter__(self: _Store) -> _Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- the OutcomeStore protocol -------------------------------------------------------
    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Store new outcomes in one transaction; return those added (known event ids skipped)."""
        batch = dedupe(outcomes)
        if not batch:
            return []
        added = self._insert(batch)  # not under the cache's lock: it waits for the database
        with self._lock:
            # catch up lazily, at the next read or poll: a process that only writes never
            # reads back the whole fleet's outcomes
            self._own |= added
            self._dirty = True
            self._writes += 1
            many = len(self._own) > 100_000
        if many:
            self._catch_up()
        return [o for o in batch if o.event_id in added]

    def totals(self, source: str, topic: str | None = None) -> Totals:
        """The aggregates of ``source`` as of this process's last catch-up."""
        if self._dirty or source not in self._loaded:
            self._sync(source)
        return self._totals.get((source, topic), _EMPTY)

    def topics(self, source: str) -> list[str]:
        """The topics ``source`` has outcomes in."""
        if self._dirty or source not in self._loaded:
            self._sync(source)
        return sorted(self._topics.get(source, ()))

    def export(self) -> tuple[list[list[Any]], list[Outcome]]:
        """The totals of every source and topic, and every stored outcome (see
        :meth:`OutcomeStore.export`)."""
        totals = {(source, topic): self.totals(source, topic)
                  for source in self.sources()  # type: ignore[attr-defined]
                  for topic in (None, *self.topics(source))}
        return totals_rows(totals), self.outcomes()  # type: ignore[attr-defined]

    def changed_sources(self) -> set[str]:
        """Sources that other writers added outcomes to since the last call."""
        if self._dirty or self._external_change():
            self._catch_up()
        with self._lock:
            return self._take_pending()

    def wants_newest_outcome(self) -> bool:
        """Whether the store's next check for other writers' outcomes would ask the database,
        and would rather take the newest outcome id from a statement it runs anyway (the
        journal's head: :meth:`~corollary.storage.queries.SQLQueries.journal_changed`). No,
        unless a store says so (PostgreSQL inside ``one_look``).

        Examples
        --------
        >>> from corollary.storage.sqlite import SQLiteStore
        >>> store = SQLiteStore(":memory:")
        >>> store.wants_newest_outcome()  # its check is a PRAGMA, a few microseconds
        False
        >>> store.close()
        """
        return False

    def take_newest_outcome(self, newest: int) -> None:
        """The newest outcome id, read with another statement because
        :meth:`wants_newest_outcome` said so (a store that says so keeps it for its next
        check; the others have nothing to keep).

        Examples
        --------
        >>> from corollary.storage.sqlite import SQLiteStore
        >>> store = SQLiteStore(":memory:")
        >>> store.take_newest_outcome(7)
        >>> store.close()
        """

    def sync(self) -> set[str]:
        """Catch up with every writer now, and return what :meth:`changed_sources` would."""
        self._catch_up()
        with self._lock:
            return self._take_pending()

    # -- the cache -----------------------------------------------------------------------
    def _sync(self, source: str) -> None:
        """Fold in our own writes (if any) and make sure ``source`` is cached."""
        if self._dirty:
            self._catch_up()
        if source not in self._loaded:
            self._load(source)

    def _take_pending(self) -> set[str]:
        changed, self._pending = self._pending, set()
        return changed

    def _fold(self, source: str, topic: str | None, correct: bool, at: float) -> None:
        fold_totals(self._totals, source, topic, correct, at, self.half_life)
        if topic is not None:
            self._topics.setdefault(source, set()).add(topic)

    def _load(self, source: str) -> None:
        for attempt in range(3):
            if source in self._loaded:
                return
            # the rows up to the watermark, read before the lock: if a catch-up moved the
            # watermark meanwhile (and skipped this source's rows), read again
            mark = self._watermark
            rows = None if attempt == 2 else list(self._rows_of(source, mark))
            with self._lock:
                if rows is None:  # moving all the time: read under the lock, as a last resort
                    mark = self._watermark
                    rows = list(self._rows_of(source, mark))
                if self._watermark == mark:
                    self._fold_source(source, rows)
                    return

    def _fold_source(self, source: str, rows: Iterable[Sequence[Any]]) -> None:
        """Fold ``source``'s rows (read up to the watermark) in, under the lock."""
        if source in self._loaded:
            return
        # into a scratch table first: a row that fails its check leaves no trace
        totals: dict[tuple[str, str | None], Totals] = {}
        topics: set[str] = set()
        where = self.location
        for topic, outcome, at in rows:
            _, topic, correct, at = checked_fold_row(source, topic, outcome, at, where)
            fold_totals(totals, source, topic, correct, at, self.half_life)
            if topic is not None:
                topics.add(topic)
        self._totals.update(totals)
        if topics:
            self._topics.setdefault(source, set()).update(topics)
        self._loaded.add(source)

    def _catch_up(self) -> None:
        """Read the rows past the watermark (before taking the lock), then fold those no other
        thread folded meanwhile (under it)."""
        writes = self._writes
        failed: BaseException | None = None
        rows: list[Sequence[Any]] = []
        try:
            for row in self._rows_since(self._watermark):
                rows.append(row)
        except BaseException as exc:  # fold what came (the watermark follows), then raise
            failed = exc
        with self._lock:
            self._fold_rows(rows, writes if failed is None else None)
        if failed is not None:
            raise failed

    def _fold_rows(self, rows: list[Sequence[Any]], writes: int | None) -> None:
        """Fold rows read past the watermark, skipping those folded already; ``writes``: the
        write count when they were read (``None``: the read failed part-way), which says
        whether our own writes are all caught up with."""
        loaded = self._loaded
        own = self._own
        where = self.location
        try:
            for row_id, event_id, source, topic, outcome, at in rows:
                if row_id <= self._watermark:  # another thread folded it meanwhile
                    continue
                if not (type(source) is str and source
                        and (topic is None or (type(topic) is str and topic))
                        and type(outcome) is int and type(at) is float and _FINITE(at)):
                    # not the plain shape: check it properly (raises for a damaged row)
                    source, topic, outcome, at = checked_fold_row(source, topic, outcome, at,
                                                                  where)
                elif outcome != 0 and outcome != 1:
                    checked_fold_row(source, topic, outcome, at, where)
                if source in loaded:
                    self._fold(source, topic, outcome == 1, at)
                if event_id not in own:
                    self._pending.add(source)
                # with every row: if the next page never comes, nothing is folded twice
                self._watermark = row_id
        except BaseException:
            self._dirty = True  # our own writes are still to be caught up with
            raise
        if writes is None or writes != self._writes:
            self._dirty = True  # read part-way, or a write came after the read began
            return
        self._own = set()
        self._dirty = False

    # -- for subclasses ------------------------------------------------------------------
    def _insert(self, batch: list[Outcome]) -> set[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _rows_since(self, after: int) -> Iterable[Sequence[Any]]:  # pragma: no cover
        raise NotImplementedError

    def _rows_of(self, source: str, upto: int) -> Iterable[Sequence[Any]]:  # pragma: no cover
        raise NotImplementedError

    def _max_id(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _external_change(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

"""What every durable ledger store shares: errors, session checks, and the totals cache.

SQL stores keep the outcomes themselves (append-only); the aggregates behind a reliability are
folded from them in id order with :meth:`corollary.trust.ledger.Totals.add`, the same fold the
in-memory store does, so every backend gives bit-for-bit the same answers for the same outcomes
in the same order. The fold is cached per source in the process and caught up incrementally
(``id > watermark``) at the first read after a write and on :meth:`CachedSQLStore.changed_sources`, so the
belief engine's hot path (:meth:`~corollary.trust.ledger.TrustLedger.reliability`) is a dict lookup.

The fold is exact whatever fails part-way: the watermark advances with every row folded, and a
source is loaded into a scratch table that replaces nothing until it is complete, so a read
that breaks off (a server stopping, a corrupt row) never folds an outcome twice.

Forks: a store's connections belong to the process that opened them. Every live SQL store is
tracked, and :func:`os.register_at_fork` hooks hand a forked child fresh locks, an emptied cache
and no connection (the store reconnects on first use in the child); what the child inherited
is never used by it, and what it must not finalise (PostgreSQL sockets the parent still uses)
is kept alive for the child's whole life (:func:`keep_forever`).
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, TypeVar

from ..foundations._deprecated import warn
from ..foundations._validate import check_int, check_number
from ..foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    JournalCorruptError,
    StoreCorruptError,
)
from ..trust.outcomes import Outcome, Totals, fold_totals, totals_rows
from .protocols import (  # noqa: F401 - their home before protocols.py, still read from here
    JOURNAL_METHODS,
    JournalStore,
    JournalWriter,
    LedgerStore,
    OutcomeStore,
    SessionStore,
)

#: Columns of the outcome table, in the order the stores read and write them.
COLUMNS = (
    "event_id", "source", "topic", "outcome", "observed_at", "recorded_at",
    "evidence", "reason", "key", "confidence",
)

_EMPTY = Totals()

def keeps_journals(store: object) -> bool:
    """Whether ``store`` keeps session journals (memory, SQLite, PostgreSQL): it has every
    journal method and they do not refuse (the JSON-file store's raise
    :class:`~corollary.foundations.errors.JournalUnsupportedError`). On such a store a session
    is its journal (docs/journal.md).

    >>> from corollary.storage.memory import MemoryStore
    >>> keeps_journals(MemoryStore()), keeps_journals(object())
    (True, False)
    """
    from ..foundations.errors import JournalUnsupportedError

    if not all(callable(getattr(store, m, None)) for m in JOURNAL_METHODS):
        return False
    try:
        store.journal_sessions()  # type: ignore[attr-defined]
    except JournalUnsupportedError:
        return False
    return True


def check_seq(seq: object, name: str = "seq") -> int:
    """A journal sequence number: an int >= 0."""
    return check_int(seq, name, low=0)


def check_entry(entry: object, at: object) -> tuple[bytes, float]:
    """An entry to append: non-empty bytes and a finite time in seconds."""
    if not isinstance(entry, (bytes, bytearray, memoryview)):
        raise InvalidTypeError(f"a journal entry is bytes, not {type(entry).__name__}")
    if not entry:
        raise InvalidInputError("a journal entry cannot be empty")
    return bytes(entry), check_number(at, "at")


def checked_entry_row(seq: object, entry: object, where: object) -> tuple[int, bytes]:
    """A stored ``(seq, entry)`` with the types the schema promises (else
    :class:`~corollary.foundations.errors.JournalCorruptError`)."""
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise JournalCorruptError(f"corrupt journal: entry number {seq!r}", where)
    if not isinstance(entry, (bytes, bytearray, memoryview)) or not entry:
        raise JournalCorruptError(f"corrupt journal: entry {seq} holds "
                                  f"{type(entry).__name__}, not bytes", where)
    return seq, bytes(entry)


_Store = TypeVar("_Store", bound="CachedSQLStore")


def check_session(session_id: object, data: object = b"") -> str:
    """Validate a session id (a non-empty string) and, when saving, its bytes."""
    if not isinstance(session_id, str):
        raise InvalidTypeError(f"a session id is a string, not {type(session_id).__name__}")
    if not session_id or len(session_id) > 512 or "\x00" in session_id:
        raise InvalidInputError(f"a session id is a non-empty string of at most 512 characters, "
                                f"got {session_id!r}")
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: no file name, column or key can hold them
        raise InvalidInputError(f"a session id must be valid Unicode text (no lone surrogates), "
                                f"got {session_id!r}") from None
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidTypeError(f"session data must be bytes, not {type(data).__name__}")
    return session_id


def check_expected_version(expected_version: object) -> int | None:
    """A session version to compare against: ``None`` (write unconditionally) or an int >= 0."""
    if expected_version is None:
        return None
    return check_int(expected_version, "expected_version", low=0)


def session_conflict(session_id: str, expected: int, found: int, where: object) -> Exception:
    """The :class:`~corollary.foundations.errors.ConcurrentWriteError` of a versioned save that lost."""
    from ..foundations.errors import ConcurrentWriteError

    now = "does not exist" if found == 0 else f"is at version {found}"
    wanted = "not to exist yet" if expected == 0 else f"to be at version {expected}"
    return ConcurrentWriteError(f"session {session_id!r} {now}, but this save expected it "
                                f"{wanted}: another writer saved it; nothing was written", where)


def session_journaled(session_id: str, where: object) -> Exception:
    """The :class:`~corollary.foundations.errors.SessionJournaledError` of a whole-snapshot
    write to a session that has a journal (nothing is written)."""
    from ..foundations.errors import SessionJournaledError

    return SessionJournaledError(
        f"session {session_id!r} is a journal: a whole snapshot cannot be saved over it "
        "(nothing was written); open it with BeliefBase.open_session (or load_session, "
        "which opens the journal) and change it there: each change is saved as it is made",
        where)


def check_half_life(half_life: object) -> float | None:
    """A store's memory half-life: ``None`` or seconds > 0."""
    if half_life is None:
        return None
    seconds = check_number(half_life, "half_life")
    if seconds <= 0:
        raise InvalidInputError(f"half_life must be finite and > 0, got {half_life!r}")
    return seconds


def dedupe(outcomes: Iterable[Outcome]) -> list[Outcome]:
    """The batch without repeated event ids (the first one wins)."""
    seen: set[str] = set()
    batch = []
    for outcome in outcomes:
        if not isinstance(outcome, Outcome):
            raise InvalidTypeError(f"stores take Outcome objects, not {type(outcome).__name__}")
        if outcome.event_id not in seen:
            seen.add(outcome.event_id)
            batch.append(outcome)
    return batch


def row_of(o: Outcome) -> tuple[Any, ...]:
    """An outcome as a row of :data:`COLUMNS`."""
    return (o.event_id, o.source, o.topic, int(o.correct), o.at, o.recorded_at, o.evidence,
            o.reason, o.key, o.confidence)


_FINITE = math.isfinite


def _text(value: object, nullable: bool) -> bool:
    return (nullable and value is None) or (isinstance(value, str) and bool(value))


def _seconds(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def checked_fold_row(source: object, topic: object, outcome: object, at: object,
                     where: object) -> tuple[str, str | None, bool, float]:
    """A stored ``(source, topic, outcome, observed_at)`` with the types the schema promises.

    SQLite keeps whatever type a value has, so a damaged file (a flipped bit, a foreign writer)
    can hand back text where a time should be: that is a :class:`StoreCorruptError`, never a
    ``TypeError`` from deep inside the fold.
    """
    if (not _text(source, False) or not _text(topic, True)
            or isinstance(outcome, bool) or outcome not in (0, 1) or not _seconds(at)):
        raise StoreCorruptError(f"corrupt ledger: malformed outcome row "
                                f"({source!r}, {topic!r}, {outcome!r}, {at!r})", where)
    return source, topic, bool(outcome), float(at)  # type: ignore[arg-type,return-value]


def checked_sources(rows: Iterable[Sequence[Any]], where: object) -> list[str]:
    """The first column of ``rows``, each a non-empty string (else :class:`StoreCorruptError`)."""
    sources = [row[0] for row in rows]
    for source in sources:
        if not _text(source, False):
            raise StoreCorruptError(f"corrupt ledger: malformed source {source!r}", where)
    return sources


def outcome_of(row: Sequence[Any], where: object = None) -> Outcome:
    """The inverse of :func:`row_of`; a row of the wrong shape is a :class:`StoreCorruptError`."""
    event_id, source, topic, outcome, at, recorded_at, evidence, reason, key, confidence = row
    source, topic, correct, at = checked_fold_row(source, topic, outcome, at, where)
    if (not _text(event_id, False) or not _seconds(recorded_at)
            or not all(_text(v, True) for v in (evidence, reason, key))
            or not (confidence is None or (_seconds(confidence) and 0 <= confidence <= 1))):
        raise StoreCorruptError(f"corrupt ledger: malformed outcome row {tuple(row)!r}", where)
    return Outcome(source=source, correct=correct, at=at, recorded_at=float(recorded_at),
                   event_id=event_id, topic=topic, reason=reason, evidence=evidence, key=key,
                   confidence=None if confidence is None else float(confidence))


#: Every SQL store alive in this process, for the fork hooks.
_LIVE: weakref.WeakSet[CachedSQLStore] = weakref.WeakSet()
#: What forked children inherited and must never finalise (see :func:`keep_forever`).
_KEPT: list[object] = []


def keep_forever(obj: object) -> None:
    """Never let ``obj`` be finalised in this process, not even at interpreter exit.

    Used in forked children for connections the parent opened: finalising a PostgreSQL
    connection sends the server a goodbye over the parent's socket (ending the parent's
    session), and finalising a SQLite connection closes the parent's database in this process.
    A module list alone is cleared at interpreter exit, so the reference is also leaked.
    """
    _KEPT.append(obj)
    try:
        import ctypes

        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    except Exception:  # pragma: no cover - not CPython: the list is the best we can do
        pass


class Owned:
    """What a store opened (a connection, a pool) and the process that opened it.

    The store's finalizer calls :meth:`release`, so a store that is dropped without being
    closed closes what it opened at once: a ``sqlite3.Connection`` is a reference cycle of its
    own (it holds its statement cache, which holds it), and a connection pool is held by its
    worker threads, so neither would otherwise close before a garbage collection (or ever).
    """

    __slots__ = ("resource", "pid")

    def __init__(self) -> None:
        self.resource: Any = None
        self.pid = os.getpid()

    def set(self, resource: Any) -> None:
        self.resource = resource
        self.pid = os.getpid()

    def release(self) -> None:
        """Close the resource in the process that opened it; in any other, keep it forever."""
        resource, self.resource = self.resource, None
        if resource is None:
            return
        if self.pid == os.getpid():
            resource.close()
        else:
            keep_forever(resource)


def owned_by(store: object) -> Owned:
    """A new :class:`Owned` released when ``store`` is dropped."""
    owned = Owned()
    weakref.finalize(store, owned.release)
    return owned


def _before_fork() -> None:
    for store in list(_LIVE):
        store._before_fork()


def _after_fork_in_parent() -> None:
    for store in list(_LIVE):
        store._after_fork_in_parent()


def _after_fork_in_child() -> None:
    for store in list(_LIVE):
        store._after_fork_in_child(forked=True)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                         after_in_child=_after_fork_in_child)


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

    def _init_cache(self) -> None:
        self._lock = threading.RLock()
        self._totals: dict[tuple[str, str | None], Totals] = {}
        self._topics: dict[str, set[str]] = {}
        self._loaded: set[str] = set()
        self._pending: set[str] = set()
        self._own: set[str] = set()  # event ids we wrote and have not caught up with yet
        self._dirty = False
        self._pid = os.getpid()
        self._watermark = self._max_id()
        _LIVE.add(self)

    # -- processes -----------------------------------------------------------------------
    def _before_fork(self) -> None:
        """Called in the parent just before a fork (subclasses may hold their locks)."""

    def _after_fork_in_parent(self) -> None:
        """Called in the parent just after a fork."""

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
            self._lock = threading.RLock()
            self._conn_lock = threading.RLock()
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
        with self._lock:
            added = self._insert(batch)
            # catch up lazily, at the next read or poll: a process that only writes never
            # reads back the whole fleet's outcomes
            self._own |= added
            self._dirty = True
            if len(self._own) > 100_000:
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
        with self._lock:
            if self._dirty or self._external_change():
                self._catch_up()
            return self._take_pending()

    def sync(self) -> set[str]:
        """Catch up with every writer now, and return what :meth:`changed_sources` would."""
        with self._lock:
            self._catch_up()
            return self._take_pending()

    def refresh(self) -> set[str]:
        """Deprecated spelling of :meth:`sync` (warns; goes in the next release)."""
        warn(f"{type(self).__name__}.refresh", "call sync() (the one spelling of catching up)")
        return self.sync()

    # -- the cache -----------------------------------------------------------------------
    def _sync(self, source: str) -> None:
        """Fold in our own writes (if any) and make sure ``source`` is cached."""
        if self._dirty:
            with self._lock:
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
        with self._lock:
            if source in self._loaded:
                return
            # into a scratch table first: a read that breaks off part-way leaves no trace
            totals: dict[tuple[str, str | None], Totals] = {}
            topics: set[str] = set()
            where = self.location
            for topic, outcome, at in self._rows_of(source, self._watermark):
                _, topic, correct, at = checked_fold_row(source, topic, outcome, at, where)
                fold_totals(totals, source, topic, correct, at, self.half_life)
                if topic is not None:
                    topics.add(topic)
            self._totals.update(totals)
            if topics:
                self._topics.setdefault(source, set()).update(topics)
            self._loaded.add(source)

    def _catch_up(self) -> None:
        loaded = self._loaded
        own = self._own
        where = self.location
        try:
            for row_id, event_id, source, topic, outcome, at in self._rows_since(
                    self._watermark):
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

"""What every durable ledger store shares: errors, session checks, and the totals cache.

SQL stores keep the outcomes themselves (append-only); the aggregates behind a reliability are
folded from them in id order with :meth:`corollary.ledger.Totals.add`, the same fold the
in-memory store does, so every backend gives bit-for-bit the same answers for the same outcomes
in the same order. The fold is cached per source in the process and caught up incrementally
(``id > watermark``) at the first read after a write and on :meth:`CachedSQLStore.changed_sources`, so the
belief engine's hot path (:meth:`~corollary.ledger.TrustLedger.reliability`) is a dict lookup.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import InvalidInputError, InvalidTypeError, StoreError
from ..ledger import Outcome, Totals, fold_totals

#: Columns of the outcome table, in the order the stores read and write them.
COLUMNS = (
    "event_id", "source", "topic", "outcome", "observed_at", "recorded_at",
    "evidence", "reason", "key", "confidence",
)

_EMPTY = Totals()


class StoreCorruptError(StoreError):
    """A store file that is corrupt, truncated, or not a corollary ledger (left untouched)."""


class StoreVersionError(StoreError):
    """A store written by a newer corollary (its schema version is higher than this one reads)."""


class SessionNotFoundError(StoreError, KeyError):
    """No session was saved under that id."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


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


def check_half_life(half_life: object) -> float | None:
    """A store's memory half-life: ``None`` or seconds > 0."""
    if half_life is None:
        return None
    if isinstance(half_life, bool) or not isinstance(half_life, (int, float)):
        raise InvalidTypeError("half_life must be seconds or None")
    if not math.isfinite(half_life) or half_life <= 0:
        raise InvalidInputError(f"half_life must be finite and > 0, got {half_life!r}")
    return float(half_life)


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


def outcomes_query(table: str, placeholder: str, source: str | None,
                   topic: str | None) -> tuple[str, list[Any]]:
    """The SQL (and its parameters) that lists outcomes, oldest recorded first.

    ``placeholder`` is the driver's parameter marker (``?`` for sqlite3, ``%s`` for psycopg).
    """
    where, params = [], []
    for column, value in (("source", source), ("topic", topic)):
        if value is not None:
            where.append(f"{column} = {placeholder}")
            params.append(value)
    sql = f"SELECT {', '.join(COLUMNS)} FROM {table}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql + " ORDER BY id", params


def outcome_of(row: Sequence[Any]) -> Outcome:
    """The inverse of :func:`row_of`."""
    event_id, source, topic, outcome, at, recorded_at, evidence, reason, key, confidence = row
    return Outcome(source=source, correct=bool(outcome), at=float(at),
                   recorded_at=float(recorded_at), event_id=event_id, topic=topic, reason=reason,
                   evidence=evidence, key=key,
                   confidence=None if confidence is None else float(confidence))


class CachedSQLStore:
    """The caching half of the SQL stores; subclasses supply the queries.

    Subclasses implement ``_insert(batch) -> set of event ids added``, ``_rows_since(id)``
    (``(id, event_id, source, topic, outcome, observed_at)`` rows with a larger id, by id),
    ``_rows_of(source, upto)`` (``(topic, outcome, observed_at)`` rows of one source up to an
    id, by id), ``_max_id()`` and ``_external_change() -> bool``.
    """

    half_life: float | None
    location: object

    def _init_cache(self) -> None:
        self._lock = threading.RLock()
        self._totals: dict[tuple[str, str | None], Totals] = {}
        self._topics: dict[str, set[str]] = {}
        self._loaded: set[str] = set()
        self._pending: set[str] = set()
        self._own: set[str] = set()  # event ids we wrote and have not caught up with yet
        self._dirty = False
        self._watermark = self._max_id()

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

    def changed_sources(self) -> set[str]:
        """Sources that other writers added outcomes to since the last call."""
        with self._lock:
            if self._dirty or self._external_change():
                self._catch_up()
            return self._take_pending()

    def refresh(self) -> set[str]:
        """Catch up with every writer now, and return what :meth:`changed_sources` would."""
        with self._lock:
            self._catch_up()
            return self._take_pending()

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
            for topic, outcome, at in self._rows_of(source, self._watermark):
                self._fold(source, topic, bool(outcome), float(at))
            self._loaded.add(source)

    def _catch_up(self) -> None:
        watermark = self._watermark
        loaded = self._loaded
        own = self._own
        for row_id, event_id, source, topic, outcome, at in self._rows_since(watermark):
            if source in loaded:
                self._fold(source, topic, bool(outcome), float(at))
            if event_id not in own:
                self._pending.add(source)
            watermark = row_id
        self._watermark = watermark
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

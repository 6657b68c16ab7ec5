"""What a store accepts and what it reads back, checked: ids, entries, versions, rows.

Every store checks its arguments here (a session id, a journal entry, a sequence number, an
expected version), and every SQL store checks what its database hands back against the types
the schema promises: SQLite keeps whatever type a value has, so a damaged file can return text
where a time should be, and that is a :class:`~corollary.foundations.errors.StoreCorruptError`
(or :class:`~corollary.foundations.errors.JournalCorruptError`), never a ``TypeError`` from deep
inside the fold.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from ..foundations._validate import check_int, check_number
from ..foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    JournalCorruptError,
    StoreCorruptError,
)
from ..sources.outcomes import Outcome
from .protocols import JOURNAL_METHODS

#: Columns of the outcome table, in the order the stores read and write them.
COLUMNS = (
    "event_id", "source", "topic", "outcome", "observed_at", "recorded_at",
    "evidence", "reason", "key", "confidence",
)


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

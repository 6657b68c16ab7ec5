"""What a store keeps, one small protocol per concern: outcomes, sessions, journals.

======================== ========================================== ==========================
protocol                 what it keeps                              kept by
======================== ========================================== ==========================
:class:`OutcomeStore`    a ledger's outcomes and their totals       every store
:class:`SessionStore`    whole base snapshots, versioned            every store
:class:`JournalStore`    session journals: entries in one order,    memory, SQLite, PostgreSQL
                         checkpoints, the write lock
:class:`JournalWaiting`  waking a follower on a commit              PostgreSQL (others polled,
                                                                    :mod:`.waiting`)
:class:`ErasingStore`    what ``kb.forget`` rewrites: past entries, memory, SQLite, PostgreSQL
                         checkpoints, outcomes' key and reason;     (outcomes only: JSON file)
                         freeing the old bytes
======================== ========================================== ==========================

A store implements the protocols of what it keeps. A :class:`~corollary.trust.ledger.TrustLedger`
needs a :class:`LedgerStore` (outcomes and sessions: every backend); a journaled session needs a
:class:`JournalStore`. The JSON-file store keeps outcomes and whole-snapshot sessions and no
journals (its journal methods raise
:class:`~corollary.foundations.errors.JournalUnsupportedError`; :func:`keeps_journals
<corollary.storage.base.keeps_journals>` says False). See docs/ledger.md, "Storage".

Examples
--------
>>> from corollary.storage.memory import MemoryStore
>>> store: LedgerStore = MemoryStore()
>>> journals: JournalStore = MemoryStore()
>>> store.list_sessions(), journals.journal_head("s")
([], 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..sources.outcomes import Outcome, Totals


class OutcomeStore(Protocol):
    """Where a ledger keeps outcomes: appended once each (by event id), folded into totals.

    Implementations: :class:`~corollary.storage.memory.MemoryStore`,
    :class:`~corollary.storage.jsonfile.JSONFileStore`,
    :class:`~corollary.storage.sqlite.SQLiteStore`,
    :class:`~corollary.storage.postgres.PostgresStore`. Shared stores also have ``sync()``:
    catch up with every writer now, returning what :meth:`changed_sources` would.
    """

    half_life: float | None

    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Store new outcomes in one transaction; return those added (known event ids skipped)."""

    def totals(self, source: str, topic: str | None = None) -> Totals:
        """The aggregates of ``source`` (in ``topic``, or over all topics)."""

    def topics(self, source: str) -> list[str]:
        """The topics ``source`` has outcomes in."""

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Stored outcomes, oldest first."""

    def export(self) -> tuple[list[list[Any]], list[Outcome]]:
        """The totals rows (:func:`~corollary.trust.outcomes.totals_rows`) and the kept outcomes,
        for a saved ledger."""

    def sources(self) -> list[str]:
        """Every source with at least one outcome."""

    def changed_sources(self) -> set[str]:
        """Sources with outcomes added by someone else since the last call (shared stores)."""

    def close(self) -> None:
        """Release resources."""


class SessionStore(Protocol):
    """Where bases keep whole snapshots by session id, each save a new version."""

    def save_session(self, session_id: str, data: bytes, *,
                     expected_version: int | None = None) -> int:
        """Keep a base's snapshot under ``session_id``; return its new version (see
        :func:`~corollary.storage.base.check_expected_version`)."""

    def read_session(self, session_id: str) -> tuple[bytes, int]:
        """``(data, version)`` of a session; :class:`SessionNotFoundError` if there is none."""

    def load_session(self, session_id: str) -> bytes:
        """A session's data."""

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""


class LedgerStore(OutcomeStore, SessionStore, Protocol):
    """What a :class:`~corollary.trust.ledger.TrustLedger` takes: outcomes and sessions (every
    store backend is one)."""


class JournalWriter(Protocol):
    """A session's journal under its write lock (see :meth:`JournalStore.journal`).

    ``head`` is the last entry's sequence number: at lock time, then after each
    :meth:`append`. ``0`` means an empty journal.
    """

    head: int

    def entries(self, after: int) -> list[tuple[int, bytes]]:
        """``(seq, entry)`` of every entry with ``seq > after``, ascending."""

    def append(self, entry: bytes, at: float) -> int:
        """Append ``entry`` (journal time ``at``, seconds) as ``head + 1``; return its seq."""


class JournalStore(Protocol):
    """A store that keeps session journals: entries in one order, checkpoints, the lock.

    MemoryStore, SQLiteStore and PostgresStore implement it. The store orders the entries:
    :meth:`journal` takes the session's write lock, so sequence numbers follow the lock order,
    without gaps. What an entry holds is the facade's business (docs/journal.md); the store
    keeps bytes and a time.
    """

    def journal(self, session_id: str) -> AbstractContextManager[JournalWriter]:
        """Take ``session_id``'s write lock; yield a :class:`JournalWriter`.

        Commits on a normal exit and rolls back on an exception. While it is open, outcomes
        the same thread writes through :meth:`OutcomeStore.add` join its transaction, so a
        change and its outcomes are durable together or not at all.
        """

    def journal_entries(self, session_id: str, after: int = 0,
                        upto: int | None = None) -> list[tuple[int, bytes]]:
        """``(seq, entry)`` with ``after < seq <= upto`` (no upper bound for ``None``),
        ascending; no lock taken."""

    def journal_head(self, session_id: str) -> int:
        """The last entry's seq (``0``: no entry)."""

    def journal_changed(self, session_id: str, after: int) -> bool:
        """Whether the journal has an entry after ``after`` (a cheap check, for sync)."""

    def journal_seq_at(self, session_id: str, at: float) -> int:
        """The seq of the last entry whose time is ``<= at`` (``0``: none)."""

    def write_checkpoint(self, session_id: str, seq: int, data: bytes) -> None:
        """Keep ``data``, the session's snapshot just after entry ``seq`` (a checkpoint
        already kept at ``seq`` stays)."""

    def read_checkpoint(self, session_id: str,
                        upto: int | None = None) -> tuple[int, bytes] | None:
        """``(seq, data)`` of the newest checkpoint with ``seq <= upto`` (``None``: the newest
        of all); ``None`` if there is none."""

    def prune_checkpoints(self, session_id: str, keep: int) -> int:
        """Forget all but the first and the ``keep`` newest checkpoints; return how many went."""

    def journal_sessions(self) -> list[str]:
        """Ids of the sessions with a journal or a checkpoint, sorted."""

    def delete_journal(self, session_id: str) -> bool:
        """Forget a session's entries and checkpoints; whether there were any."""


class JournalWaiting(Protocol):
    """A journal store that can wake a follower when another process commits an entry."""

    def wait_journal(self, session_id: str, after: int, timeout: float) -> int:
        """Wait until the session has an entry past ``after`` (at most ``timeout`` seconds);
        return its head."""


class ErasingStore(Protocol):
    """What ``kb.forget`` asks of a store (docs/journal.md, "Forgetting"): the journal's past
    rewritten and the outcomes about what went blanked, in the forget entry's transaction, then
    the old bytes freed once it committed. A store without these keeps what it keeps (a plain
    base on it still forgets in memory)."""

    def rewrite_journal(self, session_id: str, entries: Mapping[int, bytes],
                        checkpoints: Mapping[int, bytes]) -> None:
        """Replace the bytes of these entries and checkpoints (by seq; they exist) in place."""

    def redact_outcomes(self, keys: Iterable[str], prefixes: Iterable[str],
                        source: str | None) -> int:
        """Blank the key, reason and evidence of the outcomes that name ``keys``, a key under
        ``prefixes`` or (any outcome of) ``source``; their counts stay. How many."""

    def reclaim(self) -> None:
        """Free the bytes the rewrite left behind (a log, dead rows); after the commit."""


#: What a journal-capable store has (:func:`~corollary.storage.base.keeps_journals`).
JOURNAL_METHODS = ("journal", "journal_entries", "journal_head", "journal_changed",
                   "journal_seq_at", "write_checkpoint", "read_checkpoint",
                   "prune_checkpoints", "journal_sessions", "delete_journal")

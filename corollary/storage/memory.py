"""The in-memory ledger store (the default): dictionaries in one process, gone when it ends.

Thread-safe: bases in several threads may share one ledger on it.

>>> from corollary.storage.memory import MemoryStore
>>> from corollary.trust.ledger import TrustLedger
>>> TrustLedger(store=MemoryStore()).reliability("tool:x", prior=0.9)
0.9
"""

from __future__ import annotations

import bisect
import threading
from collections import ChainMap, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, cast

import attrs

from ..foundations.errors import SessionNotFoundError
from ..sources.outcomes import Outcome, Totals, fold_totals, names_forgotten, totals_rows
from .checks import (
    check_entry,
    check_expected_version,
    check_seq,
    check_session,
    session_conflict,
    session_journaled,
)

__all__ = ["DEFAULT_HISTORY", "MemoryStore"]

#: Outcomes kept per source when no ``max_history`` is given.
DEFAULT_HISTORY = 10_000
_EMPTY = Totals()


class MemoryStore:
    """The default store: dictionaries in this process.

    Aggregates count every outcome; the outcomes themselves are kept up to ``max_history``
    per source, for audit and calibration. Safe to share between threads: writes and
    listings hold a lock, and a read of one source's totals is a single dictionary lookup
    of an immutable value.
    """

    def __init__(self, half_life: float | None = None, max_history: int = DEFAULT_HISTORY) -> None:
        self.half_life = half_life
        self.max_history = max_history
        self._totals: dict[tuple[str, str | None], Totals] = {}
        self._history: dict[str, deque[Outcome]] = {}
        self._event_ids: set[str] = set()
        self._sessions: dict[str, tuple[bytes, int]] = {}
        self._session_lock = threading.Lock()
        # folding an outcome into the totals is a read-modify-write of a dict entry, and the
        # event-id check before it must see every earlier add: one writer at a time
        self._lock = threading.RLock()
        # session journals: entries (seq, at, bytes) and checkpoints {seq: data} by session
        self._journals: dict[str, list[tuple[int, float, bytes]]] = {}
        self._checkpoints: dict[str, dict[int, bytes]] = {}
        self._journal_lock = threading.RLock()
        # while a journal is open: the thread that holds it and what its adds changed (undo)
        self._journal_owner: int | None = None
        self._undo: list[tuple[list[Outcome], dict[tuple[str, str | None], Totals | None]]] = []

    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        with self._lock:
            added = self._new(outcomes)
            joined = self._journal_owner == threading.get_ident()
            before: dict[tuple[str, str | None], Totals | None] = {}
            for o in added:
                if joined:
                    for key in ((o.source, None), (o.source, o.topic)):
                        if key not in before:
                            before[key] = self._totals.get(key)
                fold_totals(self._totals, o.source, o.topic, o.correct, o.at, self.half_life)
            self._remember(added)
            if joined and added:
                self._undo.append((added, before))
        return added

    def stage(self, outcomes: list[Outcome]) -> tuple[list[Outcome], dict[tuple[str, str | None],
                                                                            Totals]]:
        """The outcomes new to the store and the totals they change, without changing anything.

        For stores that must write the result somewhere before they take it: :meth:`commit`
        it afterwards, under the same hold of the store's lock.
        """
        changed: dict[tuple[str, str | None], Totals] = {}
        # reads fall through to the current totals, writes land in ``changed``
        view = cast("dict[tuple[str, str | None], Totals]", ChainMap(changed, self._totals))
        added = self._new(outcomes)
        for o in added:
            fold_totals(view, o.source, o.topic, o.correct, o.at, self.half_life)
        return added, changed

    def commit(self, added: list[Outcome], totals: Mapping[tuple[str, str | None], Totals]) -> None:
        """Take what :meth:`stage` returned."""
        with self._lock:
            self._totals.update(totals)
            self._remember(added)

    def _new(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        """The outcomes whose event ids the store has not seen (the first of repeats)."""
        known = self._event_ids
        seen: set[str] = set()
        new = []
        for o in outcomes:
            if o.event_id not in known and o.event_id not in seen:
                seen.add(o.event_id)
                new.append(o)
        return new

    def _remember(self, added: list[Outcome]) -> None:
        for outcome in added:
            self._event_ids.add(outcome.event_id)
            self._keep(outcome)

    def _keep(self, outcome: Outcome) -> None:
        history = self._history.get(outcome.source)
        if history is None:
            history = self._history[outcome.source] = deque(maxlen=self.max_history)
        history.append(outcome)

    def restore(self, totals: Iterable[Sequence[Any]], outcomes: Iterable[Outcome]) -> None:
        """Take saved totals rows and kept outcomes as they are (nothing is folded again).

        The totals may cover more outcomes than are kept (history beyond ``max_history``).
        """
        rows = {(s, t): Totals(int(r), int(n), float(a), float(wr), float(wt))
                for s, t, r, n, a, wr, wt in totals}
        with self._lock:
            self._remember(list(outcomes))
            self.load_totals(rows)

    def totals(self, source: str, topic: str | None = None) -> Totals:
        # no lock: one lookup of an immutable value, on the belief engine's hot path
        return self._totals.get((source, topic), _EMPTY)

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        with self._lock:
            if source is None:
                found = [o for h in self._history.values() for o in h]
            else:
                found = list(self._history.get(source, ()))
        if source is None:
            found.sort(key=lambda o: (o.recorded_at, o.at))
        if topic is not None:
            found = [o for o in found if o.topic == topic]
        return found

    def sources(self) -> list[str]:
        with self._lock:
            return sorted({s for s, _ in self._totals})

    def topics(self, source: str) -> list[str]:
        """The topics ``source`` has outcomes in."""
        with self._lock:
            return sorted(t for s, t in self._totals if s == source and t is not None)

    def export(self) -> tuple[list[list[Any]], list[Outcome]]:
        """Totals rows (see :func:`totals_rows`) and kept outcomes, taken at one moment."""
        with self._lock:
            return self.export_totals(), self.outcomes()

    def export_totals(self, staged: Mapping[tuple[str, str | None], Totals] | None = None
                      ) -> list[list[Any]]:
        """The totals rows (see :func:`totals_rows`) of every source and topic, with the
        totals ``staged`` (what :meth:`stage` returned) in place of the current ones: what a
        store that writes its totals somewhere writes (a ledger file).

        Examples
        --------
        >>> from corollary.sources.outcomes import Outcome
        >>> store = MemoryStore()
        >>> _ = store.add([Outcome("tool:a", True, 0.0, 0.0, "e1")])
        >>> added, staged = store.stage([Outcome("tool:a", False, 0.0, 0.0, "e2")])
        >>> store.export_totals()[0][:4], store.export_totals(staged)[0][:4]
        (['tool:a', None, 1, 1], ['tool:a', None, 1, 2])
        """
        with self._lock:
            if staged is None:
                return totals_rows(self._totals)
            return totals_rows(ChainMap(dict(staged), self._totals))

    def changed_sources(self) -> set[str]:
        """Nothing: no one else writes a store in this process's memory."""
        return set()

    def sync(self) -> set[str]:
        """Nothing to catch up with (see :meth:`changed_sources`)."""
        return set()

    # sessions: base snapshots kept beside the ledger (in this process only), versioned
    def save_session(self, session_id: str, data: bytes, *,
                     expected_version: int | None = None) -> int:
        """Keep ``data`` (a base's snapshot) under ``session_id``; return its new version.

        ``expected_version``: ``None`` writes unconditionally; ``0`` requires that there is
        no such session yet; ``n > 0`` requires the stored version to be exactly ``n``.
        Otherwise :class:`~corollary.foundations.errors.ConcurrentWriteError` is raised and nothing is
        written.
        """
        check_session(session_id, data)
        expected = check_expected_version(expected_version)
        with self._journal_lock, self._session_lock:  # a conversion takes the journal lock
            if session_id in self._checkpoints or self._journals.get(session_id):
                raise session_journaled(session_id, "memory")
            current = self._sessions.get(session_id, (b"", 0))[1]
            if expected is not None and current != expected:
                raise session_conflict(session_id, expected, current, "memory")
            self._sessions[session_id] = (bytes(data), current + 1)
            return current + 1

    def read_session(self, session_id: str) -> tuple[bytes, int]:
        """``(data, version)`` of the session; ``SessionNotFoundError`` if there is none."""
        check_session(session_id)
        with self._session_lock:
            found = self._sessions.get(session_id)
        if found is None:
            raise SessionNotFoundError(f"no session {session_id!r}", "memory")
        return found

    def load_session(self, session_id: str) -> bytes:
        """The snapshot saved under ``session_id``; ``SessionNotFoundError`` if there is none."""
        return self.read_session(session_id)[0]

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""
        with self._session_lock:
            return sorted(self._sessions)

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""
        check_session(session_id)
        with self._session_lock:
            return self._sessions.pop(session_id, None) is not None

    def close(self) -> None:
        return None

    # session journals (see corollary.storage.base.JournalStore), in this process only
    @contextmanager
    def journal(self, session_id: str) -> Iterator[_MemoryJournal]:
        """Take the session's write lock (one writer at a time in this process); outcomes
        added by this thread meanwhile are taken back if the block raises."""
        check_session(session_id)
        with self._journal_lock:
            owner, undo = self._journal_owner, self._undo
            self._journal_owner, self._undo = threading.get_ident(), []
            writer = _MemoryJournal(self, session_id, len(self._journals.get(session_id, ())))
            try:
                yield writer
            except BaseException:
                self._take_back(self._undo)
                raise
            else:
                entries = self._journals.setdefault(session_id, [])
                entries.extend(writer.staged)
            finally:
                # a journal opened inside another (same thread) hands its undo log outwards
                inner = self._undo
                self._journal_owner = owner
                self._undo = [] if owner is None else undo + inner

    def _take_back(self, undo: list[tuple[list[Outcome], dict[tuple[str, str | None],
                                                                Totals | None]]]) -> None:
        with self._lock:
            for added, before in reversed(undo):
                for key, totals in before.items():
                    if totals is None:
                        self._totals.pop(key, None)
                    else:
                        self._totals[key] = totals
                for o in reversed(added):
                    self._event_ids.discard(o.event_id)
                    history = self._history.get(o.source)
                    if history and history[-1] is o:
                        history.pop()
        undo.clear()

    def journal_entries(self, session_id: str, after: int = 0,
                        upto: int | None = None) -> list[tuple[int, bytes]]:
        """``(seq, entry)`` with ``after < seq <= upto``, ascending."""
        check_session(session_id)
        after = check_seq(after, "after")
        high = None if upto is None else check_seq(upto, "upto")
        with self._journal_lock:
            entries = self._journals.get(session_id, [])
            return [(seq, entry) for seq, _, entry in entries[after:high]]

    def journal_head(self, session_id: str) -> int:
        """The last entry's seq (0: none)."""
        check_session(session_id)
        with self._journal_lock:
            return len(self._journals.get(session_id, ()))

    def journal_changed(self, session_id: str, after: int) -> bool:
        """Whether there is an entry after ``after``."""
        return self.journal_head(session_id) > check_seq(after, "after")

    def journal_seq_at(self, session_id: str, at: float) -> int:
        """The last entry whose time is ``<= at`` (0: none)."""
        check_session(session_id)
        with self._journal_lock:
            times = [t for _, t, _ in self._journals.get(session_id, ())]
        return bisect.bisect_right(times, at)

    def write_checkpoint(self, session_id: str, seq: int, data: bytes) -> None:
        """Keep a snapshot of the session just after entry ``seq``."""
        check_session(session_id, data)
        seq = check_seq(seq)
        with self._journal_lock:
            self._checkpoints.setdefault(session_id, {}).setdefault(seq, bytes(data))

    def read_checkpoint(self, session_id: str,
                        upto: int | None = None) -> tuple[int, bytes] | None:
        """The newest checkpoint with ``seq <= upto`` (``None``: the newest)."""
        check_session(session_id)
        high = None if upto is None else check_seq(upto, "upto")
        with self._journal_lock:
            kept = self._checkpoints.get(session_id, {})
            seqs = [seq for seq in kept if high is None or seq <= high]
            return None if not seqs else (max(seqs), kept[max(seqs)])

    def prune_checkpoints(self, session_id: str, keep: int) -> int:
        """Forget all but the first and the ``keep`` newest checkpoints."""
        check_session(session_id)
        keep = check_seq(keep, "keep")
        with self._journal_lock:
            kept = self._checkpoints.get(session_id, {})
            seqs = sorted(kept)
            gone = seqs[1:len(seqs) - keep] if len(seqs) > keep + 1 else []
            for seq in gone:
                del kept[seq]
            return len(gone)

    def journal_sessions(self) -> list[str]:
        """Sessions with a journal or a checkpoint."""
        with self._journal_lock:
            return sorted(set(self._journals) | set(self._checkpoints))

    def delete_journal(self, session_id: str) -> bool:
        """Forget a session's entries and checkpoints."""
        check_session(session_id)
        with self._journal_lock:
            had = (self._journals.pop(session_id, None) is not None) | (
                self._checkpoints.pop(session_id, None) is not None)
            return had

    # -- forgetting (docs/journal.md, "Forgetting") ------------------------------------------
    def rewrite_journal(self, session_id: str, entries: Mapping[int, bytes],
                        checkpoints: Mapping[int, bytes]) -> None:
        """Replace the bytes of the given entries and checkpoints (which exist) in place."""
        check_session(session_id)
        with self._journal_lock:
            kept = self._journals.get(session_id, [])
            for seq, raw in entries.items():
                _, at, _ = kept[seq - 1]
                kept[seq - 1] = (seq, at, bytes(raw))
            points = self._checkpoints.get(session_id, {})
            for seq, data in checkpoints.items():
                points[seq] = bytes(data)

    def redact_outcomes(self, keys: Iterable[str], prefixes: Iterable[str],
                        source: str | None) -> int:
        """Blank the key, reason and evidence of the outcomes naming what was forgotten
        (:func:`~corollary.trust.outcomes.names_forgotten`); their counts stay. How many."""
        keys, prefixes = frozenset(keys), tuple(prefixes)
        done = 0
        with self._lock:
            for history in self._history.values():
                for i, o in enumerate(history):
                    if names_forgotten(o.key, o.reason, o.evidence, o.source, keys, prefixes,
                                       source):
                        history[i] = attrs.evolve(o, key=None, reason=None, evidence=None)
                        done += 1
        return done

    def reclaim(self) -> None:
        """Nothing to free: the redacted bytes are gone with the objects that held them."""

    def load_totals(self, totals: Mapping[tuple[str, str | None], Totals]) -> None:
        with self._lock:
            self._totals.update(totals)


class _MemoryJournal:
    """A :class:`~corollary.storage.base.JournalWriter` on a :class:`MemoryStore`:
    entries are staged and land when the block ends without an error."""

    __slots__ = ("store", "session_id", "head", "staged")

    def __init__(self, store: MemoryStore, session_id: str, head: int) -> None:
        self.store = store
        self.session_id = session_id
        self.head = head
        self.staged: list[tuple[int, float, bytes]] = []

    def entries(self, after: int) -> list[tuple[int, bytes]]:
        return self.store.journal_entries(self.session_id, after)

    def append(self, entry: bytes, at: float) -> int:
        entry, when = check_entry(entry, at)
        self.head += 1
        self.staged.append((self.head, when, entry))
        return self.head

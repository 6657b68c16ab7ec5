"""Many sessions served from one process: :class:`SessionCache`, each user a journaled session.

An application with a memory per user (a support desk, an assistant with many users, a
LangGraph deployment with several replicas) keeps each user in a journaled session of one
ledger (:meth:`BeliefBase.open_session <corollary.BeliefBase.open_session>`). The cache opens
a session on demand, keeps the most recently used ones open within a bound (a count, and an
estimate of memory), and drops the least recently used beyond it: a dropped session is simply
reopened next time, from its newest checkpoint and the journal entries after it, for the
journal, not the process, holds it.

Every use of a cached session first applies the entries other writers appended to it
(``kb.sync()``: one round trip that asks whether the journal moved), so a write acknowledged
by another replica is seen by the next read here. A notification (PostgreSQL's LISTEN/NOTIFY)
arrives after the writer's commit, not before the reader's next read, so it could not promise
that; the cache asks. One ledger (one connection pool) serves every session; each session has
a lock of its own, so callers of different sessions never wait for each other.

On PostgreSQL a use takes one look at other processes' trust outcomes, in the sync's own
statement for a read and none for a write, not a round trip for every confidence it reads;
and a checkpoint a change makes due is written by a thread of the cache's after the change
returns, never by the change (docs/many-users.md, "Reads and other writers' outcomes" and
"Checkpoints").

Any number of callers may use sessions at once (``max_concurrent`` bounds them if given):
a change holds one pooled connection for its journal transaction and needs no other, and the
store never waits for the database while holding its shared totals' lock, so callers beyond
the pool's size wait for a connection, never for each other. See docs/many-users.md.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import attrs

from ..facade.base import BeliefBase
from ..facade.journaled import CHECKPOINT_FIRST
from ..foundations._validate import check_int, check_number
from ..foundations.errors import InvalidTypeError
from ..storage.checks import check_session
from ..storage.journal_start import StartSizes, sizes_read

if TYPE_CHECKING:  # pragma: no cover
    from ..trust.ledger import TrustLedger

__all__ = ["BELIEF_BYTES", "SESSION_BYTES", "CacheStats", "SessionCache", "checkpoint_pays",
           "estimate_bytes"]

#: What an open session costs before its first belief (bytes; measured with tracemalloc on an
#: empty journaled session: about 8.5 KiB, rounded up).
SESSION_BYTES = 16 * 1024
#: What each belief of an open session adds (bytes; measured with tracemalloc on sessions of
#: 50 to 1,000 beliefs whose values are small JSON objects: 800 to 1,030 B a belief).
BELIEF_BYTES = 1024


def estimate_bytes(kb: BeliefBase) -> int:
    """An estimate of the memory an open session holds: :data:`SESSION_BYTES` plus
    :data:`BELIEF_BYTES` a belief (a count, so it costs nothing to take after every use; values
    much larger than a small JSON object make it an underestimate).

    Examples
    --------
    >>> from corollary import BeliefBase
    >>> kb = BeliefBase()
    >>> kb.assert_("hq", "Austin", source="tool:registry")
    >>> estimate_bytes(kb) == SESSION_BYTES + BELIEF_BYTES
    True
    """
    return SESSION_BYTES + BELIEF_BYTES * len(kb)


@attrs.frozen(slots=True)
class CacheStats:
    """What a :class:`SessionCache` holds and has done since it was made.

    Attributes
    ----------
    sessions : int
        Sessions open in the cache now.
    estimated_bytes : int
        Their memory, as :func:`estimate_bytes` estimates it.
    hits, misses : int
        Uses that found the session open, and uses that opened it.
    evictions : int
        Sessions dropped to keep within the bounds (or by :meth:`SessionCache.evict`).
    """

    sessions: int
    estimated_bytes: int
    hits: int
    misses: int
    evictions: int


class _Entry:
    """One cached session: its base (``None`` until opened), its own lock, how many callers
    use it now (an entry in use is never evicted) and its estimated size."""

    __slots__ = ("kb", "lock", "users", "size")

    def __init__(self) -> None:
        self.kb: BeliefBase | None = None  # a session (it has a journal)
        self.lock = threading.RLock()
        self.users = 0
        self.size = 0


#: Seconds the cache's checkpoint writer waits for work before its thread ends.
IDLE_SECONDS = 1.0


def checkpoint_pays(replayed: int, sizes: StartSizes | None) -> bool:
    """Whether an open that replayed ``replayed`` entries has the cache write a checkpoint at
    once (docs/many-users.md, "Checkpoints"): when it replayed :data:`CHECKPOINT_FIRST`
    entries or more, or entries at least as large as the checkpoint it decoded (``sizes``:
    what the open read). Replaying an entry costs about what decoding a checkpoint of its
    size does, so the open spent at least as long replaying as decoding, and every later
    open of the session would again; writing one costs about an encoding of the state, and
    the checkpoints so written come to at most about twice the bytes of the entries they
    cover. A short tail of small entries on a large session is replayed rather than the
    whole state written again.

    Examples
    --------
    >>> from corollary.storage.journal_start import StartSizes
    >>> loaded = StartSizes("u1", 0, 570, 1, 11_682)  # one 50-row load on an empty start
    >>> put = StartSizes("u1", 1, 4_426, 1, 405)  # one put after a checkpoint of 50 memories
    >>> checkpoint_pays(1, loaded), checkpoint_pays(1, put), checkpoint_pays(16, put)
    (True, False, True)
    """
    if replayed <= 0:
        return False
    if replayed >= CHECKPOINT_FIRST:  # also: a writer died before its due one was written
        return True
    return sizes is not None and sizes.replayed_bytes >= sizes.checkpoint_bytes


class _Checkpoints:
    """The cache's writer of due checkpoints: a thread, started on the first one, writing each
    session's (:meth:`Journal.checkpoint <corollary.facade.journaled.Journal.checkpoint>`)
    while holding the session's lock as a caller does, so that no change waits for a snapshot
    and its write. A checkpoint not written yet loses nothing: the journal holds every entry,
    and opening replays the entries after the newest checkpoint there is."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[int, _Entry] = {}  # by id: an entry once, however often it is due
        self._busy = False
        self._thread: threading.Thread | None = None

    def due(self, entry: _Entry) -> None:
        """A checkpoint of ``entry``'s session is due (called inside the change that made it
        due: it only takes note). The one written is at the session's last entry when the
        writer gets to it, however many came after the one that made it due."""
        with self._cond:
            self._due[id(entry)] = entry
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="corollary-checkpoints")
                self._thread.start()
            self._cond.notify_all()

    def wait(self, timeout: float | None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: not self._due and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._due:
                    if not self._cond.wait(IDLE_SECONDS) and not self._due:
                        self._thread = None  # idle: ended (the next due starts another)
                        return
                _, entry = self._due.popitem()
                self._busy = True
            try:
                self._write(entry)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    @staticmethod
    def _write(entry: _Entry) -> None:
        with entry.lock:  # as a caller: no change or read of the session meanwhile
            kb = entry.kb
            journal = kb.journal if kb is not None else None
            if journal is None or journal.seen <= journal.cp_seq:
                return  # written meanwhile (another due of the same session)
            if _closed(journal.store):
                return  # the application closed the ledger: nothing lost, nothing to write to
            try:
                journal.checkpoint()
            except Exception as exc:  # the next due one tries again; nothing is lost meanwhile
                if _closed(journal.store):
                    return  # closed while it was written
                with contextlib.suppress(Exception):
                    warnings.warn(f"the checkpoint of session {journal.sid!r} could not be "
                                  f"written ({type(exc).__name__}: {exc}); its journal holds "
                                  "every entry", RuntimeWarning, stacklevel=1)


def _closed(store: object) -> bool:
    """Whether the store was closed (a store without ``closed`` never is)."""
    return getattr(store, "closed", False) is True


class SessionCache:
    """Journaled sessions of one ledger, opened on demand and kept within bounds.

    Parameters
    ----------
    ledger : TrustLedger
        The ledger every session lives in (SQLite, PostgreSQL or in memory): one connection
        pool whatever the number of sessions. The cache never closes it.
    max_sessions : int
        At most this many sessions open at once (default 1,000).
    max_bytes : int
        At most this many bytes of open sessions, as :func:`estimate_bytes` estimates them
        (default 512 MiB). The session used last is kept even when it alone exceeds it.
    max_concurrent : int, optional
        At most this many callers inside sessions at once, the others waiting their turn
        (default: no bound). A caller already inside a session takes no second turn.
    options
        Given to every :meth:`~corollary.BeliefBase.open_session` (``clock``, ``policy``,
        ``rules``, ``tools``, ``checkpoint_every``, ...).

    Examples
    --------
    >>> from corollary import TrustLedger
    >>> cache = SessionCache(TrustLedger(), max_sessions=2)
    >>> for user in ("u1", "u2", "u3"):
    ...     with cache.session(user) as kb:
    ...         kb.assert_("name", user, source="human:" + user)
    >>> sorted(cache.open_sessions()), cache.stats().evictions
    (['u2', 'u3'], 1)
    >>> with cache.session("u1") as kb:   # reopened from its journal
    ...     kb.value("name")
    'u1'
    """

    def __init__(self, ledger: TrustLedger, *, max_sessions: int = 1000,
                 max_bytes: int = 512 * 1024 * 1024, max_concurrent: int | None = None,
                 **options: Any) -> None:
        from ..trust.ledger import TrustLedger

        if not isinstance(ledger, TrustLedger):
            raise InvalidTypeError(f"ledger must be a TrustLedger, not {type(ledger).__name__}")
        self.ledger = ledger
        self.max_sessions = check_int(max_sessions, "max_sessions", low=1)
        self.max_bytes = check_int(max_bytes, "max_bytes", low=1)
        self.options = options
        #: how many callers may be inside sessions at once (None: any number)
        self.max_concurrent = (None if max_concurrent is None
                               else check_int(max_concurrent, "max_concurrent", low=1))
        self._turns = (None if self.max_concurrent is None
                       else threading.BoundedSemaphore(self.max_concurrent))
        self._inside = threading.local()  # .depth: sessions this thread is inside
        self._lock = threading.Lock()  # the map only: never held while a session works
        self._entries: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        self._bytes = 0
        self._hits = self._misses = self._evictions = 0
        self._checkpoints = _Checkpoints()

    @contextmanager
    def session(self, session_id: str, *, sync: bool = True) -> Iterator[BeliefBase]:
        """The session ``session_id``, opened if it is not open, synced with other writers,
        held for this caller alone (other sessions' callers go on meanwhile).

        ``sync=False`` skips the sync of a session already open (a round trip): for a caller
        that only changes it, since each change applies other writers' entries first anyway
        (docs/many-users.md, "Writes").

        Raises what :meth:`~corollary.BeliefBase.open_session` and ``sync`` raise (a
        :class:`~corollary.foundations.errors.CorollaryError`); a session that failed to open
        is not cached.
        """
        session_id = check_session(session_id)
        if not isinstance(sync, bool):
            raise InvalidTypeError("sync must be a bool")
        with self._turn(), self._look(sync):
            entry = self._take(session_id)
            size: int | None = None  # None: the session did not open
            try:
                with entry.lock:
                    kb = self._ready(session_id, entry, sync)
                    try:
                        yield kb
                    finally:
                        size = estimate_bytes(kb)
            finally:
                self._give_back(session_id, entry, size)

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """One of the ``max_concurrent`` turns, for the outermost session a thread enters."""
        depth = getattr(self._inside, "depth", 0)
        if self._turns is None or depth:
            self._inside.depth = depth + 1
            try:
                yield
            finally:
                self._inside.depth = depth
            return
        self._turns.acquire()
        self._inside.depth = 1
        try:
            yield
        finally:
            self._inside.depth = 0
            self._turns.release()

    def _look(self, sync: bool) -> contextlib.AbstractContextManager[Any]:
        """One look at other writers' outcomes for the whole use (a store that asks the server
        on every confidence read, PostgreSQL, offers ``one_look``): a read asks once, with
        the sync's own statement; a write (``sync=False``) asks nothing, and takes the
        outcomes as of this process's last look (docs/many-users.md, "Writes")."""
        one_look = getattr(self.ledger.store, "one_look", None)
        return contextlib.nullcontext() if one_look is None else one_look(ask=sync)

    def _take(self, session_id: str) -> _Entry:
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                entry = self._entries[session_id] = _Entry()
            self._entries.move_to_end(session_id)
            entry.users += 1
            return entry

    def _ready(self, session_id: str, entry: _Entry, sync: bool = True) -> BeliefBase:
        """The entry's base: opened (a miss), else synced with other writers (a hit)."""
        if entry.kb is None:
            kb = BeliefBase.open_session(self.ledger, session_id, **self.options)
            journal = kb.journal
            assert journal is not None  # open_session makes a session
            # a checkpoint a change makes due is written by the cache's writer, not the change
            journal.on_due = functools.partial(self._checkpoints.due, entry)
            entry.kb = kb
            if checkpoint_pays(journal.seen - journal.cp_seq, sizes_read(session_id)):
                self._checkpoints.due(entry)  # so that the next open replays none of it
            with self._lock:
                self._misses += 1
            return kb
        if sync:
            entry.kb.sync()
        with self._lock:
            self._hits += 1
        return entry.kb

    def _give_back(self, session_id: str, entry: _Entry, size: int | None) -> None:
        with self._lock:
            entry.users -= 1
            if entry.kb is None:  # it failed to open: not cached
                if entry.users == 0 and self._entries.get(session_id) is entry:
                    del self._entries[session_id]
                return
            if size is not None and self._entries.get(session_id) is entry:
                self._bytes += size - entry.size
                entry.size = size
            self._shrink()

    def _shrink(self) -> None:
        """Drop least recently used sessions nobody uses until within both bounds (the one
        used last stays)."""
        if len(self._entries) <= self.max_sessions and self._bytes <= self.max_bytes:
            return  # within both (every use ends here: no walk over the cached sessions)
        for sid in list(self._entries)[:-1]:
            if len(self._entries) <= self.max_sessions and self._bytes <= self.max_bytes:
                return
            entry = self._entries[sid]
            if entry.users == 0:
                self._drop(sid)

    def _drop(self, session_id: str) -> None:
        entry = self._entries.pop(session_id)
        self._bytes -= entry.size
        self._evictions += 1

    def evict(self, session_id: str) -> bool:
        """Drop a session from the cache now (whether it was open); one in use is dropped
        when its callers are done with it and is reopened by the next."""
        with self._lock:
            if session_id not in self._entries:
                return False
            self._drop(session_id)
            return True

    def wait_checkpoints(self, timeout: float | None = None) -> bool:
        """Wait until every checkpoint made due so far is written (at most ``timeout``
        seconds; ``None``: as long as it takes); whether it is. Checkpoints are written by a
        thread of the cache's, each holding its session as a caller does, never by the change
        that made it due (docs/many-users.md, "Checkpoints").

        Examples
        --------
        >>> from corollary import TrustLedger
        >>> cache = SessionCache(TrustLedger())
        >>> with cache.session("u1") as kb:
        ...     _ = kb.assert_many([(f"k{i}", i, "tool:app") for i in range(20)])
        ...     for i in range(15):
        ...         kb.assert_(f"k{i}", -i, source="tool:app")  # the 16th entry: one is due
        >>> cache.wait_checkpoints(30), cache.ledger.store.read_checkpoint("u1")[0]
        (True, 16)
        """
        if timeout is not None:
            timeout = check_number(timeout, "timeout", low=0)
        return self._checkpoints.wait(timeout)

    def open_sessions(self) -> list[str]:
        """The sessions open now, least recently used first."""
        with self._lock:
            return [sid for sid, e in self._entries.items() if e.kb is not None]

    def stats(self) -> CacheStats:
        """What the cache holds and has done (see :class:`CacheStats`)."""
        with self._lock:
            return CacheStats(sum(e.kb is not None for e in self._entries.values()),
                              self._bytes, self._hits, self._misses, self._evictions)

    def __len__(self) -> int:
        return self.stats().sessions

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            entry = self._entries.get(session_id) if isinstance(session_id, str) else None
            return entry is not None and entry.kb is not None

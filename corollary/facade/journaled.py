"""Journaled sessions: a base whose every change is one entry of a journal in the ledger's store.

``BeliefBase.open_session(ledger, session_id)`` returns a base of the class it is called on
that *has* a :class:`Journal` (``kb.journal``; ``isinstance(kb, corollary.Session)`` is true
of it). The journal installs itself as the base's operation log
(:mod:`corollary.facade.operations`): each declared change reaches :meth:`Journal.run` and
runs as:

1. take the session's write lock (:meth:`~corollary.storage.protocols.JournalStore.journal`);
2. apply the entries other writers appended since this base last looked (in seq order);
3. run the operation with the clock held at its journal time, ``max(clock now, last entry's
   time)``; a change the base refuses (a check, a rule, a conflict) raises here, is undone in
   memory by the base's own all-or-nothing machinery, and writes nothing;
4. append the entry (the arguments, the time, what a tool call returned...) in the transaction
   that also holds the outcomes the change recorded, and commit.

So all processes apply one sequence and reach the same state. The state of a session is its
newest checkpoint (a snapshot, :mod:`corollary.snapshot`, written every
:data:`CHECKPOINT_EVERY` entries or :data:`CHECKPOINT_SECONDS` seconds) plus a replay of the
entries after it. A replay reruns each operation at its entry's time; it records no outcome (the
entry's outcomes were committed with it) and reuses the entry's operation numbers, so outcome
event ids (:func:`corollary.facade.blame.outcome_events`) are the same in every process. What a
replay assumes of rules, tools, formulas and time is in docs/journal.md.

Examples
--------
>>> import os, tempfile
>>> from corollary import BeliefBase, ManualClock, open_ledger
>>> ledger = open_ledger(os.path.join(tempfile.mkdtemp(), "ledger.db"))
>>> kb = BeliefBase.open_session(ledger, "team", clock=ManualClock(100))
>>> kb.assert_("hq", "Austin", source="tool:registry")
>>> other = BeliefBase.open_session(ledger, "team", clock=ManualClock(100))
>>> other.value("hq")
'Austin'
>>> [(h.seq, h.operation, h.key, h.label) for h in other.history()]
[(1, 'assert_', 'hq', 'IN')]
>>> ledger.close()
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import math
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..foundations._collector import collector_paused
from ..foundations._fields import Fields
from ..foundations._io import decode_bytes, encode
from ..foundations._validate import check_int, check_number
from ..foundations.clock import Clock, system_clock
from ..foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    JournalCorruptError,
    JournalError,
    JournalMovedError,
    JournalReplayError,
    JournalUnsupportedError,
    ReadOnlyBaseError,
    SessionNotFoundError,
    SessionPolicyError,
    SnapshotError,
)
from ..reasons.rules import Rule
from ..snapshot.state import state_to_dict
from ..storage.base import JOURNAL_METHODS, check_session
from ..storage.journal_start import journal_start
from ..storage.memory import MemoryStore
from ..tms import IN, Engine
from ..tms.conflicts import ConflictPolicy, read_policy
from ..tms.feed import LabelRecord
from ..trust.ledger import TrustLedger
from ..trust.outcomes import Totals, fold_totals, totals_rows
from .base_operations import REPLAYED_BY_EFFECT, keep_override
from .erasing import rewrite_past
from .forgetting import Erased, ForgetSpec, redact_outcomes
from .journal_entries import (
    Entry,
    HistoryEntry,
    WatchCallback,
    WatchEvent,
    decode_entry,
    encode_entry,
    history_entries,
    history_entry,
    pack_args,
)
from .operations import (
    HOOK_FAILED,
    Kept,
    Operation,
    OperationCall,
    install_log,
    operation_named,
    own_method,
    undone_by_the_log,
)
from .saving import KEEP_SAVED, state_of, take_state
from .watching import Watch

if TYPE_CHECKING:  # pragma: no cover
    from ..storage.base import JournalStore
    from .base import BeliefBase

#: The class of a base opened as a session: the one ``open_session`` is called on.
B = TypeVar("B", bound="BeliefBase")

__all__ = ["CHECKPOINT_EVERY", "CHECKPOINT_SECONDS", "Journal", "JournalClock",
           "Watch", "convert_to_journal", "open_journaled"]

#: A checkpoint is written after this many entries since the last one...
CHECKPOINT_EVERY = 1000
#: ...or once this many seconds have passed since it (at the next change).
CHECKPOINT_SECONDS = 600.0
#: ...and, below ``checkpoint_every``, at each power of two from this entry on (16, 32, 64,
#: ...), so a small session reopens replaying at most half its journal, not all of it.
CHECKPOINT_FIRST = 16
#: The changes appended on assumption where the store can (``journal_after``): none calls a
#: tool or a model, so running one again after another writer's entry came first repeats
#: nothing outside the base.
ASSUMING = frozenset({"assert_", "assert_many", "retract", "end"})
#: After an assumption failed (another writer appends to the session too), this many changes
#: take the lock first, which applies the other writer's entries rather than rebuilding.
CALM_AFTER_MOVED = 16
#: Checkpoints kept besides the first (seq 0, which tells a replaced journal apart): writing a
#: checkpoint prunes the older ones, so a session's storage grows with it, not its history.
CHECKPOINTS_KEPT = 1

#: The options of open_session (the base's own), by who takes them: ``"new"``, a new session's
#: first checkpoint only; ``"base"``, the base itself (not saved in snapshots); ``"load"``, the
#: snapshot load too. A new option of the base is one line here.
OPTIONS = {"policy": "new", "learn_from_checks": "new", "max_rule_firings": "base",
           "max_rule_seconds": "base", "rules": "load", "tools": "load",
           "conflict_policy": "load", "functions": "load", "embedder": "load"}
_LOAD = tuple(k for k, who in OPTIONS.items() if who == "load")
#: The checkpoint field holding what the session keeps of its options (``kept_options``): a
#: session made before it existed has none, and reads as it did (docs/journal.md).
KEPT = "session"


class JournalClock:
    """The clock of a journaled base: the caller's clock, or an entry's time while a change
    runs (so a change and every replay of it read one time).

    >>> clock = JournalClock(lambda: 5.0)
    >>> with clock.hold(7.0):
    ...     held = clock()
    >>> clock(), held
    (5.0, 7.0)
    """

    __slots__ = ("inner", "forced", "holder", "floor")

    def __init__(self, inner: Clock) -> None:
        self.inner = inner
        self.forced: float | None = None
        self.holder = 0  # the thread the time is held for (other threads read the clock)
        #: the time of the last entry applied: a base never reads before it (a clock behind
        #: another writer's would read a state before changes it has applied)
        self.floor = -math.inf

    def __call__(self) -> float:
        forced = self.forced
        if forced is None or self.holder != threading.get_ident():
            now = self.inner()
            if type(now) is float and now < self.floor:
                return self.floor
            return now
        return forced

    @contextlib.contextmanager
    def hold(self, at: float) -> Iterator[None]:
        """Read ``at`` (in this thread) until the block ends."""
        before, holder = self.forced, self.holder
        self.forced, self.holder = at, threading.get_ident()
        try:
            yield
        finally:
            self.forced, self.holder = before, holder


def session_uid(session_id: str, inc: str = "") -> str:
    """The outcome-event namespace of a session's journal (``inc``: its incarnation, see
    :mod:`corollary.facade.journal_entries`): the same in every process that opens it, another
    one when the journal starts again under the same session id."""
    name = f"journal:{session_id}" + (f":{inc}" if inc else "")
    return hashlib.blake2b(name.encode(), digest_size=16).hexdigest()


class _Mark:
    """Where a watch of every key starts, for one entry: the engine and its label feed, the
    number of the next belief (those from it on are new), the number of keys, and the keys a
    rule made while synchronising before the entry (new keys, not the entry's)."""

    __slots__ = ("engine", "feed", "first", "count", "ignored")

    def __init__(self, engine: Engine, feed: LabelRecord, first: int, count: int,
                 ignored: frozenset[str] | None) -> None:
        self.engine = engine
        self.feed = feed
        self.first = first
        self.count = count
        self.ignored = ignored


def _warn(message: str) -> None:
    """A RuntimeWarning about what followed a committed change; never raised (under
    ``-W error`` the warning would escape from a change that was made, and be retried)."""
    with contextlib.suppress(Exception):
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def _journal_store(ledger: object) -> JournalStore:
    if not isinstance(ledger, TrustLedger):
        raise InvalidTypeError(f"ledger must be a TrustLedger, not {type(ledger).__name__}")
    store = ledger.store
    missing = [m for m in JOURNAL_METHODS if not callable(getattr(store, m, None))]
    if missing:
        raise JournalUnsupportedError(f"{type(store).__name__} keeps no session journals "
                                      f"(no {', '.join(missing)}); use a SQLite or PostgreSQL "
                                      "ledger (docs/journal.md)")
    return store  # type: ignore[return-value]


class Journal:
    """The journal of a base opened with ``BeliefBase.open_session`` (see the module
    docstring): the base *has* one (``kb.journal``), installed as its operation log, and every
    declared change of the base (its own, a subclass's) runs through :meth:`run` as one entry.
    No class is made for a session: any base, of any subclass, is a session by holding one."""

    def __init__(self, base: BeliefBase) -> None:
        #: the base this journal keeps (it holds this journal as its operation log)
        self.base = base
        self.session: str | None = None  # None: not attached yet (a base being built)
        self.sid = ""  # the session id, once attached
        self.depth = 0
        self.replaying = False
        self.readonly = False
        self.broken = False
        self.owner = 0  # the thread inside a change (while depth > 0)
        self.inc: str | None = None  # the journal's incarnation (None: no entry seen yet)
        self.kept: dict[str, Any] | None = None  # what the session keeps (KEPT; None: made before)
        self.nested = 0  # changes running inside the change this thread makes
        self.made = 0  # inner changes begun (a failed change that began one is undone by a reload)
        self.announcing: dict[str, Any] | None = None  # what the running change announced
        self.origin: bytes | None = None  # the digest of the first checkpoint (open_journaled)
        self.feed_record: LabelRecord | None = None  # the label feed of a watch of every key
        self.last: tuple[int, bytes] | None = None  # the last entry applied here: (seq, bytes)
        self.calm = 0  # changes to make under the lock before appending on assumption again
        #: called, instead of writing it, when a change makes a checkpoint due: whoever set it
        #: writes it off the change's path (corollary.serving.shards.SessionCache)
        self.on_due: Callable[[], None] | None = None
        #: one change (or sync) of this base at a time: another thread waits for it
        self.lock = threading.RLock()
        self.watchers: list[Watch] = []

    # -- the journal machinery ------------------------------------------------------------
    def attach(self, store: JournalStore, session_id: str, clock: JournalClock,
                 seen: int, options: dict[str, Any], every: int, seconds: float,
                 read_only: bool = False, row: tuple[int, bytes] | None = None) -> None:
        """Follow ``session_id`` from its checkpoint at ``seen``; ``row``: the entry at
        ``seen`` when the caller read it already (else it is read here)."""
        self.store = store
        self.session = session_id
        self.sid = session_id
        self.clock = clock
        self.seen = seen
        self.last_at = -math.inf
        self.cp_seq = seen
        self.cp_time = time.monotonic()
        self.every = every
        self.seconds = seconds
        self.options = options
        self.readonly = read_only
        install_log(self.base, self)  # every declared change now runs as an entry (run, below)
        self.base.parts.engine.rewindable = True  # entries may be older than this base's reads (rewind)
        self.inc = None
        self.base.parts.uid = session_uid(session_id)
        if seen > 0:  # the operation count and time as they were after the checkpoint's entry
            rows = [row] if row is not None and row[0] == seen else \
                store.journal_entries(session_id, seen - 1, seen)
            if not rows:
                raise JournalCorruptError(f"the journal of {self.where()} lacks entry {seen}, "
                                          "which its checkpoint was taken after", self.where())
            last = decode_entry(rows[0][0], rows[0][1], self.where())
            self.last = (rows[0][0], rows[0][1])
            self.base.parts.ops = last.ops[1]
            self.last_at = clock.floor = last.at
            self.setinc(last.inc)

    def check_origin(self) -> None:
        """The journal is still the one this base opened at its first checkpoint (seq 0): a
        base that has applied no entry has no incarnation to tell a replaced journal by
        (``convert_session(overwrite=True)``), so it compares that checkpoint's bytes."""
        origin = self.origin
        if origin is None:
            return
        found = self.store.read_checkpoint(self.sid, 0)
        if found is None or _digest(found[1]) != origin:
            raise JournalError(f"the journal of {self.where()} was replaced since this base "
                               "opened it (its first checkpoint differs); open the session "
                               "again", self.where())

    def setinc(self, inc: str) -> None:
        """Take the journal's incarnation (outcome event ids derive from it)."""
        self.inc = inc
        self.base.parts.uid = session_uid(self.sid, inc)

    def checkinc(self, entry: Entry) -> None:
        """``entry`` belongs to the journal this base follows (else it was replaced)."""
        if self.inc is None:
            self.setinc(entry.inc)
        elif entry.inc != self.inc:
            raise JournalError(f"the journal of {self.where()} was replaced (entry "
                               f"{entry.seq} is another journal's); open the session again",
                               self.where())

    def where(self) -> str:
        return f"session {self.session!r}"

    def inner(self) -> bool:
        """Whether this thread is inside a change of this base already (a change made by
        another change, or by a replay, is part of it: no entry of its own)."""
        return bool(self.depth) and self.owner == threading.get_ident()

    def enter(self) -> None:
        if not self.depth:
            self.owner = threading.get_ident()
        self.depth += 1

    # -- the operation log (corollary.facade.operations): each declared change is one entry --
    def run(self, call: OperationCall) -> Any:
        """Run one declared change as one journal entry (see the module docstring); a change
        made inside another one (or by a replay) is part of it: no entry of its own."""
        if self.session is None:  # a base being built
            return call.proceed()
        if self.inner():
            self.made += 1
            self.nested += 1  # what it announces is the outer change's business
            try:
                return call.proceed()
            finally:
                self.nested -= 1
        declared = call.operation
        change = call.change
        if change is not None:  # the base's own change: its value's entry (facade/making.py)
            kept: Kept | None = Kept(call.args, call.kwargs, change.entry_resolved())
        elif declared.change is not None and declared.keep is None:  # a subclass's override
            kept = keep_override(call)
        else:
            kept = Kept(call.args, call.kwargs) if declared.keep is None else declared.keep(call)
        if kept is None:
            return call.proceed()  # not kept: the method's own refusal follows
        run_args = call.args if kept.run_args is None else kept.run_args
        run_kwargs = call.kwargs if kept.run_kwargs is None else kept.run_kwargs
        arguments = call.bind() if change is not None else call.bind(run_args, run_kwargs)
        packed = pack_args(kept.args, dict(kept.kwargs))  # before anything runs
        with self.lock:  # another thread's change of this base first
            try:
                try:
                    result = self.locked(declared, lambda: call.proceed(*run_args, **run_kwargs),
                                         arguments, packed, kept.resolved,
                                         undone_by_the_log(call))
                except JournalMovedError:  # assumed the latest entry, and another came first
                    self.calm = CALM_AFTER_MOVED
                    result = self.locked(declared, lambda: call.proceed(*run_args, **run_kwargs),
                                         arguments, packed, kept.resolved,
                                         undone_by_the_log(call))
            except BaseException:
                if self.broken:  # a forget whose rewrite failed: read the journal again
                    with contextlib.suppress(Exception):
                        self.reload()
                raise
        if declared.name == "forget":  # committed: the store frees the erased bytes now
            self.reclaim()
        return result

    def erase_stored(self, spec: ForgetSpec, done: Erased) -> tuple[int, int, int]:
        """``kb.forget`` in a session: the journal's past rewritten in the forget entry's
        transaction (:mod:`corollary.facade.erasing`), with the ledger's outcomes (the base
        asks this only while the journal is attached and not replaying, :meth:`erases`)."""
        try:
            entries, checkpoints = rewrite_past(self, spec, done)
            keys = done.keys | {k for k, _ in done.values}
            return entries, checkpoints, redact_outcomes(self.store, spec, keys)
        except BaseException:
            self.broken = True  # erased in memory, not in the journal: rebuilt from it
            raise

    def erases(self) -> bool:
        """Whether a forget now erases the journal's past and its outcomes in its entry's
        transaction (:meth:`erase_stored`): not while the journal is unattached or replaying
        (a replayed forget's erasure was committed with its entry)."""
        return self.session is not None and not self.replaying

    def reclaim(self) -> None:
        reclaim = getattr(self.store, "reclaim", None)
        if reclaim is None:
            return
        try:
            reclaim()
        except Exception as exc:
            _warn(f"{self.where()} forgot, but its store could not free the erased bytes "
                  f"yet ({type(exc).__name__}: {exc}); they go at its next checkpoint or vacuum")

    def resolved(self, what: str, value: Any) -> None:
        """What the running change decided (kept in its entry when its declaration says so,
        else read by its history row)."""
        found = self.announcing
        if found is not None and not self.nested and self.inner():
            found[what] = value

    def locked(self, declared: Operation, run: Callable[[], Any],
                 arguments: Mapping[str, Any], packed: bytes,
                 resolved: Mapping[str, Any], user: bool = False) -> Any:
        if self.readonly:
            raise ReadOnlyBaseError(f"this base is read-only (a session as it stood at a past "
                                    f"time): {declared.name} changes nothing here")
        if self.broken:
            self.reload()
        events: list[WatchEvent] = []
        ran = fresh_inc = running = False
        made = self.made
        announced: dict[str, Any] = {}
        try:
            with self.transaction(declared) as w:
                self.catch_up(w, events)
                fresh_inc = self.inc is None  # the first entry: its writer draws the id
                if fresh_inc:
                    self.setinc(uuid.uuid4().hex)
                at = max(check_number(self.clock.inner(), "the clock's time"),
                         self.last_at)
                before = self.before(declared.name) if self.watchers else None
                ops = self.base.parts.ops
                self.enter()
                picks: dict[str, Any] = {}
                self.announcing = announced
                self.base.parts.lookup.picks = picks  # the held values the change resolves (a replay's pins)
                try:
                    with self.clock.hold(at):
                        running = True
                        result = run()
                        ran, running = True, False
                        self.base.parts.lookup.picks = self.announcing = None
                        subj = declared.subjects(arguments, result, announced)
                        after = self.afters([s[0] for s in subj])
                finally:
                    self.base.parts.lookup.picks = self.announcing = None
                    self.depth -= 1
                body = {"op": declared.name, "at": at, "a": packed, "ops": [ops, self.base.parts.ops],
                        "subj": subj, "after": after, "inc": self.inc, "n": w.head + 1}
                decided = {**resolved, **{k: announced[k] for k in declared.records
                                          if k in announced}}
                if picks:
                    decided["held"] = picks
                if decided:
                    body["r"] = decided
                if declared.snapshot:  # the entry carries its state: no checkpoint it needs
                    body["snap"] = self.snapshot()
                raw = encode_entry(body)
                seq = w.append(raw, at)
        except BaseException as exc:
            # a change that raised after an inner change ran is undone too, and a user's
            # declared change whatever it did (its super() calls reach no log); the base's own
            # undo what they did before refusing, not what a hook (a policy's after_change, a
            # feed listener) raising after their change leaves (corollary.changes.applying)
            self.undo(ran or self.made != made or user or HOOK_FAILED in announced
                      or (running and not isinstance(exc, CorollaryError)), fresh_inc, events)
            raise
        self.committed(seq, at, raw, before, events)
        return result

    def transaction(self, declared: Operation) -> contextlib.AbstractContextManager[Any]:
        """The journal transaction of one change: on a store that can append on assumption
        (``journal_after``, PostgreSQL), where this base holds the session's latest entry as
        far as it knows and the change is one that may run again (:data:`ASSUMING`), a writer
        that asks nothing before it appends and appends in one statement only if no other
        entry came first (else ``JournalMovedError``: :meth:`run` runs the change again under
        the lock). Otherwise the session's lock, taken first."""
        after = getattr(self.store, "journal_after", None)
        last = self.last
        if self.calm:
            self.calm -= 1
        elif (after is not None and last is not None and last[0] == self.seen > 0
              and declared.name in ASSUMING and self.inc is not None):
            return after(self.sid, self.seen, last[1])  # type: ignore[no-any-return]
        return self.store.journal(self.sid)

    def catch_up(self, w: Any, events: list[WatchEvent]) -> None:
        """Under the write lock ``w``: apply the entries other writers appended, and check the
        journal is still the one this base follows, ending where this base does."""
        if getattr(w, "assumed", False):  # the writer checks the head where it appends
            return
        if w.head < self.seen:
            raise JournalError(f"the journal of {self.where()} is shorter ({w.head}) "
                               f"than this base has applied ({self.seen}): it was "
                               "deleted or replaced; open the session again")
        if w.head > self.seen:
            self.apply(w.entries(self.seen), events)
        elif not self.seen:  # no entry to tell the journal by: its first checkpoint
            self.check_origin()
        elif self.inc is not None:  # the same journal still?
            rows = w.entries(self.seen - 1)  # the head is this base's last entry
            if not rows:
                raise JournalCorruptError(f"the journal of {self.where()} lacks "
                                          f"entry {self.seen}", self.where())
            self.checkinc(decode_entry(rows[0][0], rows[0][1], self.where()))
        if self.seen != w.head:  # never append past a gap
            raise JournalCorruptError(f"the journal of {self.where()} ends at "
                                      f"{self.seen} but its head says {w.head}: "
                                      "entries are missing", self.where())

    def undo(self, ran: bool, fresh_inc: bool, events: list[WatchEvent]) -> None:
        """A change that did not commit: no incarnation drawn for it, and a base that ran it in
        memory rebuilt from the journal right away, so reads and checkpoints see committed
        changes only (else before the next change or sync); watchers hear of the other
        writers' entries applied before the failure."""
        self.watch_stop()
        if fresh_inc:  # no first entry after all: another writer's may come first
            self.inc = None
            self.base.parts.uid = session_uid(self.sid)
        if ran:
            self.broken = True
            with contextlib.suppress(Exception):
                self.reload()
        self.notify(events)

    def committed(self, seq: int, at: float, raw: bytes, before: Any,
                    events: list[WatchEvent]) -> None:
        """Entry ``seq`` is committed: from here on nothing may raise, or a caller would retry
        a change made."""
        self.seen = seq
        self.last = (seq, raw)
        self.last_at = self.clock.floor = at
        try:
            if before is not None:
                events.extend(self.diff(before, decode_entry(seq, raw)))
            self.notify(events)
            self.maybe_checkpoint()
        except Exception as exc:
            _warn(f"entry {seq} of {self.where()} is committed, but what follows it failed "
                  f"({type(exc).__name__}: {exc}); the next change retries a due checkpoint")

    def apply(self, rows: Sequence[tuple[int, bytes]], events: list[WatchEvent]) -> int:
        """Apply other writers' entries, in order; return how many."""
        where = self.where()
        with collector_paused() if len(rows) > 16 else contextlib.nullcontext():
            return self.apply_rows(rows, events, where)

    def apply_rows(self, rows: Sequence[tuple[int, bytes]], events: list[WatchEvent],
                     where: str) -> int:
        for seq, raw in rows:
            if seq != self.seen + 1:
                raise JournalError(f"the journal of {where} skips from {self.seen} to {seq}")
            if not self.seen:
                self.check_origin()
            entry = decode_entry(seq, raw, where)
            self.checkinc(entry)
            before = self.before(entry.op) if self.watchers else None
            try:
                self.replay(entry)
            except BaseException:
                self.watch_stop()
                raise
            self.seen = seq
            self.last = (seq, raw)
            self.last_at = self.clock.floor = max(self.last_at, entry.at)
            if before is not None:
                events.extend(self.diff(before, entry))
        return len(rows)

    def replay(self, entry: Entry) -> None:
        """Run ``entry``'s operation again, at its time, recording no outcome."""
        self.base.parts.ops = entry.ops[0]
        rules = self.base.parts.rules
        budget, rules.max_seconds = rules.max_seconds, math.inf  # time budgets are not replayed
        self.enter()
        self.replaying = True
        try:
            engine = self.base.parts.engine
            if entry.at < engine.expired_to:  # an entry older than expiries processed here
                engine.rewind(entry.at)
            with self.clock.hold(entry.at):
                declared = operation_named(type(self.base), entry.op)
                if declared is None:
                    raise JournalReplayError(f"entry {entry.seq} is a {entry.op!r}, which "
                                             f"{type(self.base).__name__} does not declare "
                                             "(docs/extending.md)", self.where())
                if declared.snapshot:
                    data = entry.snapshot
                    if data is None:  # an entry written before entries carried their state
                        found = self.store.read_checkpoint(self.sid, entry.seq)
                        if found is None or found[0] != entry.seq:
                            raise JournalReplayError(f"entry {entry.seq} ({entry.op}) needs "
                                                     "the checkpoint written with it, which is "
                                                     "gone")
                        data = found[1]
                    self.adopt(self.load(data))
                else:
                    self.base.parts.lookup.pins = entry.resolved.get("held")
                    try:
                        if declared.replay is not None:
                            declared.replay(self.base, entry)
                        elif declared.change is not None and (
                                own_method(type(self.base), declared)
                                or declared.change in REPLAYED_BY_EFFECT):
                            # the value the entry keeps, through its effect (facade/making.py)
                            change = declared.change.read_entry(entry.args, entry.kwargs,
                                                                entry.resolved)
                            type(self.base).effects[declared.change](self.base, change)
                        else:  # the method again, with its arguments
                            getattr(self.base, declared.method)(*entry.args, **entry.kwargs)
                    finally:
                        self.base.parts.lookup.pins = None
        except JournalError:
            raise
        except Exception as exc:
            self.broken = True
            raise JournalReplayError(
                f"entry {entry.seq} ({entry.op}) of {self.where()} could not be replayed here "
                f"({type(exc).__name__}: {exc}); docs/journal.md says what a replay assumes "
                "(the same rules and tools in every process)", self.where()) from exc
        finally:
            self.replaying = False
            self.depth -= 1
            rules.max_seconds = budget
        self.base.parts.ops = entry.ops[1]

    def afters(self, keys: list[Any]) -> list[list[Any]]:
        """``[key, label, confidence, value]`` of each key now (for the entry's history); many
        keys (a bulk load) are read after one synchronisation of everything."""
        if len(keys) <= 64:
            return [self.after(k) for k in keys]
        try:
            self.base.parts.lookup.sync()
        except CorollaryError:
            return [[k, None, None, None] for k in keys]
        engine = self.base.parts.engine
        out = []
        for key in keys:
            if not isinstance(key, str) or key not in engine.keys:
                out.append([key, None, None, None])
                continue
            out.append(self.label(key, [b for b in engine.values_of(key) if b.label is IN]))
        return out

    def after(self, key: object) -> list[Any]:
        """``[key, label, confidence, value]`` of ``key`` now."""
        if not isinstance(key, str) or key not in self.base.parts.engine.keys:
            return [key, None, None, None]
        try:
            held = self.base.parts.lookup.held(key)
        except CorollaryError:
            return [key, None, None, None]
        return self.label(key, held)

    @staticmethod
    def label(key: str, held: list[Any]) -> list[Any]:
        if not held:
            return [key, "OUT", 0.0, None]
        if len(held) > 1:
            return [key, "CONFLICT", max(b.conf for b in held), None]
        return [key, "IN", held[0].conf, held[0].value]

    # -- watchers -------------------------------------------------------------------------
    # A watch of chosen keys compares those keys before and after each entry. A watch of every
    # key compares only the keys whose labels can have changed: the engine's label feed
    # (a :class:`~corollary.tms.feed.LabelRecord` subscribed to the engine's change feed) keeps
    # the label each belief had before a sweep
    # first settled it or it was removed, and keys made since are the last ones of the key table.
    # Both bring everything up to now before and after, as a look at every key would
    # (:meth:`capture`, which the tests compare with as the reference,
    # tests/support/journal_workers.py):
    # what time alone changed before the entry is not the entry's, and keys a rule made
    # during those synchronisations are not counted as the entry's.
    def before(self, op: str) -> Any:
        """What :meth:`diff` compares with after the entry ``op``."""
        declared = operation_named(type(self.base), op)
        if (declared is None or declared.snapshot  # an entry replacing the engine wholesale
                or all(w.keys is not None for w in self.watchers)):
            return self.capture()
        engine = self.base.parts.engine
        known = len(engine.keys)
        self.base.parts.lookup.sync()
        made = len(engine.keys) - known  # keys a rule made while synchronising: not the entry's
        ignored = frozenset(itertools.islice(reversed(engine.keys), made)) if made > 0 else None
        feed = self.feed_record = LabelRecord(engine.feed)  # the engine's change feed, from now
        return _Mark(engine, feed, engine.next_number(), len(engine.keys), ignored)

    def watch_stop(self) -> None:
        """No label feed any more (a change that failed, or the feed was read)."""
        record, self.feed_record = self.feed_record, None
        if record is not None:
            record.stop()

    def capture(self) -> dict[str, dict[Any, tuple[Any, str]]]:
        """The values and labels of every watched key (every key, for a watch of all)."""
        keys: Iterable[str]
        every = any(w.keys is None for w in self.watchers)
        if every:  # one synchronisation of everything, not one walk per key
            keys = list(self.base.parts.engine.keys)
            self.base.parts.lookup.sync()
        else:
            keys = {k for w in self.watchers for k in (w.keys or ())}
        state: dict[str, dict[Any, tuple[Any, str]]] = {}
        for key in keys:
            beliefs = self.base.parts.engine.values_of(key)
            if not beliefs:
                continue
            if not every:
                self.base.parts.lookup.sync(beliefs)
            state[key] = {b.vid: (b.value, "IN" if b.label is IN else "OUT") for b in beliefs}
        return state

    def changed(self, mark: _Mark) -> tuple[dict[str, dict[Any, tuple[Any, str]]],
                                               dict[str, dict[Any, tuple[Any, str]]]]:
        """The values and labels before and after, of the keys whose labels can have changed
        since ``mark`` (see the comment above :meth:`before`)."""
        engine = mark.engine
        if engine is not self.base.parts.engine:  # replaced (a rebuild): a look at everything
            self.watch_stop()
            return {}, self.capture()
        feed = mark.feed
        keys = engine.keys
        try:
            engine.feed.publish()  # the removals pending count below
            known = len(keys)
            grown = known - mark.count + feed.removed  # the keys made since are the last
            fresh = list(itertools.islice(reversed(keys), grown)) if grown > 0 else []
            self.base.parts.lookup.sync()
        finally:
            self.watch_stop()
        candidates = {b.key for b in feed.was_in}
        candidates.update(fresh)
        if mark.ignored:
            candidates.update(mark.ignored)
        made = len(keys) - known  # keys a rule made while synchronising: not the entry's
        if made > 0:
            candidates.difference_update(itertools.islice(reversed(keys), made))
        ignored = mark.ignored or ()
        first = mark.first
        was_in = feed.was_in
        before: dict[str, dict[Any, tuple[Any, str]]] = {}
        for b, held in was_in.items():
            if b.seq < first and b.key not in ignored:
                before.setdefault(b.key, {})[b.vid] = (b.value, "IN" if held else "OUT")
        after: dict[str, dict[Any, tuple[Any, str]]] = {}
        for key in candidates:
            beliefs = engine.values_of(key)
            if not beliefs:
                continue
            after[key] = {b.vid: (b.value, "IN" if b.label is IN else "OUT") for b in beliefs}
            if key in ignored:
                continue
            old = before.get(key)
            for b in beliefs:
                if b.seq < first and b not in was_in:  # not settled since: as it was
                    if old is None:
                        old = before[key] = {}
                    old[b.vid] = (b.value, "IN" if b.label is IN else "OUT")
        return before, after

    def diff(self, before: Any, entry: Entry) -> list[WatchEvent]:
        if isinstance(before, _Mark):
            before, after = self.changed(before)
        else:
            after = self.capture()
        found = []
        for key in sorted(before.keys() | after.keys()):
            old, new = before.get(key, {}), after.get(key, {})
            for vid in sorted(old.keys() | new.keys(), key=repr):
                was, now = old.get(vid), new.get(vid)
                if (was and was[1]) != (now and now[1]):
                    value = (now or was)[0]
                    found.append(WatchEvent(key, value, was and was[1], now and now[1],
                                            history_entry(entry, key)))
        return found

    def notify(self, events: list[WatchEvent]) -> None:
        for event in events:
            for w in list(self.watchers):
                if w.keys is None or event.key in w.keys:
                    w.hear(event)  # nothing once w.stop() has returned

    # -- checkpoints and rebuilding -------------------------------------------------------
    def snapshot(self) -> bytes:
        doc = state_to_dict(state_of(self.base))
        if self.kept is not None:  # (a session made before sessions kept it: none)
            doc[KEPT] = self.kept
        return encode(doc, "msgpack")

    def maybe_checkpoint(self) -> None:
        """Checkpoint after this base's own entry when it is due (:meth:`checkpoint_due`);
        with :attr:`on_due` set, hand it over instead (written off the change's path)."""
        if not self.checkpoint_due():
            return
        if self.on_due is not None:
            self.on_due()
            return
        self.checkpoint()

    def checkpoint_due(self) -> bool:
        """Whether a checkpoint is due: this base's last entry's seq is a multiple of
        ``checkpoint_every`` (one writer appends it, so many writers write one checkpoint,
        not one each) or, below it, a power of two from :data:`CHECKPOINT_FIRST` on, or
        ``checkpoint_seconds`` have passed since this base's last one.

        >>> from corollary import BeliefBase, TrustLedger
        >>> kb = BeliefBase.open_session(TrustLedger(), "s")
        >>> kb.journal.on_due = lambda: None  # someone else writes them: none written here
        >>> for i in range(16):
        ...     kb.assert_("k", i, source="tool:a")
        >>> kb.journal.checkpoint_due(), kb.journal.checkpoint()
        (True, 16)
        """
        seq = self.seen
        if seq <= self.cp_seq:
            return False
        doubled = CHECKPOINT_FIRST <= seq < self.every and seq & (seq - 1) == 0
        return not (seq % self.every and not doubled
                    and time.monotonic() - self.cp_time < self.seconds)

    def checkpoint(self) -> int:
        """Write a checkpoint of this base now (at the last entry it applied); return its seq.

        Checkpoints are written by themselves (:data:`CHECKPOINT_EVERY` entries,
        :data:`CHECKPOINT_SECONDS` seconds); opening reads the newest and replays the rest.
        Older checkpoints but the first are pruned (:data:`CHECKPOINTS_KEPT`): a past state
        (``as_of``) replays from the newest one kept before it.
        """
        self.check_writable("checkpoint")
        with self.lock:
            if self.broken:  # never a snapshot of a change that did not commit
                self.reload()
            self.store.write_checkpoint(self.sid, self.seen, self.snapshot())
            self.store.prune_checkpoints(self.sid, CHECKPOINTS_KEPT)
            self.cp_seq = self.seen
            self.cp_time = time.monotonic()
            return self.seen

    def load(self, data: bytes) -> BeliefBase:
        """A new base of this class from checkpoint bytes, on this base's ledger and clock."""
        doc = decode_bytes(data, "snapshot", self.where())
        return _from_checkpoint(type(self.base), doc, self.base.ledger, self.clock,
                                self.options, self.where())[0]

    def adopt(self, fresh: BeliefBase) -> None:
        """Take ``fresh``'s state as this base's own (:func:`~corollary.facade.saving.take_state`
        says what that is): the
        journal's attributes, the operation count and id, and this process's configuration
        (the conflict policy, rule budgets, whole-session versions) stay, for configuration is
        not an entry, so another writer's state never imposes its own."""
        rules = self.base.parts.rules
        take_state(self.base, fresh)
        self.base.parts.rules.max_firings, self.base.parts.rules.max_seconds = rules.max_firings, rules.max_seconds
        self.base.parts.engine.rewindable = True

    def reload(self) -> None:
        """Rebuild from the journal (after a change that ran here but did not commit), up to
        the entry this base had applied: watchers heard of those already; later entries are
        applied (and heard of) by the next sync or change, as usual.

        A rebuild that raises (a replayed entry's hook, the policy's ``after_change``, raising
        this time) leaves the base broken and still owing that entry: the next rebuild, before
        any change, sync or checkpoint, goes up to it again, never to the checkpoint it began
        from (which would drop committed entries from the base without a word).
        """
        upto, inc = self.seen, self.inc
        try:
            self.rebuild(upto, inc)
        except BaseException:
            self.seen, self.broken = upto, True
            if inc is not None:
                self.setinc(inc)
            raise

    def rebuild(self, upto: int, inc: str | None) -> None:
        """:meth:`reload` once: the newest checkpoint at or before ``upto``, then the entries
        after it up to ``upto`` (of the journal incarnation ``inc``, when known)."""
        found = self.store.read_checkpoint(self.sid, upto)
        if found is None:
            raise JournalError(f"{self.where()} has no checkpoint any more", self.where())
        seq, data = found
        self.adopt(self.load(data))
        self.seen = seq
        self.attach(self.store, self.sid, self.clock,
                      seq, self.options, self.every, self.seconds)
        if inc is not None and self.inc not in (None, inc):
            raise JournalError(f"the journal of {self.where()} was replaced; open the "
                               "session again", self.where())
        watchers, self.watchers[:] = list(self.watchers), []
        try:
            rows = self.store.journal_entries(self.sid, seq, upto)
            self.apply(rows, [])
            if self.seen != upto:
                raise JournalError(f"the journal of {self.where()} ends at {self.seen}, "
                                   f"before entry {upto} this base had applied",
                                   self.where())
        finally:
            self.watchers[:] = watchers
        self.broken = False

    def check_writable(self, what: str) -> None:
        if self.readonly:
            raise ReadOnlyBaseError(f"this base is read-only (a session as it stood at a past "
                                    f"time): {what} changes nothing here")

    # -- the public journal API -----------------------------------------------------------
    @property
    def session_id(self) -> str | None:
        """The journaled session this base belongs to."""
        return self.session

    @property
    def journal_seq(self) -> int:
        """The seq of the last entry this base has applied."""
        return int(self.seen)

    def sync(self) -> int:
        """Apply the entries other writers appended since, and take in the ledger's new
        outcomes and the expiries due (what rests on them is recomputed when read); return how
        many entries were applied.

        Watchers hear of what the entries changed.
        """
        applied = 0
        with self.lock:  # not while another thread's change of this base runs
            if not self.readonly:
                if self.broken:
                    self.reload()
                store, session = self.store, self.sid
                if store.journal_changed(session, self.seen):
                    events: list[WatchEvent] = []
                    applied = self.apply(store.journal_entries(
                        session, self.seen), events)
                    self.notify(events)
            # the ledger's new outcomes and the expiries due mark what rests on them stale;
            # reads recompute it when asked (a follower polling sync() pays for what changed,
            # not for every belief that decays)
            self.base.parts.lookup.catch_up()
        return applied

    def history(self, key: str | None = None, *, since: float | None = None,
                limit: int | None = None, before: int | None = None) -> list[HistoryEntry]:
        """The session's changes, oldest first: one :class:`HistoryEntry` per entry (those
        naming ``key`` only, when given; those at or after journal time ``since``, when given;
        those numbered below ``before``, when given). With ``limit``, only the newest ``limit``
        of them: the journal is read from its end, a chunk at a time, so a page of a long
        history costs the page, not the journal (``before=`` the oldest ``seq`` of a page
        gives the page before it).

        Reads the journal in the store, so it lists other writers' changes not yet applied here.
        """
        if key is not None and not isinstance(key, str):
            raise InvalidTypeError(f"a key must be a string, not {type(key).__name__}")
        if key is not None and not key:
            raise InvalidInputError("a key must be a non-empty string")
        if limit is not None:
            limit = check_int(limit, "limit", low=1)
        if before is not None:
            before = check_int(before, "before", low=1)
        after = 0
        if since is not None:
            since = check_number(since, "since")
            after = self.store.journal_seq_at(self.sid, math.nextafter(since, -math.inf))
        upto = self.seen if self.readonly else None
        if before is not None:
            upto = before - 1 if upto is None else min(upto, before - 1)
        if limit is None:
            rows = self.store.journal_entries(self.sid, after, upto)
            return self.history_rows(rows, key)
        top = self.store.journal_head(self.sid) if upto is None else upto
        found: list[HistoryEntry] = []
        chunk = max(limit, 64)
        while top > after and len(found) < limit:  # newest chunks first
            low = max(after, top - chunk)
            rows = self.store.journal_entries(self.sid, low, top)
            found[:0] = self.history_rows(rows, key)
            top, chunk = low, min(chunk * 2, 4096)
        return found[-limit:]

    def history_rows(self, rows: Sequence[tuple[int, bytes]], key: str | None
                  ) -> list[HistoryEntry]:
        where = self.where()
        found = []
        for seq, raw in rows:
            entry = decode_entry(seq, raw, where)
            if key is None or any(s[0] == key for s in entry.subjects):
                found.extend(history_entries(entry, key))
        return found

    def as_of(self, t: float) -> BeliefBase:
        """A read-only base as this session stood at journal time ``t`` (every entry at or
        before ``t`` applied; queries read the time ``t``). Any change raises
        :class:`~corollary.foundations.errors.ReadOnlyBaseError`.

        Values, labels, reasons and confidences are those of then: the base reads a copy of the
        ledger holding the outcomes of time ``t`` or before (see :func:`_ledger_as_of`).
        """
        t = check_number(t, "t")
        store, session = self.store, self.sid
        seq = store.journal_seq_at(session, t)
        found = store.read_checkpoint(session, seq)
        if found is None:
            raise JournalError(f"{self.where()} has no checkpoint at or before entry {seq}")
        clock = JournalClock(lambda: t)
        doc = decode_bytes(found[1], "snapshot", self.where())
        past, kept = _from_checkpoint(type(self.base), doc,
                                      _ledger_as_of(self.base.ledger, t, clock), clock,
                                      self.options, self.where())
        journal = Journal(past)
        journal.kept = kept
        journal.attach(store, session, clock, found[0], self.options, self.every,
                       self.seconds, read_only=True)
        journal.apply(store.journal_entries(session, found[0], seq), [])
        return past

    def watch(self, callback: WatchCallback, keys: Iterable[str] | None = None) -> Watch:
        """Call ``callback(event)`` (a :class:`WatchEvent`) after each entry applied here, this
        base's own change or another writer's (at :meth:`sync`, or before this base's next
        change), once for each value of a watched key whose label changed.

        ``keys``: the keys to watch (``None``: every key; an entry then costs what it changed,
        not the size of the base: only the keys whose labels it can have changed are
        compared). Returns a :class:`Watch`; ``watch.stop()`` ends it.
        """
        if not callable(callback):
            raise InvalidTypeError("callback must be callable")
        chosen = None
        if keys is not None:
            if isinstance(keys, str):
                raise InvalidTypeError("keys is an iterable of keys (a list), not one string")
            chosen = frozenset(keys)
            for k in chosen:
                if not isinstance(k, str) or not k:
                    raise InvalidInputError(f"watched keys are non-empty strings, not {k!r}")
        handle = Watch(self.watchers, callback, chosen)
        self.watchers.append(handle)
        return handle


# -- opening ------------------------------------------------------------------------------------
def _ledger_as_of(ledger: TrustLedger, t: float, clock: Clock) -> TrustLedger:
    """An in-memory copy of ``ledger`` with the outcomes of time ``t`` or before: each source's
    totals folded again from them. A source whose totals cover more outcomes than the ledger
    keeps (``max_history``) cannot be told apart by time: its totals are today's."""
    rows, outcomes = ledger.store.export()
    half_life = ledger.memory_half_life
    kept = [o for o in outcomes if o.at <= t]
    counts: dict[tuple[str, str | None], int] = {}
    for o in outcomes:
        for slot in {(o.source, None), (o.source, o.topic)}:
            counts[slot] = counts.get(slot, 0) + 1
    folded: dict[tuple[str, str | None], Totals] = {}
    for o in kept:
        fold_totals(folded, o.source, o.topic, o.correct, o.at, half_life)
    then = dict(folded)
    for source, topic, right, total, anchor, wright, wtotal in rows:
        if counts.get((source, topic), 0) != total:  # history beyond what is kept
            then[(source, topic)] = Totals(int(right), int(total), float(anchor),
                                           float(wright), float(wtotal))
    past = TrustLedger(prior_weight=ledger.prior_weight, memory_half_life=half_life,
                       max_history=ledger.max_history, policy=ledger.policy, clock=clock)
    priors, tiers = ledger.declarations()  # the declared priors and tiers, as they are
    for source, prior in priors.items():
        past.declare_prior(source, prior)
    for source, tier in tiers.items():
        past.declare_tier(source, tier)
    store = past.store
    assert isinstance(store, MemoryStore)
    store.restore(totals_rows(then), kept)
    return past


def _split_options(options: Mapping[str, Any]) -> dict[str, Any]:
    known = set(OPTIONS)
    unknown = sorted(set(options) - known)
    if unknown:
        raise InvalidTypeError(f"open_session() got unexpected options {unknown}; it takes "
                               f"{sorted(known)}")
    out = dict(options)
    for name in ("rules", "tools", "functions"):
        if name in out:
            out[name] = list(out[name])
    return out


def kept_options(kb: BeliefBase) -> dict[str, Any]:
    """What a session keeps of the options that change what it reads (the checkpoint's
    :data:`KEPT` field): its conflict policy, as its creator read it."""
    policy = kb.conflict_policy
    return {"conflict_policy": None if policy is None else policy.to_dict()}


def _kept_policy(kept: Any, given: Any, where: str) -> Any:
    """The conflict policy a session keeps, checked against the one ``open_session`` was
    given (``None`` and :data:`KEEP_SAVED`: none given). A different one is refused, naming
    both; the same one given is used (an ``AskHuman`` brings its ``ask``)."""
    f = Fields(where, "checkpoint")
    f.mapping(kept, KEPT, ("conflict_policy",))
    saved = kept["conflict_policy"]
    if given is None or given is KEEP_SAVED:
        ask = None
    else:
        if not isinstance(given, ConflictPolicy):
            raise InvalidTypeError(f"conflict_policy must be a ConflictPolicy, not "
                                   f"{type(given).__name__}")
        if given.to_dict() != saved:
            raise SessionPolicyError(
                f"{where} keeps the conflict policy {_policy_text(saved)} it was written with; "
                f"open_session was given {_policy_text(given.to_dict())}: open it without "
                "conflict_policy (or with its own) to read what its writers read "
                "(docs/journal.md, 'What a session keeps')")
        ask = getattr(given, "ask", None)
    return read_policy(saved, f, f"{KEPT}.conflict_policy",
                       **({} if ask is None else {"ask": ask}))


def _policy_text(saved: Mapping[str, Any] | None) -> str:
    if saved is None:
        return "None (conflicts stay open)"
    settings = ", ".join(f"{k}={v!r}" for k, v in saved.items() if k != "policy")
    return f"{saved['policy']}({settings})"


def _from_checkpoint(cls: type[BeliefBase], doc: Any, ledger: TrustLedger,
                     clock: JournalClock, options: Mapping[str, Any], where: str
                     ) -> tuple[BeliefBase, dict[str, Any] | None]:
    """A base of ``cls`` from a checkpoint's document, with what the session keeps of its
    options (:data:`KEPT`; ``None``: a session made before it kept them)."""
    load = {k: options[k] for k in _LOAD if k in options}
    policy = options.get("conflict_policy")
    kept = doc.pop(KEPT, None) if isinstance(doc, dict) else None
    if kept is not None:  # the session's own policy (docs/journal.md, "What a session keeps")
        load["conflict_policy"] = _kept_policy(kept, policy, where)
    elif policy is KEEP_SAVED:  # load_session: the policy the session was saved with
        load.pop("conflict_policy", None)
    else:
        # a session made before sessions kept their policy reads as it did: the policy is
        # this process's configuration, none unless given
        load["conflict_policy"] = policy
    kb = cls.from_dict(doc, ledger=ledger, clock=clock, path=where, **load)
    if "max_rule_firings" in options:
        kb.max_rule_firings = kb.parts.rules.max_firings = check_int(
            options["max_rule_firings"], "max_rule_firings", low=1, high=2**62)
    if "max_rule_seconds" in options:
        kb.max_rule_seconds = kb.parts.rules.max_seconds = check_number(
            options["max_rule_seconds"], "max_rule_seconds", finite=False, low=1e-6)
    return kb, kept


def _convert_first(cls: type[BeliefBase], store: Any, ledger: TrustLedger, session_id: str,
                   options: Mapping[str, Any]) -> None:
    """A whole-snapshot session (``save_session``) of this id becomes the journal's start (as
    :func:`convert_to_journal`), so opening it never hides its beliefs behind an empty journal."""
    try:
        store.read_session(session_id)
    except SessionNotFoundError:
        return
    try:
        convert_to_journal(cls, ledger, session_id,
                           **{k: options[k] for k in ("functions", "rules", "tools")
                              if k in options})
    except JournalError:
        if store.read_checkpoint(session_id) is None:  # pragma: no cover - not a race
            raise


def open_journaled(cls: type[B], ledger: TrustLedger, session_id: str, *,
                   clock: Clock | None = None, checkpoint_every: int = CHECKPOINT_EVERY,
                   checkpoint_seconds: float = CHECKPOINT_SECONDS,
                   **options: Any) -> B:
    """Open (or create) the journaled session ``session_id`` in ``ledger``'s store: a base of
    ``cls`` itself, holding a :class:`Journal` (no class is made for it).

    See :meth:`corollary.BeliefBase.open_session` and docs/journal.md.
    """
    store = _journal_store(ledger)
    session_id = check_session(session_id)
    if clock is not None and not callable(clock):
        raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
    every = check_int(checkpoint_every, "checkpoint_every", low=1)
    seconds = check_number(checkpoint_seconds, "checkpoint_seconds", finite=False, low=0.0)
    options = _split_options(options)
    jclock = JournalClock(clock or system_clock)
    where = f"session {session_id!r}"
    start = journal_start(store, session_id)  # one statement on a SQL store
    if start.checkpoint is None:
        _convert_first(cls, store, ledger, session_id, options)
        start = journal_start(store, session_id)
    if start.checkpoint is None:  # a new session: its first checkpoint, under the lock
        with store.journal(session_id):
            if store.read_checkpoint(session_id) is None:
                made = {k: options[k] for k in OPTIONS
                        if k in options and k != "functions" and options[k] is not KEEP_SAVED}
                fresh = cls(ledger=ledger, clock=jclock, **made)
                first = state_to_dict(state_of(fresh))
                first[KEPT] = kept_options(fresh)
                store.write_checkpoint(session_id, 0, encode(first, "msgpack"))
        start = journal_start(store, session_id)
        if start.checkpoint is None:  # pragma: no cover - deleted in between
            raise JournalError("the session's first checkpoint vanished", where)
    seq, data = start.checkpoint
    doc = decode_bytes(data, "snapshot", where)
    kb, kept = _from_checkpoint(cls, doc, ledger, jclock, options, where)
    journal = Journal(kb)
    journal.kept = kept
    rows = start.entries
    journal.attach(store, session_id, jclock, seq, options, every, seconds,
                   row=rows[0] if seq and rows else None)
    origin = _digest(data) if seq == 0 else None  # what a replaced journal differs in
    # entries read with the checkpoint in one statement are of its journal: nothing to compare
    journal.origin = None if start.consistent else origin
    journal.apply(rows[1:] if seq and rows and rows[0][0] == seq else rows, [])
    journal.origin = origin
    head = start.head
    if journal.seen < head:
        raise JournalCorruptError(f"the journal of {where} ends at {journal.seen} but its head "
                                  f"says {head}: entries are missing", where)
    assert isinstance(kb, cls)  # from_dict makes a base of the class it is called on
    return kb


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def convert_to_journal(cls: type[BeliefBase], ledger: TrustLedger, session_id: str, *,
                       overwrite: bool = False, functions: Iterable[Callable[..., Any]] = (),
                       rules: Iterable[Rule] = (),
                       tools: Iterable[Callable[..., Any]] = ()) -> int:
    """Turn the whole-snapshot session ``session_id`` (``kb.save_session``) into a journaled
    session of the same id: its snapshot becomes the journal's checkpoint at seq 0. Returns 0.

    The snapshot is checked first (a :class:`~corollary.foundations.errors.SnapshotError` writes
    nothing); outcomes a snapshot kept in a ledger of its own are recorded in ``ledger``. A
    session that already has a journal raises :class:`~corollary.foundations.errors.JournalError`
    unless ``overwrite=True`` (which deletes that journal). The whole-snapshot session itself
    is left as it is.

    >>> import os, tempfile
    >>> from corollary import BeliefBase, ManualClock, open_ledger
    >>> ledger = open_ledger(os.path.join(tempfile.mkdtemp(), "ledger.db"))
    >>> old = BeliefBase(ledger=ledger, clock=ManualClock(0))
    >>> old.assert_("hq", "Austin", source="tool:registry")
    >>> _ = old.save_session("s")
    >>> BeliefBase.convert_session(ledger, "s")
    0
    >>> BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).value("hq")
    'Austin'
    >>> ledger.close()
    """
    store = _journal_store(ledger)
    session_id = check_session(session_id)
    if not isinstance(overwrite, bool):
        raise InvalidTypeError("overwrite must be a bool")
    data, _ = store.read_session(session_id)  # type: ignore[attr-defined]
    where = f"session {session_id!r}"
    doc = decode_bytes(data, "snapshot", where)
    if not isinstance(doc, Mapping):
        raise SnapshotError("not a corollary snapshot", where)
    kb = cls.from_dict(doc, ledger=ledger, path=where, functions=functions,
                              rules=rules, tools=tools)  # checks it all
    own = doc.get("ledger")
    mine = None
    if own is not None:  # a base with a ledger of its own: its outcomes join this ledger
        mine = cls.from_dict(doc, path=where, functions=functions, rules=rules,
                                    tools=tools)
    with store.journal(session_id):
        if store.journal_head(session_id) or store.read_checkpoint(session_id) is not None:
            if not overwrite:
                raise JournalError(f"{where} already has a journal; pass overwrite=True to "
                                   "replace it", where)
            store.delete_journal(session_id)
        if mine is not None:  # in the conversion's transaction: a refusal records nothing
            ledger.record_many(mine.ledger.outcomes())
        store.write_checkpoint(session_id, 0, encode(state_to_dict(state_of(kb)), "msgpack"))
    return 0

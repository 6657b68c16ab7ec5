"""The engine of the TMS: structure, invalidation, and reads brought up to a time.

Structure lives on the records: a belief holds its premises, its justifications (``justs``)
and the justifications that read it (``users``); :attr:`Engine.graph` gives the same graph,
``input belief → justification → output belief``, as a ``networkx.DiGraph`` built on demand
for export and analysis. Values are a function of (structure, time).
Structure changes mark the affected cone dirty (descendants and, when a conflict policy decides
between rival values, the rivals and nogood partners, stopping at nodes already dirty); labels
and confidences are computed on demand, at the clock's time, for the stale part of the queried
beliefs' ancestry only, by the sweep (:mod:`corollary.tms.sweep`: creation order where it is
topological, else a Knuth/Dijkstra sweep in decreasing confidence).

The engine's rooms: this module (structure, marking, which region a read settles), the sweep,
batches and what-if trials (:mod:`corollary.tms.batch`), the bulk load and bulk restore
(:mod:`corollary.tms.loading`), strata (:mod:`corollary.tms.strata`) and the kinds of reasons
with the step rule (:mod:`corollary.tms.kinds`). The engine keeps the entry points; those
modules work on its tables.

The engine knows nothing of agents, storage, rules or the CLI. It talks to the rest through
two small interfaces given at construction, ``reliability(source, now)`` and the conflict policy
(:class:`ConflictStrategy`: does it decide, and what to do before a sweep), and one way out:
its change feed (:attr:`Engine.feed`, :mod:`corollary.tms.feed`), which the rule engine,
``kb.watch``, recall and the inspector subscribe to.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

import networkx as nx

from ..evidence import confidence as formulas
from ..foundations._collector import collector_paused
from ..foundations.values import is_end
from . import batch as batching
from . import loading, strata
from .batch import Batch, Trial
from .feed import ChangeFeed, LabelFeed
from .kinds import Reliability
from .records import (
    ANY,
    IN,
    OUT,
    PREMISES,
    Belief,
    Item,
    Justification,
    Nogood,
    Premise,
    PremiseRecord,
    matches,
    plain_source,
    record_changes,
    record_expired,
    record_expires_at,
    record_is_timed,
    record_origin,
    record_schedule,
    record_source,
    record_strength,
    record_valid_at,
)
from .source_marks import SourceMarks
from .sweep import Sweep
from .world_reads import KeyTimes

__all__ = ["IN", "OUT", "OPEN", "PREMISES", "Batch", "ConflictStrategy", "Engine", "LabelFeed",
           "PremisePart", "OUTSIDE"]

#: Why a premise does not count at the time read: the fact does not hold then in the world (its
#: valid time has not begun, or has ended; docs/model.md, "Time and change").
OUTSIDE = "outside its valid time"


class ConflictStrategy(Protocol):
    """What the sweep asks of a conflict policy (:mod:`corollary.tms.conflicts`)."""

    #: Whether the policy picks one of two supported values of a key. When it does not, rival
    #: values are independent: both stay IN and the conflict is left open.
    decides: bool
    #: Whether, among rival values the policy left standing, the first one the confidence
    #: sweep reaches defeats the others (``False``: they stand together, an open conflict).
    exclusive: bool

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        """Defeat values before the sweep (set their ``defeated_by``), if the policy
        ranks them by something other than confidence."""


class _Open:
    """No policy: rival values stand together and the conflict stays open."""

    decides = False
    exclusive = False

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        return None


OPEN: ConflictStrategy = _Open()


class PremisePart:
    """One premise of a belief as evaluated at one time (what a proof shows of it)."""

    __slots__ = ("premise", "reliability", "age", "freshness", "expired", "confidence", "outside")

    def __init__(self, premise: Premise, reliability: float, age: float, freshness: float,
                 expired: bool, outside: bool = False) -> None:
        self.premise = premise
        self.reliability = reliability
        self.age = age
        self.freshness = freshness
        self.expired = expired
        #: Whether the fact does not hold at the time read (outside its valid time).
        self.outside = outside
        self.confidence = (0.0 if expired or outside
                           else reliability * premise.certainty * freshness)


#: Sweeps of more beliefs than this run with the cyclic garbage collector paused.
_QUIET_SWEEP = 10_000
#: From this many reasons on, a belief keeps them in a list with a duplicate index.
_MANY = 16


class Engine:
    """The TMS: holds beliefs and justifications, and evaluates labels and confidences.

    Parameters
    ----------
    reliability : callable
        ``reliability(source, now) -> (value, time_dependent)``.
    corroboration : bool
        Noisy-OR across origins (True) or the best premise only.
    conflict_policy : ConflictStrategy, optional
        The conflict policy the sweep asks (default: none, conflicts stay open).

    Attributes
    ----------
    feed : ChangeFeed
        The change feed: what changed, told to its subscribers after a settle.
    touched : set of str or None
        The feed's buffer of keys whose beliefs changed structurally since its last
        publication; ``None`` while no subscription asks for touched keys.
    settled : LabelFeed or None
        The feed's buffer of the beliefs a sweep settled or :meth:`forget_if_unused` removed,
        each with whether it was IN before (labels change nowhere else); ``None`` while no
        subscription asks for labels.
    """

    def __init__(
        self,
        reliability: Reliability,
        corroboration: bool = True,
        conflict_policy: ConflictStrategy | None = None,
    ) -> None:
        self.reliability = reliability
        self.corroboration = corroboration
        #: The conflict policy (the base's ``policy`` is its trust policy).
        self.conflict_policy: ConflictStrategy = (
            OPEN if conflict_policy is None else conflict_policy)
        # a key maps to its one Belief, or to a dict vid -> Belief once it has several values:
        # most keys have one value, and an inner dict per key would double the memory
        self.keys: dict[str, Belief | dict[Any, Belief]] = {}
        self.count = 0
        # source -> the beliefs it gave a premise, in a list (9 bytes a belief, where a set
        # costs 30): a dropped premise leaves its entry until the list is compacted, so readers
        # check that the belief still has a premise from the source (see mark_source)
        self.by_source: dict[str, list[Belief]] = {}
        self._dropped: dict[str, int] = {}
        self.by_step_source: dict[str, set[Justification]] = {}
        self.by_rule: dict[str, set[Justification]] = {}
        # out-lists: key -> value identity (ANY for the whole key) -> the justifications with
        # that exception, in the order they were linked, as a dict (an ordered set: taking one
        # out is constant time, where a list's remove made forgetting a key that many
        # reasons name quadratic; benchmarks/bench_forget_order.py)
        self.unless_watch: dict[str, dict[Any, dict[Justification, None]]] = {}
        self.unless_count = 0
        self.nogoods: dict[str, Nogood] = {}
        self.nogoods_by_key: dict[str, list[Nogood]] = {}
        # beliefs a deciding policy gave up to a nogood in the last sweep: the nogood, and the
        # reason that would have held the belief (PREMISES or a justification)
        self.nogood_losses: dict[Belief, tuple[Nogood, Any]] = {}
        self.dirty: set[Belief] = set()
        self.timed: set[Belief] = set()
        self.touched: set[str] | None = None
        self.settled: LabelFeed | None = None
        #: The premise expiries to come, a heap of ``(time, number, belief, record)``: a
        #: what-if (:class:`~corollary.tms.batch.Trial`) swaps in a heap of its own and puts
        #: this one back, and a rolled-back batch drops the entries it pushed.
        self.expiries: list[tuple[float, int, Belief, PremiseRecord]] = []
        #: When the next premise expires (``inf`` if none does): a query at an earlier time
        #: has no expiry to process.
        self.next_expiry = math.inf
        #: Keep the expiries processed (``_expired``) so that :meth:`rewind` can schedule them
        #: again: a journaled base replays entries at times older than its reads (docs/journal.md).
        self.rewindable = False
        self._expired: list[tuple[float, int, Belief, PremiseRecord]] = []
        #: The latest expiry time processed and kept (``-inf``: none).
        self.expired_to = -math.inf
        #: belief -> its reasons by identity, for a belief with many (``_MANY``) reasons, built
        #: when first needed: :meth:`add_justification` finds a duplicate by hash there; a
        #: rolled-back batch drops a belief's entry (it is built again from its reasons)
        self.reason_index: dict[Belief, dict[tuple[Any, ...], Justification]] = {}
        self._seq = itertools.count(1)
        #: The what-if running now (:meth:`trial`, :meth:`at_world`), whose sweeps save the
        #: memos they write (``None``: none runs).
        self.running_trial: Trial | None = None
        #: While a read at a world time runs (:meth:`at_world`): that time, and the beliefs
        #: settled at it so far; ``None`` otherwise (premises are then valid by the clock's time).
        self.world: float | None = None
        self._world_done: set[Belief] = set()
        #: While a sweep's policy decides (``before_sweep``): whether an exception's item
        #: ``(key, vid)`` is held, as the sweep read it before resetting its region (a holder
        #: swept again with the region reads OUT until settled); ``None`` otherwise.
        self.exceptions_read: Callable[[str, Any], bool] | None = None
        #: the keys that have (or had) an end (``kb.end``): with no policy, their values are
        #: decided by time against the end, as under PreferNewer (docs/model.md, "Ending a
        #: fact"); empty in a base without ends, which then pays nothing for them
        self.ended: set[str] = set()
        #: Bumped whenever a source's reliability may have changed (:meth:`mark_source`,
        #: :meth:`mark_all`): what was computed from reliabilities before is stale.
        self.trust_epoch = 0
        #: key -> its answers at world times per stretch (:mod:`corollary.tms.world_reads`)
        self.world_reads: dict[str, KeyTimes] = {}
        #: what marking a source stale visits again (:mod:`corollary.tms.source_marks`)
        self.source_marks = SourceMarks()
        self.feed = ChangeFeed(self)

    # -- structure -----------------------------------------------------------------------
    def belief(self, key: str, value: Any, vid: Any) -> Belief:
        """The belief ``key = value``, created (OUT, unsupported) if new."""
        keys = self.keys
        slot = keys.get(key)
        if slot is None:
            b = keys[key] = Belief(key, value, vid, next(self._seq))
        elif type(slot) is Belief:
            if slot.vid == vid:
                return slot
            b = Belief(key, value, vid, next(self._seq))
            keys[key] = {slot.vid: slot, vid: b}
            self.mark(slot)
        else:
            found = slot.get(vid)  # type: ignore[union-attr]
            if found is not None:
                return found  # type: ignore[no-any-return]
            b = slot[vid] = Belief(key, value, vid, next(self._seq))  # type: ignore[index]
        if type(value) is dict and is_end(value):
            self.ended.add(key)  # the key's values and the end decide each other (marked next)
        self.count += 1
        self.mark(b)
        return b

    def add_premised(self, key: str, value: Any, vid: Any, record: PremiseRecord) -> Belief:
        """A belief ``key = value`` of a new key (the caller checked it is new), held by the
        premise ``record``: :meth:`belief` and :meth:`set_premise` in one step."""
        b = self.keys[key] = Belief(key, value, vid, next(self._seq))
        b.evidence = record
        self.count += 1
        source = plain_source(record)
        if source is None:  # a ttl or a valid time may have instants to schedule
            source, expires, dated = record_schedule(record)
            if expires is not None:
                self.push_expiry(b, record)
            if dated:
                self.push_valid_time(b, record)  # a start or an end still to come
        holders = self.by_source.get(source)
        if holders is None:
            self.by_source[source] = [b]
        else:
            holders.append(b)
        if self.touched is None and not self.unless_watch:
            self.dirty.add(b)  # a new key has no readers, rivals or partners yet
        else:
            self.mark(b)
        return b

    def add_premised_rows(self, rows: list[tuple[Any, ...]], start: int, now: float,
                          batch: Batch, uniform: bool = False) -> int:
        """Add the rows from ``start`` on whose keys are new, each as :meth:`add_premised`
        would, until a row whose key exists; return that row's index (``len(rows)`` when all
        were added). See :func:`corollary.tms.loading.add_premised_rows`."""
        return loading.add_premised_rows(self, rows, start, now, batch, uniform)

    def next_number(self) -> int:
        """The number the next belief, reason or expiry will take (it is not taken)."""
        nxt = next(self._seq)
        self._seq = itertools.count(nxt)
        return nxt

    def begin_batch(self) -> Batch:
        """Start noting what a batch of changes does, so that :meth:`rollback` can undo it."""
        return Batch(self.next_number(), self.count)

    @contextlib.contextmanager
    def trial(self, now: float, targets: Iterable[Belief]) -> Iterator[Trial]:
        """A what-if on this engine: bring ``targets`` up to ``now``, then let the block renew
        premises and read confidences (:class:`~corollary.tms.batch.Trial`); when it ends,
        everything is exactly as it was after that first read."""
        if self.running_trial is not None:
            raise RuntimeError("a what-if trial is already running on this engine")
        self.sync(now, targets)
        trial = Trial(self, now)  # changes nothing: what begin() changes, undo() puts back
        try:
            # set inside the try: an interrupt anywhere from here is undone, and no trial is
            # left standing to refuse every later what-if
            self.running_trial = trial
            trial.begin()
            yield trial
        finally:
            trial.undo()
            self.running_trial = None

    def save_key(self, batch: Batch, key: str) -> None:
        """Note the state of ``key``'s beliefs before the batch first changes them
        (:func:`corollary.tms.batch.save_key`)."""
        batching.save_key(self, batch, key)

    def rollback(self, batch: Batch) -> None:
        """Undo a batch of premise changes (:func:`corollary.tms.batch.rollback`)."""
        batching.rollback(self, batch)

    def find(self, key: str, vid: Any) -> Belief | None:
        slot = self.keys.get(key)
        if slot is None:
            return None
        if type(slot) is Belief:
            return slot if slot.vid == vid else None
        return slot.get(vid)  # type: ignore[union-attr]

    def values_of(self, key: str) -> list[Belief]:
        slot = self.keys.get(key)
        if slot is None:
            return []
        if type(slot) is Belief:
            return [slot]
        return list(slot.values())  # type: ignore[union-attr]

    def rivals(self, b: Belief) -> list[Belief]:
        """The other values of ``b``'s key."""
        slot = self.keys[b.key]
        if type(slot) is Belief:
            return []
        return [r for r in slot.values() if r is not b]  # type: ignore[union-attr]

    def beliefs(self) -> Iterator[Belief]:
        for slot in self.keys.values():
            if type(slot) is Belief:
                yield slot
            else:
                yield from slot.values()  # type: ignore[union-attr]

    def __len__(self) -> int:
        return self.count

    @property
    def graph(self) -> nx.DiGraph:
        """The justification graph, ``input belief → justification → output belief``, built
        afresh from the structure on each call (for export and analysis).

        The engine itself walks the links the records hold (a belief's ``justs`` and the
        ``users`` that read it), which is the same graph; this is the one accessor that gives
        it as a ``networkx.DiGraph``. Beliefs with no justification and no reader are not in
        it.
        """
        g = nx.DiGraph()
        for b in self.beliefs():
            for j in b.justs:
                g.add_node(j)
                for x in j.inputs:
                    g.add_edge(x, j)
                g.add_edge(j, b)
        return g

    def contested(self) -> Iterator[tuple[str, list[Belief]]]:
        """Every key with more than one value, and its values."""
        for key, slot in self.keys.items():
            if type(slot) is not Belief:
                yield key, list(slot.values())  # type: ignore[union-attr]


    def stale(self, now: float) -> int:
        """How many beliefs a full sync at ``now`` would recompute: the dirty ones (premises due
        to expire by ``now`` make their cones dirty first, as the sync would) and the
        time-dependent ones computed at another time, each once."""
        if self.expiries and self.expiries[0][0] <= now:
            self.expire(now)
        dirty = self.dirty
        return len(dirty) + sum(1 for b in self.timed if b.as_of != now and b not in dirty)

    def restore_belief(self, key: str, value: Any, vid: Any, seq: int,
                       withdrawn: str | None) -> Belief:
        """Recreate a saved belief with its number and withdrawal (snapshots)."""
        b = self.belief(key, value, vid)
        b.seq = seq
        b.withdrawn = withdrawn
        return b

    def restore_beliefs(self, rows: Sequence[Sequence[Any]], vids: Sequence[Any]) -> list[Belief]:
        """Recreate saved beliefs at once (snapshots): see
        :func:`corollary.tms.loading.restore_beliefs`."""
        return loading.restore_beliefs(self, rows, vids)

    def restore_premises(self, beliefs: Sequence[Belief], rows: Iterable[Sequence[Any]],
                         strings: Sequence[str]) -> None:
        """Attach saved premises at once (snapshots): see
        :func:`corollary.tms.loading.restore_premises`."""
        loading.restore_premises(self, beliefs, rows, strings)

    def continue_numbering(self, next_seq: int) -> None:
        """Number new beliefs and reasons from ``next_seq`` on (numbers are never reused)."""
        self._seq = itertools.count(next_seq)
        feed = self.feed
        if next_seq < feed.first:  # a rollback gives its numbers back: they are new again
            feed.first = next_seq

    def counted(self, made: int) -> None:
        """Count ``made`` beliefs a bulk path made itself (numbered from :meth:`next_number` on,
        then :meth:`continue_numbering` after the last number it used)."""
        self.count += made

    def set_premise(self, b: Belief, premise: Premise) -> Premise | None:
        """Attach ``premise`` to ``b``, replacing any earlier one from the same source."""
        record = premise.record
        old = None
        source = plain_source(record)
        if source is None:
            source, expires, dated = record_schedule(record)
            if expires is not None:
                self.push_expiry(b, record)
            if dated:
                self.push_valid_time(b, record)  # a start or an end still to come
        ev = b.evidence
        if ev is None:
            b.evidence = record
        elif type(ev) is tuple:
            if record_source(ev) == source:
                old = ev
                b.evidence = record
            else:
                b.evidence = [ev, record]
        else:
            kept = []
            for r in ev:
                if record_source(r) == source:
                    old = r
                else:
                    kept.append(r)
            kept.append(record)
            b.evidence = kept[0] if len(kept) == 1 else kept
        if old is None:
            holders = self.by_source.get(source)
            if holders is None:
                self.by_source[source] = [b]
            else:
                holders.append(b)
        self.mark(b)
        return None if old is None else Premise.of(old)

    def push_expiry(self, b: Belief, record: PremiseRecord, number: int | None = None) -> None:
        """Schedule the expiry of ``b``'s premise ``record`` (it has a ttl), numbered ``number``
        (default: the next number), which orders expiries due at the same time."""
        at = record_expires_at(record)
        assert at is not None, "push_expiry takes a premise with a ttl"
        heapq.heappush(self.expiries, (at, next(self._seq) if number is None else number, b,
                                        record))
        if at < self.next_expiry:
            self.next_expiry = at

    def push_valid_time(self, b: Belief, record: PremiseRecord,
                        numbers: tuple[int | None, int | None] = (None, None)) -> None:
        """Schedule the instants at which ``b``'s premise ``record`` starts and stops holding in
        the world (a ``valid_from`` after it was asserted, a ``valid_until``): at each the
        belief is re-evaluated, as at an expiry (the same heap, so a base read at the clock's
        time sees a fact begin and end by itself)."""
        for at, which in record_changes(record):
            number = numbers[which]
            heapq.heappush(self.expiries,
                           (at, next(self._seq) if number is None else number, b, record))
            if at < self.next_expiry:
                self.next_expiry = at

    def drop_premise(self, b: Belief, source: str) -> Premise | None:
        record = b.record_from(source)
        if record is not None:
            ev = b.evidence
            if ev is record:
                b.evidence = None
            else:
                kept = [r for r in ev if r is not record]
                b.evidence = kept[0] if len(kept) == 1 else kept
            holders = self.by_source.get(source)
            if holders is not None:
                dropped = self._dropped.get(source, 0) + 1
                if dropped * 2 > len(holders):  # compact: amortised, one pass per many drops
                    holders[:] = [x for x in dict.fromkeys(holders)
                                  if x.record_from(source) is not None]
                    self.source_marks.forget(source)
                    dropped = 0
                    if not holders:
                        del self.by_source[source]
                self._dropped[source] = dropped
            self.mark(b)
        return None if record is None else Premise.of(record)

    def holders_of(self, source: str) -> list[Belief]:
        """The beliefs with a premise from ``source``."""
        return [b for b in dict.fromkeys(self.by_source.get(source, ()))
                if b.record_from(source) is not None]

    def forget_if_unused(self, b: Belief) -> bool:
        """Remove ``b`` if nothing holds it, reads it or withdrew it (a superseded value).

        A feed that keeps giving new values for one key would otherwise leave every old value
        behind as an OUT belief with no reasons.
        """
        if b.evidence is not None or b.justs or b.withdrawn is not None or b.users:
            return False
        self.world_reads.pop(b.key, None)  # it holds the key's values: gone with one of them
        self.source_marks.clear()  # its log of swept beliefs must not keep this one alive
        slot = self.keys.get(b.key)
        if slot is b:
            del self.keys[b.key]
        elif isinstance(slot, dict) and slot.get(b.vid) is b:
            del slot[b.vid]
            for rival in slot.values():
                self.mark(rival)  # the rivalry changed
            if len(slot) == 1:
                self.keys[b.key] = next(iter(slot.values()))
        else:
            return False
        if self.settled is not None:
            self.settled.forget(b)
        self.count -= 1
        self.dirty.discard(b)
        self.timed.discard(b)
        self.nogood_losses.pop(b, None)
        return True

    def add_justification(self, j: Justification) -> Justification:
        """Add a derived reason; an identical one (same step and inputs) is returned instead."""
        out = j.output
        justs = out.justs
        if len(justs) < _MANY:
            for other in justs:
                if (other.kind == j.kind and other.name == j.name and other.inputs == j.inputs
                        and other.unless == j.unless):
                    return other
        else:
            # a rule over an open conflict can give one belief thousands of reasons: find
            # duplicates by hash and grow a list in place, not a tuple copied on every add
            index = self.reason_index.get(out)
            if index is None:
                index = self.reason_index[out] = {_identity(o): o for o in justs}
            found = index.get(_identity(j))
            if found is not None:
                return found
            index[_identity(j)] = j
        j.seq = next(self._seq)
        if len(justs) < _MANY - 1:
            out.justs = justs + (j,)  # type: ignore[operator]
        elif type(justs) is list:
            justs.append(j)
        else:
            out.justs = [*justs, j]
        self.link_justification(j)
        return j

    def link_justification(self, j: Justification) -> None:
        """Make ``j`` (already among its output's reasons) known to its inputs and indexes:
        what :meth:`add_justification` does once ``j`` is added, and what a rolled-back batch
        does for a reason it had withdrawn (:func:`corollary.tms.batch.rollback`)."""
        for x in j.distinct:
            users = x.users
            if len(users) < _MANY - 1:
                x.users = users + (j,)  # type: ignore[operator]
            elif type(users) is dict:
                users[j] = None
            else:  # a hub read by many reasons: a dict adds and removes one in constant time
                x.users = dict.fromkeys((*users, j))
        if j.kind.reads_reliability:
            self.by_step_source.setdefault(j.name, set()).add(j)
        elif j.kind.by_rule:
            self.by_rule.setdefault(j.name, set()).add(j)
        if j.unless:
            self.unless_count += 1
            for key, _, vid in j.unless:
                self.unless_watch.setdefault(key, {}).setdefault(vid, {})[j] = None
        self.mark(j.output)

    def remove_justification(self, j: Justification) -> None:
        """Take ``j`` out of the structure (its output is re-evaluated without it)."""
        out = j.output
        justs = out.justs
        if j not in justs:
            return
        if type(justs) is list:
            justs.remove(j)
            index = self.reason_index.get(out)
            if index is not None:
                index.pop(_identity(j), None)
            if len(justs) < _MANY:
                out.justs = tuple(justs)
                self.reason_index.pop(out, None)
        else:
            out.justs = tuple(x for x in justs if x is not j)
        if j.unless:
            self.unless_count -= 1
            for key, _, vid in j.unless:
                by_value = self.unless_watch[key]
                del by_value[vid][j]
                if not by_value[vid]:
                    del by_value[vid]
                    if not by_value:
                        del self.unless_watch[key]
        for by_name in (self.by_step_source, self.by_rule):
            holders = by_name.get(j.name)
            if holders is not None and j in holders:
                holders.discard(j)
                if not holders:
                    del by_name[j.name]
        self.mark(out)
        for x in j.distinct:
            users = x.users
            if type(users) is dict:
                users.pop(j, None)
                if len(users) < _MANY:
                    x.users = tuple(users)
            else:
                x.users = tuple(u for u in users if u is not j)

    def remove_rule_reasons(self, rule_name: str) -> int:
        """Take out every justification a rule made; return how many."""
        made = list(self.by_rule.get(rule_name, ()))
        for j in made:
            self.remove_justification(j)
        return len(made)

    def withdraw_reasons(self, b: Belief, keep_source: str | None = None) -> None:
        """Drop every reason of ``b`` (premises except ``keep_source``'s, and justifications):
        a withdrawn value asserted or claimed afresh starts from its new evidence only."""
        for p in b.premises:
            if p.source != keep_source:
                self.drop_premise(b, p.source)
        for j in list(b.justs):
            self.remove_justification(j)

    def withdraw(self, b: Belief, reason: str) -> None:
        """Withdraw ``b`` (retracted, or rejected by a resolution): OUT whatever supports it,
        ``reason`` saying why, until it is asserted or claimed afresh."""
        b.withdrawn = reason
        self.mark(b)

    def reinstate(self, b: Belief) -> None:
        """Take back a withdrawal of ``b`` (its reasons count again)."""
        if b.withdrawn is not None:
            b.withdrawn = None
            self.mark(b)

    # -- exceptions ("unless") and nogoods ---------------------------------------------------
    def item_beliefs(self, item: Item) -> list[Belief]:
        """The beliefs an item names (every value of its key, or the one value)."""
        key, _, vid = item
        if vid is ANY:
            return self.values_of(key)
        b = self.find(key, vid)
        return [] if b is None else [b]

    def watchers(self, b: Belief) -> list[Justification]:
        """The justifications with an exception naming ``b``."""
        by_value = self.unless_watch.get(b.key)
        if not by_value:
            return []
        return [*by_value.get(ANY, ()), *by_value.get(b.vid, ())]

    def holder(self, item: Item) -> Belief | None:
        """A belief the item names that is IN now (as last computed), if any."""
        for b in self.item_beliefs(item):
            if b.best is not None and (item[2] is not ANY or not is_end(b.value)):  # IN
                return b  # (an end holds no value of its key: "any value" is not it)
        return None

    def add_nogood(self, nogood: Nogood) -> None:
        """The items of ``nogood`` cannot all be held (a new name, checked by the caller)."""
        self.nogoods[nogood.name] = nogood
        for key in {item[0] for item in nogood.items}:
            self.nogoods_by_key.setdefault(key, []).append(nogood)
        for item in nogood.items:
            for b in self.item_beliefs(item):
                self.mark(b)

    def nogoods_of(self, b: Belief) -> list[Nogood]:
        """The nogoods that name ``b`` (by its key or its value)."""
        return [ng for ng in self.nogoods_by_key.get(b.key, ())
                if any(matches(item, b) for item in ng.items)]

    def partners(self, b: Belief) -> list[Belief]:
        """The beliefs sharing a nogood with ``b`` (other items' beliefs)."""
        found: list[Belief] = []
        for ng in self.nogoods_of(b):
            for item in ng.items:
                if not matches(item, b):
                    found.extend(self.item_beliefs(item))
        return found

    def active_nogoods(self) -> list[tuple[Nogood, list[Belief]]]:
        """Nogoods whose every item is held now (labels as last computed), with a holder of
        each item."""
        found = []
        for ng in self.nogoods.values():
            holders = [h for item in ng.items if (h := self.holder(item)) is not None]
            if len(holders) == len(ng.items):
                found.append((ng, holders))
        return found

    def support_premises(self, b: Belief, via: Any = None) -> list[Belief]:
        """The beliefs at the bottom of ``b``'s best support (held up by their premises): what
        dependency-directed backtracking can give up. ``via`` starts from another reason of
        ``b`` than its best (the one a defeated value would have rested on)."""
        found: list[Belief] = []
        seen: set[Belief] = set()
        stack: list[tuple[Belief, Any]] = [(b, b.best if via is None else via)]
        while stack:
            x, why = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if why == PREMISES:
                found.append(x)
            elif isinstance(why, Justification):
                stack.extend((i, i.best) for i in why.inputs)
        return found

    # -- invalidation --------------------------------------------------------------------
    def mark(self, b: Belief) -> None:
        """Mark ``b``, its descendants and, under a deciding policy, their rivals dirty.

        Stops at nodes already dirty. Rival values only affect each other when a conflict
        policy decides between them; each key's rivals are pushed once per walk, so a key
        with many values costs its number of values, not its square.
        """
        dirty = self.dirty
        if b in dirty:
            return
        touched = self.touched
        rivals_too = self.conflict_policy.decides
        watch = self.unless_watch
        ended = self.ended
        if touched is None and not watch and not rivals_too and not ended:
            # only consumers to follow (no exceptions, no rules watching, no rival deciding):
            # each belief is marked as it is pushed, so it is pushed and popped once
            dirty.add(b)
            stack = [b]
            pop = stack.pop
            push = stack.append
            add = dirty.add
            while stack:
                for j in pop().users:
                    out = j.output
                    if out not in dirty:
                        add(out)
                        push(out)
            return
        keys = self.keys
        nogood_keys = self.nogoods_by_key
        expanded: set[str] = set()
        stack = [b]
        while stack:
            x = stack.pop()
            if x in dirty:
                continue
            dirty.add(x)
            if touched is not None:
                touched.add(x.key)
            for j in x.users:
                stack.append(j.output)
            if watch:
                by_value = watch.get(x.key)
                if by_value:
                    for j in by_value.get(ANY, ()):
                        stack.append(j.output)
                    for j in by_value.get(x.vid, ()):
                        stack.append(j.output)
            if (rivals_too or ended and x.key in ended) and (
                    x.key in nogood_keys or type(keys[x.key]) is not Belief):
                self.push_deciders(x, stack, expanded)

    def push_deciders(self, b: Belief, stack: list[Belief], expanded: set[str]) -> None:
        """Under a deciding policy, push onto ``stack`` the beliefs that decide ``b``'s label with
        it: its nogood partners, and the values of its key (each key's values once per walk:
        ``expanded`` holds the keys pushed already). Every walk that follows what a change
        reaches (marking, the region of a read, time stamps) takes this step; a hot walk asks
        it only for a belief that has some (a key with a nogood, or with several values)."""
        key = b.key
        if key in self.nogoods_by_key:
            stack.extend(self.partners(b))
        if key not in expanded:
            slot = self.keys[key]
            if type(slot) is not Belief:
                expanded.add(key)
                stack.extend(slot.values())  # type: ignore[union-attr]

    def mark_source(self, source: str) -> None:
        """A source's reliability changed: everything resting on it is stale. What was
        marked for it last and is still dirty is not walked again
        (:mod:`corollary.tms.source_marks`)."""
        self.trust_epoch += 1
        holders = self.by_source.get(source)
        if holders:
            dirty = self.dirty
            for b in self.source_marks.to_visit(source, holders, dirty):
                # (not an entry a dropped premise left)
                if b not in dirty and b.record_from(source) is not None:
                    self.mark(b)
            self.source_marks.marked(source, holders, dirty)
        for j in self.by_step_source.get(source, ()):
            self.mark(j.output)

    def mark_all(self) -> None:
        self.trust_epoch += 1
        for b in self.beliefs():
            self.mark(b)

    def expire(self, now: float) -> None:
        """Process every premise expiry at or before ``now``."""
        heap = self.expiries
        while heap and heap[0][0] <= now:
            item = heapq.heappop(heap)
            _, _, b, record = item
            if self._stands(b, record):  # the very record (a renewal made a new one)
                self.mark(b)
                if self.rewindable:
                    self._expired.append(item)
                    self.expired_to = max(self.expired_to, item[0])
        self.next_expiry = heap[0][0] if heap else math.inf
        if self.world is not None:
            self.next_expiry = -math.inf  # every read at a world time takes the full path

    @staticmethod
    def _stands(b: Belief, record: PremiseRecord) -> bool:
        ev = b.evidence
        return ev is record or (type(ev) is list and any(r is record for r in ev))

    def rewind(self, now: float) -> None:
        """Time goes back to ``now`` (a journal replays an entry older than its reads): the
        expiries processed after ``now`` are scheduled again, with their numbers, and what they
        reached is marked, so it is evaluated at ``now`` and expires again when time comes
        back. A premise replaced since is forgotten."""
        kept = []
        for item in self._expired:
            if not self._stands(item[2], item[3]):
                continue
            if item[0] > now:
                heapq.heappush(self.expiries, item)
                self.mark(item[2])
            else:
                kept.append(item)
        self._expired = kept
        self.expired_to = max((item[0] for item in kept), default=-math.inf)
        heap = self.expiries
        self.next_expiry = heap[0][0] if heap else math.inf

    def sync(self, now: float, targets: Iterable[Belief] | None = None) -> None:
        """Bring labels and confidences up to ``now`` for ``targets`` (default: everything)."""
        if now >= self.next_expiry:
            self.expire(now)
            if self.world is not None:
                self._sync_world(now, targets)
                return
        if targets is None:
            region = self.dirty
            self.dirty = set()
            self.source_marks.clear()  # what it knew of the dirty set is swept whole
            region.update(b for b in self.timed if b.as_of != now)
        else:
            region = self._region(targets, now)
        if len(region) > _QUIET_SWEEP:
            # a large sweep allocates a heap entry per belief and frees them all: the cyclic
            # collector's passes over a big base would find nothing and cost ~10% of the sweep
            with collector_paused():
                self._evaluate(region, now)
        elif region:
            self._evaluate(region, now)
        else:
            return
        if (self.touched or self.settled is not None) and self.running_trial is None:
            # a subscriber follows the engine: tell it after the sweep (a what-if's sweeps
            # are told after it is undone, when the labels they noted are back as they were)
            self.feed.publish()

    @contextlib.contextmanager
    def at_world(self, world: float, now: float) -> Iterator[None]:
        """Within the block, reads settle what they read as it holds at world time ``world``
        (premises count inside their valid time only; evidence ages by ``now``), as a what-if:
        when the block ends every memo is as it was. The caller has brought outcomes and
        expiries up to ``now`` first (they are marked on the base, not on the what-if)."""
        if self.running_trial is not None:
            raise RuntimeError("a what-if trial is already running on this engine")
        trial = Trial(self, now)
        try:
            self.running_trial = trial
            trial.begin()
            self.world = world
            self._world_done = set()
            self.next_expiry = -math.inf  # no read takes the fast path: each settles at world
            yield
        finally:
            self.world = None
            self._world_done = set()
            trial.undo()
            self.running_trial = None

    def _sync_world(self, now: float, targets: Iterable[Belief] | None) -> None:
        """Settle ``targets`` (default: everything) at the world time of :meth:`at_world`:
        their whole ancestry, closed under exceptions and deciding rivals, except what this
        block settled already (the memos are the base's, valid at the clock's time)."""
        done = self._world_done
        if targets is None:
            region = {b for b in self.beliefs() if b not in done}
        else:
            region = set()
            stack = list(targets)
            rivals_too = self.conflict_policy.decides
            ended = self.ended
            nogood_keys = self.nogoods_by_key
            keys = self.keys
            expanded: set[str] = set()
            while stack:
                b = stack.pop()
                if b in region or b in done:
                    continue
                region.add(b)
                for j in b.justs:
                    stack.extend(j.inputs)
                    for item in j.unless:
                        stack.extend(self.item_beliefs(item))
                if (rivals_too or ended and b.key in ended) and (
                        b.key in nogood_keys or type(keys[b.key]) is not Belief):
                    self.push_deciders(b, stack, expanded)
        if region:
            self._evaluate(region, now)
            done.update(region)

    def _region(self, targets: Iterable[Belief], now: float) -> set[Belief]:
        """The stale part of the targets' ancestry, closed under rival values."""
        region: set[Belief] = set()
        stack = list(targets)
        keys = self.keys
        dirty = self.dirty
        rivals_too = self.conflict_policy.decides
        ended = self.ended
        nogood_keys = self.nogoods_by_key
        expanded: set[str] = set()
        while stack:
            b = stack.pop()
            if b in region or not (b in dirty or ((s := b.as_of) is not None and s != now)):
                continue
            region.add(b)
            for j in b.justs:
                stack.extend(j.inputs)
                if j.unless:
                    for item in j.unless:
                        stack.extend(self.item_beliefs(item))
            if (rivals_too or ended and b.key in ended) and (
                    b.key in nogood_keys or type(keys[b.key]) is not Belief):
                self.push_deciders(b, stack, expanded)
        return region

    def premise_confidence(self, b: Belief, now: float) -> tuple[float | None, bool, bool | str]:
        """(agreement of valid premises or None, time-dependent?, had an expired premise?).

        The third is ``True`` for a premise past its ttl, :data:`OUTSIDE` when the only
        premises not counted are outside their valid time (at the world time of
        :meth:`at_world`, else at ``now``)."""
        timed = False
        expired: bool | str = False
        ev = b.evidence
        if ev is None:
            return None, False, False
        world = self.world
        if type(ev) is tuple:
            source = plain_source(ev)
            if source is not None and world is None:  # most premises: nothing else to read
                r, timed = self.reliability(source, now)
                return r, timed, False
            if record_expired(ev, now):
                return None, False, True
            if (world is not None or record_is_timed(ev)) and not record_valid_at(
                    ev, now if world is None else world):
                return None, False, OUTSIDE
            r, timed = self.reliability(record_source(ev), now)
            c, fades = record_strength(ev, r, now)
            return c, timed or fades, False
        best: dict[str, float] = {}
        for record in ev:
            if record_expired(record, now):
                expired = True
                continue
            if (world is not None or record_is_timed(record)) and not record_valid_at(
                    record, now if world is None else world):
                if expired is False:
                    expired = OUTSIDE
                continue
            r, r_timed = self.reliability(record_source(record), now)
            c, fades = record_strength(record, r, now)
            if r_timed or fades:
                timed = True
            origin = record_origin(record)
            if c > best.get(origin, -1.0):
                best[origin] = c
        if not best:
            return None, timed, expired
        if len(best) == 1:
            return next(iter(best.values())), timed, expired
        return formulas.agreement(best, self.corroboration), timed, expired

    def step_confidence(self, j: Justification, now: float) -> tuple[float, bool]:
        """``(step confidence, time-dependent?)`` of ``j`` at ``now``, as its kind computes it."""
        return j.kind.step(j, self.reliability, now)

    def premise_parts(self, b: Belief, now: float) -> list[PremisePart]:
        """Each premise of ``b`` evaluated at ``now`` (sorted by source): what a proof shows."""
        parts = []
        for p in sorted(b.premises, key=lambda p: p.source):
            reliability, _ = self.reliability(p.source, now)
            age = max(now - p.at, 0.0)
            world = now if self.world is None else self.world
            parts.append(PremisePart(p, reliability, age,
                                     formulas.decay_weight(age, p.half_life), p.expired(now),
                                     not p.valid_at(world)))
        return parts

    def agreement(self, parts: Iterable[PremisePart]) -> float:
        """The premise agreement of the valid ``parts`` (best per origin, combined)."""
        best: dict[str, float] = {}
        for part in parts:
            if not part.expired and not part.outside:
                origin = part.premise.origin
                best[origin] = max(best.get(origin, 0.0), part.confidence)
        return formulas.agreement(best, self.corroboration)

    def _evaluate(self, region: set[Belief], now: float) -> None:
        self.source_marks.swept(region, self.count)
        if self.unless_count and any(j.unless for b in region for j in b.justs):
            # a justification is valid only once its exceptions are settled OUT: sweep the
            # region stratum by stratum, each exception in a stratum below what it defeats
            for level in strata.levels(self, region):
                Sweep(self, now).run(level)
        else:
            Sweep(self, now).run(region)


def _identity(j: Justification) -> tuple[Any, ...]:
    """What makes two justifications the same reason."""
    return (j.kind, j.name, j.inputs, tuple((key, vid) for key, _, vid in j.unless))


# the conflict-strategy protocol was exported as Policy, the word the base uses for trust

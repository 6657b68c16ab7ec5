"""The sweep: settling the labels and confidences of a stale region at one time.

A :class:`Sweep` settles one region (one stratum of it, when exceptions split it: see
:mod:`corollary.tms.strata`) at one time; everything outside the region is settled. Where
creation order is topological for the region (the common case: a belief's inputs are older
than it) it is settled in that order with no heap (:meth:`Sweep.in_order`); from the first
belief out of order on (a cycle, a re-derived belief, rival values under a deciding policy) a
Knuth/Dijkstra sweep in decreasing confidence takes over (:meth:`Sweep.by_confidence`). That
sweep makes support well-founded (a cycle never holds itself up) and decides conflicts
greedily: under a deciding policy the first value of a key to be reached (the most confident)
holds and its rivals are defeated and never propagate.

The sweep's state lives on the object, for one region: the reliability of each source at
``now`` (read once), whether each exception's item is held (asked once), the beliefs whose
value reads the time, and the beliefs a held exception kept from a reason. The hot loops bind
what they use to locals. The step of a reason is the kind's (:func:`kinds.step_rule`; see FAST
below for the one case the hot loops write out).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .conflicts import END_MARGIN, supersede
from .kinds import step_rule
from .records import (
    PREMISES,
    Belief,
    Justification,
    Nogood,
    matches,
    plain_source,
    record_expired,
    record_is_timed,
    record_source,
    record_strength,
)

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine

_SEQ = attrgetter("seq")

# FAST: the step of a reason is :func:`kinds.step_rule`, the one statement of the rule (the kind
# decides how: ``Justification.live`` is its ``step_mode``). The two hottest loops, settling a
# belief in order and settling a reader in the confidence sweep, write out its common case
# (mode 1, reliability × step, read through the sweep's memo) instead of calling it: one call
# per reason is about 10% of the sweep (DAG restore, measured for issue 17).


class Sweep:
    """One settling of a region of ``engine`` at ``now`` (see the module docstring)."""

    __slots__ = ("engine", "now", "own_timed", "excepted", "held_items", "memo", "step")

    def __init__(self, engine: Engine, now: float) -> None:
        self.engine = engine
        self.now = now
        #: Beliefs whose own value reads the time (a decaying or expired premise, a step or
        #: source that moves with time).
        self.own_timed: set[Belief] = set()
        #: Beliefs with a reason a held exception defeated.
        self.excepted: set[Belief] = set()
        # exceptions are settled before this sweep (a lower stratum, or outside the region):
        # whether an item is held is asked once per sweep, however many reasons name it
        self.held_items: dict[tuple[str, Any], bool] = {}
        #: The reliability of each source at ``now``, read once.
        self.memo: dict[str, tuple[float, bool]] = {}
        #: ``step(j) -> (step, time-dependent?)``: the kind's step rule, reading ``memo``.
        self.step = step_rule(engine.reliability, now, self.memo, engine.world)

    def held(self, key: str, vid: Any) -> bool:
        """Whether an exception's item ``(key, vid)`` is held (asked of the engine once)."""
        found = self.held_items.get((key, vid))
        if found is None:
            found = self.held_items[(key, vid)] = (
                self.engine.holder((key, None, vid)) is not None)
        return found

    def defeated(self, j: Justification) -> bool:
        """Whether a held exception defeats ``j``."""
        held = self.held
        for key, _, vid in j.unless:
            if held(key, vid):
                return True
        return False

    def run(self, region: set[Belief]) -> None:
        """Settle ``region``: in order of creation where that is a topological order, then by
        confidence from the first belief where it is not; then the time stamps."""
        engine = self.engine
        if engine.running_trial is not None:
            engine.running_trial.keep(region)
        if engine.settled is not None:
            engine.settled.note(region)
        losses = engine.nogood_losses
        if losses:
            for b in region:
                losses.pop(b, None)
        rest = self.in_order(region)
        if rest:
            self.by_confidence(set(rest))
        for b in self.excepted:
            if b.best is None and b.withdrawn is None and b.note is None:  # OUT, unsupported
                b.note = "an exception holds"
        self.settle_timed(region)
        if engine.dirty:
            engine.dirty.difference_update(region)

    def in_order(self, region: set[Belief]) -> list[Belief] | None:
        """Settle ``region`` in order of creation while that order is topological; return the
        beliefs from the first one where it is not (``None`` when all are settled).

        A belief's reasons usually read beliefs created before it, so in order of creation
        every input is settled before it is read, and a belief is simply the best of its valid
        reasons: the same values the confidence sweep reaches, without its heap. The order
        breaks at a belief that reads one created after it inside the region (a cycle, or a
        belief re-derived from newer inputs) and, under a deciding policy, at a value of a
        contested key or of a nogood's key (the confidence order decides those); everything
        from there on is left to :meth:`by_confidence`. Ties between reasons of equal
        confidence go to the premises, then to the earliest justification.
        """
        engine = self.engine
        order = sorted(region, key=_SEQ)
        now = self.now
        reliability = engine.reliability
        memo = self.memo
        own_timed = self.own_timed
        excepted = self.excepted
        step_of = self.step
        keys = engine.keys
        decided = engine.conflict_policy.decides
        nogood_keys = engine.nogoods_by_key if decided else None
        ended = engine.ended  # keys with an end: decided by time whatever the policy
        check = decided or bool(ended)
        premise = self.premise_in_order
        for b in order:
            if check and (decided and (type(keys[b.key]) is not Belief
                                       or (nogood_keys and b.key in nogood_keys))
                          or ended and b.key in ended and type(keys[b.key]) is not Belief):
                return order[order.index(b):]
            if b.withdrawn is not None:
                b.best = None
                b.conf = 0.0
                b.note = None
                continue
            if b.evidence is not None:  # a premise: its own confidence
                c, best, note = premise(b)
            else:
                c, best, note = -1.0, None, None
            seq = b.seq
            for j in b.justs:
                weakest = 1.0
                for x in j.inputs:
                    if x.seq >= seq and x in region:  # not settled yet: the order breaks here
                        own_timed.discard(b)
                        excepted.discard(b)
                        return order[order.index(b):]
                    if x.best is None:  # OUT
                        break
                    if x.conf < weakest:
                        weakest = x.conf
                else:
                    if j.unless and self.defeated(j):
                        excepted.add(b)
                        continue
                    if j.live == 1:  # the step rule's common case, written out (see FAST)
                        found = memo.get(j.name)
                        if found is None:
                            found = memo[j.name] = reliability(j.name, now)
                        step = found[0] * j.step
                        if found[1]:
                            own_timed.add(b)
                    else:
                        step, timed = step_of(j)
                        if timed:
                            own_timed.add(b)
                        if step < 0.0:  # outside its own valid time (kinds.OUTSIDE_STEP)
                            continue
                    step *= weakest
                    if step > c:
                        c = step
                        best = j
            b.best = best
            if best is None:
                b.conf = 0.0
                b.note = note
            else:
                b.conf = c
                b.note = None
        return None

    def premise_in_order(self, b: Belief) -> tuple[float, Any, Any]:
        """``(confidence, PREMISES or None, note)`` of premise ``b``'s own evidence at ``now``
        (confidence -1.0 when it holds none), noting whether it reads the time.

        One plain premise (no half-life, ttl, stated certainty or valid time) is read here:
        most premises of a large base; anything else asks the engine."""
        now = self.now
        ev = b.evidence
        if type(ev) is tuple and self.engine.world is None:
            source = plain_source(ev)
            if source is not None:
                memo = self.memo
                found = memo.get(source)
                if found is None:
                    found = memo[source] = self.engine.reliability(source, now)
                if found[1]:
                    self.own_timed.add(b)
                return found[0], PREMISES, None
            if record_expired(ev, now):
                self.own_timed.add(b)
                return -1.0, None, "expired"
            if not record_is_timed(ev):  # a half-life, a ttl or a stated certainty
                source = record_source(ev)
                found = self.memo.get(source)
                if found is None:
                    found = self.memo[source] = self.engine.reliability(source, now)
                c, fades = record_strength(ev, found[0], now)
                if found[1] or fades:
                    self.own_timed.add(b)
                return c, PREMISES, None
        # a read at a world time (every premise checks it), several premises, a valid time
        pc, timed, expired = self.engine.premise_confidence(b, now)
        if timed or expired:
            self.own_timed.add(b)
        if pc is not None:
            return pc, PREMISES, None
        return -1.0, None, ("expired" if expired is True else expired) if expired else None

    def by_confidence(self, region: set[Belief]) -> None:
        """The Knuth/Dijkstra sweep: settle ``region`` in decreasing confidence (beliefs outside
        it are settled). Needed where the order decides: cycles, and rival values or nogood
        partners under a deciding policy."""
        engine = self.engine
        if engine.conflict_policy.decides:
            self.add_tied_support(region)
            if engine.running_trial is not None:  # the ties brought in settled beliefs:
                engine.running_trial.keep(region)  # re-swept here
            if engine.settled is not None:
                engine.settled.note(region)
        heap: list[tuple[float, int, int, Belief, Any]] = []
        pending: dict[Justification, int] = {}
        tie = itertools.count()
        settle = self.settler(region, heap, pending, tie)
        direct = self.seed(region, heap, pending, tie)
        engine.exceptions_read = self.held
        try:
            if engine.ended and not engine.conflict_policy.decides:
                supersede(engine, region, self.now, END_MARGIN, ends_only=True)
            engine.conflict_policy.before_sweep(engine, region, self.now)
        finally:
            engine.exceptions_read = None
        for b, c in direct:
            settle(b, c, PREMISES)
        self.drain(heap, settle)

    def settler(self, region: set[Belief], heap: list[tuple[float, int, int, Belief, Any]],
                pending: dict[Justification, int], tie: Iterator[int]
                ) -> Callable[[Belief, float, Any], None]:
        """``settle(b, c, why)`` for :meth:`by_confidence`: ``b`` is IN at ``c`` by ``why``;
        each reason it was the last unsettled input of is pushed on ``heap``."""
        now = self.now
        push = heapq.heappush
        own_timed = self.own_timed
        excepted = self.excepted
        defeated = self.defeated
        step_of = self.step
        memo = self.memo
        reliability = self.engine.reliability

        def settle(b: Belief, c: float, why: Any) -> None:
            b.conf = c
            b.best = why  # IN
            for j in b.users:
                out = j.output
                if out.best is not None or out not in region:
                    continue
                waiting = pending.get(j)
                if waiting is None:
                    continue
                if waiting > 1:
                    pending[j] = waiting - 1
                    continue
                del pending[j]
                if j.unless and defeated(j):
                    excepted.add(out)
                    continue
                if j.live == 1:  # the step rule's common case, written out (see FAST)
                    found = memo.get(j.name)
                    if found is None:
                        found = memo[j.name] = reliability(j.name, now)
                    step = found[0] * j.step
                    if found[1]:
                        own_timed.add(out)
                else:
                    step, timed = step_of(j)
                    if timed:
                        own_timed.add(out)
                    if step < 0.0:  # outside its own valid time (kinds.OUTSIDE_STEP)
                        continue
                weakest = 1.0
                for x in j.inputs:  # the chain rule, inlined: this loop is the hot path
                    if x.conf < weakest:
                        weakest = x.conf
                push(heap, (-(step * weakest), out.seq, next(tie), out, j))

        return settle

    def seed(self, region: set[Belief], heap: list[tuple[float, int, int, Belief, Any]],
             pending: dict[Justification, int], tie: Iterator[int]) -> list[tuple[Belief, float]]:
        """Reset ``region`` to OUT and push what can start the confidence sweep: premises, and
        reasons whose inputs are all settled outside it; count the unsettled inputs of the
        others in ``pending``. Returns the premises nothing competes with or reads (settled
        directly, with no heap)."""
        engine = self.engine
        now = self.now
        push = heapq.heappush
        keys = engine.keys
        nogood_keys = engine.nogoods_by_key if engine.conflict_policy.decides else None
        own_timed = self.own_timed
        excepted = self.excepted
        defeated = self.defeated
        step_of = self.step
        direct: list[tuple[Belief, float]] = []
        # what the exceptions say is read before anything here is reset: their holders are
        # settled (a lower stratum), but the ties above may have brought some into the region,
        # where they would read OUT until swept again
        held = self.held
        for b in region:
            for j in b.justs:
                for key, _, vid in j.unless:
                    held(key, vid)
        for b in region:
            b.best = None  # OUT
            b.conf = 0.0
            b.note = None
            if b.withdrawn is not None:
                continue
            if b.evidence is not None:
                c, timed, expired = engine.premise_confidence(b, now)
                if timed or expired:
                    own_timed.add(b)
                if expired and c is None:
                    b.note = "expired" if expired is True else expired
            else:
                c = None
            if c is not None:
                if (not b.justs and type(keys[b.key]) is Belief and not b.users
                        and not (nogood_keys and b.key in nogood_keys)):
                    # nothing competes with it and nothing reads it, so settling it out of
                    # order changes no tie: skip the heap (most premises in a large base)
                    direct.append((b, c))
                    continue
                push(heap, (-c, b.seq, next(tie), b, PREMISES))
            for j in b.justs:
                waiting = 0
                for x in j.distinct:
                    if x in region:
                        waiting += 1
                    elif x.best is None:  # OUT
                        break
                else:
                    if waiting:
                        # its exceptions are asked when its inputs are IN (in settle), as the
                        # in-order pass does: a reason with an input OUT is not "excepted"
                        pending[j] = waiting
                        continue
                    if j.unless and defeated(j):
                        excepted.add(b)
                        continue
                    # every input settled before this sweep
                    step, timed = step_of(j)
                    if timed:
                        own_timed.add(b)
                    if step < 0.0:  # outside its own valid time (kinds.OUTSIDE_STEP)
                        continue
                    weakest = 1.0
                    for x in j.inputs:  # the chain rule, inlined as in settle
                        if x.conf < weakest:
                            weakest = x.conf
                    push(heap, (-(step * weakest), b.seq, next(tie), b, j))
        return direct

    def drain(self, heap: list[tuple[float, int, int, Belief, Any]],
              settle: Callable[[Belief, float, Any], None]) -> None:
        """Pop ``heap`` in decreasing confidence, settling each belief the first time it is
        reached; under a deciding policy the first value of a contested key wins, and the last
        item of a nogood to be reached gives way."""
        engine = self.engine
        keys = engine.keys
        decided = engine.conflict_policy.decides
        winners: dict[str, Belief] = {}
        # whether the first value of a key reached defeats its rivals (PreferNewer decides by
        # time before the sweep and leaves the values it does not order standing together)
        exclusive = decided and getattr(engine.conflict_policy, "exclusive", True)
        nogood_keys = engine.nogoods_by_key if decided else None
        losses = engine.nogood_losses
        while heap:
            negc, _, _, b, why = heapq.heappop(heap)
            if b.best is not None:  # IN already
                continue
            note = b.note
            if type(note) is tuple:  # lost on rank before the sweep: note what it had
                if note[1] == 0.0:
                    b.note = (note[0], -negc)
                continue
            c = -negc
            contested = exclusive and type(keys[b.key]) is not Belief
            if contested:
                # the region holds every value of a contested key (it is closed under rivals
                # when a policy decides), so the first one settled here is the winner
                winner = winners.get(b.key)
                if winner is not None:
                    b.note = (winner, c)  # lost
                    continue
            if nogood_keys and b.key in nogood_keys:
                # the last item of a nogood to be reached (the least confident) gives way
                lost = self.completes(b)
                if lost is not None:
                    b.note = (next(h for item in lost.items
                                   if (h := engine.holder(item)) is not None and h is not b), c)
                    losses[b] = (lost, why)
                    continue
            if contested:
                winners[b.key] = b
            b.note = None
            settle(b, c, why)

    def completes(self, b: Belief) -> Nogood | None:
        """A nogood that settling ``b`` would make fully held (every other item held)."""
        engine = self.engine
        for ng in engine.nogoods_by_key.get(b.key, ()):
            mine = [item for item in ng.items if matches(item, b)]
            if mine and all(engine.holder(item) is not None for item in ng.items
                            if item not in mine):
                return ng
        return None

    def add_tied_support(self, region: set[Belief]) -> None:
        """Add to ``region`` the settled beliefs that a reason in it could tie with.

        Among equally confident values the older is reached first, but a value whose reason
        ties with an input (a step of 1.0: a rule, a checked formula) is reached only after
        that input. An input settled in an earlier sweep would make it available at once, and
        a deciding policy could then pick another winner than a sweep from scratch does. Such
        inputs (and theirs, down the ties) are swept again with the region: their values do not
        change, and the order among the ties is the one a sweep from scratch follows.
        """
        step_of = self.step
        stack = list(region)
        while stack:
            b = stack.pop()
            for j in b.justs:
                step = -1.0
                for x in j.inputs:
                    if x.best is None or x in region:  # OUT, or swept here anyway
                        continue
                    if step < 0.0:
                        step = step_of(j)[0]
                    if step * x.conf == x.conf:
                        region.add(x)
                        stack.append(x)

    def settle_timed(self, region: set[Belief]) -> None:
        """A value is time-dependent if it reads a decaying premise or a time-dependent input
        or exception (or, under a deciding policy, has a time-dependent rival or partner); its
        ``as_of`` is then the time it was computed at, else ``None``."""
        engine = self.engine
        own_timed = self.own_timed
        timed_set = engine.timed
        if not own_timed and not timed_set:
            return  # nothing in the base reads the time: every as_of is already None
        now = self.now
        decided = engine.conflict_policy.decides
        ended = engine.ended
        watch = engine.unless_watch
        expanded: set[str] = set()
        for b in region:
            b.as_of = None
        for b in region:
            if b.as_of is not None:
                continue
            if b in own_timed or self.reads_timed(b, region):
                stack = [b]
                while stack:
                    x = stack.pop()
                    if x.as_of is not None or x not in region:
                        continue
                    x.as_of = now
                    for j in x.users:
                        stack.append(j.output)
                    if watch and x.key in watch:
                        stack.extend(j.output for j in engine.watchers(x))
                    if decided or ended and x.key in ended:
                        engine.push_deciders(x, stack, expanded)
        for b in region:
            if b.as_of is not None:
                timed_set.add(b)
            elif timed_set:
                timed_set.discard(b)

    def reads_timed(self, b: Belief, region: set[Belief]) -> bool:
        """Whether ``b`` reads a time-dependent belief settled outside ``region``."""
        engine = self.engine
        for j in b.justs:
            for x in j.inputs:
                if x.as_of is not None and x not in region:
                    return True
            for item in j.unless:
                for x in engine.item_beliefs(item):
                    if x.as_of is not None and x not in region:
                        return True
        if engine.conflict_policy.decides and engine.nogoods_by_key and b.key in engine.nogoods_by_key:
            return any(x.as_of is not None and x not in region for x in engine.partners(b))
        return False

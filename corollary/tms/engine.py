"""The engine of the TMS: structure, invalidation, and the sweep that labels beliefs.

Derived structure lives in a ``networkx.DiGraph`` with edges ``input belief → justification →
output belief``; premises live on their beliefs. Values are a function of (structure, time).
Structure changes mark the affected cone dirty (descendants and, when a conflict policy decides
between rival values, the rivals, stopping at nodes already dirty); labels and confidences are
computed on demand, at the clock's time, for the stale part of the queried beliefs' ancestry
only, by a Knuth/Dijkstra sweep in decreasing confidence. That sweep makes support well-founded
(a cycle never holds itself up) and decides conflicts greedily: under a deciding policy the
first value of a key to be reached (the most confident) holds and its rivals are defeated and
never propagate.

The engine knows nothing of agents, storage, rules or the CLI. It talks to the rest through
three small interfaces given at construction: ``reliability(source, now)``, the conflict policy
(:class:`Policy`: does it decide, and what to do before a sweep) and the set of touched keys a
rule engine may watch (:attr:`Engine.touched`).
"""

from __future__ import annotations

import gc
import heapq
import itertools
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import networkx as nx

from .. import confidence as formulas
from .kinds import Reliability
from .records import IN, OUT, PREMISES, Belief, Justification, Premise

__all__ = ["IN", "OUT", "OPEN", "PREMISES", "Engine", "Policy", "PremisePart"]


class Policy(Protocol):
    """What the sweep asks of a conflict policy (:mod:`corollary.conflicts`)."""

    #: Whether the policy picks one of two supported values of a key. When it does not, rival
    #: values are independent: both stay IN and the conflict is left open.
    decides: bool

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        """Defeat values before the sweep (set ``defeated_by`` and ``why``), if the policy
        ranks them by something other than confidence."""


class _Open:
    """No policy: rival values stand together and the conflict stays open."""

    decides = False

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        return None


OPEN: Policy = _Open()


class PremisePart:
    """One premise of a belief as evaluated at one time (what a proof shows of it)."""

    __slots__ = ("premise", "reliability", "age", "freshness", "expired", "confidence")

    def __init__(self, premise: Premise, reliability: float, age: float, freshness: float,
                 expired: bool) -> None:
        self.premise = premise
        self.reliability = reliability
        self.age = age
        self.freshness = freshness
        self.expired = expired
        self.confidence = 0.0 if expired else reliability * freshness


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
    policy : Policy, optional
        The conflict policy the sweep asks (default: none, conflicts stay open).

    Attributes
    ----------
    touched : set of str or None
        Keys whose beliefs changed structurally since a watcher last emptied it; ``None``
        (the default) until a watcher (the rule engine) sets it to a set: the one hook
        between the TMS and the rules.
    """

    def __init__(
        self,
        reliability: Reliability,
        corroboration: bool = True,
        policy: Policy | None = None,
    ) -> None:
        self.reliability = reliability
        self.corroboration = corroboration
        self.policy: Policy = OPEN if policy is None else policy
        self.graph: nx.DiGraph = nx.DiGraph()
        # a key maps to its one Belief, or to a dict vid -> Belief once it has several values:
        # most keys have one value, and an inner dict per key would double the memory
        self.keys: dict[str, Belief | dict[Any, Belief]] = {}
        self.count = 0
        self.by_source: dict[str, set[Belief]] = {}
        self.by_step_source: dict[str, set[Justification]] = {}
        self.dirty: set[Belief] = set()
        self.timed: set[Belief] = set()
        self.touched: set[str] | None = None
        self._expiries: list[tuple[float, int, Belief, Premise]] = []
        self._reasons: dict[Belief, dict[tuple[Any, ...], Justification]] = {}
        self._seq = itertools.count(1)

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
        self.count += 1
        self.mark(b)
        return b

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

    def contested(self) -> Iterator[tuple[str, list[Belief]]]:
        """Every key with more than one value, and its values."""
        for key, slot in self.keys.items():
            if type(slot) is not Belief:
                yield key, list(slot.values())  # type: ignore[union-attr]

    def watch(self) -> set[str]:
        """Start recording touched keys (see :attr:`touched`) and return the set."""
        if self.touched is None:
            self.touched = set()
        return self.touched

    def stale(self, now: float) -> int:
        """How many beliefs a full sync at ``now`` would recompute: the dirty ones (premises due
        to expire by ``now`` make their cones dirty first, as the sync would) and the
        time-dependent ones computed at another time, each once."""
        if self._expiries and self._expiries[0][0] <= now:
            self.expire(now)
        dirty = self.dirty
        return len(dirty) + sum(1 for b in self.timed if b.stamp != now and b not in dirty)

    def restore_belief(self, key: str, value: Any, vid: Any, seq: int,
                       blocked: str | None) -> Belief:
        """Recreate a saved belief with its number and withdrawal (snapshots)."""
        b = self.belief(key, value, vid)
        b.seq = seq
        b.blocked = blocked
        return b

    def continue_numbering(self, next_seq: int) -> None:
        """Number new beliefs and reasons from ``next_seq`` on (numbers are never reused)."""
        self._seq = itertools.count(next_seq)

    def set_premise(self, b: Belief, premise: Premise) -> Premise | None:
        """Attach ``premise`` to ``b``, replacing any earlier one from the same source."""
        old = None
        if b.premises:
            kept = []
            for p in b.premises:
                if p.source == premise.source:
                    old = p
                else:
                    kept.append(p)
            kept.append(premise)
            b.premises = tuple(kept)
        else:
            b.premises = (premise,)
        if old is None:
            holders = self.by_source.get(premise.source)
            if holders is None:
                holders = self.by_source[premise.source] = set()
            holders.add(b)
        if premise.expires_at is not None:
            heapq.heappush(self._expiries, (premise.expires_at, next(self._seq), b, premise))
        self.mark(b)
        return old

    def drop_premise(self, b: Belief, source: str) -> Premise | None:
        premise = b.premise_from(source)
        if premise is not None:
            b.premises = tuple(p for p in b.premises if p is not premise)
            holders = self.by_source.get(source)
            if holders is not None:
                holders.discard(b)
                if not holders:
                    del self.by_source[source]
            self.mark(b)
        return premise

    def forget_if_unused(self, b: Belief) -> bool:
        """Remove ``b`` if nothing holds it, reads it or withdrew it (a superseded value).

        A feed that keeps giving new values for one key would otherwise leave every old value
        behind as an OUT belief with no reasons.
        """
        if b.premises or b.justs or b.blocked is not None or b in self.graph:
            return False
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
        self.count -= 1
        self.dirty.discard(b)
        self.timed.discard(b)
        return True

    def add_justification(self, j: Justification) -> Justification:
        """Add a derived reason; an identical one (same step and inputs) is returned instead."""
        out = j.output
        justs = out.justs
        if len(justs) < _MANY:
            for other in justs:
                if other.kind == j.kind and other.name == j.name and other.inputs == j.inputs:
                    return other
        else:
            # a rule over an open conflict can give one belief thousands of reasons: find
            # duplicates by hash and grow a list in place, not a tuple copied on every add
            index = self._reasons.get(out)
            if index is None:
                index = self._reasons[out] = {(o.kind, o.name, o.inputs): o for o in justs}
            found = index.get((j.kind, j.name, j.inputs))
            if found is not None:
                return found
            index[(j.kind, j.name, j.inputs)] = j
        j.seq = next(self._seq)
        g = self.graph
        g.add_node(j)
        for b in j.inputs:
            g.add_edge(b, j)
        g.add_edge(j, out)
        if len(justs) < _MANY - 1:
            out.justs = justs + (j,)  # type: ignore[operator]
        elif type(justs) is list:
            justs.append(j)
        else:
            out.justs = [*justs, j]
        if j.kind.reads_reliability:
            self.by_step_source.setdefault(j.name, set()).add(j)
        self.mark(j.output)
        return j

    def block(self, b: Belief, reason: str) -> None:
        b.blocked = reason
        self.mark(b)

    def unblock(self, b: Belief) -> None:
        if b.blocked is not None:
            b.blocked = None
            self.mark(b)

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
        succ = self.graph._succ
        keys = self.keys
        touched = self.touched
        rivals_too = self.policy.decides
        expanded: set[str] = set()
        stack = [b]
        while stack:
            x = stack.pop()
            if x in dirty:
                continue
            dirty.add(x)
            if touched is not None:
                touched.add(x.key)
            consumers = succ.get(x)
            if consumers:
                for j in consumers:
                    stack.append(j.output)
            if rivals_too:
                slot = keys[x.key]
                if type(slot) is not Belief and x.key not in expanded:
                    expanded.add(x.key)
                    stack.extend(slot.values())  # type: ignore[union-attr]

    def mark_source(self, source: str) -> None:
        """A source's reliability changed: everything resting on it is stale."""
        for b in self.by_source.get(source, ()):
            self.mark(b)
        for j in self.by_step_source.get(source, ()):
            self.mark(j.output)

    def mark_all(self) -> None:
        for b in self.beliefs():
            self.mark(b)

    def expire(self, now: float) -> None:
        """Process every premise expiry at or before ``now``."""
        heap = self._expiries
        while heap and heap[0][0] <= now:
            _, _, b, premise = heapq.heappop(heap)
            if premise in b.premises:
                self.mark(b)

    def sync(self, now: float, targets: Iterable[Belief] | None = None) -> None:
        """Bring labels and confidences up to ``now`` for ``targets`` (default: everything)."""
        if self._expiries and self._expiries[0][0] <= now:
            self.expire(now)
        if targets is None:
            region = self.dirty
            self.dirty = set()
            region.update(b for b in self.timed if b.stamp != now)
        else:
            region = self._region(targets, now)
        if len(region) > _QUIET_SWEEP:
            # a large sweep allocates a heap entry per belief and frees them all: the cyclic
            # collector's passes over a big base would find nothing and cost ~10% of the sweep
            enabled = gc.isenabled()
            gc.disable()
            try:
                self._evaluate(region, now)
            finally:
                if enabled:
                    gc.enable()
        elif region:
            self._evaluate(region, now)

    def _region(self, targets: Iterable[Belief], now: float) -> set[Belief]:
        """The stale part of the targets' ancestry, closed under rival values."""
        region: set[Belief] = set()
        stack = list(targets)
        keys = self.keys
        dirty = self.dirty
        rivals_too = self.policy.decides
        expanded: set[str] = set()
        while stack:
            b = stack.pop()
            if b in region or not (b in dirty or (b.timed and b.stamp != now)):
                continue
            region.add(b)
            for j in b.justs:
                stack.extend(j.inputs)
            if rivals_too:
                slot = keys[b.key]
                if type(slot) is not Belief and b.key not in expanded:
                    expanded.add(b.key)
                    stack.extend(slot.values())  # type: ignore[union-attr]
        return region

    def premise_confidence(self, b: Belief, now: float) -> tuple[float | None, bool, bool]:
        """(agreement of valid premises or None, time-dependent?, had an expired premise?)."""
        timed = False
        expired = False
        if len(b.premises) == 1:
            p = b.premises[0]
            if p.expires_at is not None and now >= p.expires_at:
                return None, False, True
            r, timed = self.reliability(p.source, now)
            if p.half_life is not None:
                return r * formulas.decay_weight(max(now - p.at, 0.0), p.half_life), True, False
            return r, timed, False
        best: dict[str, float] = {}
        for p in b.premises:
            if p.expires_at is not None and now >= p.expires_at:
                expired = True
                continue
            r, r_timed = self.reliability(p.source, now)
            if p.half_life is not None:
                timed = True
                c = r * formulas.decay_weight(max(now - p.at, 0.0), p.half_life)
            else:
                c = r
            if r_timed:
                timed = True
            if c > best.get(p.origin, -1.0):
                best[p.origin] = c
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
            parts.append(PremisePart(p, reliability, age,
                                     formulas.decay_weight(age, p.half_life), p.expired(now)))
        return parts

    def agreement(self, parts: Iterable[PremisePart]) -> float:
        """The premise agreement of the valid ``parts`` (best per origin, combined)."""
        best: dict[str, float] = {}
        for part in parts:
            if not part.expired:
                origin = part.premise.origin
                best[origin] = max(best.get(origin, 0.0), part.confidence)
        return formulas.agreement(best, self.corroboration)

    def _evaluate(self, region: set[Belief], now: float) -> None:
        heap: list[tuple[float, int, int, Belief, Any]] = []
        pending: dict[Justification, int] = {}
        own_timed: set[Belief] = set()
        direct: list[tuple[Belief, float]] = []
        tie = itertools.count()
        push = heapq.heappush
        succ = self.graph._succ
        keys = self.keys
        decided = self.policy.decides
        winners: dict[str, Belief] = {}
        memo: dict[str, tuple[float, bool]] = {}

        def reliability(source: str, now: float) -> tuple[float, bool]:
            found = memo.get(source)
            if found is None:
                found = memo[source] = self.reliability(source, now)
            return found

        def settle(b: Belief, c: float, why: Any) -> None:
            b.label = IN
            b.conf = c
            b.best = why
            b.why = "held"
            consumers = succ.get(b)
            if not consumers:
                return
            for j in consumers:
                out = j.output
                if out.label is IN or out not in region:
                    continue
                waiting = pending.get(j)
                if waiting is None:
                    continue
                if waiting > 1:
                    pending[j] = waiting - 1
                    continue
                del pending[j]
                if j.live:
                    step, timed = j.kind.step(j, reliability, now)
                    if timed:
                        own_timed.add(out)
                else:
                    step = j.step
                weakest = 1.0
                for x in j.inputs:  # the chain rule, inlined: this loop is the hot path
                    if x.conf < weakest:
                        weakest = x.conf
                push(heap, (-(step * weakest), out.seq, next(tie), out, j))

        for b in region:
            b.label = OUT
            b.conf = 0.0
            b.best = None
            b.defeated_by = None
            b.potential = 0.0
            b.stamp = now
            if b.blocked is not None:
                b.why = b.blocked
                continue
            if b.premises:
                c, timed, expired = self.premise_confidence(b, now)
                if timed or expired:
                    own_timed.add(b)
                b.why = "expired" if expired and c is None else "unsupported"
            else:
                c = None
                b.why = "unsupported"
            if c is not None:
                if not b.justs and type(keys[b.key]) is Belief and b not in succ:
                    # nothing competes with it and nothing reads it, so settling it out of
                    # order changes no tie: skip the heap (most premises in a large base)
                    direct.append((b, c))
                    continue
                push(heap, (-c, b.seq, next(tie), b, PREMISES))
            for j in b.justs:
                waiting = 0
                valid = True
                for x in j.distinct:
                    if x in region:
                        waiting += 1
                    elif x.label is not IN:
                        valid = False
                        break
                if not valid:
                    continue
                if waiting:
                    pending[j] = waiting
                else:
                    step, timed = self.step_confidence(j, now)
                    if timed:
                        own_timed.add(b)
                    push(heap, (-formulas.derived(step, (x.conf for x in j.inputs)), b.seq,
                                next(tie), b, j))

        self.policy.before_sweep(self, region, now)
        for b, c in direct:
            settle(b, c, PREMISES)

        while heap:
            negc, _, _, b, why = heapq.heappop(heap)
            if b.label is IN:
                continue
            if b.defeated_by is not None:  # lost on rank before the sweep: note what it had
                if b.potential == 0.0:
                    b.potential = -negc
                continue
            c = -negc
            if decided and type(keys[b.key]) is not Belief:
                # the region holds every value of a contested key (it is closed under rivals
                # when a policy decides), so the first one settled here is the winner
                winner = winners.get(b.key)
                if winner is not None:
                    b.defeated_by = winner
                    b.potential = c
                    b.why = "lost"
                    continue
                winners[b.key] = b
            settle(b, c, why)

        self._settle_timed(region, own_timed, decided)
        if self.dirty:
            self.dirty.difference_update(region)

    def _settle_timed(self, region: set[Belief], own_timed: set[Belief], decided: bool) -> None:
        """A value is time-dependent if it reads a decaying premise or a time-dependent input."""
        timed_set = self.timed
        if not own_timed and not timed_set:
            return  # nothing in the base reads the time: every b.timed is already False
        succ = self.graph._succ
        keys = self.keys
        expanded: set[str] = set()
        for b in region:
            b.timed = False
        for b in region:
            if b.timed:
                continue
            if b in own_timed or any(x.timed for j in b.justs for x in j.inputs if x not in region):
                stack = [b]
                while stack:
                    x = stack.pop()
                    if x.timed or x not in region:
                        continue
                    x.timed = True
                    consumers = succ.get(x)
                    if consumers:
                        for j in consumers:
                            stack.append(j.output)
                    if decided and x.key not in expanded:
                        slot = keys[x.key]
                        if type(slot) is not Belief:
                            expanded.add(x.key)
                            stack.extend(slot.values())  # type: ignore[union-attr]
        if own_timed or timed_set:
            for b in region:
                if b.timed:
                    timed_set.add(b)
                elif timed_set:
                    timed_set.discard(b)

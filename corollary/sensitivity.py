"""What to check next: which stale premise under a belief would raise it most if refreshed.

``kb.what_to_check(key, n)`` ranks the premises under a belief (its own and those of every
belief its reasons read, transitively) whose evidence is stale: faded (freshness below 1) or
expired. A premise's **gain** is exact:

    gain = c'(belief) − c(belief)

where ``c`` is the belief's confidence now and ``c'`` its confidence now if that one premise
were fresh again (age 0, so freshness 1) and valid (not expired), everything else unchanged.
Two stale premises that are both needed (two expired inputs of one step) each gain nothing
alone, so each item also says how much the belief would lose if every other stale premise were
refreshed but not this one (``needed``); the ranking breaks ties of gain by it, so a re-fetch
budget spent greedily (``Agent.reverify``) starts on a premise that is needed.
``c'`` is a what-if evaluation of the belief's ancestry by the model's own rules (premise
agreement by noisy-OR across origins, the chain rule ``step × min(inputs)``, the best of a
belief's reasons, and, under a deciding conflict policy, rival values and their own ancestry:
refreshing one side of a conflict can flip it), run on copies of the numbers: the base and the
engine's memo are never changed.

The evaluation is the engine's sweep, re-stated over one belief's ancestry with one premise
overridden: a Knuth/Dijkstra pass in decreasing confidence (so cycles never hold themselves
up, and the first value of a contested key reached wins, ties to the older belief), with
``PreferSource`` ranks taken from the what-if validity of premises. Rules are not fired: a
refreshed value that would make a rule fire anew is not counted (the structure is what it is
now). The cost is one pass over the ancestry per stale premise.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Collection, Iterator
from typing import Any

import attrs

from .confidence import derived
from .tms import Belief, Engine, Justification, Premise
from .tms.engine import PremisePart

__all__ = ["Check", "what_to_check", "whatif_confidence"]


@attrs.frozen(slots=True)
class Check:
    """A stale premise under a belief, and what refreshing it would gain.

    Attributes
    ----------
    key : str
        The key of the belief the premise is on.
    value : object
    source : str
        The premise's source.
    gain : float
        How much the ranked belief's confidence would rise now if this premise were fresh
        and valid again: 0.0 when another input is the weakest link; below 0 only when the
        belief also rests on a rival value that the refreshed one would defeat.
    needed : float
        How much lower the belief would be with every other stale premise under it refreshed
        but this one left as it is.
    confidence : float
        The premise's own confidence now (0.0 when expired).
    expired : bool
        Whether its ttl has passed.
    """

    key: str
    value: Any
    source: str
    gain: float
    needed: float
    confidence: float
    expired: bool


def ancestry(engine: Engine, root: Belief) -> list[Belief]:
    """``root`` and every belief its reasons read, transitively (each once, root first)."""
    seen = {root}
    order = [root]
    stack = [root]
    while stack:
        b = stack.pop()
        for j in b.justs:
            for x in j.inputs:
                if x not in seen:
                    seen.add(x)
                    order.append(x)
                    stack.append(x)
    return order


def _region(engine: Engine, support: list[Belief]) -> set[Belief]:
    """The support closed under rival values and their ancestry, when a policy decides."""
    region = set(support)
    if not engine.policy.decides:
        return region
    stack = list(support)
    while stack:
        b = stack.pop()
        for x in [*engine.rivals(b), *(x for j in b.justs for x in j.inputs)]:
            if x not in region:
                region.add(x)
                stack.append(x)
    return region


def _parts(engine: Engine, b: Belief, now: float, fresh: Collection[Premise]
           ) -> list[PremisePart]:
    parts = engine.premise_parts(b, now)
    if not fresh:
        return parts
    return [PremisePart(p.premise, p.reliability, 0.0, 1.0, False) if p.premise in fresh else p
            for p in parts]


def whatif_confidence(engine: Engine, root: Belief, now: float,
                      fresh: Collection[Premise] = (), region: set[Belief] | None = None
                      ) -> float:
    """``root``'s confidence at ``now`` if the premises ``fresh`` were fresh and valid (none:
    as things are, which is the base's own number).

    Nothing is changed: the engine is only read.
    """
    if region is None:
        region = _region(engine, ancestry(engine, root))
    conf: dict[Belief, float] = {}
    heap: list[tuple[float, int, int, Belief, Any]] = []
    pending: dict[Justification, int] = {}
    tie = itertools.count()
    parts_of: dict[Belief, list[PremisePart]] = {}
    for b in region:
        if b.blocked is not None:
            continue
        if b.premises:
            parts = parts_of[b] = _parts(engine, b, now, fresh)
            if any(not p.expired for p in parts):
                heapq.heappush(heap, (-engine.agreement(parts), b.seq, next(tie), b, None))
        for j in b.justs:
            if all(x in region and x.blocked is None for x in j.distinct):
                pending[j] = len(j.distinct)
    defeated = _ranked_out(engine, region, parts_of)
    consumers: dict[Belief, list[Justification]] = {}
    for j in pending:
        for x in j.distinct:
            consumers.setdefault(x, []).append(j)
    for j, waiting in list(pending.items()):
        if waiting == 0:  # a step without inputs
            _push_step(engine, j, now, conf, heap, tie)
    decides = engine.policy.decides
    winners: dict[str, Belief] = {}
    while heap:
        negc, _, _, b, _why = heapq.heappop(heap)
        if b in conf or b in defeated:
            continue
        if decides and len(engine.values_of(b.key)) > 1:
            if b.key in winners:
                continue  # a rival reached first: this value loses
            winners[b.key] = b
        conf[b] = -negc
        for j in consumers.get(b, ()):
            pending[j] -= 1
            if pending[j] == 0 and j.output not in conf:
                _push_step(engine, j, now, conf, heap, tie)
    return conf.get(root, 0.0)


def _push_step(engine: Engine, j: Justification, now: float, conf: dict[Belief, float],
               heap: list[tuple[float, int, int, Belief, Any]], tie: Iterator[int]) -> None:
    step, _ = engine.step_confidence(j, now)
    c = derived(step, (conf[x] for x in j.inputs))
    heapq.heappush(heap, (-c, j.output.seq, next(tie), j.output, j))


def _ranked_out(engine: Engine, region: set[Belief], parts_of: dict[Belief, list[PremisePart]]
                ) -> set[Belief]:
    """Values a ranking policy (``PreferSource``) defeats before the sweep, by their best valid
    premise in this what-if."""
    rank_of = getattr(engine.policy, "rank_of", None)
    if rank_of is None:
        return set()
    defeated: set[Belief] = set()
    seen: set[str] = set()
    for b in region:
        if b.key in seen:
            continue
        seen.add(b.key)
        standing = [r for r in engine.values_of(b.key) if r.blocked is None]
        if len(standing) < 2:
            continue
        worst = len(getattr(engine.policy, "order", ()))
        ranks = {r: min((rank_of(p.premise.source) for p in parts_of.get(r, ()) if not p.expired),
                        default=worst) for r in standing}
        top = min(ranks.values())
        defeated.update(r for r, rank in ranks.items() if rank > top)
    return defeated


def what_to_check(engine: Engine, root: Belief, now: float, n: int | None = 5) -> list[Check]:
    """The stale premises under ``root``, most gain first (ties: most needed, then key, then
    source); at most ``n`` (``None``: all). See the module docstring for the numbers."""
    support = ancestry(engine, root)
    region = _region(engine, support)
    stale = [(b, part) for b in support if b.blocked is None
             for part in engine.premise_parts(b, now) if part.expired or part.freshness < 1.0]
    if not stale:
        return []
    baseline = whatif_confidence(engine, root, now, (), region)
    everything = {part.premise for _, part in stale}
    all_fresh = whatif_confidence(engine, root, now, everything, region)
    found = []
    for b, part in stale:
        alone = whatif_confidence(engine, root, now, {part.premise}, region)
        but_this = whatif_confidence(engine, root, now, everything - {part.premise}, region)
        found.append(Check(b.key, b.value, part.premise.source, alone - baseline,
                           all_fresh - but_this, part.confidence, part.expired))
    found.sort(key=lambda c: (-c.gain, -c.needed, c.key, c.source))
    return found if n is None else found[:n]

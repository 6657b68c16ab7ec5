"""A deliberately simple from-scratch evaluator of docs/model.md, for property tests.

It reads the base's structure (premises, justifications, withdrawn beliefs, the ledger) and
recomputes every label and confidence with no incremental state: repeatedly scan every belief,
take the most confident one that can be reached from what is already settled (ties: the older
belief), and settle it, unless the conflict policy says a rival already holds. O(V·E) per belief;
fine for the small random bases the tests build.
"""

from __future__ import annotations

from corollary.evidence import confidence as formulas
from corollary.foundations.values import is_end
from corollary.tms import ANY
from corollary.tms.conflicts import MARGIN_TOLERANCE, PreferNewer, PreferSource


def evaluate(kb, now, world=None):
    """Every belief's ``(label, confidence)`` at ``now``, read at world time ``world`` (default
    ``now``): a premise counts inside its valid time only, and ages by ``now``."""
    world = now if world is None else world
    engine = kb.engine
    nodes = list(engine.beliefs())
    policy = kb.conflict_policy

    def reliability(source):
        return kb.ledger.reliability(source, at=now, prior=kb.ledger.prior_of(source))

    def premise_conf(b):
        best = {}
        for p in b.premises:
            if p.ttl is not None and now - p.at >= p.ttl:
                continue
            if not any(s <= world and (e is None or world < e) for s, e in p.intervals):
                continue
            c = (reliability(p.source) * p.certainty
                 * formulas.decay_weight(now - p.at, p.half_life))
            best[p.origin] = max(best.get(p.origin, 0.0), c)
        if not best:
            return None
        return formulas.agreement(best, kb.policy.corroboration)

    def step(j):
        return reliability(j.name) * j.step if j.kind.name == "model" else j.step

    def inside(j):
        """Whether a claim's own valid time (``kb.claim(..., valid_from=, valid_until=)``)
        holds at world time; a reason with none holds at every time."""
        start, end = j.info.get("valid_from"), j.info.get("valid_until")
        return (start is None or start <= world) and (end is None or world < end)

    def reason_dates(j, seen):
        """(holds, began, strength) of one reason, None if it has not begun or a held exception
        defeats it: through its inputs, or from the start its claim states (docs/model.md,
        "Claims in time")."""
        if any(item_held(i) for i in j.unless):
            return None
        start = j.info.get("valid_from")
        if start is not None and start > world:
            return None
        ds = [dates_of(x, seen) if x.withdrawn is None else (None, None, 0.0)
              for x in dict.fromkeys(j.inputs)]
        if any(d[1] is None for d in ds) or (not ds and start is None):
            return None
        strength = step(j) * min((d[2] for d in ds), default=1.0)
        all_hold = all(d[0] is not None for d in ds)
        if start is not None:
            return (start if inside(j) and all_hold else None), start, strength
        return (max(d[0] for d in ds) if all_hold else None), max(d[1] for d in ds), strength

    def merge(found, d):
        return (d[0] if found[0] is None else found[0] if d[0] is None else max(found[0], d[0]),
                d[1] if found[1] is None else max(found[1], d[1]),
                max(found[2], d[2]))

    defeated = set()
    if isinstance(policy, PreferSource):
        for key in engine.keys:
            standing = [b for b in engine.values_of(key) if b.withdrawn is None]
            ranks = {}
            for b in standing:
                valid = [p for p in b.premises
                         if (p.ttl is None or now - p.at < p.ttl)
                         and any(s <= world and (e is None or world < e) for s, e in p.intervals)]
                # a value ranks by its best valid premise; derived-only values rank last
                ranks[b] = min((policy.rank_of(p.source) for p in valid), default=len(policy.order))
            if len(standing) > 1:
                top = min(ranks.values())
                defeated.update(b for b in standing if ranks[b] > top)

    def dates_of(b, seen=()):
        """(holds, began, strength) at world time: by premises, or through the inputs of a
        value with none (docs/model.md, "Time and change")."""
        if not b.premises:
            if b in seen or b.withdrawn is not None:
                return None, None, 0.0
            found = (None, None, 0.0)
            for j in b.justs:
                d = reason_dates(j, (*seen, b))
                if d is not None:
                    found = merge(found, d)
            return found
        live = [p for p in b.premises if not (p.ttl is not None and now - p.at >= p.ttl)
                and any(s <= world for s, _ in p.intervals)]
        begun = [(s, e) for p in live for s, e in p.intervals if s <= world]
        holding = [s for s, e in begun if e is None or world < e]
        best = {}
        for p in live:
            c = (reliability(p.source) * p.certainty
                 * formulas.decay_weight(now - p.at, p.half_life))
            best[p.origin] = max(best.get(p.origin, 0.0), c)
        strength = formulas.agreement(best, kb.policy.corroboration) if best else 0.0
        found = (max(holding, default=None), max((s for s, _ in begun), default=None), strength)
        for j in b.justs:  # claims with a stated start compete beside the premises
            if j.info.get("valid_from") is not None and b not in seen:  # (not round a cycle)
                d = reason_dates(j, (*seen, b))
                if d is not None:
                    found = merge(found, d)
        return found

    # with no policy, an end (kb.end) is decided by time against the other values of its key,
    # as PreferNewer decides every pair (docs/model.md, "Ending a fact")
    by_time = isinstance(policy, PreferNewer) or policy is None
    margin = policy.margin if isinstance(policy, PreferNewer) else 0.2

    def supersede(keys):
        """By time (PreferNewer; an end with no policy), defeat each value of ``keys`` that a
        newer one supersedes: a value holding at world time is superseded by one that began
        later (valid or not) and is at least its strength minus the margin, within the margin's
        tolerance (strength: agreement of the begun premises, valid or not, not expired). Called
        once per stratum, when every exception below it is settled: a reason an exception
        defeats has no dates."""
        for key in keys:
            standing = [b for b in engine.values_of(key) if b.withdrawn is None]
            if policy is None and not any(is_end(b.value) for b in standing):
                continue
            dates = {b: dates_of(b) for b in standing}
            for b in standing:
                holds, _, strength = dates[b]
                if holds is None:
                    continue
                for other in standing:
                    began, other_strength = dates[other][1], dates[other][2]
                    if (other is not b and began is not None and began > holds
                            and (policy is not None or is_end(b.value) or is_end(other.value))
                            and other_strength >= strength - margin - MARGIN_TOLERANCE):
                        defeated.add(b)

    decided = policy is not None and policy.decides  # the policy says whether rivals exclude
    exclusive = decided and policy.exclusive  # whether the first held value defeats its rivals

    def partners(b):
        found = []
        for ng in engine.nogoods.values():
            mine = [i for i in ng.items if i[0] == b.key and (i[2] is ANY or i[2] == b.vid)]
            if mine:
                for item in ng.items:
                    if item not in mine:
                        found.extend(engine.item_beliefs(item))
        return found

    def depends_on(b):
        for j in b.justs:
            for x in j.inputs:
                yield x, 0
            for item in j.unless:
                for x in engine.item_beliefs(item):
                    yield x, 1
        if decided:
            for x in engine.rivals(b):
                yield x, 0
            for x in partners(b):
                yield x, 0
        elif policy is None and ended(b.key):
            # with no policy a key with an end has its values settled together, in the
            # stratum of its highest exception (docs/model.md, "Ending a fact"): a value an
            # exception defeats then has no dates when the end is decided against it
            for x in engine.rivals(b):
                yield x, 0

    def ended(key):
        return any(is_end(x.value) and x.withdrawn is None for x in engine.values_of(key))

    # strata: every exception strictly below what it defeats; deciding beliefs share a level
    level = {b: 0 for b in nodes}
    changed = True
    while changed:
        changed = False
        for b in nodes:
            for x, step_up in depends_on(b):
                if level[x] + step_up > level[b]:
                    level[b] = level[x] + step_up
                    changed = True
                    assert level[b] <= len(nodes), "a cycle through an exception"

    held = {}

    def item_held(item):  # an end (kb.end) holds no value: "any value of a key" is not it
        return any(x in held and (item[2] is not ANY or not is_end(x.value))
                   for x in engine.item_beliefs(item))

    for current in sorted(set(level.values())):
        stratum = [b for b in nodes if level[b] == current]
        if by_time:
            supersede({b.key for b in stratum})
        while True:
            best = None
            for b in stratum:
                if b in held or b in defeated or b.withdrawn is not None:
                    continue
                options = []
                pc = premise_conf(b)
                if pc is not None:
                    options.append(pc)
                for j in b.justs:
                    if (all(x in held for x in j.inputs) and inside(j)
                            and not any(item_held(i) for i in j.unless)):
                        options.append(step(j) * min((held[x] for x in j.inputs), default=1.0))
                if options:
                    c = max(options)
                    if best is None or (c, -b.seq) > (best[0], -best[1].seq):
                        best = (c, b)
            if best is None:
                break
            c, b = best
            if exclusive and any(r in held for r in engine.rivals(b)):
                defeated.add(b)
                continue
            if decided and any(
                    all(item_held(i) for i in ng.items
                        if not (i[0] == b.key and (i[2] is ANY or i[2] == b.vid)))
                    for ng in engine.nogoods.values()
                    if any(i[0] == b.key and (i[2] is ANY or i[2] == b.vid) for i in ng.items)):
                defeated.add(b)  # settling it would make a nogood fully held: it gives way
                continue
            held[b] = c
    return {(b.key, b.vid): ("IN", held[b]) if b in held else ("OUT", 0.0) for b in nodes}

"""Strata: the order in which exceptions are settled before what they defeat.

A justification "x unless y" is valid only while y is OUT, so y must be settled before x. The
dependencies form a graph with positive edges (an input, and, under a deciding conflict policy,
a rival value or a nogood partner, which decide each other) and negative edges (an exception).
Support is well-founded only if no cycle passes through a negative edge (the program is
*stratified*); then the beliefs of a region can be swept in levels, each exception in a lower
level than what it defeats. :func:`check_reason` and :func:`check_nogood` refuse the structure
that would break this, before anything changes; :func:`levels` splits a region into levels.

The levels are local to the region being re-evaluated, so a change stays bounded by the cone it
touches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..foundations.errors import StratificationError
from .records import ANY, Belief, Item, item_text

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine


def _dependents(engine: Engine, x: Belief) -> Iterator[tuple[Belief, bool]]:
    """The beliefs that depend on ``x``, each with whether the edge is negative."""
    for j in x.users:
        yield j.output, False
    by_value = engine.unless_watch.get(x.key)
    if by_value:
        if engine.conflict_policy.decides:  # every value of a key decides the others: match by key
            for watchers in by_value.values():
                for j in watchers:
                    yield j.output, True
        else:
            for j in engine.watchers(x):
                yield j.output, True
    if engine.conflict_policy.decides:
        for r in engine.rivals(x):
            yield r, False
        yield from ((p, False) for p in _partners_by_key(engine, x.key))


def _partners_by_key(engine: Engine, key: str) -> Iterator[Belief]:
    """Every value of every key that shares a nogood with ``key`` (values of one key decide
    each other under a deciding policy, so a nogood on one value links the whole key)."""
    for ng in engine.nogoods_by_key.get(key, ()):
        for other in {item[0] for item in ng.items} - {key}:
            yield from engine.values_of(other)


def _reaches(engine: Engine, starts: Iterable[tuple[Belief, bool]], targets: set[str],
             exact: set[Belief], negative_targets: set[Belief],
             negative_keys: frozenset[str] = frozenset()) -> Belief | None:
    """Search forward from ``starts`` (belief, came through a negative edge); return a belief
    reached that is a key in ``targets`` or in ``exact`` (any way), or in ``negative_targets``
    or of a key in ``negative_keys`` through a negative edge."""
    seen: set[tuple[Belief, bool]] = set()
    stack = list(starts)
    while stack:
        x, negative = stack.pop()
        if (x, negative) in seen:
            continue
        seen.add((x, negative))
        if x.key in targets or x in exact or (
                negative and (x in negative_targets or x.key in negative_keys)):
            return x
        for y, edge_negative in _dependents(engine, x):
            stack.append((y, negative or edge_negative))
    return None


def check_reason(engine: Engine, key: str, vid: object, inputs: Iterable[Belief],
                 unless: tuple[Item, ...]) -> None:
    """Refuse a new justification for ``key = vid`` that would put a negative edge on a cycle.

    Raises :class:`~corollary.foundations.errors.StratificationError` naming the cycle's ends.
    """
    if not unless and not engine.unless_count:
        return  # no exception anywhere: no cycle can pass through one
    decided = engine.conflict_policy.decides
    for item in unless:
        if item[0] == key and (decided or item[2] is ANY or item[2] == vid):
            raise StratificationError(
                f"{key} cannot hold unless {item_text(item)}: a belief cannot rest on its own "
                "absence" + (" (under a deciding policy the values of a key decide each other)"
                             if decided and item[2] != vid else ""))
    out = engine.find(key, vid)
    if out is not None:
        starts = [(out, False)]
    else:  # a new belief: what would depend on it are the exceptions and rivals on its key
        starts = []
        by_value = engine.unless_watch.get(key, {})
        for watched, watchers in by_value.items():
            if decided or watched is ANY or watched == vid:
                starts.extend((j.output, True) for j in watchers)
        if decided:
            starts.extend((r, False) for r in engine.values_of(key))
            starts.extend((p, False) for p in _partners_by_key(engine, key))
    exact = {b for item in unless for b in engine.item_beliefs(item)}
    targets = {item[0] for item in unless if item[2] is ANY or decided}
    found = _reaches(engine, starts, targets, exact, set(inputs))
    if found is not None:
        raise StratificationError(
            f"{key} would depend on its own absence through {found.key} = {found.value!r}: a "
            "cycle through an 'unless' has no well-founded labelling; the reason is refused")


def check_nogood(engine: Engine, items: tuple[Item, ...]) -> None:
    """Under a deciding policy a nogood's items decide each other: refuse one that would put an
    exception on a cycle. Values of a key decide each other too, so the check works by key:
    it also covers values that do not exist yet."""
    if not engine.conflict_policy.decides or not engine.unless_count:
        return
    for item in items:
        others = frozenset(i[0] for i in items if i is not item)
        starts = [(b, False) for b in engine.values_of(item[0])]
        found = _reaches(engine, starts, set(), set(), set(), negative_keys=others)
        if found is not None:
            raise StratificationError(
                f"the nogood would make {item_text(item)} and {found.key} = {found.value!r} "
                "decide each other while one rests on the other's absence; refused")


def levels(engine: Engine, region: set[Belief]) -> list[set[Belief]]:
    """Split ``region`` into levels to sweep in order: every exception inside the region sits
    in a lower level than the beliefs it can defeat, and beliefs that decide each other (a
    cycle of inputs, rivals or nogood partners) share a level.

    Raises :class:`~corollary.foundations.errors.StratificationError` if a cycle passes through an
    exception (which :func:`check_reason` refuses before it can be made).
    """
    # the defeaters: beliefs of the region that an exception of the region names
    defeaters = {x for x in region if x.key in engine.unless_watch
                 and any(j.output in region for j in engine.watchers(x))}
    if not defeaters:
        return [region]
    # the commonest case: the defeaters rest on nothing in the region (premises, or inputs
    # settled before): they go first, alone, and everything else after them
    if all(_independent(engine, d, region) for d in defeaters):
        return [defeaters, region - defeaters]
    # the common case: what depends on a defeater goes in a second level, unless a defeater
    # itself depends on one (a chain of exceptions), which needs the full order below
    down: set[Belief] = set()
    stack = [y for d in defeaters for y, _ in _dependents_in(engine, d, region)]
    while stack:
        y = stack.pop()
        if y in down:
            continue
        if y in defeaters:
            break
        down.add(y)
        stack.extend(z for z, _ in _dependents_in(engine, y, region))
    else:
        return [region - down, down]
    # edges inside the region: x -> y when y depends on x (negative for an exception)
    edges: dict[Belief, list[tuple[Belief, bool]]] = {b: [] for b in region}
    for y in region:
        for x, negative in _depends_on(engine, y):
            if x in region:
                edges[x].append((y, negative))
    component = _components(region, edges)
    # longest path over the components, counting negative edges, in topological order
    order = sorted(set(component.values()))  # Tarjan numbers components in reverse topo order
    members: dict[int, list[Belief]] = {}
    for b, c in component.items():
        members.setdefault(c, []).append(b)
    level: dict[int, int] = {}
    for c in reversed(order):  # sources first
        here = level.setdefault(c, 0)
        for x in members[c]:
            for y, negative in edges[x]:
                d = component[y]
                if d == c:
                    if negative:
                        raise StratificationError(
                            f"{y.key} = {y.value!r} depends on its own absence through "
                            f"{x.key} = {x.value!r}; no well-founded labelling")
                    continue
                level[d] = max(level.get(d, 0), here + (1 if negative else 0))
    by_level: dict[int, set[Belief]] = {}
    for b, c in component.items():
        by_level.setdefault(level[c], set()).add(b)
    return [by_level[k] for k in sorted(by_level)]


def _independent(engine: Engine, d: Belief, region: set[Belief]) -> bool:
    """Whether ``d``'s label depends on nothing inside ``region``."""
    if d.withdrawn is not None:
        return True
    return not any(x in region for x, _ in _depends_on(engine, d))


def _dependents_in(engine: Engine, x: Belief, region: set[Belief]
                   ) -> Iterator[tuple[Belief, bool]]:
    """What depends on ``x`` inside ``region`` (the region's own links, belief by belief)."""
    for j in x.users:
        if j.output in region:
            yield j.output, False
    if x.key in engine.unless_watch:
        for j in engine.watchers(x):
            if j.output in region:
                yield j.output, True
    if engine.conflict_policy.decides:
        for r in engine.rivals(x):
            if r in region:
                yield r, False
        if x.key in engine.nogoods_by_key:
            for p in engine.partners(x):
                if p in region:
                    yield p, False


def _depends_on(engine: Engine, y: Belief) -> Iterator[tuple[Belief, bool]]:
    """What ``y``'s label depends on, each with whether the dependency is negative."""
    for j in y.justs:
        for x in j.inputs:
            yield x, False
        for item in j.unless:
            for x in engine.item_beliefs(item):
                yield x, True
    if engine.conflict_policy.decides:
        for r in engine.rivals(y):
            yield r, False
        if y.key in engine.nogoods_by_key:
            for p in engine.partners(y):
                yield p, False


def _components(nodes: set[Belief], edges: dict[Belief, list[tuple[Belief, bool]]]
                ) -> dict[Belief, int]:
    """Strongly connected components (iterative Tarjan); numbers in reverse topological order."""
    index: dict[Belief, int] = {}
    low: dict[Belief, int] = {}
    on_stack: set[Belief] = set()
    stack: list[Belief] = []
    component: dict[Belief, int] = {}
    counter = 0
    found = 0
    for root in sorted(nodes, key=lambda b: b.seq):
        if root in index:
            continue
        work: list[tuple[Belief, int]] = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            out = edges[v]
            if i < len(out):
                work.append((v, i + 1))
                w = out[i][0]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component[w] = found
                    if w is v:
                        break
                found += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return component

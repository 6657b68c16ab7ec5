"""Nogoods: beliefs across keys that cannot all be held.

``kb.nogood(a, b, ...)`` says its items (keys, or ``(key, value)`` pairs) cannot all hold. A
same-key conflict is the special case of two values of one key. While every item is held, the
base's conflict policy settles it:

- a deciding policy (``PreferHigherConfidence``, ``PreferSource``) lets the sweep decide: the
  item reached last, the least confident, gives way and is OUT while the others hold; its proof
  names the nogood and the *culprit*, the weakest premise its support rests on;
- with no policy the nogood is listed by ``kb.conflicts()`` with its candidate culprits (the
  premises the held items rest on, weakest first: what dependency-directed backtracking would
  give up) until a person resolves it, ``kb.resolve(conflict, give_up=...)``, or ``AskHuman``
  asks.

A nogood with an item already OUT is inactive and changes nothing. This module builds the
records and the conflicts; the engine (:mod:`corollary.tms.engine`) applies them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..foundations.errors import InvalidInputError, InvalidTypeError, UnknownBeliefError
from ..foundations.values import canon, check_key
from ..tms import ANY, PREMISES, Belief, Engine, Nogood, item_text, make_items, strata
from ..tms.conflicts import Candidate, Conflict, Culprit


def check_nogood_items(items: Iterable[Any], name: str | None
                       ) -> tuple[tuple[str, Any, Any], ...]:
    """A new nogood's items and name as said (two or more, naming different beliefs; a name
    that is some text), whatever the engine holds; its items read."""
    parsed = make_items(list(items), "a nogood")
    if len(parsed) < 2:
        raise InvalidInputError("a nogood names at least two beliefs that cannot all hold")
    for i, (key, _, vid) in enumerate(parsed):
        for other in parsed[:i]:
            if other[0] == key and (vid is ANY or other[2] is ANY):
                raise InvalidInputError(
                    f"a nogood's items must name different beliefs: {item_text(other)} and "
                    f"{item_text(parsed[i])} overlap")
    if name is not None and (not isinstance(name, str) or not name or name.isspace()):
        raise InvalidTypeError(f"a nogood's name is a non-empty string, not {name!r}")
    return parsed


def make_nogood(engine: Engine, items: Iterable[Any], name: str | None, seq: int) -> Nogood:
    """Validate a new nogood's items and name (:func:`check_nogood_items`; every key must be
    known, the name free); change nothing."""
    parsed = check_nogood_items(items, name)
    return nogood_in(engine, parsed, name, seq)


def nogood_in(engine: Engine, parsed: tuple[tuple[str, Any, Any], ...], name: str | None,
              seq: int) -> Nogood:
    """A nogood of items already read (:func:`check_nogood_items`), checked against what
    ``engine`` holds (every key known, the name free); change nothing."""
    for key, _, _ in parsed:
        if key not in engine.keys:
            raise UnknownBeliefError(f"a nogood names {key!r}, which the base has never heard of")
    if name is None:
        name = f"nogood:{seq}"
    if name in engine.nogoods:
        raise InvalidInputError(f"there is already a nogood named {name!r}")
    strata.check_nogood(engine, parsed)
    return Nogood(name, parsed, seq)


def culprits(engine: Engine, beliefs: Iterable[Belief], sources: Callable[[Belief], list[str]],
             via: dict[Belief, Any] | None = None) -> tuple[Culprit, ...]:
    """The premises ``beliefs`` rest on, weakest first (ties: the newest first)."""
    found: dict[Belief, Culprit] = {}
    for b in beliefs:
        start = None if via is None else via.get(b)
        for p in engine.support_premises(b, start):
            if p not in found:
                conf = p.conf if p.best == PREMISES else (
                    p.potential if start == PREMISES and p is b else p.conf)
                found[p] = Culprit(p.key, p.value, tuple(sources(p)), conf)
    # weakest first; among equals the newest, the likeliest to be the mistake
    return tuple(found[p] for p in sorted(found, key=lambda p: (found[p].confidence, -p.seq)))


def conflict_of(engine: Engine, nogood: Nogood, holders: list[Belief],
                sources: Callable[[Belief], list[str]]) -> Conflict:
    """The open conflict of a fully held nogood."""
    candidates = tuple(Candidate(b.value, b.conf, tuple(sources(b)), key=b.key) for b in holders)
    return Conflict(nogood.name, candidates, nogood=True,
                    culprits=culprits(engine, holders, sources))


def give_up_target(engine: Engine, conflict: Conflict, give_up: Any) -> Belief:
    """The held belief a person gives up to settle a nogood: one of its items or culprits."""
    if isinstance(give_up, str):
        key, vid = check_key(give_up), None
    elif isinstance(give_up, (list, tuple)) and len(give_up) == 2:
        key, vid = check_key(give_up[0]), canon(give_up[1])
    else:
        raise InvalidInputError(f"give_up is a key or a (key, value) pair, not {give_up!r:.80}")
    choices = [(c.key or conflict.key, c.value) for c in conflict.candidates]
    choices += [(c.key, c.value) for c in conflict.culprits]
    for k, value in choices:
        if k == key and (vid is None or canon(value) == vid):
            b = engine.find(k, canon(value))
            if b is not None:
                return b
    options = ", ".join(item_text((k, v, canon(v))) for k, v in choices)
    raise InvalidInputError(f"{give_up!r} is neither an item nor a culprit of nogood "
                            f"{conflict.key!r} (choose one of: {options})")


def describe_loss(engine: Engine, b: Belief, sources: Callable[[Belief], list[str]]
                  ) -> dict[str, Any] | None:
    """What a proof shows of a belief a deciding policy gave up to a nogood."""
    found = engine.nogood_losses.get(b)
    if found is None:
        return None
    nogood, via = found
    weakest = culprits(engine, [b], sources, via={b: via})
    return {
        "nogood": nogood.name,
        "items": [item_text(item) for item in nogood.items],
        "culprit": None if not weakest else {
            "key": weakest[0].key, "value": weakest[0].value,
            "sources": list(weakest[0].sources), "confidence": weakest[0].confidence},
    }


__all__ = ["conflict_of", "culprits", "describe_loss", "give_up_target", "make_nogood", "check_nogood_items", "nogood_in"]

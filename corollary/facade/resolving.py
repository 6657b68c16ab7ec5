"""Settling conflicts by a person: ``kb.conflicts()`` lists what no policy settled, and
``kb.resolve(...)`` settles one, as :class:`~corollary.tms.conflicts.AskHuman` does through the
same method.

A resolution is worked out first, changing nothing (:func:`resolution`): which beliefs are
rejected, and, when the person's choice should teach the ledger (``learn``), the outcomes of
the sources involved. The base then records those outcomes and rejects those beliefs, so a
failing ledger leaves the conflict open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from ..changes.base_changes import Nogood, Resolve
from ..foundations._validate import plain_text
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.values import Value, canon, check_key
from ..reasons.nogoods import check_nogood_items, conflict_of, give_up_target, nogood_in
from ..tms import IN, Belief, Engine, make_items
from ..tms.conflicts import Conflict
from .blame import Verdict, accountable, sources_of
from .lookup import conflict_between
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

__all__ = ["Resolution", "check_nogood", "check_resolve", "open_conflicts", "resolution"]


@attrs.frozen(slots=True)
class Resolution:
    """What settling a conflict does: the outcomes to record (none without ``learn``), then
    the beliefs to reject, each with the reason its proof will give."""

    outcomes: list[Verdict]
    rejected: list[tuple[Belief, str]]


def open_conflicts(engine: Engine) -> list[Conflict]:
    """Keys holding two or more values, and nogoods whose items are all held, that no policy
    has settled (the engine synchronised by the caller)."""
    found = []
    for key, values in engine.contested():
        held = [b for b in values if b.label is IN]
        if len(held) > 1:
            found.append(conflict_between(key, held))
    for ng, holders in engine.active_nogoods():
        found.append(conflict_of(engine, ng, holders, sources_of))
    return found


def resolution(engine: Engine, conflict: Conflict | str, winner: Any, learn: Any,
               give_up: Any, sync: Callable[[], object]) -> Resolution:
    """Check a person's resolution of ``conflict`` (``kb.resolve``'s arguments, checked by
    :func:`check_resolve`) against what the base holds and work out what it does, changing
    nothing; ``sync`` brings the engine up to now once the arguments that need no reading
    are checked."""
    name = conflict.key if isinstance(conflict, Conflict) else conflict
    if (isinstance(conflict, Conflict) and conflict.nogood) or (
            isinstance(name, str) and name in engine.nogoods
            and not isinstance(conflict, Conflict)):
        sync()
        return _nogood(engine, name, give_up, learn)
    if give_up is not None:
        raise InvalidInputError("give_up settles a nogood; for two values of a key pass winner")
    key = check_key(name)
    sync()
    return _values(engine, key, winner, learn)


def _values(engine: Engine, key: str, winner: Any, learn: bool) -> Resolution:
    """Two values of a key: ``winner`` holds, the other standing values are rejected; with
    ``learn`` the winner's sources are right and the losers' wrong."""
    win = engine.find(key, canon(winner))
    candidates = [b for b in engine.values_of(key)
                  if b.withdrawn is None and (b.label is IN or b.defeated_by is not None)]
    if win is None or win not in candidates:
        raise InvalidInputError(f"{winner!r} is not a standing value of {key!r}")
    losers = [b for b in candidates if b is not win]
    outcomes: list[Verdict] = []
    if learn:
        why = f"{key}: resolved for {winner!r} by a person"
        outcomes = [(source, False, why, key, b.conf if b.label is IN else b.potential)
                    for b in losers for source in sorted(accountable(b))]
        outcomes += [(source, True, why, key, win.conf) for source in sorted(accountable(win))]
    return Resolution(outcomes,
                      [(b, f"rejected: {key} resolved for {winner!r}") for b in losers])


def _nogood(engine: Engine, name: str, give_up: Any, learn: bool) -> Resolution:
    """A nogood: ``give_up`` (an item or a culprit premise) is rejected; with ``learn`` its
    sources are wrong."""
    active = {ng.name: (ng, holders) for ng, holders in engine.active_nogoods()}
    if name not in active:
        raise InvalidInputError(f"nogood {name!r} is not an open conflict (an item is OUT, "
                                "or a policy settles it)")
    b = give_up_target(engine, conflict_of(engine, *active[name], sources_of), give_up)
    outcomes: list[Verdict] = []
    if learn:
        why = f"nogood {name}: {b.key} = {b.value!r} given up by a person"
        outcomes = [(s, False, why, b.key, b.conf) for s in sorted(accountable(b))]
    return Resolution(outcomes, [(b, f"rejected: nogood {name} resolved by a person")])


@operation(change=Nogood)
def nogood(kb: BeliefBase, *items: str | tuple[str, Value], name: str | None = None) -> str:
    """Say that ``items`` (keys, or ``(key, value)`` pairs) cannot all be held.

    While every item is held, the conflict policy settles it: a deciding policy gives up
    the least confident item (its proof names the nogood and the culprit premise); with
    no policy ``conflicts()`` lists it until :meth:`resolve` gives one up. Returns the
    nogood's name. See :mod:`corollary.reasons.nogoods`.
    """
    made: str = make(kb, check_nogood(kb, Nogood(tuple(items), name=name)))
    return made


def check_nogood(kb: BeliefBase, change: Nogood) -> Nogood:
    """A :class:`~corollary.changes.Nogood`'s checks (``kb.nogood``'s and ``apply``'s): two or
    more items naming different beliefs, a name that is some text (keys known and the name
    free are its effect's, against what the base holds); the value."""
    check_nogood_items(change.items, change.name)
    return change


def apply_nogood(kb: BeliefBase, change: Nogood) -> str:
    """The effect of a :class:`~corollary.changes.Nogood` (``kb.nogood``'s, its items checked,
    and its replay's): its keys known and its name free, then the nogood."""
    items, name = change.items, change.name
    kb.parts.lookup.sync()
    parsed = make_items(list(items), "a nogood")  # read again: a value keeps them as said
    ng = nogood_in(kb.parts.engine, parsed, name, len(kb.parts.engine.nogoods) + 1)
    kb.parts.engine.add_nogood(ng)
    kb.parts.after_change(kb)
    return ng.name


def conflicts(kb: BeliefBase) -> list[Conflict]:
    """Open conflicts: keys holding two or more values, and nogoods whose items are all
    held, that no policy has settled."""
    kb.parts.lookup.sync()
    return open_conflicts(kb.parts.engine)


@operation(change=Resolve)
def resolve(kb: BeliefBase, conflict: Conflict | str, winner: Value = None, learn: bool = True,
            *, give_up: object = None) -> None:
    """Settle a conflict as a person would (see :mod:`corollary.facade.resolving`).

    For two values of a key: ``winner`` holds and the other values are rejected; with
    ``learn`` the winners' sources get right outcomes and the losers' wrong ones. For a
    nogood (its conflict, or its name): ``give_up`` (an item or a culprit premise, as a key
    or ``(key, value)``) is rejected; with ``learn`` its sources get a wrong outcome. Either
    resolution is final.
    """
    make(kb, check_resolve(kb, Resolve(conflict, winner, learn, give_up=give_up)))


def check_resolve(kb: BeliefBase, change: Resolve) -> Resolve:
    """A :class:`~corollary.changes.Resolve`'s checks (``kb.resolve``'s and ``apply``'s):
    ``learn`` a bool, the conflict a :class:`~corollary.tms.conflicts.Conflict` or a name
    (that it is open, and its winner or item given up standing, are its effect's: they
    depend on what the base holds when it runs); the checked value."""
    conflict = change.conflict
    if not isinstance(change.learn, bool):
        raise InvalidTypeError("learn must be a bool")
    if not isinstance(conflict, Conflict):
        conflict = plain_text(conflict)
    return checked(change, conflict=conflict)


def apply_resolve(kb: BeliefBase, change: Resolve) -> None:
    """The effect of a :class:`~corollary.changes.Resolve` (``kb.resolve``'s, and its replay's)."""
    conflict, winner, learn, give_up = change.conflict, change.winner, change.learn, change.give_up
    settled = resolution(kb.parts.engine, conflict, winner, learn, give_up, kb.parts.lookup.sync)
    batch = kb.parts.noting(*(b.key for b, _ in settled.rejected))
    if batch is None:
        kb.parts.record(settled.outcomes)
    for b, why in settled.rejected:
        kb.parts.engine.withdraw(b, why)
    kb.parts.after_change(kb, batch=batch, then=kb.parts.recorder(batch, settled.outcomes))

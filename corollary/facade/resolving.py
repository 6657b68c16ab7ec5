"""Settling conflicts by a person: ``kb.conflicts()`` lists what no policy settled, and
``kb.resolve(...)`` settles one, as :class:`~corollary.tms.conflicts.AskHuman` does through the
same method.

A resolution is worked out first, changing nothing (:func:`resolution`): which beliefs are
rejected, and, when the person's choice should teach the ledger (``learn``), the outcomes of
the sources involved. The base then records those outcomes and rejects those beliefs, so a
failing ledger leaves the conflict open.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations._validate import plain_text
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.values import canon, check_key
from ..reasons.nogoods import conflict_of, give_up_target, make_nogood
from ..tms import IN, Belief, Engine
from ..tms.conflicts import Conflict
from .base_operations import keep_resolve, named_items, replay_resolve, resolved_conflict
from .blame import Verdict, accountable, sources_of
from .lookup import conflict_between
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from ..tms.batch import Batch
    from .lookup import Lookup

__all__ = ["ConflictMethods", "Resolution", "open_conflicts", "resolution"]


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
    """Check a person's resolution of ``conflict`` (``kb.resolve``'s arguments) and work out
    what it does, changing nothing; ``sync`` brings the engine up to now once the arguments
    that need no reading are checked."""
    if not isinstance(learn, bool):
        raise InvalidTypeError("learn must be a bool")
    name = conflict.key if isinstance(conflict, Conflict) else plain_text(conflict)
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


class ConflictMethods:
    """``kb.nogood``, ``kb.conflicts`` and ``kb.resolve``: a part of the facade (its methods are
    the base's own)."""

    _engine: Engine
    _lookup: Lookup

    if TYPE_CHECKING:  # provided by BeliefBase
        def _noting(self, *keys: str) -> Batch | None: ...

        def _record(self, items: Sequence[Verdict], *, at: float | None = None,
                    topic: str | None = None) -> None: ...

        def _recorder(self, batch: Batch | None, items: Sequence[Verdict]
                      ) -> Callable[[], None] | None: ...

        def _after_change(self, extra_rules: Sequence[Any] = (), batch: Batch | None = None,
                          made: Sequence[Any] = (),
                          then: Callable[[], None] | None = None) -> None: ...

    @operation(subjects=named_items)
    def nogood(self, *items: str | tuple[str, Any], name: str | None = None) -> str:
        """Say that ``items`` (keys, or ``(key, value)`` pairs) cannot all be held.

        While every item is held, the conflict policy settles it: a deciding policy gives up
        the least confident item (its proof names the nogood and the culprit premise); with
        no policy ``conflicts()`` lists it until :meth:`resolve` gives one up. Returns the
        nogood's name. See :mod:`corollary.reasons.nogoods`.
        """
        self._lookup.sync()
        ng = make_nogood(self._engine, items, name, len(self._engine.nogoods) + 1)
        self._engine.add_nogood(ng)
        self._after_change()
        return ng.name

    def conflicts(self) -> list[Conflict]:
        """Open conflicts: keys holding two or more values, and nogoods whose items are all
        held, that no policy has settled."""
        self._lookup.sync()
        return open_conflicts(self._engine)

    @operation(subjects=resolved_conflict, keep=keep_resolve, replay=replay_resolve)
    def resolve(self, conflict: Conflict | str, winner: Any = None, learn: bool = True, *,
                give_up: Any = None) -> None:
        """Settle a conflict as a person would (see :mod:`corollary.facade.resolving`).

        For two values of a key: ``winner`` holds and the other values are rejected; with
        ``learn`` the winners' sources get right outcomes and the losers' wrong ones. For a
        nogood (its conflict, or its name): ``give_up`` (an item or a culprit premise, as a key
        or ``(key, value)``) is rejected; with ``learn`` its sources get a wrong outcome. Either
        resolution is final.
        """
        settled = resolution(self._engine, conflict, winner, learn, give_up, self._lookup.sync)
        batch = self._noting(*(b.key for b, _ in settled.rejected))
        if batch is None:
            self._record(settled.outcomes)
        for b, why in settled.rejected:
            self._engine.withdraw(b, why)
        self._after_change(batch=batch, then=self._recorder(batch, settled.outcomes))

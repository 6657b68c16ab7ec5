"""Reading a base at a world time: ``kb.at(t)`` and ``kb.timeline(key)``.

Valid time says when a fact holds in the world (``assert_(..., valid_from=, valid_until=)``);
recording time is when the base learned it (a journal's ``as_of``). :class:`WorldView` answers
the base's read methods as they hold at world time ``t``: a premise counts only inside its
valid time (a fact with no ``valid_from`` holds from when it was observed), and evidence ages
by the clock, as it does for every read (half-life and ttl measure the evidence, not the
world). It copies nothing: each read settles what it reads (its ancestry, closed under rival
values) as a what-if on the engine, and every memo is as it was afterwards, so a view costs in
proportion to what is read and the base's own reads are untouched (docs/model.md, "Time and
change").

:func:`timeline` lists every value a key has had, oldest validity first, with its status now.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations.clock import Instant, to_instant
from ..foundations.errors import InvalidInputError
from ..foundations.values import is_end
from ..tms.conflicts import span_of, superseder
from ..tms.records import lone_held_at, record_valid_at
from ..tms.world_reads import held_at
from .blame import sources_of

if TYPE_CHECKING:  # pragma: no cover
    from ..tms.proof import Proof
    from .base import BeliefBase
    from .queries import Held
    from .recall import Recalled

__all__ = ["TimelineEntry", "WorldView", "timeline", "world_at"]

#: What :meth:`WorldView._lone` says of a key's one value at ``t``.
HELD, NOT_HELD, OTHERWISE = 1, 0, -1

#: Outside every finite time (a world time is a finite float: ``_BELOW < t < _ABOVE``).
_BELOW, _ABOVE = -float("inf"), float("inf")

#: The statuses of a :class:`TimelineEntry`.
STATUSES = ("held", "superseded", "contested", "out", "ended")


@attrs.frozen(slots=True)
class TimelineEntry:
    """One value a key has had.

    Attributes
    ----------
    value : object
    valid_from : float or None
        When it starts to hold (POSIX seconds; ``None`` for a value with no premise).
    valid_until : float or None
        Its effective end: its own end, or the start of the value that superseded it if that
        comes first; ``None`` while open.
    label, confidence :
        Now.
    sources : tuple of str
        The sources answering for it.
    status : str
        ``"held"`` (IN now, alone), ``"superseded"`` (a newer value replaced it), ``"contested"``
        (IN now beside another value: an open conflict), ``"out"`` (retracted, expired, lost)
        or ``"ended"``: the entry is an end (``kb.end``, its value ``{"$ended": reason}``) that
        holds, so the key holds nothing from its ``valid_from`` on; the value it ended is
        ``"superseded"`` by it, its ``valid_until`` the end's start.
    superseded_by : object
        The value that replaced it (``None`` unless superseded).
    """

    value: Any
    valid_from: float | None
    valid_until: float | None
    label: str
    confidence: float
    sources: tuple[str, ...]
    status: str
    superseded_by: Any = None


def timeline(base: BeliefBase, key: str) -> list[TimelineEntry]:
    """Every value of ``key``, oldest validity first (see :class:`TimelineEntry`)."""
    values = base.parts.lookup.values(key)
    now = base.parts.lookup.catch_up()
    engine = base.parts.engine
    held = [b for b in values if b.best is not None]
    entries = []
    for b in values:
        newer = superseder(engine, b)
        start, end = span_of(b, newer, engine, now)
        if b.best is not None and is_end(b.value) and len(held) == 1:
            status = "ended"  # an end holds: the key holds nothing from its start on
        elif b.best is not None:
            status = "contested" if len(held) > 1 else "held"
        else:
            status = "superseded" if newer is not None else "out"
        entries.append((start is None, start or 0.0, b.seq, TimelineEntry(
            b.value, start, end, b.label, b.conf, tuple(sorted(sources_of(b))), status,
            None if newer is None else newer.value)))
    entries.sort(key=lambda e: e[:3])
    return [e[3] for e in entries]


class WorldView:
    """What ``base`` holds true at world time ``t`` (``kb.at(t)``): read-only, with the base's
    read methods, each answering for ``t``. ``kb.at(t)`` (:meth:`made_for`) is what makes one.

    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(100), conflict_policy=PreferNewer())
    >>> kb.assert_("addr", "Oak St", source="tool:crm", valid_from=10)
    >>> kb.assert_("addr", "Pine Ave", source="document:email", valid_from=50)
    >>> kb.value("addr"), kb.at(20).value("addr"), kb.at(5).label("addr")
    ('Pine Ave', 'Oak St', 'OUT')
    """

    __slots__ = ("_base", "t")  # no __init__: made by made_for alone (kb.at), the cheapest way

    _base: BeliefBase
    #: The world time read, in POSIX seconds.
    t: float

    @staticmethod
    def made_for(base: BeliefBase, t: Instant) -> WorldView:
        """A read-only view of what ``base`` holds at world time ``t`` (POSIX seconds or an
        aware datetime): ``value``, ``label``, ``confidence``, ``explain``, ``keys``,
        ``beliefs`` and ``recall`` answer for ``t`` (see :mod:`corollary.facade.world`).

        ``kb.at(t)`` is this function bound to the base, the one way a view is made: the class
        has no ``__init__``, as a view is often made for one read (``kb.at(t).value(key)``),
        and a constructor's call (or ``WorldView.__new__``'s lookup) would cost a quarter of
        that read (benchmarks/RESULTS.md, "kb.at(t) under 2x").

        >>> from corollary import BeliefBase, ManualClock
        >>> kb = BeliefBase(clock=ManualClock(100))
        >>> kb.assert_("ceo", "Ann", source="tool:registry", valid_from=0, valid_until=50)
        >>> kb.at(10).value("ceo"), kb.label("ceo")
        ('Ann', 'OUT')
        """
        view = WorldView()
        view._base = base
        # a finite float by two comparisons, where t - t == 0.0 made a float (a tenth of
        # making the view); NaN fails both
        view.t = t if type(t) is float and _BELOW < t < _ABOVE else world_time(t)
        return view

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        base = self._base
        # outcomes, due rules and expiries first, on the base itself: the what-if below is
        # undone whole, and what it marked would be lost with it
        now = base.parts.lookup.catch_up()
        with base.parts.engine.at_world(self.t, now):
            yield

    def _lone(self, b: Any) -> int:
        """How ``b``, the key's one value up to date now (``current()``), reads at ``t``:
        :data:`HELD` or :data:`NOT_HELD` as it is now, else :data:`OTHERWISE` (the other
        paths of :meth:`_alone`). The first step of every read, taken where it is cheapest:
        one premise and nothing else, outside its valid time at ``t``, or held now and valid
        at ``t`` (docs/model.md, "Time and change")."""
        held = lone_held_at(b, self.t)
        if held is None:
            return OTHERWISE
        nogoods = self._base.parts.engine.nogoods_by_key
        if nogoods and b.key in nogoods:
            return OTHERWISE  # a rival valid at t and not now may defeat it
        return HELD if held else NOT_HELD

    def _alone(self, key: object, b: Any) -> tuple[bool, float, Any] | None:
        """``(held, confidence, belief)`` at ``t`` of ``key``'s value when nothing but the
        premises of the key's values can decide it (no reasons, no nogood): one value the base
        has nothing to bring up to date for, or several that
        :func:`~corollary.tms.world_reads.held_at` decides, read straight from their premises
        as the sweep would (``None``: take the what-if path). ``b``: what ``current(key)``
        gave; when it gave a value, the caller has taken the first step (:meth:`_lone`, or
        it written out) and it said :data:`OTHERWISE`: it is not taken again here."""
        base = self._base
        if b is None:
            if type(key) is not str:
                return None
            now = base.parts.lookup.quiet()  # nothing due: no catching up to do (a fifth of a read)
            held = held_at(base.parts.engine, key, self.t,
                           base.parts.lookup.catch_up() if now is None else now)
            if held is None or len(held) > 1:
                return None  # not decided by premises alone, or an open conflict
            return (True, held[0][1], held[0][0]) if held else (False, 0.0, None)
        if b.justs or b.evidence is None:
            return None
        if b.withdrawn is not None:
            return False, 0.0, b
        engine = base.parts.engine
        if engine.nogoods_by_key and b.key in engine.nogoods_by_key:
            return None
        t = self.t
        ev = b.evidence
        if type(ev) is not tuple:
            now = base.parts.sync.clock()  # a finite float: current() checked it
            if all(record_valid_at(r, t) == record_valid_at(r, now) for r in ev):
                return b.best is not None, b.conf, b  # the same premises count at t as now
        engine.world = t  # valid at t but not counted now: computed at t
        try:
            c, _, _ = engine.premise_confidence(b, base.parts.sync.clock())
        finally:
            engine.world = None
        return (False, 0.0, b) if c is None else (True, c, b)

    def value(self, key: str, default: Any = None) -> Any:
        """The value held for ``key`` at ``t`` (``default`` if none; an open conflict
        raises)."""
        parts = self._base.parts
        b = parts.lookup.current(key)
        if b is not None:  # (current() leaves an end out: an up-to-date value is no end)
            # _lone written out: the one read a view is most often made for pays no call to
            # get there (docs/model.md, "Time and change")
            held = lone_held_at(b, self.t)
            if held is not None:
                nogoods = parts.engine.nogoods_by_key
                if not nogoods or key not in nogoods:
                    return b.value if held else default
        elif type(key) is str:  # several values (or none): _alone's first step written out
            lookup = parts.lookup
            now = lookup.quiet()
            values = held_at(parts.engine, key, self.t, lookup.catch_up() if now is None else now)
            if values is not None and len(values) < 2:  # (no key an end was said of)
                return values[0][0].value if values else default
            with self._reading():  # a what-if decides it (_alone would say so again)
                return self._base.value(key, default)
        alone = self._alone(key, b)
        if alone is not None:  # an end left alone (its value forgotten) holds no value either
            held, b = alone[0], alone[2]  # (no belief when nothing holds at t)
            return b.value if held and not is_end(b.value) else default
        with self._reading():
            return self._base.value(key, default)

    def confidence(self, key: str, value: Any = None) -> float:
        """The confidence of ``key`` (or ``key = value``) at ``t``; 0.0 when OUT."""
        if value is None:
            parts = self._base.parts
            b = parts.lookup.current(key)
            if b is not None:  # _lone written out, as in value()
                held = lone_held_at(b, self.t)
                if held is not None:
                    nogoods = parts.engine.nogoods_by_key
                    if not nogoods or key not in nogoods:
                        return b.conf if held else 0.0
            alone = self._alone(key, b)
            if alone is not None:
                return alone[1]
        with self._reading():
            return self._base.confidence(key, value)

    def label(self, key: str, value: Any = None) -> str:
        """``"IN"`` if ``key`` (or ``key = value``) holds at ``t``."""
        if value is None:
            b = self._base.parts.lookup.current(key)
            if b is not None:
                lone = self._lone(b)
                if lone != OTHERWISE:
                    return "IN" if lone == HELD else "OUT"
            alone = self._alone(key, b)
            if alone is not None:
                return "IN" if alone[0] else "OUT"
        with self._reading():
            return self._base.label(key, value)

    def explain(self, key: str, value: Any = None) -> Proof:
        """The proof of ``key`` (or ``key = value``) at ``t``."""
        with self._reading():
            return self._base.explain(key, value)

    def beliefs(self, min_confidence: float | None = None) -> list[Held]:
        """Every belief held at ``t`` (at or above ``min_confidence``)."""
        with self._reading():
            return self._base.beliefs(min_confidence)

    def keys(self) -> list[str]:
        """The keys holding a value at ``t``, in the base's order."""
        with self._reading():
            self._base.parts.lookup.sync()
            return [key for key, slot in self._base.parts.engine.keys.items()
                    if (slot.best is not None and not is_end(slot.value)
                        if not isinstance(slot, dict)
                        else any(b.best is not None and not is_end(b.value)
                                 for b in slot.values()))]

    def recall(self, query: str, limit: int = 10, *, budget: float | None = None,
               min_confidence: float | None = None, expand: bool = False,
               scope: Any = None, documents: bool | None = None) -> list[Recalled]:
        """:meth:`corollary.BeliefBase.recall` over what holds at ``t``: never a value
        superseded or not yet begun then; an open conflict's values come marked; a fact held
        at ``t`` answers for the document it was drawn from (``documents=`` as there)."""
        with self._reading():
            return self._base.recall(query, limit, budget=budget, min_confidence=min_confidence,
                                     expand=expand, scope=scope, documents=documents)

    def at(self, t: Instant) -> WorldView:
        """The same base read at another world time."""
        return world_at(self._base, t)

    def __repr__(self) -> str:
        return f"<WorldView at {self.t!r} of {self._base!r}>"


def world_time(t: Instant) -> float:
    """``t`` as POSIX seconds (``InvalidInputError`` for anything but a finite time)."""
    world = t if type(t) is float and t - t == 0.0 else to_instant(t, "t")
    if world is None:
        raise InvalidInputError("kb.at(t) needs a time (POSIX seconds or an aware datetime)")
    return world


#: ``kb.at(t)``: :meth:`WorldView.made_for`, bound to the base as it is (one call where a
#: method building the view would be two: a view is made for each read at a time)
world_at = WorldView.made_for

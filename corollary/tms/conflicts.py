"""Conflict policies: which of two held values of one key wins while both stand.

A key holds one value. When two values are both supported, the base's policy decides:

* :class:`PreferHigherConfidence` keeps the more confident value (ties: the older belief);
* :class:`PreferSource` keeps the value asserted by the source (or kind) earliest in its list;
  values none of whose premises is listed, and derived-only values, rank last, and ties fall
  back to confidence;
* :class:`AskHuman` calls a function with the conflict and takes its answer as a human
  resolution (final, and learned from unless ``learn=False``);
* no policy (``conflict_policy=None``) leaves the conflict open: both values stay IN and
  ``kb.conflicts()`` lists it.

A policy's decision is not learned from: the more trusted side would only win more.

Each policy is also the strategy the engine's sweep calls (:class:`corollary.tms.engine.ConflictStrategy`):
``decides`` says whether rival values exclude each other, ``before_sweep`` may defeat values
before the sweep ranks the rest by confidence, and ``after_change`` runs after every change to
the base (``AskHuman`` asks there).

Each policy also saves and reads itself back: :meth:`ConflictPolicy.to_dict` writes it under its
class name (the ``"policy"`` tag of a snapshot's ``conflicts``), and every subclass is entered in
:data:`POLICIES` under that name when it is defined, so :meth:`ConflictPolicy.from_dict` (which
snapshots call) finds it. A new policy is one subclass, in any module, and nothing else.

>>> PreferSource(["human"]).to_dict()
{'policy': 'PreferSource', 'order': ['human']}
>>> policy_from_dict({"policy": "PreferSource", "order": ["human"]})
PreferSource(order=('human',))
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..evidence.confidence import agreement
from ..foundations._fields import Fields
from ..foundations.errors import CorollaryError, InvalidInputError, InvalidTypeError
from ..foundations.values import canon, is_end, shown_value
from .kinds import DATED, counts_at, valid_time_of
from .records import (
    record_expired,
    record_intervals,
    record_origin,
    record_source,
    record_strength,
)

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine
    from .records import Belief, Justification, PremiseRecord


@attrs.frozen(slots=True)
class Candidate:
    """One value in a conflict, with its confidence and the sources behind it (and, in a
    nogood, the key it is a value of)."""

    value: Any
    confidence: float
    sources: tuple[str, ...]
    key: str | None = None


@attrs.frozen(slots=True)
class Culprit:
    """A premise a nogood's items rest on: giving it up would break the nogood.

    ``confidence`` is the premise's own (its agreement), the weakest first in a conflict.
    """

    key: str
    value: Any
    sources: tuple[str, ...]
    confidence: float


@attrs.frozen(slots=True)
class Conflict:
    """Two or more supported values of one key, or the held items of a nogood.

    For a nogood, ``key`` is the nogood's name, ``nogood`` is ``True``, each candidate names
    its ``key``, and ``culprits`` lists the premises the items rest on, weakest first: what
    dependency-directed backtracking would give up.
    """

    key: str
    candidates: tuple[Candidate, ...]
    nogood: bool = False
    culprits: tuple[Culprit, ...] = ()

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(c.value for c in self.candidates)

    def __str__(self) -> str:
        if self.nogood:
            items = ", ".join(f"{c.key} = {c.value!r} ({c.confidence:.2f})"
                              for c in self.candidates)
            return f"nogood {self.key}: {items} cannot all hold"
        options = ", ".join(f"{shown_value(c.value)} ({c.confidence:.2f})"
                            for c in self.candidates)
        return f"{self.key}: {options}"


#: Every conflict policy, by the tag it saves (its class name); filled as subclasses are defined.
POLICIES: dict[str, type[ConflictPolicy]] = {}


class ConflictPolicy:
    """Base class of conflict policies (and the strategy the engine's sweep calls).

    A subclass is registered in :data:`POLICIES` under its class name when it is defined (names
    starting with ``_`` are helpers, not registered). It saves itself with :meth:`to_dict` and
    reads itself back with :meth:`from_dict`; the base class's pair serves a policy with no
    settings.
    """

    mode = "open"
    #: Whether rival values exclude each other (the sweep then lets the first reached win).
    decides = False
    #: Whether the first value of a key the confidence sweep reaches defeats its rivals.
    exclusive = True
    #: Whether :meth:`after_change` must run after every change to the base.
    watches_changes = False

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        """Defeat values in ``region`` before the sweep ranks the rest by confidence."""
        return None

    def after_change(self, base: Any) -> None:
        """React to a change of ``base`` (a :class:`~corollary.BeliefBase`)."""
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__name__
        if name.startswith("_"):
            return
        known = POLICIES.get(name)
        # attrs builds a slotted class anew from the one defined: the same policy, registered again
        if known is not None and (known.__module__, known.__qualname__) != (cls.__module__,
                                                                              cls.__qualname__):
            raise InvalidInputError(f"a conflict policy is saved by its class name, and "
                                    f"{known.__module__}.{known.__qualname__} is {name!r} already")
        POLICIES[name] = cls

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a snapshot: ``{"policy": <class name>}`` and the policy's settings."""
        return {"policy": type(self).__name__}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], f: Fields | None = None,
                  field: str = "conflicts", **unsaved: Any) -> ConflictPolicy | None:
        """Rebuild the policy from :meth:`to_dict` output.

        ``f`` checks the fields (a :class:`~corollary.foundations._fields.Fields` of the document being
        read), so a malformed one raises :class:`~corollary.foundations.errors.SnapshotError` naming
        ``field``. ``unsaved`` holds what a policy keeps but does not save (``AskHuman``'s
        ``ask``); a policy that needs it and is not given it returns ``None``, and the caller
        must pass the policy again. A policy with no settings needs only its tag.
        """
        f = f or Fields(None, "conflict policy")
        f.mapping(data, field, ("policy",))
        return cls()


# the base class is a policy too (the default kind, deciding nothing): a base given one saves
# it under its name, and must read it back (a restore, an undone change)
POLICIES[ConflictPolicy.__name__] = ConflictPolicy


def rivals_in(engine: Engine, region: set[Belief]) -> Iterator[list[Belief]]:
    """For each key of ``region`` with two or more standing (not withdrawn) values, those
    values, once per key: what a policy's :meth:`~ConflictPolicy.before_sweep` decides among.

    >>> from corollary.tms import Engine
    >>> engine = Engine(lambda source, now: (0.9, False))
    >>> one, two = engine.belief("ceo", "Alice", "Alice"), engine.belief("ceo", "Bob", "Bob")
    >>> [[b.value for b in values] for values in rivals_in(engine, {one, two})]
    [['Alice', 'Bob']]
    """
    seen: set[str] = set()
    for b in region:
        if b.key in seen:
            continue
        seen.add(b.key)
        values = engine.values_of(b.key)
        if len(values) < 2:
            continue
        standing = [r for r in values if r.withdrawn is None]
        if len(standing) > 1:
            yield standing


@attrs.frozen(slots=True)
class PreferHigherConfidence(ConflictPolicy):
    """The more confident value holds; the other is OUT while it loses.

    >>> PreferHigherConfidence().mode
    'confidence'
    """

    mode = "confidence"
    decides = True


def _order(value: Sequence[str]) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidTypeError("PreferSource takes a list of sources or kinds, most trusted first")
    for entry in value:
        if not isinstance(entry, str) or not entry:
            raise InvalidInputError(f"PreferSource entries must be non-empty strings, got {entry!r}")
    return tuple(value)


@attrs.frozen(slots=True)
class PreferSource(ConflictPolicy):
    """The value from the most preferred source wins (an entry is a source or a kind).

    >>> PreferSource(["human", "tool:registry"]).rank_of("tool:registry")
    1
    """

    order: tuple[str, ...] = attrs.field(converter=_order)
    mode = "rank"
    decides = True

    def rank_of(self, source: str) -> int:
        """The position of ``source`` (or its kind) in the order; unlisted sources rank last."""
        kind = source.partition(":")[0]
        for i, entry in enumerate(self.order):
            if entry == source or entry == kind:
                return i
        return len(self.order)

    def rank(self, b: Belief, now: float, world: float | None = None) -> int:
        """A value ranks by its best valid premise (not expired, and inside its valid time at
        ``world``, default ``now``); derived-only values rank last."""
        world = now if world is None else world
        return min((self.rank_of(p.source) for p in b.premises
                    if not p.expired(now) and p.valid_at(world)), default=len(self.order))

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        """Values ranked worse than the best-ranked standing value of their key lose; values
        tied on rank are left to the confidence sweep."""
        world = engine.world
        for standing in rivals_in(engine, region):
            ranked = [(self.rank(r, now, world), r.seq, r) for r in standing]
            top, _, leader = min(ranked, key=lambda t: (t[0], t[1]))
            for rank, _, r in ranked:
                if rank > top:
                    # it lost; its would-be confidence is set when the sweep reaches it
                    r.defeated_by = leader

    def to_dict(self) -> dict[str, Any]:
        return {"policy": "PreferSource", "order": list(self.order)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], f: Fields | None = None,
                  field: str = "conflicts", **unsaved: Any) -> ConflictPolicy | None:
        f = f or Fields(None, "conflict policy")
        f.mapping(data, field, ("policy", "order"))
        order = f.items(data["order"], f"{field}.order")
        for i, entry in enumerate(order):
            f.text(entry, f"{field}.order[{i}]")
        return cls(list(order))


#: How far below "the older one's strength minus the margin" a newer value may fall and still
#: supersede it: strengths are products of floats, so ``0.6 >= 0.9 - 0.3`` (``0.6000000000000001``)
#: is false in binary where it is true on paper. A difference under 1e-9 is no difference
#: (docs/model.md, "Time and change"); confidences are shown to two decimals.
MARGIN_TOLERANCE = 1e-9


def _margin(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(f"PreferNewer's margin must be a number in [0, 1], not "
                               f"{type(value).__name__}")
    if not 0.0 <= value <= 1.0:  # NaN too
        raise InvalidInputError(f"PreferNewer's margin must be in [0, 1], got {value!r}")
    return float(value)


@attrs.frozen(slots=True)
class PreferNewer(ConflictPolicy):
    """Between values of a key, the one whose validity starts later holds; the older is
    *superseded*: OUT from the newer one's start on, IN when read at a time inside its own
    interval (``kb.at(t)``), and never blamed (docs/model.md, "Time and change").

    A newer value supersedes an older one only if its confidence is at least the older one's
    minus ``margin``: a newer claim from a far less trusted source does not silently replace
    a strong one, and the two stay an open conflict (``kb.conflicts()``); the comparison allows
    :data:`MARGIN_TOLERANCE` (1e-9) for rounding, so 0.6 supersedes 0.9 with ``margin=0.3``.
    Values starting at the same instant are not ordered in time: they stand together too. A
    value with no premise (derived only) is dated through its reasons' inputs, and a reason a
    held exception defeats gives it no dates.

    >>> PreferNewer().margin, PreferNewer(0.1).to_dict()
    (0.2, {'policy': 'PreferNewer', 'margin': 0.1})
    """

    margin: float = attrs.field(default=0.2, converter=_margin)
    mode = "time"
    decides = True
    exclusive = False

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        """Defeat each value a newer one supersedes at the time read (the engine's world time,
        else ``now``); the successor is the earliest of the values that supersede it."""
        supersede(engine, region, now, self.margin)

    def to_dict(self) -> dict[str, Any]:
        return {"policy": "PreferNewer", "margin": self.margin}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], f: Fields | None = None,
                  field: str = "conflicts", **unsaved: Any) -> ConflictPolicy | None:
        f = f or Fields(None, "conflict policy")
        f.mapping(data, field, ("policy", "margin"))
        margin = f.number(data["margin"], f"{field}.margin")
        if not 0.0 <= margin <= 1.0:
            f.fail(f"{field}.margin", f"must be in [0, 1], not {margin!r}")
        return cls(margin)


#: The margin an end (``kb.end``) is decided by against the values it ends when no policy
#: orders values in time: PreferNewer's default (docs/model.md, "Ending a fact").
END_MARGIN = 0.2


def supersede(engine: Engine, region: set[Belief], now: float, margin: float,
              ends_only: bool = False) -> None:
    """PreferNewer's step before the sweep: defeat each value of a key in ``region`` that a
    value which began later supersedes at the time read (the engine's world time, else
    ``now``), if that one's strength is at least its own minus ``margin``; the successor is the
    earliest of those. ``ends_only``: only on keys with an end (``engine.ended``), and only
    between an end and another value (with no policy, an end is decided by time against the
    values it ends, and the other values of the key stay independent)."""
    world = now if engine.world is None else engine.world
    dating = _Dating(engine, world, now, engine.exceptions_read)
    ended = engine.ended
    for standing in rivals_in(engine, region):
        if ends_only and standing[0].key not in ended:
            continue
        dated = [(r, *dating.dates(r)[0]) for r in standing]
        for r, successor in _successions(dated, margin, ends_only):
            r.defeated_by = successor


def _successions(dated: list[tuple[Belief, float | None, float | None, float]], margin: float,
                 ends_only: bool = False) -> Iterator[tuple[Belief, Belief]]:
    """PreferNewer's rule over one key's dated values ``(value, holds, began, strength)``:
    each value a later-begun one supersedes, with its successor (the earliest of those)."""
    for r, holds, _, strength in dated:
        if holds is None:
            continue
        mine = ends_only and is_end(r.value)
        successor = None
        for other, _, began, other_strength in dated:
            if (other is not r and began is not None and began > holds
                    and (not ends_only or mine or is_end(other.value))
                    and other_strength >= strength - margin - MARGIN_TOLERANCE
                    and (successor is None or (began, other.seq) < successor[0])):
                successor = ((began, other.seq), other)
        if successor is not None:
            yield r, successor[1]


def superseded_at(engine: Engine, values: list[Belief], world: float, now: float,
                  margin: float) -> set[Belief]:
    """Of ``values``, one key's standing values each held by premises only, those a
    later-begun one supersedes at world time ``world`` (evidence aging by ``now``): the rule
    :func:`supersede` applies before a sweep, for a read that needs no sweep
    (:mod:`corollary.tms.world_reads`)."""
    dating = _Dating(engine, world, now)
    dated = [(b, *dating.premise_dates(b.records())) for b in values]
    return {r for r, _ in _successions(dated, margin)}


def superseder(engine: Engine, b: Belief) -> Belief | None:
    """The value that superseded ``b`` under :class:`PreferNewer` (labels as last computed),
    ``None`` if ``b`` is not superseded (held, lost some other way, or another policy)."""
    if b.best is not None or b.withdrawn is not None or b in engine.nogood_losses:
        return None
    if getattr(engine.conflict_policy, "mode", None) != "time":
        # with no policy, what a value loses to before the sweep is an end deciding it by
        # time, or an end superseded by a newer value
        if engine.conflict_policy.decides or b.key not in engine.ended:
            return None
    return b.defeated_by


def span_of(b: Belief, successor: Belief | None = None, engine: Engine | None = None,
            now: float | None = None) -> tuple[float | None, float | None]:
    """``(valid_from, valid_until)`` of a value by its premises: the earliest start, and the
    latest end (``None`` if one is open-ended), cut at the start of ``successor`` (the value
    that superseded it) when that comes first. A value with no premise starts when its inputs
    had all begun by ``now`` (given ``engine`` and ``now``; else ``(None, None)``)."""
    spans = [span for r in b.records() for span in record_intervals(r)] + _claim_spans(b)
    if not spans:
        if engine is None or now is None:
            return None, None
        began = _Dating(engine, now, now).through(b, frozenset())[0][1]
        if began is None:
            return None, None
        spans = [(began, None)]
    start = min(s for s, _ in spans)
    ends = [e for _, e in spans]
    end = None if any(e is None for e in ends) else max(ends)  # type: ignore[type-var]
    if successor is not None:
        later = [s for r in successor.records() for s, _ in record_intervals(r) if s > start]
        later += [s for s, _ in _claim_spans(successor) if s > start]
        if not successor.records() and engine is not None and now is not None:
            began = _Dating(engine, now, now).through(successor, frozenset())[0][1]
            later = [began] if began is not None and began > start else []
        if later and (end is None or min(later) < end):
            end = min(later)
    return start, end  # type: ignore[return-value]


#: ``(holds, began, strength)`` of a value at a world time (see :class:`_Dating`).
Dates = tuple["float | None", "float | None", float]
_UNDATED: Dates = (None, None, 0.0)


class _Dating:
    """The dates of values at world time ``world`` (evidence aging by ``now``), for one
    decision: ``(holds, began, strength)``, the latest start of a value's premises valid then
    (``None``: none is), the latest start of those begun by then, valid or not (``None``:
    none), and the agreement of those begun ones. Premises past their ttl count for none of
    them. A value with no premise is dated through its reasons (:meth:`through`), each derived
    value once per decision (a diamond of reasons is not walked once per path). A reason an
    exception defeats has no dates (docs/model.md, "Time and change"): ``held(key, vid)`` says
    whether an exception's item is held (default: as the engine last computed it; a sweep
    passes what it read before resetting its region)."""

    __slots__ = ("engine", "world", "now", "memo", "held")

    def __init__(self, engine: Engine, world: float, now: float,
                 held: Callable[[str, Any], bool] | None = None) -> None:
        self.engine = engine
        self.world = world
        self.now = now
        self.memo: dict[Belief, Dates] = {}
        self.held = held or (lambda key, vid: engine.holder((key, None, vid)) is not None)

    def dates(self, b: Belief, seen: frozenset[Belief] = frozenset()) -> tuple[Dates, bool]:
        """``b``'s dates, and whether a cycle was cut below it (such dates are not kept)."""
        records = b.records()
        if not records:
            return self.through(b, seen)
        holds, began, strength = self.premise_dates(records)
        if b in seen:  # a cycle back here: its premises only (dates that depend on the path)
            return (holds, began, strength), True
        cut = False
        for j in b.justs:  # a claim with a stated start competes in time beside the premises
            if j.live == DATED and valid_time_of(j)[0] is not None:
                d, below = self.reason(j, seen | {b})
                cut = cut or below
                if d is not None:
                    began = _later(began, d[1])
                    holds = _later(holds, d[0])
                    strength = max(strength, d[2])
        return (holds, began, strength), cut

    def premise_dates(self, records: list[PremiseRecord]) -> Dates:
        """The dates of a value's premises alone: those past their ttl count for none."""
        world, now, engine = self.world, self.now, self.engine
        holds: float | None = None
        began: float | None = None
        best: dict[str, float] = {}
        for record in records:
            if record_expired(record, now):
                continue
            begun = [(s, e) for s, e in record_intervals(record) if s <= world]
            if not begun:
                continue
            for s, e in begun:
                began = _later(began, s)
                if e is None or world < e:
                    holds = _later(holds, s)
            r, _ = engine.reliability(record_source(record), now)
            r, _ = record_strength(record, r, now)
            origin = record_origin(record)
            if r > best.get(origin, -1.0):
                best[origin] = r
        return holds, began, agreement(best, engine.corroboration) if best else 0.0

    def reason(self, j: Justification, seen: frozenset[Belief]) -> tuple[Dates | None, bool]:
        """One reason's dates (``None``: it has not begun), and whether a cycle was cut below.

        A reason began when the last of its inputs did, and holds from the latest start of its
        inputs if each holds. A claim with a stated ``valid_from`` (``kb.claim(...,
        valid_from=)``) began at that start instead, once it has come by ``world`` and each
        input has begun, and holds from it while its own interval and every input hold. Its
        strength is its step times its weakest input's (with no inputs, its step); a reason
        with no inputs and no stated start has no dates, and neither has one a held exception
        defeats: it supports nothing, so it supersedes nothing either."""
        if j.unless:
            held = self.held
            if any(held(key, vid) for key, _, vid in j.unless):
                return None, False
        start = valid_time_of(j)[0] if j.live == DATED else None
        if start is not None and start > self.world:
            return None, False
        dates = []
        cut = False
        for x in j.distinct:
            if x.withdrawn is not None:
                return None, cut
            d, below = self.dates(x, seen)
            cut = cut or below
            if d[1] is None:
                return None, cut  # an input that has not begun: the reason has not either
            dates.append(d)
        if not dates and start is None:
            return None, cut
        step, _ = self.engine.step_confidence(j, self.now)
        strength = step * min((d[2] for d in dates), default=1.0)
        holding = [d[0] for d in dates if d[0] is not None]
        if start is not None:
            inside = counts_at(j, self.world)[0] and len(holding) == len(dates)
            return ((start if inside else None), start, strength), cut
        began = max(d[1] for d in dates if d[1] is not None)
        return ((max(holding) if len(holding) == len(dates) else None), began, strength), cut

    def through(self, b: Belief, seen: frozenset[Belief]) -> tuple[Dates, bool]:
        """The dates of a derived value: a reason whose inputs have all begun began when the
        last of them did, and holds from the latest start of its inputs if each holds; its
        strength is its step times its weakest input's. The value takes the latest of its
        reasons' dates and the strongest of their strengths. A withdrawn value, a cycle back to
        a value on the way, and a reason with no inputs have none."""
        found = self.memo.get(b)
        if found is not None:
            return found, False
        if b in seen:
            return _UNDATED, True
        if b.withdrawn is not None:
            return _UNDATED, False
        seen = seen | {b}
        holds: float | None = None
        began: float | None = None
        strength = 0.0
        cut = False
        for j in b.justs:
            d, below = self.reason(j, seen)
            cut = cut or below
            if d is None or d[1] is None:  # (a reason that has begun always has a start)
                continue
            began = d[1] if began is None else max(began, d[1])
            if d[0] is not None:
                holds = d[0] if holds is None else max(holds, d[0])
            strength = max(strength, d[2])
        result: Dates = (holds, began, strength)
        if not cut:
            self.memo[b] = result
        return result, cut


def _later(t: float | None, other: float | None) -> float | None:
    """The later of two instants, ``None`` being none (earlier than any)."""
    if other is None:
        return t
    return other if t is None or other > t else t


def _claim_spans(b: Belief) -> list[tuple[float, float | None]]:
    """The valid times ``b``'s claims state with a start (``kb.claim(..., valid_from=)``)."""
    spans = []
    for j in b.justs:
        if j.live == DATED:
            start, end = valid_time_of(j)
            if start is not None:
                spans.append((start, end))
    return spans


@attrs.frozen(slots=True)
class AskHuman(ConflictPolicy):
    """Ask a person: ``ask(conflict)`` returns the winning value (or ``None`` to leave it open).

    For a nogood conflict (``conflict.nogood``) it returns what to give up instead: an item or a
    culprit premise, as a key or a ``(key, value)`` pair.
    """

    ask: Callable[[Conflict], Any] = attrs.field()
    learn: bool = attrs.field(default=True)
    mode = "ask"
    watches_changes = True

    @ask.validator
    def _check(self, _attribute: Any, value: Any) -> None:
        if not callable(value):
            raise InvalidTypeError("AskHuman needs a callable: ask(conflict) -> winning value")

    @learn.validator
    def _check_learn(self, _attribute: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise InvalidTypeError(f"learn must be True or False, not {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """The ``learn`` flag; the ``ask`` callable is not saved (pass the policy again)."""
        return {"policy": "AskHuman", "learn": self.learn}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], f: Fields | None = None,
                  field: str = "conflicts", **unsaved: Any) -> ConflictPolicy | None:
        f = f or Fields(None, "conflict policy")
        f.mapping(data, field, ("policy", "learn"))
        learn = f.boolean(data["learn"], f"{field}.learn")
        ask = unsaved.get("ask")
        return None if ask is None else cls(ask, learn=learn)

    def after_change(self, base: Any) -> None:
        """Ask about every open conflict; resolve those answered with a standing value.

        The change that raised a conflict has already been made and is valid: a failing or
        wrong answer must not undo it, so it leaves the conflict open, with a warning.
        """
        for _ in range(1000):
            open_conflicts = base.conflicts()
            if not open_conflicts:
                return
            progressed = False
            for conflict in open_conflicts:
                try:
                    winner = self.ask(conflict)
                except Exception as exc:  # a person's callback: report it, keep the base sound
                    warnings.warn(f"AskHuman: ask() raised {exc!r}; the conflict over "
                                  f"{conflict.key!r} stays open", RuntimeWarning, stacklevel=4)
                    continue
                if winner is None:
                    continue
                if conflict.nogood:  # the answer is what to give up: an item or a culprit
                    try:
                        base.resolve(conflict, give_up=winner, learn=self.learn)
                        progressed = True
                    except CorollaryError as exc:
                        warnings.warn(f"AskHuman: ask() answered {winner!r} for nogood "
                                      f"{conflict.key!r}, which cannot be given up ({exc}); it "
                                      "stays open", RuntimeWarning, stacklevel=4)
                    continue
                try:
                    known = canon(winner) in {canon(v) for v in conflict.values}
                except CorollaryError:
                    known = False
                if not known:
                    warnings.warn(f"AskHuman: ask() answered {winner!r}, not one of "
                                  f"{conflict.values}; the conflict over {conflict.key!r} stays "
                                  "open", RuntimeWarning, stacklevel=4)
                    continue
                base.resolve(conflict, winner, learn=self.learn)
                progressed = True
            if not progressed:
                return


def read_policy(data: Any, f: Fields | None = None, field: str = "conflicts",
                **unsaved: Any) -> ConflictPolicy | None:
    """The policy a document saved (``None`` for none), found in :data:`POLICIES` by its tag.

    ``None`` is also returned for a saved policy that needs something ``unsaved`` it was not
    given (see :meth:`ConflictPolicy.from_dict`).

    Raises
    ------
    SnapshotError
        ``data`` is not a policy any class registered, or not one its class reads back.
    """
    if data is None:
        return None
    f = f or Fields(None, "conflict policy")
    tag = data.get("policy") if isinstance(data, dict) else None
    known = POLICIES.get(tag) if isinstance(tag, str) else None
    if known is None:
        f.fail(field, f"is not a conflict policy corollary knows ({data!r:.80})")
    return known.from_dict(data, f, field, **unsaved)


def policy_from_dict(data: dict[str, Any] | None, ask: Callable[[Conflict], Any] | None = None
                     ) -> ConflictPolicy | None:
    """Rebuild a policy saved with a snapshot (an ``AskHuman`` needs its ``ask`` again, and is
    ``None`` without it); :func:`read_policy` with ``ask``."""
    unsaved: dict[str, Any] = {} if ask is None else {"ask": ask}
    return read_policy(data, **unsaved)

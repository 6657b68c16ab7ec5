"""``kb.end``: a source says a fact no longer holds from a time on (docs/model.md, "Ending a
fact").

An end is evidence like any other: a premise of its key from ``source``, valid from ``at``,
whose value is the reserved ``{"$ended": reason}`` (:func:`corollary.foundations.values.end_value`),
"no value from here on". So it has a source, a time and a confidence (the source's reliability,
times a stated certainty), it is kept in journals and snapshots as any premise is, and under
``PreferNewer`` it supersedes the value it ends exactly as a newer value would (the margin rule
included), and with no policy it is decided against the values of its key by the same rule;
retracting it brings back what it ended. Reads show it as nothing held
(:func:`corollary.facade.lookup.without_ends`).

A part of the facade (its method is the base's own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..changes.base_changes import End
from ..changes.subjects import ended
from ..foundations._validate import plain_text
from ..foundations.clock import Instant, to_instant
from ..foundations.errors import InvalidInputError, InvalidTypeError, UnknownBeliefError
from ..foundations.values import Value, canon, check_key, check_text, end_value, is_end
from .assertions import check_assertion, check_certainty, confirmations, put
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from ..tms import Belief, Engine
    from .base import BeliefBase

__all__ = ["check_end", "check_ends_in_time", "check_something_to_end", "corrected", "ended"]


def corrected(engine: Engine, key: str, source: str, start: float) -> Belief | None:
    """The value of ``key`` that ``source`` says holds from ``start`` itself, if any: an end
    from that source then would correct it away (a source's new value with the same start
    replaces its earlier one), saying it held at no time, which is a withdrawal."""
    for other in engine.values_of(key):
        own = None if is_end(other.value) else other.premise_from(source)
        if own is not None and own.valid_from == start:
            return other
    return None


def check_end_time(at: Any, now: float) -> float:
    """``at`` as POSIX seconds (``None``: ``now``); a finite number or an aware datetime."""
    if at is None:
        return now
    if isinstance(at, bool):
        raise InvalidTypeError("at is a time (POSIX seconds or an aware datetime), not a bool")
    seconds = to_instant(at, "at")
    if seconds is None or seconds - seconds != 0.0:
        raise InvalidInputError(f"at must be a finite time, got {at!r}")
    return seconds


@operation(change=End)
def end(kb: BeliefBase, key: str, value: Value = None, *, source: str, at: Instant | None = None,
        reason: str | None = None, certainty: float | None = None) -> None:
    """Say, on the word of ``source``, that ``key`` (or its value ``value``) no longer
    holds from world time ``at`` on (POSIX seconds or an aware ``datetime``; default now).

    The end is a premise like any other (docs/model.md, "Ending a fact"): its confidence
    is ``source``'s reliability (times ``certainty``, as for :meth:`assert_`), and under
    ``PreferNewer`` it supersedes the value held before ``at`` exactly as a newer value
    would, unless it is far less trusted (the margin): then the two stand as an open
    conflict. Reads then find nothing held (``kb.value`` gives the default), ``kb.at(t)``
    before ``at`` still reads the value, ``kb.explain`` says ``ended at ... by source
    ('reason')`` and ``kb.timeline`` shows the end. Retracting the end
    (``kb.retract(key, source=source)`` while it holds) brings back what it ended. A value
    starting after ``at`` supersedes the end in turn.

    ``value`` names the value being ended: it must hold at ``at`` (else nothing of what
    the source meant to end is there, and the call is refused). An end from the source of
    a value at that value's own start is refused too: it would say the value never held,
    which is a retraction (so an end is never the only value of its key). Ending orders
    facts in time: under ``PreferNewer``, and with no conflict policy (where an end is
    decided by time against the values of its key, with PreferNewer's default margin,
    and the other values stay independent); a policy that decides by something else
    (confidence, source, a person) refuses it
    (:class:`~corollary.foundations.errors.InvalidInputError`), and so does a key never
    seen (:class:`~corollary.foundations.errors.UnknownBeliefError`).

    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    >>> kb.assert_("ann:employer", "Acme", source="human:ann", valid_from=100)
    >>> kb.end("ann:employer", "Acme", source="human:ann", at=500,
    ...        reason="I no longer work at Acme")
    >>> kb.value("ann:employer"), kb.at(400).value("ann:employer")
    (None, 'Acme')
    >>> kb.retract("ann:employer", source="human:ann")  # the end was wrong
    >>> kb.value("ann:employer")
    'Acme'
    """
    make(kb, check_end(kb, End(key, value, source=source, at=at, reason=reason,
                               certainty=certainty)))


def check_end(kb: BeliefBase, change: End) -> End:
    """An :class:`~corollary.changes.End`'s checks (``kb.end``'s and ``apply``'s): its key,
    reason and certainty (what the base holds is checked by its effect); the checked value."""
    key, reason, certainty = check_key(change.key), change.reason, change.certainty
    if reason is not None:
        if not isinstance(reason, str):
            raise InvalidTypeError("reason must be a string")
        reason = check_text(plain_text(reason), "a reason")
    if certainty is not None:
        certainty = check_certainty(certainty)
    return checked(change, key=key, reason=reason, certainty=certainty)


def check_something_to_end(kb: BeliefBase, key: str, value: Value) -> None:
    """What an end needs of the base's state: a policy that orders values in time (or none),
    and something of ``key`` (of ``value``, when named) held. ``kb.end``'s effect checks it;
    a remember checks its end rows with it before it writes anything (so that a row ending
    what nothing holds leaves its documents and facts unwritten)."""
    check_ends_in_time(kb)
    check_something_held(kb, key, value)


def check_ends_in_time(kb: BeliefBase) -> None:
    """An end orders values in time: a base under ``PreferNewer``, or with no policy."""
    if kb.conflict_policy is not None and getattr(
            kb.conflict_policy, "mode", None) != "time":
        raise InvalidInputError(
            "ending a fact orders it in time: kb.end needs a base that prefers newer values "
            "(conflict_policy=PreferNewer()) or has no conflict policy; under "
            f"{type(kb.conflict_policy).__name__} retract the value instead "
            "(docs/model.md, 'Ending a fact')")


def check_something_held(kb: BeliefBase, key: str, value: Value) -> None:
    """Something of ``key`` (of ``value``, when named, not itself an end) is held."""
    if not kb.parts.engine.values_of(key):
        raise UnknownBeliefError(f"no belief about {key!r}: there is nothing to end")
    if value is not None:
        if is_end(value):
            raise InvalidInputError("value names the value being ended, not an end")
        if kb.parts.engine.find(key, canon(value)) is None:
            raise UnknownBeliefError(f"no belief {key} = {value!r}: there is nothing to end")


def apply_end(kb: BeliefBase, change: End) -> None:
    """The effect of a :class:`~corollary.changes.End` (``kb.end``'s, its key, reason and
    certainty checked, and its replay's): what the base holds checked, then the end."""
    (key, value, source, at, reason, certainty) = (
        change.key, change.value, change.source, change.at, change.reason, change.certainty)
    check_something_to_end(kb, key, value)
    now = kb.now()
    start = check_end_time(at, now)
    ending = end_value(reason)
    # the source, its origin and a tool's declared half-life and ttl, checked as for an
    # assertion (the end's own value is reserved: it is checked here, not there)
    key, _, _, source, origin, hl, tl = check_assertion(
        kb.parts.trust, key, "ended", source, None, None, None)
    if value is not None:
        if kb.at(start).label(key, value) != "IN":
            raise InvalidInputError(f"{key} = {value!r} does not hold at {start!r}: there is "
                                    "nothing of it to end then")
    engine = kb.parts.engine
    own = corrected(engine, key, source, start)
    if own is not None:
        raise InvalidInputError(
            f"{source} says {key} = {own.value!r} from that very time: ending it then "
            f"says it never held; retract it instead (kb.retract({key!r}, {own.value!r}, "
            f"source={source!r}))")
    vid = canon(ending)
    b = engine.find(key, vid)
    items = confirmations(kb.parts.lookup, b, key, ending, source, origin, now)
    batch = kb.parts.noting(key)
    if batch is None:
        kb.parts.record(items)
    put(engine, b, key, ending, vid, source, origin, hl, tl, now, certainty, start, None,
        history=True)
    kb.parts.after_change(kb, batch=batch, then=kb.parts.recorder(batch, items))

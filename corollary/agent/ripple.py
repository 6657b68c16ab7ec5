"""Why a fact the model was shown no longer holds: the ripple of a change, as the model reads it.

A run follows the engine's change feed (:class:`~corollary.tms.feed.LabelRecord`): between two
of the model's turns it hears which beliefs went from IN to OUT and which were removed. Each
line the model was shown that went is then named with its cause, read from the belief's own
reasons, whatever made them fail (docs/agent.md, "Why a fact no longer holds")::

    user:medication = "Thrynexol": it rested on user:health_condition, which changed
    user:exercise = "swimming": it rested on user:medication, which rested on user:health_condition, which changed
    note:ops = "the ops note": retracted: closed
    user:partner = "James": forgotten
    user:routine = "running": superseded by "cycling" (valid … → …), which took effect when user:health_condition changed

The causes are the engine's, not a list of operations: a value superseded or ended (its key's
timeline), retracted (withdrawn), forgotten (removed), expired, defeated by an exception, lost
to a rival, or left without support because an input it rested on went OUT; an input's own
cause is followed down to the change that started the ripple (at most :data:`DEPTH` links). So
any reason that names inputs (a model's claim, a rule's firing, a dependency declared as data)
ripples the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..facade.recall import render_value
from ..foundations.errors import CorollaryError
from ..foundations.values import canon, is_end
from ..tms import IN
from ..tms.records import ANY
from . import prompts
from .marks import mark_value, superseded, superseded_mark, timeline_of

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..tms.records import Belief, Item, Justification

#: How many links of "it rested on X, which rested on Y, ..." a cause names before it stops.
DEPTH = 3


def _present(kb: BeliefBase, b: Belief) -> Belief | None:
    """The engine's belief of ``b``'s key and value now (a forget may have made it anew, as
    when a document's words are redacted), ``None`` when it was removed."""
    return kb.engine.find(b.key, b.vid)  # type: ignore[no-any-return]


def _held(kb: BeliefBase, key: str, value: Any) -> bool:
    try:
        return kb.label(key, value) == IN  # brought up to now
    except CorollaryError:  # removed since: not held
        return False


def _item_held(kb: BeliefBase, item: Item) -> bool:
    key, value, vid = item
    if vid is ANY:
        return any(_held(kb, b.key, b.value) for b in kb.engine.values_of(key))
    return kb.engine.find(key, vid) is not None and _held(kb, key, value)


def _reasons(b: Belief, shown: Sequence[Justification]) -> list[Justification]:
    """``b``'s reasons now, and those it had when it was shown (a forget takes them away)."""
    found = list(shown)
    found += [j for j in b.justs if j not in found]
    return found


def gone_reason(kb: BeliefBase, b: Belief, shown: Sequence[Justification] = (),
                floor: float = 0.0) -> str | None:
    """Why ``b``, a belief the model was shown, is no longer shown; ``None`` when it still
    holds at or above ``floor`` (the base has nothing to say of it).

    ``shown``: its reasons when it was shown (a forgotten belief keeps none).

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferNewer())
    >>> kb.assert_("user:health_condition", "asthma", source="human:user")
    >>> kb.claim("user:medication", "Thrynexol", "model:x", ["user:health_condition"])
    'Thrynexol'
    >>> shown = kb.engine.find("user:medication", "Thrynexol")
    >>> _ = kb.clock.advance(60)
    >>> kb.assert_("user:health_condition", "diabetes", source="human:user")
    >>> gone_reason(kb, shown)
    'it rested on user:health_condition, which changed'
    """
    return _cause(kb, b, list(shown), floor, DEPTH, set())


def _cause(kb: BeliefBase, b: Belief, shown: list[Justification], floor: float, depth: int,
           seen: set[tuple[str, Any]]) -> str | None:
    now = _present(kb, b)
    if now is None:
        return _forgotten(kb, _reasons(b, shown))
    if now.withdrawn is not None:
        return now.withdrawn  # "retracted", or "retracted: <reason>"
    if _held(kb, now.key, now.value):
        confidence = kb.confidence(now.key, now.value)
        if confidence < floor:
            return prompts.BELOW_FLOOR.format(confidence=confidence, floor=floor)
        return None
    entry = superseded(timeline_of(kb, now.key), now.value)
    if entry is not None:  # a newer value (or an end) took its place
        return superseded_mark(entry) + _took_effect(kb, now.key, entry.superseded_by)
    note = now.why
    if note == "expired":
        return prompts.EXPIRED
    justs = _reasons(now, shown)
    if note == "an exception holds":
        held = [i for j in justs for i in j.unless if _item_held(kb, i)]
        return prompts.EXCEPTION.format(item=_item_text(held[0])) if held else note
    winner = now.defeated_by
    if winner is not None:  # no time policy: an end, or a rival, won against it
        return prompts.LOST.format(value=mark_value(winner.value))
    rested = _rested_on(kb, justs, floor, depth, seen | {(now.key, now.vid)})
    if rested:
        return prompts.RESTED_ON.format(inputs=rested)
    held = [other.value for other in kb.engine.values_of(now.key)
            if other.vid != now.vid and _held(kb, other.key, other.value)]
    if held:  # no reason left (its source said another value instead): what holds now
        return prompts.REPLACED.format(value=mark_value(held[0]))
    return prompts.NOTHING_SUPPORTS


def _forgotten(kb: BeliefBase, justs: Iterable[Justification]) -> str:
    """A removed belief: forgotten, with the input it went with when one was forgotten too."""
    gone = [i.key for j in justs for i in j.inputs if _present(kb, i) is None]
    if gone:
        return prompts.RESTED_ON.format(
            inputs=prompts.WHICH.format(key=gone[0], why=prompts.WAS_FORGOTTEN))
    return prompts.FORGOTTEN


def _rested_on(kb: BeliefBase, justs: Sequence[Justification], floor: float, depth: int,
               seen: set[tuple[str, Any]]) -> str:
    """``X, which changed`` for each input of ``justs`` no longer held, joined; empty when
    every input still holds."""
    said: dict[str, str] = {}
    for j in justs:
        for i in j.inputs:
            if i.key in said or (i.key, i.vid) in seen:
                continue
            if _present(kb, i) is not None and _held(kb, i.key, i.value):
                continue
            said[i.key] = prompts.WHICH.format(key=i.key, why=_input_why(kb, i, floor, depth,
                                                                        seen))
    return prompts.AND_ON.join(said.values())


def _input_why(kb: BeliefBase, i: Belief, floor: float, depth: int,
               seen: set[tuple[str, Any]]) -> str:
    """What became of an input no longer held, as a relative clause's verb."""
    now = _present(kb, i)
    if now is None:
        return prompts.WAS_FORGOTTEN
    if now.withdrawn is not None:
        return prompts.WAS_RETRACTED
    if any(_held(kb, other.key, other.value) and not is_end(other.value)
           for other in kb.engine.values_of(now.key) if other.vid != now.vid):
        return prompts.CHANGED  # another value of its key holds instead (even after an end)
    entry = superseded(timeline_of(kb, now.key), now.value)
    if entry is not None:
        return prompts.ENDED if is_end(entry.superseded_by) else prompts.CHANGED
    winner = now.defeated_by
    if winner is not None and is_end(winner.value):  # ended, with no time policy
        return prompts.ENDED
    if depth > 1:
        deeper = _rested_on(kb, list(now.justs), floor, depth - 1, seen | {(now.key, now.vid)})
        if deeper:
            return prompts.RESTED.format(inputs=deeper)
    return prompts.NO_LONGER_HOLDS


def _took_effect(kb: BeliefBase, key: str, newer: Any) -> str:
    """``, which took effect when X changed`` for a value that replaced another because an
    exception it had (``unless``) stopped holding: a declared replacement."""
    if is_end(newer):
        return ""
    winner = kb.engine.find(key, canon(newer))
    if winner is None:
        return ""
    for j in winner.justs:
        lifted = [item for item in j.unless if not _item_held(kb, item)]
        if lifted:
            return prompts.TOOK_EFFECT.format(key=lifted[0][0])
    return ""


def _item_text(item: Item) -> str:
    key, value, vid = item
    return key if vid is ANY else f"{key} = {render_value(value)}"


__all__ = ["DEPTH", "gone_reason"]

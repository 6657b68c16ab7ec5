"""Reading a key of several values at a world time straight from their premises.

``kb.at(t)`` reads a key as a what-if on the engine (:meth:`Engine.at_world`): it settles the
key's values at world time ``t`` by the sweep and the conflict policy, then puts every memo
back. For the commonest key of several values, every value held by premises only (no reason,
no nogood, no end) under :class:`~corollary.tms.conflicts.PreferNewer` or a policy that does
not decide, that is far more than the answer needs: which values hold at ``t`` follows from
each value's premises alone (their intervals, their ttl by ``now``, their strength), decided
as the policy's step before the sweep decides it (:func:`~corollary.tms.conflicts.supersede`,
through :func:`~corollary.tms.conflicts.superseded_at`, the same rule). :func:`held_at` answers such a
key directly, and says ``None`` for any other (the what-if then answers).

Between two instants at which one of the key's premises starts or stops holding, nothing the
answer reads changes with ``t`` (evidence ages by the clock, not by the world time): the answer
is one per such stretch. A key's stretches are kept (:class:`KeyTimes`) while the clock reads
the same time and the key's premises, their withdrawals and the sources' reliability stay as
they were, so reading the key again, at any ``t``, costs a bisection (docs/model.md, "Time and
change").
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from .conflicts import superseded_at
from .records import Belief, record_intervals

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine

#: Keys whose stretches an engine keeps at most; past it they are all dropped (a base read at
#: world times over more keys than this recomputes them, as it would without the memo).
MAX_KEYS = 65_536


class KeyTimes:
    """The answers for one key of several values, per stretch of world time, as of one state.

    What the answers depend on: the clock's time ``now``, the engine's trust ``epoch``, the
    ``policy`` (its ``margin`` under a time policy, else ``None``), and ``kept``, each value
    with its evidence, withdrawal and reasons (it has none) as they were. ``cuts`` are the
    sorted instants at which a premise of the key starts or stops holding; ``answers[i]`` the
    held values and their confidences for world times in ``[cuts[i-1], cuts[i])`` (``None``
    until first read).
    """

    __slots__ = ("now", "epoch", "policy", "margin", "kept", "cuts", "answers")

    def __init__(self, engine: Engine, slot: dict[Any, Belief], now: float,
                 margin: float | None) -> None:
        self.now = now
        self.epoch = engine.trust_epoch
        self.policy = engine.conflict_policy
        self.margin = margin
        self.kept = [(b, b.evidence, b.withdrawn, b.justs) for b in slot.values()]
        self.cuts = sorted({x for b in slot.values() for r in b.records()
                            for span in record_intervals(r) for x in span if x is not None})
        self.answers: list[list[tuple[Belief, float]] | None] = [None] * (len(self.cuts) + 1)



def held_at(engine: Engine, key: str, world: float, now: float) -> list[tuple[Belief, float]] | None:
    """The values of ``key`` held at world time ``world`` (evidence aging by ``now``), each
    with its confidence, in the key's order; ``None`` when the key is not one :func:`held_at`
    answers (see the module docstring): the caller then reads it as a what-if. The caller has
    brought outcomes and expiries up to ``now``.

    >>> from corollary.tms import Engine, Premise
    >>> from corollary.tms.conflicts import PreferNewer
    >>> engine = Engine(lambda source, now: (0.9, False), conflict_policy=PreferNewer())
    >>> for value, start in (("Oak St", 10.0), ("Pine Ave", 50.0)):
    ...     b = engine.belief("addr", value, value)
    ...     engine.set_premise(b, Premise("tool:crm", "tool:crm", 0.0, None, None,
    ...                                   valid_from=start))
    >>> [(b.value, c) for b, c in held_at(engine, "addr", 20.0, 100.0)]
    [('Oak St', 0.9)]
    >>> [b.value for b, _ in held_at(engine, "addr", 60.0, 100.0)]
    ['Pine Ave']
    """
    slot = engine.keys.get(key)
    # (inside a what-if the renewed premises are other records: what was kept does not hold)
    if type(slot) is not dict or engine.world is not None:
        return None
    if (engine.nogoods_by_key and key in engine.nogoods_by_key
            or engine.ended and key in engine.ended):
        return None
    times = engine.world_reads.get(key)
    # whether nothing the answers read has changed (identity checks, no copy made; written
    # here, not as a method: it runs on every read)
    if times is not None and (times.now != now or times.epoch != engine.trust_epoch
                              or times.policy is not engine.conflict_policy
                              or len(times.kept) != len(slot)):
        times = None
    if times is not None:
        for b, evidence, withdrawn, justs in times.kept:
            if (b.evidence is not evidence or b.withdrawn is not withdrawn
                    or b.justs is not justs or slot.get(b.vid) is not b):
                times = None
                break
    if times is None:
        times = _times(engine, key, slot, now)
        if times is None:
            return None
    i = bisect_right(times.cuts, world)
    answer = times.answers[i]
    if answer is None:
        answer = times.answers[i] = _decide(engine, [b for b, *_ in times.kept], world, now,
                                            times.margin)
    return answer


def _times(engine: Engine, key: str, slot: dict[Any, Belief], now: float) -> KeyTimes | None:
    """A key's :class:`KeyTimes`, kept on the engine; ``None`` for a key :func:`held_at` does
    not answer (a deciding policy other than a time policy, a value held by a reason or by
    nothing)."""
    policy = engine.conflict_policy
    timed = getattr(policy, "mode", None) == "time"
    if policy.decides and not timed:
        return None
    for b in slot.values():
        if b.justs or b.evidence is None:
            return None  # a value derived, or held by nothing: the what-if decides it
    memo = engine.world_reads
    if len(memo) >= MAX_KEYS:
        memo.clear()
    times = memo[key] = KeyTimes(engine, slot, now,
                                 policy.margin if timed else None)  # type: ignore[attr-defined]
    return times


def _decide(engine: Engine, values: list[Belief], world: float, now: float,
            margin: float | None) -> list[tuple[Belief, float]]:
    """The held values at ``world`` and their confidences: under a time policy (``margin``
    given), a value a later-begun one supersedes is not held (the rule of
    :func:`~corollary.tms.conflicts.supersede`); every other value is held by its premises
    valid at ``world``, if any."""
    standing = [b for b in values if b.withdrawn is None]
    defeated: set[Belief] = set()
    if margin is not None and len(standing) > 1:
        defeated = superseded_at(engine, standing, world, now, margin)
    held = []
    engine.world = world
    try:
        for b in standing:
            if b not in defeated:
                c, _, _ = engine.premise_confidence(b, now)
                if c is not None:
                    held.append((b, c))
    finally:
        engine.world = None
    return held

"""``kb.claim``: a model's claim, reasoned from held inputs, checked where it can be.

A method of :class:`~corollary.BeliefBase` (bound in its class body): it validates every
argument (the claim's shape, its inputs held, its exceptions, that it makes no cycle through
the strata) before anything changes, records the checks' outcomes with the change, and adds one
justification. What a claim's checks mean is :mod:`corollary.reasons.claims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..changes.base_changes import Claim
from ..foundations._validate import check_bool, plain_text
from ..foundations.clock import Instant
from ..foundations.values import Value
from ..reasons.claims import check_claim as check_reasoned
from ..tms import Justification, make_items, strata
from .assertions import check_valid_time
from .blame import Verdict
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

__all__ = ["check_claim", "claim"]


@operation(change=Claim)
def claim(
    kb: BeliefBase,
    key: str,
    value: Value,
    source: str = "model:default",
    inputs: Sequence[str] | Mapping[str, str] = (),
    certainty: float | None = None,
    formula: str | None = None,
    citation: object = None,
    *,
    unless: Sequence[str | tuple[str, Value]] = (),
    learn: bool | None = None,
    valid_from: Instant | None = None,
    valid_until: Instant | None = None,
) -> Value:
    """Record a model's claim ``key = value``, reasoned from the held ``inputs``.

    A ``formula`` over the inputs' names is re-executed: if it reproduces ``value`` the step
    is verified (``1.0 × certainty``), otherwise the re-executed value is believed instead
    and the model is wrong. A ``citation`` (document key and quote) is checked against the
    document's text. ``unless`` lists exceptions (keys, or ``(key, value)`` pairs): the
    claim holds only while none of them is held, and comes back by itself when they go.
    ``learn`` says whether the checks are outcomes of ``source`` for this claim (default
    ``None``: the base's ``learn_from_checks``). ``valid_from``/``valid_until`` (POSIX
    seconds or timezone-aware ``datetime``) say when the claimed value holds in the world:
    outside that interval the claim does not count, and under ``PreferNewer`` a claim with
    a ``valid_from`` is ordered in time as a premise with one is (docs/model.md, "Time and
    change"). Returns the value believed. See :mod:`corollary.reasons.claims`.
    """
    made: Value = make(kb, check_claim(kb, Claim(
        key, value, source, inputs, certainty, formula, citation, unless=unless, learn=learn,
        valid_from=valid_from, valid_until=valid_until)))
    return made


def check_claim(kb: BeliefBase, change: Claim) -> Claim:
    """A :class:`~corollary.changes.Claim`'s checks (``kb.claim``'s and ``apply``'s): its
    source, world time and ``learn`` (its inputs and formula are checked by its effect,
    against what the base holds); the checked value."""
    learn = change.learn
    if learn is not None:
        learn = check_bool(learn, "learn")
    valid_from, valid_until = check_valid_time(change.valid_from, change.valid_until)
    source = plain_text(change.source)
    kb.parts.trust.check_source(source, "claims come from sources")
    return checked(change, learn=learn, valid_from=valid_from, valid_until=valid_until,
                   source=source)


def apply_claim(kb: BeliefBase, change: Claim) -> Value:
    """The effect of a :class:`~corollary.changes.Claim` (``kb.claim``'s, its source, world
    time and ``learn`` checked, and its replay's): the inputs and formula checked against what
    the base holds, then the justification."""
    (key, value, source, inputs, certainty, formula, citation, unless, learn, valid_from,
     valid_until) = (
        change.key, change.value, change.source, change.inputs, change.certainty, change.formula,
        change.citation, change.unless, change.learn, change.valid_from, change.valid_until)
    learn = kb.learn_from_checks if learn is None else learn
    vf, vu = valid_from, valid_until
    exceptions = make_items(unless, "unless")
    checked = check_reasoned(key, value, source, inputs, certainty, formula, citation,
                             kb.parts.lookup.held_belief)
    strata.check_reason(kb.parts.engine, checked.key, checked.vid, checked.inputs, exceptions)
    items: list[Verdict] = []
    if learn and checked.checks:
        now = kb.parts.sync.outcomes()
        rel, _ = kb.parts.trust.reliability(source, now)
        signal = rel * checked.certainty * min((b.conf for b in checked.inputs), default=1.0)
        items = [(source, ok, why, checked.key, signal) for ok, why in checked.checks]
    engine = kb.parts.engine
    batch = kb.parts.noting(checked.key)
    if batch is None:
        kb.parts.record(items)
    out = engine.belief(checked.key, checked.believed, checked.vid)
    if out.withdrawn is not None:  # a withdrawn value claimed afresh: its old evidence stays withdrawn
        engine.withdraw_reasons(out)
        engine.reinstate(out)
    info = checked.info
    if vf is not None or vu is not None:  # the claim's own valid time (kinds.VALID_TIME)
        info = {**info, **({} if vf is None else {"valid_from": vf}),
                **({} if vu is None else {"valid_until": vu})}
    j = engine.add_justification(Justification(checked.kind, source, out, checked.inputs,
                                               checked.certainty, info, exceptions))
    kb.parts.after_change(kb, batch=batch, made=[j], then=kb.parts.recorder(batch, items))
    believed: Value = checked.believed
    return believed

"""Who answers for a belief, and the outcomes a base records about its sources.

A belief's *accountable* sources are its premise sources and the sources of its accountable
steps (a model's unverified claim); rules and re-executed formulas are never at fault.
:func:`blame` says who gets a wrong outcome when a value is retracted with
``fault="source"``, and :func:`outcome_events` turns one operation's outcomes into the
ledger's batch, with event ids that make a retried operation record nothing twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..foundations.errors import BlameError

if TYPE_CHECKING:  # pragma: no cover
    from ..tms import Belief, Justification

__all__ = ["FAULTS", "Verdict", "accountable", "blame", "outcome_events", "sources_of"]

#: What ``BeliefBase.retract(fault=...)`` may say: the world changed, or the source was wrong.
FAULTS = ("none", "source")

#: One outcome to record: ``(source, correct, reason, key, confidence)``.
Verdict = tuple[str, bool, "str | None", "str | None", "float | None"]


def accountable(b: Belief) -> set[str]:
    """Who answers for ``b``: its premise sources and the sources of accountable steps."""
    found = {p.source for p in b.premises}
    found.update(j.name for j in b.justs if j.kind.accountable)
    return found


def sources_of(b: Belief) -> list[str]:
    """Who answers for ``b``, sorted (for conflicts and culprits)."""
    return sorted(accountable(b))


def blame(b: Belief, source: str | None, has_premise: bool,
          claims: Sequence[Justification]) -> list[str]:
    """Who gets a wrong outcome when ``b`` is retracted with ``fault="source"``: every
    accountable source of ``b``, or ``source`` alone when only its reasons (its premise if
    ``has_premise``, its ``claims``) are withdrawn. Raises
    :class:`~corollary.foundations.errors.BlameError` when nobody is accountable (only rules, or only
    formulas re-executed, hold it): the input that was wrong is what to retract."""
    if source is None:
        blamed = sources_of(b)
    elif has_premise or any(j.kind.accountable for j in claims):
        blamed = [source]
    else:
        blamed = []  # only re-executed formulas by that model: never at fault
    if not blamed:
        steps = sorted({f"{j.kind.name} {j.name}" for j in (claims or b.justs)})
        raise BlameError(
            f"{b.key} = {b.value!r} rests only on {', '.join(steps) or 'nothing'}: rules and "
            "re-executed formulas are never at fault; retract the input that was wrong"
        )
    return blamed


def outcome_events(base_id: str, op: int, items: Sequence[Verdict], at: float,
                   topic: str | None) -> list[dict[str, Any]]:
    """The ledger batch of one operation's outcomes. Event ids derive from the base, the
    operation's number and the outcome, so retrying an operation whose outcomes were stored
    (a store that committed, then failed to say so) stores nothing twice.

    >>> [e["event_id"] == outcome_events("b", 0, [("tool:t", True, None, "k", 0.9)], 1.0,
    ...                                  None)[0]["event_id"]
    ...  for e in outcome_events("b", 0, [("tool:t", True, None, "k", 0.9)], 2.0, None)]
    [True]
    """
    batch = []
    for i, (source, correct, reason, key, conf) in enumerate(items):
        ident = repr((base_id, op, i, source, correct, reason, key, topic))
        batch.append({
            "source": source, "correct": correct, "reason": reason, "at": at, "key": key,
            "topic": topic, "confidence": conf,
            "event_id": hashlib.blake2b(ident.encode(), digest_size=16).hexdigest(),
        })
    return batch

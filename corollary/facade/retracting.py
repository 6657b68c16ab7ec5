"""``kb.retract``: a held value withdrawn, or one source's reasons for it.

A method of :class:`~corollary.BeliefBase` (bound in its class body): the arguments are checked
and the belief found before anything changes; blame (``fault="source"``) is recorded with the
change (who is accountable: :mod:`corollary.facade.blame`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..changes.base_changes import Retract
from ..foundations._validate import plain_text
from ..foundations.errors import InvalidInputError, InvalidTypeError, UnknownBeliefError
from ..foundations.values import Value, check_key, check_text
from .blame import FAULTS, Verdict, blame
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

__all__ = ["check_retract", "retract"]


@operation(change=Retract)
def retract(kb: BeliefBase, key: str, value: Value = None, reason: str | None = None,
            fault: str = "none", *, source: str | None = None) -> None:
    """Withdraw the held value of ``key`` (or ``value``), or one source's reasons for it.

    ``fault="source"`` says the value was wrong when given: every accountable source (the
    premise sources, or the model behind an unverified claim) gets a wrong outcome.
    ``fault="none"`` (the default) says the world changed, and records nothing.

    With ``source``, only that source's reasons are withdrawn: its premise, or the claims
    that model made for the value; the belief stays IN if other reasons hold it, and blame
    (``fault="source"``) falls on that source alone.
    """
    make(kb, check_retract(kb, Retract(key, value, reason, fault, source=source)))


def check_retract(kb: BeliefBase, change: Retract) -> Retract:
    """A :class:`~corollary.changes.Retract`'s checks (``kb.retract``'s and ``apply``'s):
    its key, fault, reason and source; the checked value."""
    key, fault, reason, source = change.key, change.fault, change.reason, change.source
    key = check_key(key)
    if type(fault) is not str or fault not in FAULTS:
        raise InvalidInputError(f"fault must be 'none' or 'source', got {fault!r}")
    if reason is not None:
        if not isinstance(reason, str):
            raise InvalidTypeError("reason must be a string")
        reason = check_text(plain_text(reason), "a reason")
    if source is not None:
        source = plain_text(source)
        kb.parts.trust.check_source(source, "only a source's reasons can be withdrawn")
    return checked(change, key=key, reason=reason, source=source)


def apply_retract(kb: BeliefBase, change: Retract) -> None:
    """The effect of a :class:`~corollary.changes.Retract` (``kb.retract``'s, its arguments
    checked, and its replay's): the belief found, blame recorded with the change."""
    (key, value, reason, fault, source) = (
        change.key, change.value, change.reason, change.fault, change.source)
    b = kb.parts.lookup.target(key, value)
    if value is None and kb.parts.log is not None:  # history names the value it took
        kb.parts.log.resolved("retracted", b.value)
    premise, claims = None, []
    if source is not None:
        premise = b.premise_from(source)
        claims = [j for j in b.justs if not j.kind.by_rule and j.name == source]
        if premise is None and not claims:
            raise UnknownBeliefError(f"{key} = {b.value!r} has no reason from {source}")
    items: list[Verdict] = []
    if fault == "source":
        blamed = blame(b, source, premise is not None, claims)
        conf = kb.parts.lookup.confidence_of(b)
        why = reason or f"{key} = {b.value!r} was wrong"
        items = [(s, False, why, key, conf) for s in blamed]
    batch = kb.parts.noting(key)
    if batch is None:
        kb.parts.record(items)
    if source is None:
        kb.parts.engine.withdraw(b, "retracted" + (f": {reason}" if reason else ""))
    else:
        if premise is not None:
            kb.parts.engine.drop_premise(b, source)
        for j in claims:
            kb.parts.engine.remove_justification(j)
    kb.parts.after_change(kb, batch=batch, then=kb.parts.recorder(batch, items))

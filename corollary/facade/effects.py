"""What each of the base's own changes does to it: one effect function per change value, in one
table (:data:`EFFECTS`), written out here (never filled by a class being defined).

A changing method of the base checks its arguments, builds its value and makes it
(:func:`corollary.facade.making.make`); making it runs the effect this table holds for the
value's class, on a plain base at once and in a session as one journal entry, and a journal's
replay reads the value back from the entry and runs the same effect. A user's own change is
registered apart (:func:`corollary.changes.register_change`). The effects of the methods
written in the class body (``add_tool``, ``add_rule``, ``remove_rule``, ``record_outcome``) are
here; the others are in the module of their concept.

>>> from corollary.changes import Retract
>>> EFFECTS[Retract].__name__
'apply_retract'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..changes.base_changes import (
    AddRule,
    AddTool,
    Answer,
    Assert,
    AssertMany,
    Call,
    Claim,
    Depend,
    End,
    FitCalibrator,
    Forget,
    Guarantee,
    Nogood,
    RecordOutcome,
    Remember,
    RemoveGuarantee,
    RemoveRule,
    ReplaceWhen,
    Resolve,
    Retract,
)
from ..foundations._validate import plain_text
from ..foundations.errors import BlameError, InvalidInputError, InvalidTypeError, NameTakenError
from ..foundations.values import check_key
from ..reasons.rules import Rule
from ..reasons.tools import ToolSpec, spec_of
from ..trust.policy import STEP_KINDS
from .assertions import apply_assert, apply_assert_many, check_assert, check_assert_many
from .base_operations import rule_named
from .calling import apply_call, check_call
from .claiming import apply_claim, check_claim
from .depending import apply_depend, apply_replace_when, check_depend, check_replace_when
from .ending import apply_end, check_end
from .forgetting import apply_forget, check_forget
from .making import Check, Effect, checked
from .promising import (
    apply_answer,
    apply_fit_calibrator,
    apply_guarantee,
    apply_remove_guarantee,
    check_answer,
    check_guarantee,
    check_promise_change,
)
from .remembering import apply_remember, check_remember
from .resolving import apply_nogood, apply_resolve, check_nogood, check_resolve
from .retracting import apply_retract, check_retract

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

__all__ = ["CHECKS", "EFFECTS", "apply_add_rule", "apply_add_tool", "apply_record_outcome",
           "apply_remove_rule", "check_add_rule", "check_add_tool", "check_record_outcome",
           "check_remove_rule"]


def check_add_tool(kb: BeliefBase, change: AddTool) -> AddTool:
    """An :class:`~corollary.changes.AddTool`'s checks (``kb.add_tool``'s and ``apply``'s):
    a ``@tool`` function (a name the base holds otherwise is its effect's); the value."""
    spec_of(change.fn)  # a @tool function, or InvalidTypeError
    return change


def check_add_rule(kb: BeliefBase, change: AddRule) -> AddRule:
    """An :class:`~corollary.changes.AddRule`'s checks: a ``@rule`` function; the value."""
    if not isinstance(change.r, Rule):
        raise InvalidTypeError("rules must be @rule functions")
    return change


def check_remove_rule(kb: BeliefBase, change: RemoveRule) -> RemoveRule:
    """A :class:`~corollary.changes.RemoveRule`'s checks: a ``@rule`` function (one the base
    holds is its effect's); the value."""
    if not isinstance(change.r, Rule):
        raise InvalidTypeError("remove_rule takes a @rule function")
    return change


def check_record_outcome(kb: BeliefBase, change: RecordOutcome) -> RecordOutcome:
    """A :class:`~corollary.changes.RecordOutcome`'s checks (``kb.record_outcome``'s and
    ``apply``'s): a source, not a reasoning step, and its key; the checked value."""
    source = plain_text(change.source)
    if kb.parts.trust.kind_of(source) in STEP_KINDS:
        raise BlameError(f"{source!r} is a reasoning step: outcomes belong to sources")
    key = None if change.key is None else check_key(change.key)
    return checked(change, source=source, key=key)


def apply_add_tool(kb: BeliefBase, change: AddTool) -> None:
    """The effect of an :class:`~corollary.changes.AddTool`: the tool's declaration applied
    to its premises. Another declaration under a name the base holds is refused, checked
    here, under a session's lock once other writers' entries are in; a declaration read back
    from an entry passed that check when it was written."""
    fn = change.fn
    spec = fn if isinstance(fn, ToolSpec) else spec_of(fn)
    held = kb.parts.trust.tools.get(spec.name)
    if held is not None and held != spec and not isinstance(fn, ToolSpec):
        raise NameTakenError(f"this base has another tool named {spec.name!r} ({held}); "
                             "give the new one another name")
    kb.parts.trust.add_tool(spec)
    kb.parts.engine.mark_source(spec.source)


def _rule(kb: BeliefBase, r: Rule | str) -> Rule:
    return r if isinstance(r, Rule) else rule_named(kb, r)


def apply_add_rule(kb: BeliefBase, change: AddRule) -> None:
    """The effect of an :class:`~corollary.changes.AddRule`: the rule added, fired at once
    for inputs already held (a rule's name, read back from an entry: the rule of that name)."""
    r = _rule(kb, change.r)
    rules = kb.parts.rules
    if rules.add(r):
        kb.parts.watch_changes(kb.conflict_policy)
        try:
            kb.parts.after_change(kb, extra_rules=[r])
        except BaseException:
            # its firings are undone; so is adding it
            rules.remove(r)
            kb.parts.watch_changes(kb.conflict_policy)
            raise
        rules.removed.discard(r.name)


def apply_remove_rule(kb: BeliefBase, change: RemoveRule) -> None:
    """The effect of a :class:`~corollary.changes.RemoveRule`: the rule and every
    justification it made removed (what rested only on them goes OUT)."""
    r = _rule(kb, change.r)
    if r not in kb.parts.rules:
        raise InvalidInputError(f"rule {r.name} is not in this base")
    kb.parts.rules.remove(r)
    kb.parts.rules.removed.add(r.name)
    kb.parts.engine.remove_rule_reasons(r.name)
    kb.parts.watch_changes(kb.conflict_policy)
    kb.parts.after_change(kb)


def apply_record_outcome(kb: BeliefBase, change: RecordOutcome) -> None:
    """The effect of a :class:`~corollary.changes.RecordOutcome`: the outcome in the ledger,
    with the confidence of ``key``'s belief now when it names one."""
    conf = None if change.key is None else kb.parts.lookup.held_confidence(change.key)
    kb.parts.record([(change.source, change.correct, change.reason, change.key, conf)],
                    at=change.at, topic=change.topic)


#: The effect of each of the base's own changes, by value class.
EFFECTS: Mapping[type[Any], Effect] = {
    Assert: apply_assert,
    AssertMany: apply_assert_many,
    Claim: apply_claim,
    Retract: apply_retract,
    Resolve: apply_resolve,
    RecordOutcome: apply_record_outcome,
    Nogood: apply_nogood,
    End: apply_end,
    Forget: apply_forget,
    Depend: apply_depend,
    ReplaceWhen: apply_replace_when,
    AddRule: apply_add_rule,
    RemoveRule: apply_remove_rule,
    AddTool: apply_add_tool,
    Guarantee: apply_guarantee,
    RemoveGuarantee: apply_remove_guarantee,
    FitCalibrator: apply_fit_calibrator,
    Answer: apply_answer,
    Call: apply_call,
    Remember: apply_remember,
}


#: The checks of each of the base's own changes, by value class: the function its method runs
#: before it makes the value, which :func:`corollary.changes.apply` runs on a value given it
#: (so the value is checked once and built once). A check that needs the base's state at the
#: time the change runs stays in the effect (docs/extending.md, "Where the checks sit").
CHECKS: Mapping[type[Any], Check] = {
    Assert: check_assert,
    AssertMany: check_assert_many,
    Claim: check_claim,
    Retract: check_retract,
    RecordOutcome: check_record_outcome,
    End: check_end,
    Depend: check_depend,
    ReplaceWhen: check_replace_when,
    AddRule: check_add_rule,
    RemoveRule: check_remove_rule,
    AddTool: check_add_tool,
    Answer: check_answer,
    Resolve: check_resolve,
    Nogood: check_nogood,
    Forget: check_forget,
    Guarantee: check_guarantee,
    RemoveGuarantee: check_promise_change,
    FitCalibrator: check_promise_change,
    Call: check_call,
    Remember: check_remember,
}

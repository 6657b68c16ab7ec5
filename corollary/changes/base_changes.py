"""One value per changing method of the base (issue 36, item 1).

Each value's fields are its method's parameters, in their order and with their defaults; ``op``
is the method's operation (the journal entry it makes), and applying it
(:func:`corollary.changes.apply`) is calling that method with its fields: the method validates,
changes the base all or nothing, and (in a session) writes the entry its ``@operation``
declaration keeps (:mod:`corollary.facade.operations`), so an entry written through a value is
byte for byte the one the method writes. A value's subjects are its method's history rows.

Examples
--------
>>> from corollary import BeliefBase, ManualClock
>>> from corollary.changes import Assert, Retract, apply
>>> kb = BeliefBase(clock=ManualClock(0))
>>> apply(kb, Assert("hq", "Austin", "tool:registry"))
>>> kb.value("hq")
'Austin'
>>> Assert("hq", "Austin", "tool:registry").subjects(None, {})
[['hq', 'Austin', 'tool:registry', None]]
>>> apply(kb, Retract("hq")); kb.value("hq") is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

import attrs

from ..foundations.errors import InvalidInputError
from .change import Change, Subject, fields_said
from .subjects import (
    NO_VALUE,
    Subjects,
    by_key,
    claimed,
    ended,
    forget_subjects,
    named_items,
    named_rows,
    names_nothing,
    outcome_of,
    remembered,
    resolved_conflict,
    retracted,
    the_key,
    tool_result,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..foundations.clock import Duration, Instant
    from ..foundations.scope import Scope
    from ..foundations.values import Value
    from ..promises.options import GuaranteeOptions
    from ..reasons.calls import PreparedCall
    from ..reasons.rules import Rule
    from ..tms.conflicts import Conflict

__all__ = ["AddRule", "AddTool", "Answer", "Assert", "AssertMany", "BaseChange", "Call", "Claim",
           "Depend", "End",
           "FitCalibrator", "Forget", "Guarantee", "Nogood", "RecordOutcome", "Remember",
           "RemoveGuarantee", "RemoveRule", "ReplaceWhen", "Resolve", "Retract", "dependency"]


@attrs.frozen(slots=True)
class BaseChange(Change):
    """A change the base makes with one of its own methods (``method``), whose history rows
    its declaration names (``named``: that function, the one item of a tuple)."""

    method: ClassVar[str] = ""
    named: ClassVar[tuple[Subjects]] = (names_nothing,)

    def arguments(self) -> dict[str, object]:
        """Its fields by name: the method's keyword arguments."""
        return {f.name: getattr(self, f.name) for f in attrs.fields(type(self))}

    def said(self) -> dict[str, object]:
        """The method's keyword arguments as said: the fields not left at their default (so
        a session's entry keeps what a call of the method with them keeps, not every
        default: a LangGraph put's entry stays its size)."""
        return fields_said(self)

    def apply_to(self, base: BeliefBase) -> object:
        """Make the change: the base's method, with the value's fields (:meth:`said`)."""
        method: Callable[..., object] = getattr(base, self.method)
        return method(**self.said())

    def subjects(self, result: object, resolved: Mapping[str, object]) -> list[Subject]:
        """Its method's history rows for these arguments."""
        return type(self).named[0](self.arguments(), result, resolved)


@attrs.frozen(slots=True)
class Assert(BaseChange):
    """``kb.assert_``: ``key = value`` on the word of ``source``."""

    op = method = "assert_"
    named = (by_key,)
    key: str
    value: Value
    source: str
    origin: str | None = None
    half_life: Duration | None = None
    ttl: Duration | None = None
    certainty: float | None = None
    valid_from: Instant | None = None
    valid_until: Instant | None = None


@attrs.frozen(slots=True)
class AssertMany(BaseChange):
    """``kb.assert_many``: many rows at once."""

    op = method = "assert_many"
    named = (named_rows,)
    rows: Iterable[Sequence[object] | Mapping[str, object]]


@attrs.frozen(slots=True)
class Claim(BaseChange):
    """``kb.claim``: a model's claim reasoned from held inputs."""

    op = method = "claim"
    named = (claimed,)
    key: str
    value: Value
    source: str = "model:default"
    inputs: Sequence[str] | Mapping[str, str] = ()
    certainty: float | None = None
    formula: str | None = None
    citation: object = None
    unless: Sequence[str | tuple[str, Value]] = ()
    learn: bool | None = None
    valid_from: Instant | None = None
    valid_until: Instant | None = None


@attrs.frozen(slots=True)
class Retract(BaseChange):
    """``kb.retract``: withdraw a held value, or one source's reasons for it."""

    op = method = "retract"
    named = (retracted,)
    key: str
    value: Value = None
    reason: str | None = None
    fault: str = "none"
    source: str | None = None


@attrs.frozen(slots=True)
class Nogood(BaseChange):
    """``kb.nogood``: ``items`` cannot all be held."""

    op = method = "nogood"
    named = (named_items,)
    items: tuple[str | tuple[str, Value], ...]
    name: str | None = None

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The items as positional arguments, as ``kb.nogood(*items)`` keeps them."""
        return tuple(self.items), ({} if self.name is None else {"name": self.name})

    @classmethod
    def from_entry(cls, args: Sequence[object], kwargs: Mapping[str, object]) -> Change:
        """The items from the entry's positional arguments."""
        return cls(tuple(args), **kwargs)  # type: ignore[arg-type]  # checked by kb.nogood

    def apply_to(self, base: BeliefBase) -> object:
        """``kb.nogood(*items, name=name)``."""
        return base.nogood(*self.items, name=self.name)


@attrs.frozen(slots=True)
class Resolve(BaseChange):
    """``kb.resolve``: a conflict settled by a person."""

    op = method = "resolve"
    named = (resolved_conflict,)
    conflict: Conflict | str
    winner: Value = None
    learn: bool = True
    give_up: object = None


@attrs.frozen(slots=True)
class RecordOutcome(BaseChange):
    """``kb.record_outcome``: your own ground truth about a source."""

    op = method = "record_outcome"
    named = (outcome_of,)
    source: str
    correct: bool
    reason: str | None = None
    at: float | None = None
    topic: str | None = None
    key: str | None = None


@attrs.frozen(slots=True)
class End(BaseChange):
    """``kb.end``: a source says a fact no longer holds from a time on."""

    op = method = "end"
    named = (ended,)
    key: str
    value: Value = None
    source: str = ""
    at: Instant | None = None
    reason: str | None = None
    certainty: float | None = None

    def said(self) -> dict[str, object]:
        """The fields not at their default, and ``source`` always: ``kb.end`` requires one,
        so an ``End`` left without one gets the method's own check (``InvalidInputError``),
        not a ``TypeError`` for a missing argument."""
        return {**BaseChange.said(self), "source": self.source}


@attrs.frozen(slots=True)
class Forget(BaseChange):
    """``kb.forget``: a key, a document, a source or a scope erased."""

    op = method = "forget"
    named = (forget_subjects,)
    key: str | None = None
    value: object = NO_VALUE
    source: str | None = None
    scope: str | Iterable[str] | Scope | None = None
    reason: str | None = None
    by: str | None = None


@attrs.frozen(slots=True)
class AddTool(BaseChange):
    """``kb.add_tool``: a tool's declared trust applied to its premises."""

    op = method = "add_tool"
    fn: Callable[..., object]


@attrs.frozen(slots=True)
class AddRule(BaseChange):
    """``kb.add_rule``: a rule, fired at once for inputs already held."""

    op = method = "add_rule"
    r: Rule


@attrs.frozen(slots=True)
class RemoveRule(BaseChange):
    """``kb.remove_rule``: a rule and every justification it made removed."""

    op = method = "remove_rule"
    r: Rule


@attrs.frozen(slots=True)
class Guarantee(BaseChange):
    """``kb.guarantee``: a promise attached (``settings``: its keyword settings)."""

    op = method = "guarantee"
    name: str = "default"
    examples: Iterable[object] | None = None
    options: GuaranteeOptions | None = None
    settings: Mapping[str, object] = attrs.field(factory=dict)

    def arguments(self) -> dict[str, object]:
        """The method's keyword arguments, the settings spread among them."""
        return {"name": self.name, "examples": self.examples, "options": self.options,
                **self.settings}

    def said(self) -> dict[str, object]:
        """:meth:`arguments` (the settings are no argument of the method)."""
        return self.arguments()


@attrs.frozen(slots=True)
class RemoveGuarantee(BaseChange):
    """``kb.remove_guarantee``: a promise detached."""

    op = method = "remove_guarantee"
    name: str = "default"


@attrs.frozen(slots=True)
class FitCalibrator(BaseChange):
    """``kb.fit_calibrator``: a Platt calibrator fitted."""

    op = method = "fit_calibrator"
    examples: Iterable[object] | None = None
    source: str | None = None
    topic: str | None = None


@attrs.frozen(slots=True)
class Answer(BaseChange):
    """``kb.answer``: a key answered alone or abstained on, under a promise (its verdict kept)."""

    op = method = "answer"
    named = (the_key,)
    key: str
    promise: str | None = "default"
    group: object = None


@attrs.frozen(slots=True)
class Call(BaseChange):
    """A tool call's change: ``kb.call`` runs the tool first, then makes this change with its
    ``result`` (a replay never calls the tool again)."""

    op = "call"
    method = "_called"
    named = (tool_result,)
    fn: Callable[..., object]
    call: PreparedCall
    result: object


@attrs.frozen(slots=True)
class Remember(BaseChange):
    """``kb.remember``'s change: a model is asked first, then the documents asserted and the
    facts claimed, as plain data (:func:`~corollary.facade.remembering.remember`)."""

    op = "remember"
    method = "_remembered"
    named = (remembered,)
    docs: Sequence[Sequence[object]]
    source: str
    facts: Sequence[Sequence[object]]
    refusals: Sequence[object]
    ends: Sequence[Sequence[object]] = ()
    links: Sequence[Sequence[object]] = ()


@attrs.frozen(slots=True)
class Depend(BaseChange):
    """``kb.depend``: ``key = value`` resting on what the keys of ``on`` hold now."""

    op = method = "depend"
    named = (by_key,)
    key: str
    value: Value
    on: Sequence[str] | Mapping[str, str]
    source: str = "model:default"
    citation: object = None
    certainty: float | None = None
    formula: str | None = None
    valid_from: Instant | None = None
    learn: bool | None = None


@attrs.frozen(slots=True)
class ReplaceWhen(BaseChange):
    """``kb.replace_when``: ``key`` becomes ``value`` once ``changes`` changes from what it
    holds now."""

    op = method = "replace_when"
    named = (by_key,)
    key: str
    value: Value
    changes: str
    source: str = "model:default"
    citation: object = None
    certainty: float | None = None
    valid_from: Instant | None = None
    learn: bool | None = None


def dependency(key: str, value: Value, *, source: str,
               on: Sequence[str] | Mapping[str, str] | None = None,
               if_changes: str | None = None, citation: object = None,
               certainty: float | None = None) -> Depend | ReplaceWhen:
    """The change a declared dependency is: :class:`Depend` (``on``: the keys it rests on) or
    :class:`ReplaceWhen` (``if_changes``: the key whose change it waits for), exactly one of
    them (``InvalidInputError`` otherwise); what the ``depend`` tool and ``corollary depend``
    apply.

    >>> dependency("user:medication", "inhaler", source="model:m", on=["user:condition"])
    ... # doctest: +NORMALIZE_WHITESPACE
    Depend(key='user:medication', value='inhaler', on=['user:condition'], source='model:m',
           citation=None, certainty=None, formula=None, valid_from=None, learn=None)
    """
    if (not on) == (if_changes is None):
        raise InvalidInputError("give the keys it rests on (on) or the key whose change it "
                                "waits for (if_changes), one of them")
    if if_changes is not None:
        return ReplaceWhen(key, value, if_changes, source=source, citation=citation,
                           certainty=certainty)
    return Depend(key, value, on or (), source=source, citation=citation, certainty=certainty)

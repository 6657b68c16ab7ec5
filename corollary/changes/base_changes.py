"""One value per changing method of the base (issue 36, item 1).

Each value's fields are its method's parameters, in their order and with their defaults; ``op``
is the method's operation (the journal entry it makes). The method checks its arguments, builds
its value and makes it (:func:`corollary.facade.making.make`): the value's effect, at once on a
plain base, or as one journal entry in a session, whose bytes are the value's ``to_entry()``; a
replay reads the value back (:meth:`BaseChange.read_entry`) and runs the same effect. A value's
subjects are its method's history rows (:mod:`corollary.changes.subjects`).
:func:`corollary.changes.apply` of a value runs the checks its method runs
(:data:`corollary.facade.effects.CHECKS`), so a value built outside (a surface's) is checked as
the method's arguments are, then makes it. These modules import nothing of
the facade.

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
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from ..foundations.errors import InvalidInputError
from ..reasons.calls import PreparedCall
from ..reasons.tools import ToolSpec, spec_of
from ..reasons.valid import Valid, unwrap
from ..tms.conflicts import Conflict
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
    from ..foundations.clock import Duration, Instant
    from ..foundations.scope import Scope
    from ..foundations.values import Value
    from ..promises.options import GuaranteeOptions
    from ..reasons.rules import Rule

__all__ = ["AddRule", "AddTool", "Answer", "Assert", "AssertMany", "BaseChange", "Call", "Claim",
           "Depend", "End",
           "FitCalibrator", "Forget", "Guarantee", "Nogood", "RecordOutcome", "Remember",
           "RemoveGuarantee", "RemoveRule", "ReplaceWhen", "Resolve", "Retract", "dependency",
           "spec_fields"]


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

    def entry_resolved(self) -> dict[str, object]:
        """What its entry keeps besides its arguments, for the replay (the entry's ``r``)."""
        return {}

    @classmethod
    def read_entry(cls, args: Sequence[object], kwargs: Mapping[str, object],
                   resolved: Mapping[str, object]) -> BaseChange:
        """The value an entry keeps: :meth:`from_entry` of its arguments (``resolved``: what
        :meth:`entry_resolved` kept)."""
        change = cls.from_entry(args, kwargs)
        assert isinstance(change, cls)
        return change

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


Rows = Iterable[Sequence[object] | Mapping[str, object]]


def read_rows(rows: Rows) -> Rows:
    """Rows read once (a generator) into a list; a list or tuple of rows, and anything else
    (for ``assert_many``'s own check to refuse), as it is."""
    if isinstance(rows, (list, tuple, str, bytes, Mapping)) or not isinstance(rows, Iterable):
        return rows
    return list(rows)


@attrs.frozen(slots=True)
class AssertMany(BaseChange):
    """``kb.assert_many``: many rows at once."""

    op = method = "assert_many"
    named = (named_rows,)
    rows: Rows = attrs.field(converter=read_rows)

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The rows as the one positional argument (a forget rewrites them there), a row given
        as a mapping kept as a dict."""
        rows = self.rows
        if isinstance(rows, (list, tuple)):
            rows = [dict(r) if isinstance(r, Mapping) else r for r in rows]
        return (rows,), {}


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


@attrs.frozen(slots=True)
class Resolve(BaseChange):
    """``kb.resolve``: a conflict settled by a person."""

    op = method = "resolve"
    named = (resolved_conflict,)
    conflict: Conflict | str
    winner: Value = None
    learn: bool = True
    give_up: object = None

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """A conflict object as its name (whether it is a nogood's: :meth:`entry_resolved`)."""
        args, kwargs = BaseChange.to_entry(self)
        if isinstance(self.conflict, Conflict):
            kwargs["conflict"] = self.conflict.key
        return args, kwargs

    def entry_resolved(self) -> dict[str, object]:
        """Whether the conflict given was a nogood's (a name alone does not say)."""
        if isinstance(self.conflict, Conflict):
            return {"conflict": {"nogood": bool(self.conflict.nogood)}}
        return {}

    @classmethod
    def read_entry(cls, args: Sequence[object], kwargs: Mapping[str, object],
                   resolved: Mapping[str, object]) -> BaseChange:
        """The conflict as it was given: an object (a key's, or a nogood's) or a name."""
        change = cls.from_entry(args, kwargs)
        assert isinstance(change, Resolve)
        kind = resolved.get("conflict")
        if isinstance(kind, Mapping) and isinstance(change.conflict, str):
            return attrs.evolve(change, conflict=Conflict(change.conflict, (),
                                                          nogood=bool(kind.get("nogood"))))
        return change


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

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """Who asked and why, never what (the entry carries the state it left)."""
        return (), {k: v for k, v in (("reason", self.reason), ("by", self.by))
                    if v is not None}


def spec_fields(spec: ToolSpec) -> dict[str, Any]:
    """A tool's declaration as plain data (a replay never has the function)."""
    return {"name": spec.name, "trust": spec.trust, "half_life": spec.half_life,
            "ttl": spec.ttl, "origin": spec.origin, "key": spec.key}


def _spec_from(fields: object) -> ToolSpec:
    if not isinstance(fields, Mapping):
        raise InvalidInputError(f"a tool's declaration is a mapping, not {fields!r}")
    try:
        return ToolSpec(**fields)
    except TypeError as exc:
        raise InvalidInputError(f"not a tool's declaration: {exc}") from None


@attrs.frozen(slots=True)
class AddTool(BaseChange):
    """``kb.add_tool``: a tool's declared trust applied to its premises (``fn``: the
    ``@tool`` function, or its declaration as an entry reads it back)."""

    op = method = "add_tool"
    fn: Callable[..., object] | ToolSpec

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The tool's declaration (a replay never has the function)."""
        spec = self.fn if isinstance(self.fn, ToolSpec) else spec_of(self.fn)
        return (spec_fields(spec),), {}

    @classmethod
    def from_entry(cls, args: Sequence[object], kwargs: Mapping[str, object]) -> Change:
        """The declaration the entry keeps."""
        if len(args) != 1 or kwargs:
            raise InvalidInputError("an add_tool entry keeps one tool's declaration")
        return cls(_spec_from(args[0]))


@attrs.frozen(slots=True)
class AddRule(BaseChange):
    """``kb.add_rule``: a rule, fired at once for inputs already held."""

    op = method = "add_rule"
    r: Rule | str

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The rule's name (a replay finds the rule of that name)."""
        return (getattr(self.r, "name", self.r),), {}


@attrs.frozen(slots=True)
class RemoveRule(BaseChange):
    """``kb.remove_rule``: a rule and every justification it made removed."""

    op = method = "remove_rule"
    r: Rule | str

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The rule's name (a replay finds the rule of that name)."""
        return (getattr(self.r, "name", self.r),), {}


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

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The promise's name (the entry carries the state it left)."""
        return (self.name,), {}


@attrs.frozen(slots=True)
class RemoveGuarantee(BaseChange):
    """``kb.remove_guarantee``: a promise detached."""

    op = method = "remove_guarantee"
    name: str = "default"

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The promise's name (the entry carries the state it left)."""
        return (self.name,), {}


@attrs.frozen(slots=True)
class FitCalibrator(BaseChange):
    """``kb.fit_calibrator``: a Platt calibrator fitted."""

    op = method = "fit_calibrator"
    examples: Iterable[object] | None = None
    source: str | None = None
    topic: str | None = None

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """Nothing (the entry carries the state it left)."""
        return (), {}


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
    fn: Callable[..., object] | None
    call: PreparedCall
    result: object

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The tool's declaration, the key, the arguments and what the tool returned (a
        ``Valid(...)`` result's times after it)."""
        value, valid_from, valid_until = unwrap(self.result)
        args: tuple[object, ...] = (spec_fields(self.call.spec), self.call.key,
                                    self.call.arguments, value)
        if valid_from is not None or valid_until is not None:
            args += (valid_from, valid_until)
        return args, {}

    @classmethod
    def from_entry(cls, args: Sequence[object], kwargs: Mapping[str, object]) -> Change:
        """The call as it was made, with no function (a replay never calls the tool)."""
        fields, key, arguments, result, *times = (*args, None, None, None, None)[:max(len(args), 4)]
        if (len(args) not in (4, 6) or kwargs or not isinstance(key, str)
                or not (arguments is None or isinstance(arguments, dict))):
            raise InvalidInputError("a call entry keeps a tool's declaration, a key, the "
                                    "arguments and the result")
        prepared = PreparedCall(_spec_from(fields), key, arguments)
        return cls(None, prepared, Valid(result, *times) if times else result)


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

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The documents, the source, the facts and the refusals by position (history reads a
        fact's world time there), the ends and links by name when there are any."""
        return ((self.docs, self.source, self.facts, self.refusals),
                {k: v for k, v in (("ends", self.ends), ("links", self.links)) if v})


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

"""The kinds of derived reasons, each described in one place.

A kind says how a step's confidence is computed, who is accountable when its conclusion was
wrong, what its proof shows, and the tag a snapshot saves it under. The engine, the facade,
proofs and snapshots all ask the kind, so a new kind of reason (a sampled claim, a re-verified
tool call) is one :class:`StepKind` subclass registered with :func:`register`; a kind of rule
reason (``by_rule``) is given to a rule as ``@rule(kind=...)``.

>>> sorted(KINDS)
['formula', 'model', 'rule']
>>> MODEL.reads_reliability, RULE.reads_reliability
(True, False)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..foundations._fields import plain_key, plain_unit, plain_value
from ..foundations._format import format_number as num
from ..foundations.errors import InvalidInputError, NameTakenError

if TYPE_CHECKING:  # pragma: no cover
    from .records import Justification

#: ``reliability(source, now) -> (value, time_dependent)``: how a kind reads a source's trust.
Reliability = Callable[[str, float], tuple[float, bool]]

#: ``Justification.live`` of a reason with a valid time of its own (a claim's ``valid_from`` and
#: ``valid_until`` in its ``info``): :func:`step_rule` checks the interval before the kind's
#: step, and outside it the reason does not count (its step reads :data:`OUTSIDE_STEP`).
DATED = 3
#: The step :func:`step_rule` gives a dated reason outside its valid time: below every real
#: step, so the sweep tells "does not count" from a step of 0.
OUTSIDE_STEP = -1.0
#: The fields of ``Justification.info`` that hold a claim's own valid time.
VALID_TIME = ("valid_from", "valid_until")

#: Fields of ``Justification.info`` that a proof copies into the step's node, when present.
PROOF_FIELDS = ("names", "formula", "stated", "computed", "reproduced", "document", "quote",
                "citation_found", "certainty", "samples", "agreed", "merged_from", "valid_from",
                "valid_until", "rests_on", "replaces", "since")
_CLAIM = ("names", "certainty", "model")
#: A dependency's and a declared replacement's fields (:mod:`corollary.facade.depending`).
_DEPENDS = ("rests_on", "replaces", "since")
_FORMULA = ("formula", "stated", "computed", "reproduced")
_CITATION = ("document", "quote", "citation_found")
#: A certainty from self-consistency (:func:`corollary.evidence.confidence.self_consistency`).
_SAMPLES = ("samples", "agreed")


class StepKind:
    """One kind of derived reason.

    Attributes
    ----------
    name : str
        The tag proofs and snapshots use.
    reads_reliability : bool
        Whether the step's confidence is ``reliability(name) × step`` (a model's unchecked
        judgement) rather than the constant ``step``; the engine re-evaluates such steps when
        the source's reliability changes.
    accountable : bool
        Whether the justification's ``name`` (its source) is blamed when its conclusion is
        retracted with ``fault="source"``.
    info_required, info_optional : tuple of str
        The fields of ``Justification.info`` this kind keeps (snapshots check them).
    """

    name = ""
    #: Whether ``Justification.name`` names a rule (else a source, such as the model).
    by_rule = False
    reads_reliability = False
    accountable = False
    info_required: tuple[str, ...] = ("names",)
    info_optional: tuple[str, ...] = ()

    @property
    def custom_step(self) -> bool:
        """Whether a subclass computes its own :meth:`step`."""
        return type(self).step is not StepKind.step

    @property
    def computes_step(self) -> bool:
        """Whether the step is more than the constant ``Justification.step``: the kind reads
        reliability, or a subclass computes its own :meth:`step` (the sweep then asks it)."""
        return self.reads_reliability or type(self).step is not StepKind.step

    @property
    def step_mode(self) -> int:
        """How a sweep gets the step (:func:`step_rule`): 0 the constant ``step``, 1
        ``reliability(name) × step``, 2 this kind's own :meth:`step`."""
        return 0 if not self.computes_step else 2 if self.custom_step else 1

    def step(self, j: Justification, reliability: Reliability, now: float) -> tuple[float, bool]:
        """``(step confidence, whether it moves with time)`` of ``j`` at ``now``:
        ``reliability(name) × step`` when :attr:`reads_reliability`, else the constant
        ``step``. A sweep asks it through :func:`step_rule`."""
        if self.reads_reliability:
            r, timed = reliability(j.name, now)
            return r * j.step, timed
        return j.step, False

    def proof_fields(self, j: Justification, reliability: Reliability,
                     now: float) -> dict[str, Any]:
        """What a proof shows of ``j`` besides its step, validity and confidence."""
        fields: dict[str, Any] = {}
        if self.reads_reliability:
            fields["reliability"] = reliability(j.name, now)[0]
            fields["certainty"] = j.step
        fields.update((k, j.info[k]) for k in PROOF_FIELDS if k in j.info)
        return fields

    def describe(self, reason: dict[str, Any]) -> str:
        """The head of the proof line of a step (a proof node made by :meth:`proof_fields`)."""
        raise NotImplementedError

    def caption(self, j: Justification) -> str:
        """A short name for ``j`` in a picture of the graph (:mod:`corollary.render`)."""
        return f"{self.name} {j.name}"

    def check_info(self, f: Any, name: str, info: Any, field: str) -> None:
        """Check a snapshot's ``info`` of a justification of this kind (``f``: the snapshot's
        field checker, :class:`corollary.foundations._fields.Fields`)."""
        info = f.mapping(info, field, self.info_required, self.info_optional)
        names = info["names"]
        if names:  # most reasons name nobody: no field name is formatted for them
            for i, n in enumerate(f.items(names, f"{field}.names")):
                f.text(n, f"{field}.names[{i}]")
        elif type(names) is not list:
            f.items(names, f"{field}.names")

    def __repr__(self) -> str:
        return f"<step kind {self.name}>"


class RuleStep(StepKind):
    """A ``@rule`` fired on its inputs: the rule's own confidence, and never at fault (if a rule
    concluded something wrong, an input was wrong)."""

    name = "rule"
    by_rule = True

    def describe(self, reason: dict[str, Any]) -> str:
        return f"rule {reason['name']}: step {num(reason['step'])}"

    def caption(self, j: Justification) -> str:
        return f"rule {j.name}"


class _Claim(StepKind):
    """What model claims share: the model behind them, the certainty it stated (with how many
    samples agreed, when it came from self-consistency), and an optional citation check."""

    info_required: tuple[str, ...] = _CLAIM
    info_optional: tuple[str, ...] = (_CITATION + _SAMPLES + ("merged_from",) + VALID_TIME
                                      + _DEPENDS)

    @staticmethod
    def sampled(reason: dict[str, Any]) -> str:
        """``"; 5 samples, 4 agreed"`` for a certainty from self-consistency, else ``""``."""
        if "samples" not in reason:
            return ""
        return f"; {reason['samples']} samples, {reason['agreed']} agreed"

    def proof_fields(self, j: Justification, reliability: Reliability,
                     now: float) -> dict[str, Any]:
        fields = super().proof_fields(j, reliability, now)
        if "rests_on" in fields:  # the values it rests on are its inputs' (docs/model.md)
            rests = set(fields["rests_on"])
            fields["rests_on"] = [[x.key, x.value] for x in j.inputs if x.key in rests]
        return fields

    @staticmethod
    def depends(reason: dict[str, Any]) -> str:
        """``"; rests on k = 'v'"`` for a dependency, ``"; replaces 'v' since k changed"`` for
        a declared replacement in effect (``"... once k changes"`` before), else ``""``."""
        what = ""
        if reason.get("rests_on"):
            what += "; rests on " + ", ".join(f"{k} = {v!r}" for k, v in reason["rests_on"])
        if "since" in reason:
            old = f"replaces {reason['replaces']!r}" if "replaces" in reason else "holds"
            held = any(e["held"] for e in reason.get("unless", ()))
            what += (f"; {old} once {reason['since']} changes" if held
                     else f"; {old} since {reason['since']} changed")
        return what

    def check_info(self, f: Any, name: str, info: Any, field: str) -> None:
        super().check_info(f, name, info, field)
        if not plain_unit(info["certainty"]):
            f.unit(info["certainty"], f"{field}.certainty")
        if info["model"] != name:
            f.fail(f"{field}.model", f"must name the step's model {name!r}")
        if len(info) > len(_CLAIM):
            self._check_optional(f, info, field)

    @staticmethod
    def _check_optional(f: Any, info: dict[str, Any], field: str) -> None:
        """Check the optional fields of a claim's ``info`` (a citation, a dependency, a valid
        time, a self-consistency count); the common, valid ones inline (``plain_*``)."""
        cited = [k for k in _CITATION if k in info]
        if cited:
            if len(cited) != len(_CITATION):
                f.fail(field, f"holds part of a citation check ({cited})")
            f.key(info["document"], f"{field}.document")
            f.text(info["quote"], f"{field}.quote")
            f.boolean(info["citation_found"], f"{field}.citation_found")
        if "merged_from" in info:
            f.key(info["merged_from"], f"{field}.merged_from")
        if "rests_on" in info:
            for i, k in enumerate(f.items(info["rests_on"], f"{field}.rests_on")):
                f.key(k, f"{field}.rests_on[{i}]")
        if "since" in info and not plain_key(info["since"]):
            f.key(info["since"], f"{field}.since")
        if "replaces" in info and not plain_value(info["replaces"]):
            f.value(info["replaces"], f"{field}.replaces")
        for k in VALID_TIME:
            value = info.get(k)
            if value is not None and not (type(value) is float and math.isfinite(value)):
                f.number(value, f"{field}.{k}")
        start, end = info.get("valid_from"), info.get("valid_until")
        if start is not None and end is not None and not end > start:
            f.fail(f"{field}.valid_until", "must come after valid_from")
        sampled = [k for k in _SAMPLES if k in info]
        if sampled:
            if len(sampled) != len(_SAMPLES):
                f.fail(field, f"holds part of a self-consistency count ({sampled})")
            k = f.integer(info["samples"], f"{field}.samples", 1)
            agreed = f.integer(info["agreed"], f"{field}.agreed", 1, k)
            if info["certainty"] != (agreed + 1) / (k + 1):
                f.fail(f"{field}.certainty", f"is not the certainty of {agreed} of {k} samples")


class FormulaStep(_Claim):
    """A model's claim whose formula the runtime re-executed: ``1.0 × certainty``; the
    arithmetic was checked, so the formula is never at fault."""

    name = "formula"
    info_required = _CLAIM + _FORMULA

    def describe(self, reason: dict[str, Any]) -> str:
        what = f"formula {reason['formula']} by {reason['name']}"
        if reason.get("reproduced"):
            what += f", re-executed: reproduced {reason['stated']!r}"
        else:
            what += (f", re-executed: stated {reason['stated']!r} but computes "
                     f"{reason['computed']!r} (believed)")
        return (what + f"; step 1.0 × certainty {num(reason['step'])}" + self.sampled(reason)
                + self.depends(reason))

    def caption(self, j: Justification) -> str:
        return f"formula {j.info.get('formula', '?')} by {j.name}"

    def check_info(self, f: Any, name: str, info: Any, field: str) -> None:
        super().check_info(f, name, info, field)
        f.text(info["formula"], f"{field}.formula")
        f.value(info["stated"], f"{field}.stated")
        f.number(info["computed"], f"{field}.computed")
        f.boolean(info["reproduced"], f"{field}.reproduced")


class ModelStep(_Claim):
    """A model's unchecked judgement: ``reliability(model) × certainty``; the model is
    accountable for it."""

    name = "model"
    reads_reliability = True
    accountable = True

    def describe(self, reason: dict[str, Any]) -> str:
        what = (f"model judgement by {reason['name']}: step {num(reason['step'])} = reliability "
                f"{num(reason['reliability'])} × certainty {num(reason['certainty'])}")
        if "document" in reason:
            found = "found" if reason.get("citation_found") else "NOT found"
            what += f"; cites {reason['document']}: {reason['quote']!r} ({found})"
        if "merged_from" in reason:  # kb.remember resolved the fact's own key to this one
            what += f"; merged from {reason['merged_from']}"
        return what + self.sampled(reason) + self.depends(reason)

    def caption(self, j: Justification) -> str:
        return f"model judgement by {j.name}"

    def check_info(self, f: Any, name: str, info: Any, field: str) -> None:
        if isinstance(info, dict) and any(k in info for k in _FORMULA):
            f.fail(field, "holds a formula check in a model judgement")
        super().check_info(f, name, info, field)


def valid_time_of(j: Justification) -> tuple[float | None, float | None]:
    """``(valid_from, valid_until)`` a reason states for itself (a claim's; ``None``: unstated).

    >>> from corollary.tms import Belief, Justification
    >>> valid_time_of(Justification(MODEL, "model:m", Belief("k", 1, 1, 1), (), 0.8,
    ...                             {"valid_from": 10.0}))
    (10.0, None)
    """
    info = j.info
    return info.get("valid_from"), info.get("valid_until")


def counts_at(j: Justification, at: float) -> tuple[bool, bool]:
    """``(whether j's own valid time holds at world time at, whether that changes later)``.

    A reason with no valid time of its own counts at every time, as today.

    >>> from corollary.tms import Belief, Justification
    >>> j = Justification(MODEL, "model:m", Belief("k", 1, 1, 1), (), 0.8,
    ...                   {"valid_from": 10.0, "valid_until": 20.0})
    >>> counts_at(j, 5.0), counts_at(j, 15.0), counts_at(j, 20.0)
    ((False, True), (True, True), (False, False))
    """
    info = j.info
    start, end = info.get("valid_from"), info.get("valid_until")
    later = (start is not None and at < start) or (end is not None and at < end)
    return (start is None or start <= at) and (end is None or at < end), later


def step_rule(reliability: Reliability, now: float, memo: dict[str, tuple[float, bool]],
              world: float | None = None) -> Callable[[Justification], tuple[float, bool]]:
    """``step(j) -> (step confidence, whether it moves with time)`` at ``now``, as each kind's
    :meth:`StepKind.step` gives it, for a sweep that asks for many steps at one time: each
    source's reliability is read once, into ``memo`` (the sweep shares it for premises).

    The one statement of the step rule the engine uses. The common case, a kind that reads
    reliability without its own :meth:`~StepKind.step` (``step_mode`` 1, a model's judgement),
    is :meth:`StepKind.step` written out here, so that the sweep's hot loops pay one call per
    reason, not three; every other kind is asked. A reason with a valid time of its own
    (``live`` :data:`DATED`) is checked at world time ``world`` (default ``now``) first: outside
    it the step is :data:`OUTSIDE_STEP` (it does not count), inside it is the kind's, and it
    reads the time while a start or an end is still to come.

    >>> from corollary.tms import Belief, Justification
    >>> j = Justification(MODEL, "model:m", Belief("k", 1, 1, 1), (), 0.8)
    >>> step_rule(lambda source, now: (0.5, False), 0.0, {})(j)
    (0.4, False)
    """
    def cached(source: str, at: float) -> tuple[float, bool]:
        found = memo.get(source)
        if found is None:
            found = memo[source] = reliability(source, at)
        return found

    def step(j: Justification) -> tuple[float, bool]:
        live = j.live
        if live == DATED:
            return dated(j)
        if live == 1:  # StepKind.step when it reads reliability, written out (see above)
            found = memo.get(j.name)
            if found is None:
                found = memo[j.name] = reliability(j.name, now)
            return found[0] * j.step, found[1]
        if live:
            return j.kind.step(j, cached, now)
        return j.step, False

    def dated(j: Justification) -> tuple[float, bool]:
        inside, later = counts_at(j, now if world is None else world)
        if not inside:
            return OUTSIDE_STEP, later
        kind = j.kind
        if kind.computes_step:
            value, timed = kind.step(j, cached, now)
            return value, timed or later
        return j.step, later

    return step


#: Every kind of derived reason, by name.
KINDS: dict[str, StepKind] = {}


def register(kind: StepKind) -> StepKind:
    """Make ``kind`` known to proofs and snapshots (its ``name`` must be new)."""
    if not kind.name or kind.name in KINDS:  # a ValueError, as before: both subclass it
        error = NameTakenError if kind.name else InvalidInputError
        raise error(f"a step kind needs a new, non-empty name, not {kind.name!r}")
    KINDS[kind.name] = kind
    return kind


def kind_named(name: str) -> StepKind:
    """The kind registered as ``name`` (``KeyError`` if there is none)."""
    return KINDS[name]


RULE = register(RuleStep())
FORMULA = register(FormulaStep())
MODEL = register(ModelStep())

"""A model's claim, checked before it becomes a belief.

A claim says ``key = value`` from held inputs. Its formula, if it gives one, is re-executed over
the inputs by the safe evaluator (:mod:`corollary.evidence.formula`): reproduced, the step is verified
(``1.0 × certainty``); not reproduced, the re-executed value is believed instead. Its citation,
if any, is checked against the cited document's text (:mod:`corollary.evidence.citation`). Each check is
an outcome for the model. :func:`check_claim` does all of this without changing anything, so the
base can record the outcomes and then add the belief, all or nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..evidence import citation as citations
from ..evidence.confidence import SelfConsistency
from ..evidence.formula import evaluate as evaluate_formula
from ..evidence.formula import names as formula_names
from ..foundations._validate import check_unit, exact_str
from ..foundations.errors import FormulaError, InvalidInputError, InvalidTypeError
from ..foundations.values import canon, check_key, check_text, refuse_end
from ..tms import FORMULA, MODEL, Belief, StepKind


@attrs.frozen(slots=True)
class CheckedClaim:
    """A claim with its checks done: what to believe, by which step, and what to record.

    Attributes
    ----------
    key : str
    believed : object
        The stated value, or the re-executed one when the formula did not reproduce it.
    vid : object
        ``canon(believed)``.
    kind : StepKind
        :data:`~corollary.tms.FORMULA` for a re-executed formula, else
        :data:`~corollary.tms.MODEL`.
    certainty : float
    inputs : tuple of Belief
        The held input beliefs (the cited document last, if it is not an input already).
    info : dict
        What the proof shows (input names, model, certainty, formula and citation checks).
    checks : tuple of (bool, str)
        One ``(correct, reason)`` per check, to record as outcomes for the model.
    """

    key: str
    believed: Any
    vid: Any
    kind: StepKind
    certainty: float
    inputs: tuple[Belief, ...]
    info: dict[str, Any]
    checks: tuple[tuple[bool, str], ...]


def named_inputs(inputs: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """A claim's inputs as ``{name: key}``: a list of keys names each input by its key."""
    if isinstance(inputs, Mapping):
        named = dict(inputs)
    elif isinstance(inputs, (list, tuple)):
        named = {check_key(k): k for k in inputs}
    else:
        raise InvalidTypeError("inputs must be a list of keys or a dict name -> key")
    for name in named:
        if not isinstance(name, str) or not name:
            raise InvalidInputError(f"input names must be non-empty strings, got {name!r}")
    return {check_text(exact_str(name), "an input name"): check_key(k) for name, k in named.items()}


def check_claim(key: str, value: Any, source: str, inputs: Sequence[str] | Mapping[str, str],
                certainty: float | None, formula: str | None, citation: Any,
                held: Callable[[str, str], Belief]) -> CheckedClaim:
    """Validate a claim and run its checks; change nothing.

    ``held(key, what)`` returns the single held belief of ``key`` (raising the base's typed
    errors when none or two are held; ``what`` names the role in messages).
    """
    key = check_key(key)
    canon(value)
    refuse_end(value)
    cert = 1.0 if certainty is None else check_unit(certainty, "certainty")
    named = named_inputs(inputs)
    cited = citations.Citation.coerce(citation) if citation is not None else None
    if cited is not None:
        check_text(cited.quote, "a quote")
    nodes = {name: held(k, "input") for name, k in named.items()}
    document = held(cited.document, "cited document") if cited is not None else None
    info: dict[str, Any] = {"names": list(nodes), "certainty": cert, "model": source}
    if isinstance(certainty, SelfConsistency):  # the proof says how many samples agreed
        info.update(samples=certainty.k, agreed=certainty.agreeing)
    checks: list[tuple[bool, str]] = []
    believed = value
    if formula is not None:
        if not isinstance(formula, str):
            raise InvalidTypeError("formula must be a string")
        formula = exact_str(formula)
        missing = formula_names(formula) - set(nodes)
        if missing:
            raise FormulaError(f"formula reads {sorted(missing)}, which are not among the inputs")
        variables = {n: nodes[n].value for n in formula_names(formula)}
        for n, v in variables.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise FormulaError(f"input {n!r} holds {v!r}, not a number")
        computed = evaluate_formula(formula, variables)
        stated_ok = not isinstance(value, bool) and isinstance(value, (int, float))
        reproduced = stated_ok and math.isclose(computed, value, rel_tol=1e-9, abs_tol=1e-9)
        info.update(formula=formula, stated=value, computed=computed, reproduced=reproduced)
        verdict = "reproduced" if reproduced else f"gave {computed!r}"
        checks.append((reproduced, f"formula {formula} for {key} {verdict}"))
        if not reproduced:
            believed = computed
    if cited is not None:
        assert document is not None
        if not isinstance(document.value, str):
            raise InvalidTypeError(f"cited document {cited.document!r} does not hold text")
        found = citations.check_quote(document.value, cited.quote).found
        info.update(document=cited.document, quote=cited.quote, citation_found=found)
        checks.append((found, f"citation in {cited.document} for {key} "
                       + ("found" if found else "not found")))
    vid = canon(believed)  # a re-executed value must be a valid value too
    all_inputs = tuple(nodes.values())
    if document is not None and document not in all_inputs:
        all_inputs += (document,)
    return CheckedClaim(key, believed, vid, FORMULA if formula is not None else MODEL, cert,
                        all_inputs, info, tuple(checks))

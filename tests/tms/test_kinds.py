"""The kinds of derived reasons (corollary/tms/kinds.py), each on its own: its step, who is
accountable, what its proof shows and says, what a snapshot may hold of it, and a new kind
registered beside them (docs/model.md: a rule's step is its confidence, a re-executed formula's
is 1.0 × certainty, a model's judgement's is reliability × certainty)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from corollary.foundations._fields import Fields
from corollary.foundations.errors import SnapshotError
from corollary.tms import (
    FORMULA,
    KINDS,
    MODEL,
    RULE,
    Belief,
    Engine,
    Justification,
    Premise,
    StepKind,
    kind_named,
    register,
)
from corollary.tms.kinds import PROOF_FIELDS


class Trust:
    """``reliability(source, now)``: model:m is 0.5 and moves with time; counts the calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, source: str, now: float) -> tuple[float, bool]:
        self.calls += 1
        return {"model:m": 0.5, "tool:a": 0.9}[source], source == "model:m"


CLAIM = {"names": ["q2", "q3"], "certainty": 0.9, "model": "model:m"}
FORMULA_INFO = {**CLAIM, "formula": "(q3 - q2) / q2", "stated": 0.2, "computed": 0.1,
                "reproduced": False}
CITED = {"document": "doc:10-K", "quote": "revenue grew", "citation_found": True}


def reason(kind: StepKind, step: float, info: dict[str, Any], name: str = "model:m"
           ) -> Justification:
    out = Belief("growth", 0.1, 0.1, 3)
    inputs = (Belief("q2", 100.0, 100.0, 1), Belief("q3", 110.0, 110.0, 2))
    return Justification(kind, name, out, inputs, step, info)


def test_the_registered_kinds() -> None:
    assert sorted(KINDS) == ["formula", "model", "rule"]
    assert kind_named("rule") is RULE and kind_named("formula") is FORMULA
    assert kind_named("model") is MODEL
    with pytest.raises(KeyError):
        kind_named("sampled")
    assert [repr(k) for k in (RULE, FORMULA, MODEL)] == [
        "<step kind rule>", "<step kind formula>", "<step kind model>"]


def test_each_kind_computes_its_step() -> None:
    trust = Trust()
    assert RULE.step(reason(RULE, 0.8, {"names": ["a"]}, "growth"), trust, 0.0) == (0.8, False)
    assert FORMULA.step(reason(FORMULA, 0.9, FORMULA_INFO), trust, 0.0) == (0.9, False)
    assert trust.calls == 0  # neither reads the model's trust: the arithmetic was checked
    step, timed = MODEL.step(reason(MODEL, 0.9, CLAIM), trust, 0.0)
    assert step == pytest.approx(0.45) and timed is True
    assert trust.calls == 1


def test_who_is_accountable_and_what_the_name_names() -> None:
    assert [(k.name, k.by_rule, k.reads_reliability, k.accountable)
            for k in (RULE, FORMULA, MODEL)] == [("rule", True, False, False),
                                                 ("formula", False, False, False),
                                                 ("model", False, True, True)]


def test_proof_fields_of_each_kind() -> None:
    trust = Trust()
    rule = reason(RULE, 0.8, {"names": ["x"]}, "growth")
    assert RULE.proof_fields(rule, trust, 0.0) == {"names": ["x"]}
    formula = reason(FORMULA, 0.9, FORMULA_INFO)
    assert FORMULA.proof_fields(formula, trust, 0.0) == {
        "names": ["q2", "q3"], "formula": "(q3 - q2) / q2", "stated": 0.2, "computed": 0.1,
        "reproduced": False, "certainty": 0.9}  # the model is the step's name, not a field
    assert trust.calls == 0
    model = reason(MODEL, 0.9, {**CLAIM, **CITED})
    assert MODEL.proof_fields(model, trust, 0.0) == {
        "reliability": 0.5, "certainty": 0.9, "names": ["q2", "q3"], "document": "doc:10-K",
        "quote": "revenue grew", "citation_found": True}
    assert trust.calls == 1
    assert set(MODEL.proof_fields(model, trust, 0.0)) <= {"reliability", *PROOF_FIELDS}


def test_the_proof_line_of_each_kind() -> None:
    assert RULE.describe({"name": "growth", "step": 0.8}) == "rule growth: step 0.8"
    formula = {"name": "model:m", "step": 0.9, "formula": "(q3 - q2) / q2"}
    assert FORMULA.describe({**formula, "reproduced": True, "stated": 0.1}) == (
        "formula (q3 - q2) / q2 by model:m, re-executed: reproduced 0.1; step 1.0 × certainty 0.9")
    assert FORMULA.describe({**formula, "reproduced": False, "stated": 0.2, "computed": 0.1}) == (
        "formula (q3 - q2) / q2 by model:m, re-executed: stated 0.2 but computes 0.1 (believed);"
        " step 1.0 × certainty 0.9")
    model = {"name": "model:m", "step": 0.4455, "reliability": 0.495, "certainty": 0.9}
    assert MODEL.describe(model) == (
        "model judgement by model:m: step 0.446 = reliability 0.495 × certainty 0.9")
    cited = {**model, "document": "doc:10-K", "quote": "revenue grew"}
    assert MODEL.describe({**cited, "citation_found": True}).endswith(
        "; cites doc:10-K: 'revenue grew' (found)")
    assert MODEL.describe({**cited, "citation_found": False}).endswith(
        "; cites doc:10-K: 'revenue grew' (NOT found)")
    with pytest.raises(NotImplementedError):
        StepKind().describe({"name": "x", "step": 1.0})


def check(kind: StepKind, info: Any, name: str = "model:m") -> None:
    kind.check_info(Fields("kb.json", "snapshot"), name, info, "justifications[0][5]")


@pytest.mark.parametrize(("kind", "info"), [
    (RULE, {"names": ["x", "y"]}),
    (FORMULA, FORMULA_INFO),
    (FORMULA, {**FORMULA_INFO, **CITED}),
    (MODEL, CLAIM),
    (MODEL, {**CLAIM, **CITED}),
], ids=["rule", "formula", "formula-cited", "model", "model-cited"])
def test_the_info_each_kind_keeps_is_accepted(kind: StepKind, info: dict[str, Any]) -> None:
    check(kind, info)


@pytest.mark.parametrize(("kind", "info", "message"), [
    (RULE, {}, "justifications[0][5] lacks ['names']"),
    (RULE, {"names": ["x"], "formula": "x"}, "justifications[0][5] has unknown fields 'formula'"),
    (RULE, {"names": "x"}, "justifications[0][5].names must be a list"),
    (RULE, {"names": [3]}, "justifications[0][5].names[0]"),
    (MODEL, {**CLAIM, "model": "model:n"}, "justifications[0][5].model must name the step's "
                                           "model 'model:m'"),
    (MODEL, {**CLAIM, "certainty": 1.5}, "justifications[0][5].certainty"),
    (MODEL, {**CLAIM, "document": "doc:10-K"}, "holds part of a citation check (['document'])"),
    (MODEL, {**CLAIM, **CITED, "citation_found": "yes"}, "justifications[0][5].citation_found"),
    (MODEL, {**CLAIM, "formula": "x"}, "holds a formula check in a model judgement"),
    (FORMULA, CLAIM, "lacks ['formula', 'stated', 'computed', 'reproduced']"),
    (FORMULA, {**FORMULA_INFO, "computed": "0.1"}, "justifications[0][5].computed"),
    (FORMULA, {**FORMULA_INFO, "reproduced": 1}, "justifications[0][5].reproduced"),
], ids=["rule-empty", "rule-extra", "rule-names-str", "rule-name-int", "model-other-model",
        "model-certainty", "model-part-citation", "model-found-str", "model-formula",
        "formula-no-check", "formula-computed-str", "formula-reproduced-int"])
def test_info_a_kind_does_not_keep_is_refused_naming_the_field(kind: StepKind, info: Any,
                                                               message: str) -> None:
    with pytest.raises(SnapshotError, match="malformed snapshot") as caught:
        check(kind, info)
    assert message in str(caught.value)


class Halved(StepKind):
    """A kind of reason with a step of its own: half the stated step, never at fault."""

    name = "halved"

    def step(self, j: Justification, reliability: Any, now: float) -> tuple[float, bool]:
        return j.step / 2, False

    def describe(self, reason: dict[str, Any]) -> str:
        return f"halved {reason['name']}: step {reason['step']}"


@pytest.fixture
def halved() -> Iterator[StepKind]:
    kind = register(Halved())
    try:
        yield kind
    finally:
        del KINDS[kind.name]


def test_a_new_kind_is_registered_once(halved: StepKind) -> None:
    assert kind_named("halved") is halved
    with pytest.raises(ValueError, match="new, non-empty name"):
        register(Halved())
    with pytest.raises(ValueError, match="new, non-empty name"):
        register(StepKind())


def test_the_sweep_asks_a_new_kind_for_its_step(halved: StepKind) -> None:
    e = Engine(Trust())
    x = e.belief("x", 1, 1)
    e.set_premise(x, Premise("tool:a", "tool:a", 0.0, None, None))
    out = e.belief("out", 1, 1)
    e.add_justification(Justification(halved, "half", out, (x,), 0.8, {"names": ["x"]}))
    e.sync(0.0)  # x and out in one sweep: out settles once x does
    assert out.conf == pytest.approx(0.4 * 0.9)
    e.mark(out)
    e.sync(0.0)  # out alone: x is already held
    assert out.conf == pytest.approx(0.4 * 0.9)

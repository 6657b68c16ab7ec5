"""Withdrawing one reason, not the belief: retract(..., source=...) and remove_rule."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, rule
from corollary.foundations.errors import (
    BlameError,
    InvalidInputError,
    UnknownBeliefError,
    UnknownSourceError,
)


def base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K")  # a confirmation: one right for each
    return kb


def test_withdrawing_one_premise_keeps_the_belief_on_the_other() -> None:
    kb = base()
    kb.retract("hq", source="tool:registry")
    assert kb.label("hq") == "IN"
    assert kb.confidence("hq") == pytest.approx(10 / 11)  # the 10-K alone, after its right outcome
    proof = kb.explain("hq").to_dict()
    assert [p["source"] for p in proof["reasons"][0]["premises"]] == ["document:10-K"]
    kb.retract("hq", source="document:10-K")
    assert kb.label("hq", "Austin") == "OUT"
    assert kb.explain("hq", "Austin").to_dict()["why"] == "unsupported"


def test_blame_falls_on_the_withdrawn_source_only() -> None:
    kb = base()
    kb.retract("hq", source="tool:registry", fault="source")
    registry, tenk = kb.ledger.record_of("tool:registry"), kb.ledger.record_of("document:10-K")
    assert (registry.correct, registry.wrong) == (1, 1)
    assert (tenk.correct, tenk.wrong) == (1, 0)
    assert kb.label("hq") == "IN"


def test_withdrawing_a_models_claim_keeps_the_belief_on_another_models() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="human:h")
    kb.claim("d", 2, source="model:m1", inputs=["a"])
    kb.claim("d", 2, source="model:m2", inputs=["a"], certainty=0.5)
    kb.retract("d", source="model:m1", fault="source")
    assert kb.ledger.record_of("model:m1").wrong == 1
    assert kb.ledger.record_of("model:m2").wrong == 0
    assert kb.confidence("d") == pytest.approx(0.9 * 0.5 * 0.99)
    kb.retract("d", source="model:m2")
    assert kb.label("d", 2) == "OUT"


def test_withdrawing_a_reason_that_is_not_there_or_not_a_source_is_an_error() -> None:
    kb = base()
    before = kb.to_dict()
    with pytest.raises(UnknownBeliefError, match="no reason from tool:other"):
        kb.retract("hq", source="tool:other")
    with pytest.raises(UnknownSourceError):
        kb.retract("hq", source="oracle:x")
    with pytest.raises(InvalidInputError):
        kb.retract("hq", source="rule:x")
    with pytest.raises(UnknownBeliefError):
        kb.retract("never-seen", source="tool:registry")
    after = kb.to_dict()
    before.pop("taken_at"), after.pop("taken_at")
    assert before == after


def test_blaming_a_models_formula_only_is_refused() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 2.0, source="human:h")
    kb.claim("d", 4.0, source="model:m", inputs={"a": "a"}, formula="a * 2")
    with pytest.raises(BlameError):
        kb.retract("d", source="model:m", fault="source")
    kb.retract("d", source="model:m")  # without blame it is withdrawn
    assert kb.label("d", 4.0) == "OUT"


def test_retracting_a_key_whose_values_are_out_names_them() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("x", "a", source="human:h")
    kb.retract("x")
    with pytest.raises(UnknownBeliefError, match=r"'a' is OUT \(retracted\)"):
        kb.retract("x")
    with pytest.raises(UnknownBeliefError, match="no belief about 'y'"):
        kb.retract("y")


calls: list[int] = []


@rule(output="double", inputs={"x": "n"}, name="tests.partial.double")
def double(x: int) -> int:
    calls.append(x)
    return 2 * x


@rule(output="double", inputs={"x": "n"}, name="tests.partial.twice")
def twice(x: int) -> int:
    return x + x


def test_remove_rule_takes_its_justifications_with_it() -> None:
    calls.clear()
    kb = BeliefBase(clock=ManualClock(0), rules=[double, twice])
    kb.assert_("n", 3, source="human:h")
    proof = kb.explain("double").to_dict()
    assert sorted(r["name"] for r in proof["reasons"]) == ["tests.partial.double", "tests.partial.twice"]
    kb.remove_rule(double)
    assert kb.rules == (twice,)
    proof = kb.explain("double").to_dict()
    assert [r["name"] for r in proof["reasons"]] == ["tests.partial.twice"]
    kb.remove_rule(twice)
    assert kb.label("double", 6) == "OUT"
    kb.retract("n")
    kb.assert_("n", 4, source="human:h")  # removed rules fire no more
    assert calls == [3]
    assert kb.to_dict()["fired"] == {}
    with pytest.raises(InvalidInputError, match="not in this base"):
        kb.remove_rule(double)
    kb.add_rule(double)  # added back, it fires on what is held now
    assert kb.value("double") == 8

"""Rules through the facade: when they fire, re-fire and conclude nothing, their errors and
confidence, bad declarations, and rule outputs that are current on the first query."""

from __future__ import annotations

import math

import pytest

from corollary import (
    BeliefBase,
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferHigherConfidence,
    rule,
)
from corollary.foundations.errors import RuleError


class TestRules:
    def test_fires_when_all_inputs_are_in(self, clock: ManualClock) -> None:
        @rule(output="growth", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
              name="test_base.growth_fire")
        def growth(q2: float, q3: float) -> float:
            return (q3 - q2) / q2

        kb = BeliefBase(clock=clock, rules=[growth])
        kb.assert_("revenue:Q2", 100.0, source="human:cfo")
        assert "growth" not in kb
        kb.assert_("revenue:Q3", 110.0, source="tool:filings")
        assert kb.value("growth") == pytest.approx(0.1)
        assert kb.confidence("growth") == pytest.approx(min(0.99, 0.95))
        kb.retract("revenue:Q2")
        assert kb.label("growth") == "OUT"
        kb.assert_("revenue:Q2", 100.0, source="human:cfo")
        assert kb.label("growth") == "IN"

    def test_rule_added_later_fires_at_once(self, clock: ManualClock) -> None:
        @rule(name="test_base.shout")
        def shout(word: str) -> str:
            return word.upper()

        kb = BeliefBase(clock=clock)
        kb.assert_("word", "hi", source="human:alice")
        kb.add_rule(shout)
        assert kb.value("shout") == "HI"
        assert shout("x") == "X"  # still callable as the plain function

    def test_re_fires_on_value_change(self, clock: ManualClock) -> None:
        @rule(output="double", inputs={"x": "x"}, name="test_base.double_refire")
        def double(x: int) -> int:
            return 2 * x

        kb = BeliefBase(clock=clock, rules=[double])
        kb.assert_("x", 1, source="human:alice")
        kb.assert_("x", 5, source="human:alice")
        assert kb.value("double") == 10
        assert kb.label("double", 2) == "OUT"

    def test_none_means_no_conclusion(self, clock: ManualClock) -> None:
        @rule(output="alert", inputs={"t": "temp"}, name="test_base.alert_none")
        def alert(t: float) -> str | None:
            return "hot" if t > 30 else None

        kb = BeliefBase(clock=clock, rules=[alert])
        kb.assert_("temp", 20, source="tool:sensor")
        assert "alert" not in kb
        kb.assert_("temp", 35, source="tool:sensor")
        assert kb.value("alert") == "hot"

    def test_an_exception_raises_rule_error(self, clock: ManualClock) -> None:
        @rule(output="ratio", inputs={"a": "a", "b": "b"}, name="test_base.ratio_err")
        def ratio(a: float, b: float) -> float:
            return a / b

        kb = BeliefBase(clock=clock, rules=[ratio])
        kb.assert_("a", 1, source="human:alice")
        with pytest.raises(RuleError, match="ZeroDivisionError"):
            kb.assert_("b", 0, source="human:alice")
        assert issubclass(RuleError, CorollaryError)

    def test_rule_confidence(self, clock: ManualClock) -> None:
        @rule(output="guess", inputs={"x": "x"}, confidence=0.8, name="test_base.guess_conf")
        def guess(x: int) -> int:
            return x + 1

        kb = BeliefBase(clock=clock, rules=[guess])
        kb.assert_("x", 1, source="tool:t")
        assert kb.confidence("guess") == pytest.approx(0.8 * 0.95)
        step = kb.explain("guess").to_dict()["reasons"][0]
        assert step["kind"] == "rule" and step["step"] == pytest.approx(0.8)

    def test_bad_rules(self) -> None:
        with pytest.raises(InvalidInputError):
            rule(confidence=1.5, name="test_base.bad1")(lambda x: x)
        with pytest.raises(InvalidInputError):
            rule(confidence=math.nan, name="test_base.bad2")(lambda x: x)
        with pytest.raises(InvalidInputError):
            rule(inputs={"nope": "k"}, name="test_base.bad3")(lambda x: x)
        with pytest.raises(InvalidInputError):
            rule(name="test_base.bad4")(lambda *xs: xs)
        with pytest.raises(InvalidInputError):
            rule(output="", name="test_base.bad5")(lambda x: x)
        with pytest.raises(InvalidTypeError):
            BeliefBase(rules=[lambda x: x])  # type: ignore[list-item]


def test_rule_rejects_bad_inputs_and_functions_with_a_typed_error():
    with pytest.raises(CorollaryError):
        rule(inputs="abc")(lambda abc: abc)
    with pytest.raises(CorollaryError):
        rule(int)  # no signature to read parameters from


# -- rules see what an outcome or a clock move changed, on the very first query --------------------


@rule(output="review_y", inputs={"v": "review_x"}, name="tests.review.times_ten")
def _times_ten(v):
    return v * 10


def _conflicted_base(clock, half_life=None):
    kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence(), rules=[_times_ten])
    kb.assert_("review_x", 1, source="human:a", half_life=half_life)  # 0.99 wins at first
    kb.assert_("review_x", 2, source="document:b")  # 0.9
    assert kb.value("review_y") == 10
    return kb


def test_rule_output_is_current_on_first_query_after_an_outcome_flips_a_conflict():
    kb = _conflicted_base(ManualClock(0))
    for _ in range(10):
        kb.record_outcome("human:a", False)  # human:a falls below document:b
    assert kb.value("review_x") == 2
    assert kb.value("review_y") == 20  # not None on the first query, 20 on the second


def test_rule_output_is_current_on_first_query_after_a_fade_flips_a_conflict():
    clock = ManualClock(0)
    kb = _conflicted_base(clock, half_life=60)
    clock.advance(120)  # 0.99 / 4 < 0.9: the other value wins now
    assert kb.value("review_y") == 20


def test_value_specific_query_sees_a_rule_output_brought_in_by_an_outcome():
    kb = _conflicted_base(ManualClock(0))
    for _ in range(10):
        kb.record_outcome("human:a", False)
    assert kb.label("review_y", 20) == "IN"  # not UnknownBeliefError on the first query

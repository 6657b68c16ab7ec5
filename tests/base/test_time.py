"""Time through the facade: ttl expiry, refreshes, replacement, fading, and the clock a base reads."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from support.hostile import HUGE, base_state, new_base, raises_typed

from corollary import BeliefBase, InvalidInputError, ManualClock, TrustPolicy, rule


class TestTime:
    def test_ttl_expiry(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("price", 101.5, source="tool:quote", ttl=timedelta(minutes=5))
        kb.claim("view", "cheap", source="model:m", inputs=["price"])
        clock.advance(299)
        assert kb.label("price") == "IN"
        assert kb.confidence("price") == pytest.approx(0.95)  # no half-life: no fade
        clock.advance(1)
        assert kb.label("price") == "OUT"
        assert kb.confidence("price") == 0.0
        assert kb.value("price") is None
        assert kb.label("view") == "OUT"
        text = str(kb.explain("price"))
        assert "[OUT] expired" in text and "[expired]" in text

    def test_expiry_with_other_support_keeps_the_belief(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry", ttl=10)
        kb.assert_("hq", "Austin", source="document:10-K")
        clock.advance(10)
        assert kb.label("hq") == "IN"
        assert kb.confidence("hq") == pytest.approx(kb.reliability("document:10-K"))

    def test_refresh_with_equal_value_renews_in_place(self, clock: ManualClock) -> None:
        calls: list[float] = []

        @rule(output="signal", inputs={"p": "price"}, name="test_base.signal_refresh")
        def signal(p: float) -> str:
            calls.append(p)
            return "buy" if p < 120 else "hold"

        kb = BeliefBase(clock=clock, rules=[signal])
        kb.assert_("price", 101.5, source="tool:quote", half_life=60)
        assert calls == [101.5]
        clock.advance(120)
        assert kb.confidence("signal") == pytest.approx(0.2375)
        assert [f.key for f in kb.faded(0.5)] == ["price"]
        kb.assert_("price", 101.5, source="tool:quote", half_life=60)
        assert kb.confidence("price") == pytest.approx(0.95)
        assert kb.confidence("signal") == pytest.approx(0.95)
        assert calls == [101.5]  # nothing downstream was re-derived
        assert kb.faded(0.5) == []
        assert len(kb.explain("price").to_dict()["reasons"][0]["premises"]) == 1
        assert kb.ledger.outcomes() == []

    def test_a_retracted_value_asserted_afresh_keeps_its_old_evidence_withdrawn(
            self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.retract("hq", reason="moved")
        kb.assert_("hq", "Austin", source="document:10-K")  # moved back, says the new report
        assert kb.label("hq") == "IN"
        assert kb.confidence("hq") == pytest.approx(0.9)  # not 0.995: the registry's word was withdrawn
        assert kb.ledger.outcomes() == []  # and nothing was confirmed
        assert [p["source"] for p in kb.explain("hq").to_dict()["reasons"][0]["premises"]] == \
            ["document:10-K"]

    def test_a_retracted_value_claimed_afresh_is_held(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.retract("hq")
        assert kb.claim("hq", "Austin", source="model:m", certainty=0.5) == "Austin"
        assert kb.label("hq") == "IN"
        assert kb.confidence("hq") == pytest.approx(0.45)

    def test_refresh_renews_an_expired_premise(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("price", 101.5, source="tool:quote", ttl=60)
        clock.advance(61)
        assert kb.label("price") == "OUT"
        kb.assert_("price", 101.5, source="tool:quote", ttl=60)
        assert kb.label("price") == "IN"
        clock.advance(59)
        assert kb.label("price") == "IN"
        clock.advance(1)
        assert kb.label("price") == "OUT"

    def test_a_different_value_replaces_and_re_derives(self, clock: ManualClock) -> None:
        calls: list[float] = []

        @rule(output="signal", inputs={"p": "price"}, name="test_base.signal_replace")
        def signal(p: float) -> str:
            calls.append(p)
            return "buy" if p < 120 else "hold"

        kb = BeliefBase(clock=clock, rules=[signal])
        kb.assert_("price", 101.5, source="tool:quote")
        kb.assert_("price", 130.0, source="tool:quote")
        assert calls == [101.5, 130.0]
        assert kb.value("price") == 130.0
        assert kb.label("price", 101.5) == "OUT"
        assert kb.conflicts() == []
        assert kb.value("signal") == "hold"
        assert kb.label("signal", "buy") == "OUT"
        assert "unsupported" in str(kb.explain("price", 101.5))

    def test_faded(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, policy=TrustPolicy(min_confidence=0.5))
        kb.assert_("price", 101.5, source="tool:quote", half_life=60)
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.assert_("gone", 1, source="tool:quote", half_life=60, ttl=30)
        assert kb.faded() == []
        clock.advance(60)
        (f,) = kb.faded()  # 0.475 < 0.5; the expired one is OUT, not faded
        assert (f.key, f.value, f.sources) == ("price", 101.5, ("tool:quote",))
        assert f.confidence == pytest.approx(0.475)
        assert [x.key for x in kb.faded(0.4)] == []
        # hq (0.95, no half-life) is below 0.96 but never decays: weak, not faded
        assert sorted(x.key for x in kb.faded(min_confidence=0.96)) == ["price"]
        with pytest.raises(InvalidInputError):
            kb.faded(1.5)

    def test_clock_accepts_timedelta_and_seconds(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("a", 1, source="tool:t", half_life=60.0, ttl=timedelta(hours=1))
        kb.assert_("b", 1, source="tool:t", half_life=timedelta(seconds=60), ttl=3600)
        clock.advance(timedelta(seconds=60))
        assert kb.confidence("a") == pytest.approx(kb.confidence("b")) == pytest.approx(0.475)

    def test_any_callable_is_a_clock(self) -> None:
        now = [50.0]
        kb = BeliefBase(clock=lambda: now[0])
        kb.assert_("p", 1, source="tool:q", half_life=10)
        now[0] = 60.0
        assert kb.confidence("p") == pytest.approx(0.475)


def test_a_clock_returning_garbage_is_a_clear_error() -> None:
    kb = BeliefBase(clock=lambda: math.nan)
    with pytest.raises(InvalidInputError, match="clock"):
        kb.assert_("k", 1, source="tool:t")


@pytest.mark.parametrize("where", ["half_life", "ttl", "advance"])
def test_huge_int_duration_is_typed_error(where: str) -> None:
    kb, clock = new_base()
    before = base_state(kb)
    if where == "advance":
        raises_typed(clock.advance, HUGE)
        assert clock() == 1_000.0
    else:
        raises_typed(kb.assert_, "new", 1, source="tool:x", **{where: HUGE})
    assert base_state(kb) == before


def test_refresh_counts_the_beliefs_it_recomputes(clock: ManualClock) -> None:
    kb = BeliefBase(clock=clock)
    kb.assert_("p", 1, source="tool:q")
    kb.assert_("fading", 1, source="tool:f", half_life=60)
    kb.assert_("soon", 1, source="tool:s", ttl=10)
    kb.assert_("steady", 1, source="human:h")
    assert kb.refresh() == 4
    assert kb.refresh() == 0
    kb.record_outcome("tool:q", False)  # p rests on tool:q
    clock.advance(10)  # fading decays and soon's ttl runs out
    assert kb.refresh() == 3
    assert kb.refresh() == 0
    assert kb.label("soon") == "OUT"
    assert kb.confidence("p") == pytest.approx(9.5 / 11)


def test_faded_lists_aged_evidence_not_weak_sources() -> None:
    """An assumption (prior 0.6) below a 0.7 floor never decays: it is weak, not faded, and a
    refresh would not raise it. A quote whose half-life has aged it below the floor is faded."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("guess", 1, source="assumption:hunch")
    kb.assert_("price", 101.5, source="tool:quote", half_life=60)
    assert kb.faded(0.7) == []
    clock.advance(60)  # the quote: 0.95 x 0.5
    assert [(f.key, round(f.confidence, 3), f.sources) for f in kb.faded(0.7)] == [
        ("price", 0.475, ("tool:quote",))]

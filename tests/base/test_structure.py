"""The shape of a base: beliefs that only justify each other, corroboration, the projector,
unknown keys, and which superseded values are kept."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, TrustPolicy, UnknownBeliefError, rule


class TestStructure:
    def test_beliefs_that_only_justify_each_other_are_out(self, clock: ManualClock) -> None:
        @rule(output="b", inputs={"a": "a"}, name="test_base.cycle_b")
        def to_b(a: int) -> int:
            return a

        @rule(output="a", inputs={"b": "b"}, name="test_base.cycle_a")
        def to_a(b: int) -> int:
            return b

        kb = BeliefBase(clock=clock, rules=[to_b, to_a])
        kb.assert_("a", 1, source="tool:t")
        assert kb.value("b") == 1 and kb.confidence("b") == pytest.approx(0.95)
        kb.assert_("a", 2, source="tool:t")  # a = 1 loses its only premise
        assert kb.label("a", 1) == "OUT"
        assert kb.label("b", 1) == "OUT"
        assert kb.value("a") == 2 and kb.value("b") == 2
        assert "unsupported" in str(kb.explain("a", 1))

    def test_model_claim_cycle_falls_with_its_premise(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("x", "yes", source="tool:t", ttl=60)
        kb.claim("y", "yes", source="model:m", inputs=["x"])
        kb.claim("x", "yes", source="model:m", inputs=["y"])
        assert kb.confidence("x") == pytest.approx(0.95)  # never grows around the cycle
        clock.advance(60)
        assert kb.label("x") == "OUT" and kb.label("y") == "OUT"

    def test_corroboration_off(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, policy=TrustPolicy(corroboration=False))
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.assert_("hq", "Austin", source="document:10-K")
        best = max(kb.reliability("tool:registry"), kb.reliability("document:10-K"))
        assert kb.confidence("hq") == pytest.approx(best)
        assert kb.confidence("hq") < 0.99

    def test_project_hides_beliefs_below_min_confidence(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, policy=TrustPolicy(min_confidence=0.7))
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.assert_("guess", "Dallas", source="assumption:x")
        kb.assert_("price", 101.5, source="tool:quote", half_life=60)
        kb.assert_("gone", 1, source="tool:t")
        kb.retract("gone")
        assert kb.project() == {"hq": "Austin", "price": 101.5}
        clock.advance(30)  # 0.67
        assert kb.project() == {"hq": "Austin"}
        assert {h.key for h in kb.beliefs()} == {"hq", "guess", "price"}
        assert {h.key for h in kb.beliefs(min_confidence=0.65)} == {"hq", "price"}

    def test_queries_on_unknown_keys(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        with pytest.raises(UnknownBeliefError):
            kb.confidence("nope")
        with pytest.raises(KeyError):
            kb.label("nope")
        with pytest.raises(UnknownBeliefError):
            kb.retract("nope")
        kb.assert_("k", 1, source="tool:t")
        with pytest.raises(UnknownBeliefError):
            kb.confidence("k", 2)


def test_a_feed_updating_one_key_keeps_one_belief():
    kb = BeliefBase(clock=ManualClock(0))
    for price in range(1000):
        kb.assert_("price:ACME", float(price), source="tool:quote")
    assert len(kb) == 1
    assert kb.value("price:ACME") == 999.0
    assert kb.confidence("price:ACME") == pytest.approx(0.95)


def test_superseded_values_that_something_reads_or_that_were_withdrawn_are_kept():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("x", 1, source="tool:t")
    kb.claim("y", 2, source="model:m", inputs=["x"])
    kb.assert_("x", 2, source="tool:t")
    assert kb.label("x", 1) == "OUT" and kb.label("y") == "OUT"
    kb.assert_("z", 1, source="tool:t")
    kb.retract("z", reason="wrong")
    kb.assert_("z", 2, source="tool:t")
    assert kb.label("z", 1) == "OUT"
    assert "retracted: wrong" in str(kb.explain("z", 1))
    assert len(kb) == 5

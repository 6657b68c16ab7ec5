"""The BeliefBase through its public API: outcomes (docs/model.md, "Outcomes"), conflicts, time, rules,
tools, cycles, corroboration, the projector, and bad input that must change nothing."""

from __future__ import annotations

import inspect
import math
from datetime import timedelta
from typing import Any

import pytest

from corollary import (
    AmbiguousValueError,
    AskHuman,
    BeliefBase,
    BlameError,
    Conflict,
    CorollaryError,
    FormulaError,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    TrustLedger,
    TrustPolicy,
    UnknownBeliefError,
    UnknownSourceError,
    rule,
    tool,
)
from corollary.errors import CitationError, RuleError


def counts(kb: BeliefBase, source: str) -> tuple[int, int]:
    record = kb.ledger.record_of(source)
    return record.correct, record.wrong


def all_outcomes(kb: BeliefBase) -> list[tuple[str, bool]]:
    return sorted((o.source, o.correct) for o in kb.ledger.outcomes())


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_000)


# == outcomes (docs/model.md, "Outcomes") ===============================================================
class TestOutcomes:
    def test_retract_fault_none_records_nothing(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("price:ACME", 101.5, source="tool:scraper")
        kb.retract("price:ACME", reason="restated")
        assert kb.ledger.outcomes() == []
        assert kb.reliability("tool:scraper") == 0.95
        assert kb.label("price:ACME") == "OUT"
        assert kb.confidence("price:ACME") == 0.0
        assert kb.value("price:ACME") is None

    def test_retract_fault_source_blames_every_premise_source(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.assert_("hq", "Austin", source="document:10-K")
        assert counts(kb, "tool:registry") == (1, 0)  # the confirmation
        kb.retract("hq", reason="moved years ago", fault="source")
        assert counts(kb, "tool:registry") == (1, 1)
        assert counts(kb, "document:10-K") == (1, 1)
        assert kb.reliability("tool:registry") == pytest.approx((9.5 + 1) / 12)
        assert kb.reliability("document:10-K") == pytest.approx((9 + 1) / 12)
        wrong = [o for o in kb.ledger.outcomes("tool:registry") if not o.correct]
        assert wrong[0].reason == "moved years ago" and wrong[0].key == "hq"

    def test_retract_fault_source_blames_the_model_behind_an_unverified_claim(
            self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("revenue", 110.0, source="tool:filings")
        kb.claim("trend", "up", source="model:analyst", inputs=["revenue"])
        kb.retract("trend", fault="source")
        assert counts(kb, "model:analyst") == (0, 1)
        assert counts(kb, "tool:filings") == (0, 0)  # inputs are not blamed
        assert kb.reliability("model:analyst") == pytest.approx(9 / 11)
        assert kb.label("revenue") == "IN"
        assert kb.label("trend") == "OUT"

    def test_blaming_a_rule_only_belief_raises_and_changes_nothing(self, clock: ManualClock) -> None:
        @rule(output="double", inputs={"x": "x"}, name="test_base.double_blame")
        def double(x: float) -> float:
            return 2 * x

        kb = BeliefBase(clock=clock, rules=[double])
        kb.assert_("x", 2, source="human:alice")
        assert kb.value("double") == 4
        before = kb.to_dict()
        with pytest.raises(BlameError, match="rule"):
            kb.retract("double", fault="source")
        with pytest.raises(ValueError):  # BlameError is a ValueError, as the spec says
            kb.retract("double", fault="source")
        assert kb.to_dict() == before
        assert kb.label("double") == "IN"
        assert kb.ledger.outcomes() == []

    def test_blaming_a_formula_only_belief_raises_and_changes_nothing(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("a", 3, source="human:alice")
        kb.assert_("b", 4, source="human:alice")
        kb.claim("sum", 7, source="model:m", inputs=["a", "b"], formula="a + b")
        before = kb.to_dict()
        with pytest.raises(BlameError):
            kb.retract("sum", fault="source")
        assert kb.to_dict() == before
        assert kb.label("sum") == "IN"
        assert counts(kb, "model:m") == (1, 0)  # only the check's right outcome

    def test_confirmation_across_origins_records_right_for_both(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry")
        assert kb.ledger.outcomes() == []
        kb.assert_("hq", "Austin", source="document:10-K")
        assert all_outcomes(kb) == [("document:10-K", True), ("tool:registry", True)]

    def test_no_confirmation_within_one_origin(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("rev", 5, source="tool:get_revenue", origin="sec_database")
        kb.assert_("rev", 5, source="tool:get_filing_figure", origin="sec_database")
        assert kb.ledger.outcomes() == []
        assert kb.confidence("rev") == pytest.approx(0.95)  # counted once

    def test_no_confirmation_for_a_repeat(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.assert_("hq", "Austin", source="document:10-K")
        n = len(kb.ledger.outcomes())
        for _ in range(3):
            kb.assert_("hq", "Austin", source="tool:registry")
            kb.assert_("hq", "Austin", source="document:10-K")
        assert len(kb.ledger.outcomes()) == n
        assert kb.confidence("hq") == pytest.approx(1 - (1 - 10.5 / 11) * (1 - 10 / 11))

    def test_a_repeat_replaces_the_justification(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        for _ in range(5):
            kb.assert_("x", 1, source="tool:poller")
        proof = kb.explain("x").to_dict()
        assert len(proof["reasons"]) == 1
        assert len(proof["reasons"][0]["premises"]) == 1
        assert kb.confidence("x") == pytest.approx(0.95)

    def test_claims_reaching_the_same_value_combine_by_max_without_outcomes(
            self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("a", 1, source="human:alice")
        kb.claim("b", "yes", source="model:m1", inputs=["a"], certainty=0.5)
        kb.claim("b", "yes", source="model:m2", inputs=["a"], certainty=0.8)
        assert kb.confidence("b") == pytest.approx(0.9 * 0.8 * 0.99)
        assert kb.ledger.outcomes() == []

    @pytest.mark.parametrize("learn", [True, False])
    def test_human_resolve(self, clock: ManualClock, learn: bool) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("ceo", "Alice", source="tool:crm")
        kb.assert_("ceo", "Bob", source="document:memo")
        (conflict,) = kb.conflicts()
        kb.resolve(conflict, "Bob", learn=learn)
        assert kb.value("ceo") == "Bob"
        assert kb.label("ceo", "Alice") == "OUT"
        assert kb.conflicts() == []
        if learn:
            assert counts(kb, "tool:crm") == (0, 1)
            assert counts(kb, "document:memo") == (1, 0)
        else:
            assert kb.ledger.outcomes() == []
        # a human resolution is final: the loser does not come back when the winner falls
        kb.retract("ceo", "Bob")
        assert kb.label("ceo", "Alice") == "OUT"

    def test_resolve_by_key_and_bad_winner(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("ceo", "Alice", source="tool:crm")
        kb.assert_("ceo", "Bob", source="document:memo")
        before = kb.to_dict()
        with pytest.raises(InvalidInputError):
            kb.resolve("ceo", "Carol")
        with pytest.raises(InvalidTypeError):
            kb.resolve("ceo", "Bob", learn="yes")  # type: ignore[arg-type]
        assert kb.to_dict() == before
        kb.resolve("ceo", "Alice", learn=False)
        assert kb.value("ceo") == "Alice"

    def test_ask_human_learns_and_learn_false_does_not(self, clock: ManualClock) -> None:
        asked: list[Conflict] = []

        def ask(conflict: Conflict) -> Any:
            asked.append(conflict)
            return "Bob"

        kb = BeliefBase(clock=clock, conflicts=AskHuman(ask))
        kb.assert_("ceo", "Alice", source="human:alice")
        kb.assert_("ceo", "Bob", source="document:memo")
        assert len(asked) == 1
        assert asked[0].key == "ceo" and set(asked[0].values) == {"Alice", "Bob"}
        assert kb.value("ceo") == "Bob"  # the person overrules the higher confidence
        assert counts(kb, "human:alice") == (0, 1)
        assert counts(kb, "document:memo") == (1, 0)

        kb2 = BeliefBase(clock=clock, conflicts=AskHuman(ask, learn=False))
        kb2.assert_("ceo", "Alice", source="human:alice")
        kb2.assert_("ceo", "Bob", source="document:memo")
        assert kb2.value("ceo") == "Bob"
        assert kb2.ledger.outcomes() == []

    def test_ask_human_may_leave_a_conflict_open(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, conflicts=AskHuman(lambda c: None))
        kb.assert_("ceo", "Alice", source="human:alice")
        kb.assert_("ceo", "Bob", source="document:memo")
        assert [c.key for c in kb.conflicts()] == ["ceo"]
        assert kb.ledger.outcomes() == []

    @pytest.mark.parametrize("policy", [PreferHigherConfidence(), PreferSource(["document", "tool"])])
    def test_policy_resolutions_record_nothing(self, clock: ManualClock, policy: Any) -> None:
        kb = BeliefBase(clock=clock, conflicts=policy)
        kb.assert_("ceo", "Alice", source="tool:crm")
        kb.assert_("ceo", "Bob", source="document:memo")
        assert kb.conflicts() == []
        assert kb.ledger.outcomes() == []

    def test_formula_check_right(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("q2", 100.0, source="human:cfo")
        kb.assert_("q3", 110.0, source="human:cfo")
        got = kb.claim("growth", 0.1, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
        assert got == 0.1
        assert counts(kb, "model:m") == (1, 0)
        assert kb.confidence("growth") == pytest.approx(0.99)  # verified: no reliability factor

    def test_formula_check_wrong_believes_the_recomputed_value(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("q2", 100.0, source="human:cfo")
        kb.assert_("q3", 110.0, source="human:cfo")
        got = kb.claim("growth", 0.2, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
        assert got == pytest.approx(0.1)
        assert counts(kb, "model:m") == (0, 1)
        assert kb.value("growth") == pytest.approx(0.1)
        assert kb.confidence("growth") == pytest.approx(0.99)
        text = str(kb.explain("growth"))
        assert "stated 0.2" in text and "computes" in text
        step = kb.explain("growth").to_dict()["reasons"][0]
        assert step["stated"] == 0.2 and step["computed"] == pytest.approx(0.1)
        assert step["reproduced"] is False

    def test_citation_check_right_and_wrong(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("doc:10-K", "Revenue grew 10% in the third quarter.", source="document:10-K")
        kb.claim("growth_text", "10%", source="model:m",
                 citation=("doc:10-K", "revenue grew 10%"))
        assert counts(kb, "model:m") == (1, 0)
        kb.claim("margin", "12%", source="model:m", citation=("doc:10-K", "margin was 12%"))
        assert counts(kb, "model:m") == (1, 1)
        assert kb.reliability("model:m") == pytest.approx(10 / 12)
        proof = kb.explain("margin").to_dict()["reasons"][0]
        assert proof["citation_found"] is False and proof["document"] == "doc:10-K"
        # the claim rests on the document: its confidence is reliability × min(document)
        assert kb.confidence("margin") == pytest.approx(10 / 12 * 0.9)

    def test_checks_record_nothing_with_learn_from_checks_off(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, learn_from_checks=False)
        kb.assert_("q2", 100.0, source="human:cfo")
        kb.assert_("q3", 110.0, source="human:cfo")
        kb.assert_("doc", "Revenue grew 10%.", source="document:10-K")
        kb.claim("g1", 0.1, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
        kb.claim("g2", 0.5, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
        kb.claim("c1", "yes", source="model:m", citation=("doc", "revenue grew 10%"))
        kb.claim("c2", "no", source="model:m", citation=("doc", "revenue fell"))
        assert kb.ledger.outcomes() == []
        assert kb.value("g2") == pytest.approx(0.1)  # still re-executed

    def test_record_outcome_as_given(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.record_outcome("tool:carrier_api", False, reason="ETA missed by 3 days")
        kb.record_outcome("tool:carrier_api", True)
        kb.record_outcome("tool:carrier_api", 1)
        assert counts(kb, "tool:carrier_api") == (2, 1)
        (o, *_) = kb.ledger.outcomes("tool:carrier_api")
        assert o.reason == "ETA missed by 3 days" and o.at == clock()
        assert kb.reliability("tool:carrier_api") == pytest.approx((9.5 + 2) / 13)

    def test_record_outcome_keeps_the_belief_confidence(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("eta", "Tuesday", source="tool:carrier_api")
        kb.record_outcome("tool:carrier_api", False, key="eta")
        (o,) = kb.ledger.outcomes("tool:carrier_api")
        assert o.key == "eta" and o.confidence == pytest.approx(0.95)

    def test_a_reliability_change_reaches_every_dependent_belief_at_once(
            self, clock: ManualClock) -> None:
        @rule(output="total", inputs={"a": "a", "b": "b"}, name="test_base.total_reach")
        def total(a: float, b: float) -> float:
            return a + b

        kb = BeliefBase(clock=clock, rules=[total])
        kb.assert_("a", 1, source="tool:feed")
        kb.assert_("b", 2, source="tool:feed")
        kb.assert_("c", 3, source="tool:feed")
        kb.assert_("other", 4, source="human:bob")
        kb.claim("judged", "ok", source="model:m", inputs=["total"])
        assert kb.confidence("total") == pytest.approx(0.95)
        for _ in range(10):
            kb.record_outcome("tool:feed", False)
        r = 9.5 / 20
        assert kb.reliability("tool:feed") == pytest.approx(r)
        for key in ("a", "b", "c", "total"):
            assert kb.confidence(key) == pytest.approx(r)
        assert kb.confidence("judged") == pytest.approx(0.9 * r)
        assert kb.confidence("other") == pytest.approx(0.99)
        # through a shared ledger, another base's beliefs move too
        other = BeliefBase(clock=clock, ledger=kb.ledger)
        other.assert_("d", 5, source="tool:feed")
        assert other.confidence("d") == pytest.approx(r)
        other.assert_("e", 6, source="tool:feed")
        other.retract("e", fault="source")
        assert kb.confidence("a") == pytest.approx(9.5 / 21)
        assert other.confidence("d") == pytest.approx(9.5 / 21)
        r = 9.5 / 21
        # and a model's reliability reaches its judgements
        kb.record_outcome("model:m", True)
        assert kb.confidence("judged") == pytest.approx(10 / 11 * r)


# == conflicts ===================================================================================
class TestConflicts:
    def test_open_conflict_is_listed(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("ceo", "Alice", source="human:alice")
        kb.assert_("ceo", "Bob", source="tool:crm")
        (c,) = kb.conflicts()
        assert c.key == "ceo"
        assert c.values == ("Alice", "Bob")  # most confident first
        assert [cand.confidence for cand in c.candidates] == pytest.approx([0.99, 0.95])
        assert c.candidates[1].sources == ("tool:crm",)
        assert kb.label("ceo", "Alice") == kb.label("ceo", "Bob") == "IN"
        with pytest.raises(AmbiguousValueError):
            kb.value("ceo")
        with pytest.raises(AmbiguousValueError):
            kb.confidence("ceo")
        assert kb.confidence("ceo", "Bob") == pytest.approx(0.95)

    def test_prefer_higher_confidence_and_the_loser_comes_back(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, conflicts=PreferHigherConfidence())
        kb.assert_("ceo", "Bob", source="tool:crm")
        kb.assert_("ceo", "Alice", source="human:alice")
        assert kb.value("ceo") == "Alice"
        assert kb.label("ceo", "Bob") == "OUT"
        assert kb.confidence("ceo", "Bob") == 0.0
        assert "lost to ceo = 'Alice'" in str(kb.explain("ceo", "Bob"))
        kb.retract("ceo", "Alice")
        assert kb.value("ceo") == "Bob"
        assert kb.confidence("ceo") == pytest.approx(0.95)

    def test_the_loser_comes_back_when_the_winner_fades_below_it(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, conflicts=PreferHigherConfidence())
        kb.assert_("price", 101.5, source="tool:quote", half_life=60)
        kb.assert_("price", 100.0, source="document:report")
        assert kb.value("price") == 101.5
        clock.advance(5)  # 0.95·2^(-5/60) ≈ 0.897 < 0.9
        assert kb.value("price") == 100.0
        assert kb.label("price", 101.5) == "OUT"
        assert kb.confidence("price") == pytest.approx(0.9)
        # and a refresh wins again
        kb.assert_("price", 101.5, source="tool:quote", half_life=60)
        assert kb.value("price") == 101.5

    def test_prefer_source(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, conflicts=PreferSource(["document:memo", "tool"]))
        kb.assert_("ceo", "Alice", source="human:alice")  # unlisted: ranks last
        kb.assert_("ceo", "Bob", source="document:memo")
        kb.assert_("ceo", "Carol", source="tool:crm")
        assert kb.value("ceo") == "Bob"
        assert kb.confidence("ceo") == pytest.approx(0.9)
        assert kb.label("ceo", "Alice") == kb.label("ceo", "Carol") == "OUT"
        kb.retract("ceo", "Bob")
        assert kb.value("ceo") == "Carol"

    def test_prefer_source_rejects_bad_orders(self) -> None:
        with pytest.raises(InvalidTypeError):
            PreferSource("tool")  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError):
            PreferSource(["tool", ""])
        with pytest.raises(InvalidTypeError):
            AskHuman("not callable")  # type: ignore[arg-type]

    def test_derived_conclusions_follow_the_winner(self, clock: ManualClock) -> None:
        @rule(output="greeting", inputs={"ceo": "ceo"}, name="test_base.greeting")
        def greeting(ceo: str) -> str:
            return f"Dear {ceo}"

        kb = BeliefBase(clock=clock, conflicts=PreferHigherConfidence(), rules=[greeting])
        kb.assert_("ceo", "Bob", source="tool:crm")
        assert kb.value("greeting") == "Dear Bob"
        kb.assert_("ceo", "Alice", source="human:alice")
        assert kb.value("greeting") == "Dear Alice"
        assert kb.label("greeting", "Dear Bob") == "OUT"
        kb.retract("ceo", "Alice")
        assert kb.value("greeting") == "Dear Bob"


# == time ========================================================================================
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
        assert sorted(x.key for x in kb.faded(threshold=0.96)) == ["hq", "price"]
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


# == rules =======================================================================================
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


# == tools =======================================================================================
class TestTools:
    def test_keeps_signature_and_docstring(self) -> None:
        def plain(symbol: str, *, venue: str = "NYSE") -> float:
            """Last trade price."""
            return 101.5

        wrapped = tool(trust="high", half_life=60)(plain)
        assert inspect.signature(wrapped) == inspect.signature(plain)
        assert wrapped.__doc__ == "Last trade price."
        assert wrapped.__name__ == "plain"
        assert wrapped("ACME", venue="X") == 101.5

        def bare_plain(x: int) -> int:
            """Bare."""
            return x

        bare = tool(bare_plain)
        assert inspect.signature(bare) == inspect.signature(bare_plain)
        assert bare.__doc__ == "Bare."
        assert bare.__wrapped__ is bare_plain
        assert bare.__corollary_tool__.source == "tool:bare_plain"

    def test_stacks_with_other_decorators(self) -> None:
        import functools

        def logged(fn: Any) -> Any:
            @functools.wraps(fn)
            def inner(*a: Any, **k: Any) -> Any:
                return fn(*a, **k)
            return inner

        @logged
        @tool(trust="low")
        def lookup(name: str) -> str:
            """Look it up."""
            return name

        assert list(inspect.signature(lookup).parameters) == ["name"]
        assert inspect.signature(lookup).return_annotation in (str, "str")
        assert lookup.__doc__ == "Look it up."

    @pytest.mark.parametrize(("trust", "prior"), [("high", 0.99), ("medium", 0.9), ("low", 0.7), (0.8, 0.8)])
    def test_declared_trust(self, clock: ManualClock, trust: Any, prior: float) -> None:
        @tool(trust=trust, name=f"t_{str(trust).replace('.', '_')}")
        def t() -> int:
            return 1

        kb = BeliefBase(clock=clock, tools=[t])
        kb.call(t, "k")
        assert kb.confidence("k") == pytest.approx(prior)
        assert kb.reliability(f"tool:t_{str(trust).replace('.', '_')}") == pytest.approx(prior)

    def test_undeclared_tool_is_a_direct_assertion(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("k", 1, source="tool:anything")
        assert kb.confidence("k") == pytest.approx(0.95)

    def test_half_life_and_ttl_applied(self, clock: ManualClock) -> None:
        @tool(half_life=timedelta(minutes=1), ttl=timedelta(minutes=5))
        def quote(symbol: str) -> float:
            return 101.5

        kb = BeliefBase(clock=clock, tools=[quote])
        kb.assert_("price", 101.5, source="tool:quote")  # direct assertions get it too
        clock.advance(60)
        assert kb.confidence("price") == pytest.approx(0.475)
        clock.advance(240)
        assert kb.label("price") == "OUT"
        assert kb.call(quote, "price", "ACME") == 101.5
        assert kb.confidence("price") == pytest.approx(0.95)

    def test_shared_origin_counts_once(self, clock: ManualClock) -> None:
        @tool(origin="sec_database")
        def get_revenue(quarter: str) -> float:
            return 5.0

        @tool(origin="sec_database")
        def get_filing_figure(name: str) -> float:
            return 5.0

        kb = BeliefBase(clock=clock, tools=[get_revenue, get_filing_figure])
        kb.call(get_revenue, "rev", "Q3")
        kb.call(get_filing_figure, "rev", "revenue")
        assert kb.confidence("rev") == pytest.approx(0.95)
        assert kb.ledger.outcomes() == []
        premises = kb.explain("rev").to_dict()["reasons"][0]["premises"]
        assert {p["origin"] for p in premises} == {"sec_database"}
        # an independent origin does reinforce
        kb.assert_("rev", 5.0, source="document:10-K")
        assert kb.confidence("rev") == pytest.approx(
            1 - (1 - kb.reliability("tool:get_revenue")) * (1 - kb.reliability("document:10-K")))

    def test_bad_tool_declarations(self) -> None:
        for kwargs in ({"trust": 1.5}, {"trust": -0.1}, {"trust": True}, {"half_life": 0},
                       {"half_life": -1}, {"ttl": timedelta(seconds=-5)}, {"ttl": math.inf}):
            with pytest.raises((InvalidInputError, InvalidTypeError)):
                tool(**kwargs)(lambda: 1)
        with pytest.raises(InvalidTypeError):
            BeliefBase(tools=[lambda: 1])

    def test_unknown_trust_level_is_refused_when_the_tool_is_added(self, clock: ManualClock) -> None:
        @tool(trust="extreme", name="t_extreme")
        def t() -> int:
            return 1

        with pytest.raises(InvalidInputError, match="extreme"):
            BeliefBase(clock=clock, tools=[t])
        kb = BeliefBase(clock=clock)
        with pytest.raises(InvalidInputError, match="extreme"):
            kb.call(t, "k")
        assert "k" not in kb
        assert kb.tools == {}
        # a level the policy defines is fine
        kb = BeliefBase(clock=clock, policy=TrustPolicy(tool_trust={"extreme": 0.999}), tools=[t])
        kb.call(t, "k")
        assert kb.confidence("k") == pytest.approx(0.999)


# == cycles, corroboration, projector ==============================================================
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


# == bad input raises a typed error and changes nothing ============================================
def _populated(clock: ManualClock) -> BeliefBase:
    kb = BeliefBase(clock=clock)
    kb.assert_("q2", 100.0, source="human:cfo")
    kb.assert_("q3", 110.0, source="tool:filings", half_life=60)
    kb.assert_("doc", "Revenue grew 10%.", source="document:10-K")
    kb.assert_("name", "ACME", source="tool:registry")
    kb.claim("growth", 0.1, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
    return kb


NAN, INF = math.nan, math.inf

BAD_CALLS = {
    # keys
    "key int": (lambda kb: kb.assert_(1, 1, source="tool:t"), InvalidTypeError),
    "key None": (lambda kb: kb.assert_(None, 1, source="tool:t"), InvalidTypeError),
    "key bytes": (lambda kb: kb.assert_(b"k", 1, source="tool:t"), InvalidTypeError),
    "key empty": (lambda kb: kb.assert_("", 1, source="tool:t"), InvalidInputError),
    "key blank": (lambda kb: kb.assert_("  ", 1, source="tool:t"), InvalidInputError),
    "claim key empty": (lambda kb: kb.claim("", 1, source="model:m"), InvalidInputError),
    "claim input key int": (lambda kb: kb.claim("x", 1, source="model:m", inputs={"x": 3}), InvalidTypeError),
    "retract key int": (lambda kb: kb.retract(7), InvalidTypeError),
    "confidence key empty": (lambda kb: kb.confidence(""), InvalidInputError),
    # values
    "value nan": (lambda kb: kb.assert_("k", NAN, source="tool:t"), InvalidInputError),
    "value inf": (lambda kb: kb.assert_("k", INF, source="tool:t"), InvalidInputError),
    "value -inf": (lambda kb: kb.assert_("q2", -INF, source="tool:t"), InvalidInputError),
    "value nested nan": (lambda kb: kb.assert_("k", [1, {"a": NAN}], source="tool:t"), InvalidInputError),
    "value object": (lambda kb: kb.assert_("k", object(), source="tool:t"), InvalidTypeError),
    "value set": (lambda kb: kb.assert_("k", {1, 2}, source="tool:t"), InvalidTypeError),
    "claim value nan": (lambda kb: kb.claim("k", NAN, source="model:m", inputs=["q2"]), InvalidInputError),
    # certainties
    "certainty nan": (lambda kb: kb.claim("k", 1, source="model:m", certainty=NAN), InvalidInputError),
    "certainty inf": (lambda kb: kb.claim("k", 1, source="model:m", certainty=INF), InvalidInputError),
    "certainty 1.1": (lambda kb: kb.claim("k", 1, source="model:m", certainty=1.1), InvalidInputError),
    "certainty -0.1": (lambda kb: kb.claim("k", 1, source="model:m", certainty=-0.1), InvalidInputError),
    "certainty str": (lambda kb: kb.claim("k", 1, source="model:m", certainty="high"), InvalidTypeError),
    "certainty bool": (lambda kb: kb.claim("k", 1, source="model:m", certainty=True), InvalidTypeError),
    # half-life and ttl
    "half_life negative": (lambda kb: kb.assert_("k", 1, source="tool:t", half_life=-1), InvalidInputError),
    "half_life zero": (lambda kb: kb.assert_("k", 1, source="tool:t", half_life=0), InvalidInputError),
    "half_life nan": (lambda kb: kb.assert_("k", 1, source="tool:t", half_life=NAN), InvalidInputError),
    "half_life str": (lambda kb: kb.assert_("k", 1, source="tool:t", half_life="1m"), InvalidTypeError),
    "ttl negative td": (lambda kb: kb.assert_("k", 1, source="tool:t", ttl=timedelta(seconds=-1)),
                        InvalidInputError),
    "ttl zero": (lambda kb: kb.assert_("q2", 100.0, source="human:cfo", ttl=0), InvalidInputError),
    "ttl inf": (lambda kb: kb.assert_("k", 1, source="tool:t", ttl=INF), InvalidInputError),
    # sources
    "unknown kind": (lambda kb: kb.assert_("k", 1, source="robot:r2"), UnknownSourceError),
    "no colon": (lambda kb: kb.assert_("k", 1, source="scraper"), InvalidInputError),
    "empty name": (lambda kb: kb.assert_("k", 1, source="tool:"), InvalidInputError),
    "empty kind": (lambda kb: kb.assert_("k", 1, source=":x"), InvalidInputError),
    "source int": (lambda kb: kb.assert_("k", 1, source=5), InvalidTypeError),
    "rule as source": (lambda kb: kb.assert_("k", 1, source="rule:r"), InvalidInputError),
    "claim unknown kind": (lambda kb: kb.claim("k", 1, source="oracle:o"), UnknownSourceError),
    "outcome unknown kind": (lambda kb: kb.record_outcome("robot:r2", True), UnknownSourceError),
    "reliability unknown kind": (lambda kb: kb.reliability("robot:r2"), UnknownSourceError),
    "origin empty": (lambda kb: kb.assert_("k", 1, source="tool:t", origin=""), InvalidInputError),
    # formulas
    "formula import": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2", "q3"],
                                           formula="__import__('os').system('true')"), FormulaError),
    "formula attribute": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                              formula="q2.real"), FormulaError),
    "formula subscript": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                              formula="q2[0]"), FormulaError),
    "formula string": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                           formula="'a' * 3"), FormulaError),
    "formula call": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                         formula="open(q2)"), FormulaError),
    "formula lambda": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                           formula="(lambda: 1)()"), FormulaError),
    "formula huge power": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                               formula="q2 ** 100000"), FormulaError),
    "formula div zero": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                             formula="q2 / 0"), FormulaError),
    "formula syntax": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                           formula="q2 +"), FormulaError),
    "formula non-str": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["q2"],
                                            formula=42), InvalidTypeError),
    "formula text input": (lambda kb: kb.claim("g", 0.1, source="model:m", inputs=["name"],
                                               formula="name + 1"), FormulaError),
    # unknown inputs
    "unknown input": (lambda kb: kb.claim("g", 1, source="model:m", inputs=["nope"]), UnknownBeliefError),
    "formula name not an input": (lambda kb: kb.claim("g", 1, source="model:m", inputs=["q2"],
                                                      formula="q2 + q4"), FormulaError),
    "unknown cited document": (lambda kb: kb.claim("g", 1, source="model:m",
                                                   citation=("nodoc", "x")), UnknownBeliefError),
    "citation malformed": (lambda kb: kb.claim("g", 1, source="model:m", citation=("doc",)),
                           CitationError),
    "citation of a number": (lambda kb: kb.claim("g", 1, source="model:m", citation=("q2", "100")),
                             InvalidTypeError),
    "inputs not a list": (lambda kb: kb.claim("g", 1, source="model:m", inputs="q2"), InvalidTypeError),
    # fault
    "fault model": (lambda kb: kb.retract("q2", fault="model"), InvalidInputError),
    "fault None": (lambda kb: kb.retract("q2", fault=None), InvalidInputError),
    "fault True": (lambda kb: kb.retract("q2", fault=True), InvalidInputError),
    "fault SOURCE": (lambda kb: kb.retract("q2", fault="SOURCE"), InvalidInputError),
    # outcomes
    "outcome 2": (lambda kb: kb.record_outcome("tool:t", 2), InvalidInputError),
    "outcome -1": (lambda kb: kb.record_outcome("tool:t", -1), InvalidInputError),
    "outcome 0.5": (lambda kb: kb.record_outcome("tool:t", 0.5), InvalidInputError),
    "outcome yes": (lambda kb: kb.record_outcome("tool:t", "yes"), InvalidInputError),
    "outcome None": (lambda kb: kb.record_outcome("tool:t", None), InvalidInputError),
    "outcome rule": (lambda kb: kb.record_outcome("rule:r", True), BlameError),
    # reasons, other
    "reason int": (lambda kb: kb.retract("q2", reason=3), InvalidTypeError),
    "retract unknown value": (lambda kb: kb.retract("q2", 99.0), UnknownBeliefError),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_input_raises_a_typed_error_and_changes_nothing(clock: ManualClock, name: str) -> None:
    call, error = BAD_CALLS[name]
    kb = _populated(clock)
    before = kb.to_dict()
    before_outcomes = kb.ledger.outcomes()
    with pytest.raises(error) as info:
        call(kb)
    assert isinstance(info.value, CorollaryError)
    assert str(info.value)  # a message that says what is wrong
    assert kb.to_dict() == before
    assert kb.ledger.outcomes() == before_outcomes
    # and the base still works
    assert kb.confidence("growth") == pytest.approx(0.95)
    kb.assert_("after", 1, source="tool:t")
    assert kb.label("after") == "IN"


@pytest.mark.parametrize(
    "make",
    [
        lambda: TrustPolicy(priors={"tool": 1.5}),
        lambda: TrustPolicy(priors={"tool": -0.1}),
        lambda: TrustPolicy(priors={"tool": NAN}),
        lambda: TrustPolicy(priors={"sensor": "high"}),
        lambda: TrustPolicy(priors={"bad:kind": 0.5}),
        lambda: TrustPolicy(tool_trust={"high": 1.01}),
        lambda: TrustPolicy(source_priors={"tool:x": 2}),
        lambda: TrustPolicy(source_priors={"noколон": 0.5}),
        lambda: TrustPolicy(min_confidence=INF),
        lambda: TrustPolicy(corroboration="yes"),
        lambda: TrustLedger(prior_weight=0),
        lambda: TrustLedger(prior_weight=NAN),
        lambda: TrustLedger(memory_half_life=0),
        lambda: TrustLedger(memory_half_life=-5),
        lambda: TrustLedger(memory_half_life=timedelta(days=-1)),
        lambda: TrustLedger(max_history=0),
        lambda: BeliefBase(policy="strict"),
        lambda: BeliefBase(ledger={}),
        lambda: BeliefBase(clock=5),
        lambda: BeliefBase(conflicts="prefer"),
        lambda: BeliefBase(learn_from_checks=1),
        lambda: ManualClock(NAN),
    ],
)
def test_bad_configuration_raises_typed_errors(make: Any) -> None:
    with pytest.raises((InvalidInputError, InvalidTypeError)) as info:
        make()
    assert str(info.value)


def test_clock_cannot_go_backwards() -> None:
    clock = ManualClock(10)
    with pytest.raises(InvalidInputError):
        clock.set(5)
    with pytest.raises(InvalidInputError):
        clock.advance(-1)
    assert clock() == 10


def test_a_clock_returning_garbage_is_a_clear_error() -> None:
    kb = BeliefBase(clock=lambda: math.nan)
    with pytest.raises(InvalidInputError, match="clock"):
        kb.assert_("k", 1, source="tool:t")


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

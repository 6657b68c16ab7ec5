"""Outcomes through the facade (docs/model.md, "Outcomes"): retractions that blame, confirmations,
resolutions by a person or a policy, formula and citation checks, outcomes recorded as given."""

from __future__ import annotations

from typing import Any

import pytest
from support.hostile import HUGE, base_state, new_base, raises_typed

from corollary import (
    AskHuman,
    BeliefBase,
    BlameError,
    Conflict,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    rule,
)


def counts(kb: BeliefBase, source: str) -> tuple[int, int]:
    record = kb.ledger.record_of(source)
    return record.correct, record.wrong


def all_outcomes(kb: BeliefBase) -> list[tuple[str, bool]]:
    return sorted((o.source, o.correct) for o in kb.ledger.outcomes())


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

        kb = BeliefBase(clock=clock, conflict_policy=AskHuman(ask))
        kb.assert_("ceo", "Alice", source="human:alice")
        kb.assert_("ceo", "Bob", source="document:memo")
        assert len(asked) == 1
        assert asked[0].key == "ceo" and set(asked[0].values) == {"Alice", "Bob"}
        assert kb.value("ceo") == "Bob"  # the person overrules the higher confidence
        assert counts(kb, "human:alice") == (0, 1)
        assert counts(kb, "document:memo") == (1, 0)

        kb2 = BeliefBase(clock=clock, conflict_policy=AskHuman(ask, learn=False))
        kb2.assert_("ceo", "Alice", source="human:alice")
        kb2.assert_("ceo", "Bob", source="document:memo")
        assert kb2.value("ceo") == "Bob"
        assert kb2.ledger.outcomes() == []

    def test_ask_human_may_leave_a_conflict_open(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock, conflict_policy=AskHuman(lambda c: None))
        kb.assert_("ceo", "Alice", source="human:alice")
        kb.assert_("ceo", "Bob", source="document:memo")
        assert [c.key for c in kb.conflicts()] == ["ceo"]
        assert kb.ledger.outcomes() == []

    @pytest.mark.parametrize("policy", [PreferHigherConfidence(), PreferSource(["document", "tool"])])
    def test_policy_resolutions_record_nothing(self, clock: ManualClock, policy: Any) -> None:
        kb = BeliefBase(clock=clock, conflict_policy=policy)
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

    def test_learn_on_one_claim_overrides_the_base_setting_for_it(self, clock: ManualClock
                                                                   ) -> None:
        for setting in (True, False):
            kb = BeliefBase(clock=clock, learn_from_checks=setting)
            kb.assert_("q2", 100.0, source="human:cfo")
            kb.assert_("q3", 110.0, source="human:cfo")
            kb.claim("g1", 0.1, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2",
                     learn=not setting)
            assert [o.key for o in kb.ledger.outcomes("model:m")] == ([] if setting else ["g1"])
            kb.claim("g2", 0.1, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
            learned = [o.key for o in kb.ledger.outcomes("model:m")]
            assert ("g2" in learned) is setting  # None: the base's own setting, left as it was
            assert kb.learn_from_checks is setting
        with pytest.raises(InvalidTypeError, match="learn"):
            kb.claim("g3", 0.1, source="model:m", inputs=["q2", "q3"], learn=1)  # type: ignore[arg-type]

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


# -- a time that is no number the ledger can keep is a typed error (found by the API fuzzer) -------


@pytest.mark.parametrize("via", ["kb", "ledger"])
def test_huge_int_at_is_typed_error(via: str) -> None:
    kb, _ = new_base()
    before = base_state(kb)
    target = kb if via == "kb" else kb.ledger
    raises_typed(target.record_outcome, "tool:x", True, at=HUGE)
    raises_typed(target.record_outcome, "tool:x", True, at=-HUGE)
    assert base_state(kb) == before

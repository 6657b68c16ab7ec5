"""Every worked number of docs/model.md, through the public API, to the printed precision.

Printing uses ``corollary.tms.proof.format_confidence`` (half-up on the decimal form), so 0.475
prints as the spec prints it. Each test also pins the exact arithmetic the table shows.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from corollary import BeliefBase, ManualClock, TrustLedger, self_consistency, tool
from corollary.tms.proof import format_confidence


def fc(value: float, places: int = 2) -> str:
    return format_confidence(value, places)


# -- scraper: prior 0.95, 70 right + 30 wrong -> 0.72 -----------------------------------------
SCRAPER = (10 * 0.95 + 70) / (10 + 100)


def test_scraper_via_record_outcome() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("price:ACME", 101.5, source="tool:scraper")
    assert kb.confidence("price:ACME") == pytest.approx(0.95)
    for i in range(100):
        kb.record_outcome("tool:scraper", i < 70, reason="audit")
    assert kb.reliability("tool:scraper") == pytest.approx(SCRAPER, abs=1e-12)
    assert fc(kb.reliability("tool:scraper")) == "0.72"
    # every belief from that scraper now carries it
    assert fc(kb.confidence("price:ACME")) == "0.72"
    record = kb.ledger.record_of("tool:scraper")
    assert (record.correct, record.wrong) == (70, 30)
    assert fc(record.reliability) == "0.72"


def test_scraper_via_retract_with_blame() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(100):
        kb.assert_(f"fact:{i}", i, source="tool:scraper")
    for _ in range(70):
        kb.record_outcome("tool:scraper", True)
    for i in range(30):
        kb.retract(f"fact:{i}", reason="stale page", fault="source")
    assert kb.reliability("tool:scraper") == pytest.approx(SCRAPER, abs=1e-12)
    assert fc(kb.reliability("tool:scraper")) == "0.72"
    record = kb.ledger.record_of("tool:scraper")
    assert (record.correct, record.wrong) == (70, 30)
    # the beliefs still held from the scraper carry the learned value; the blamed ones are OUT
    assert fc(kb.confidence("fact:99")) == "0.72"
    assert kb.label("fact:0") == "OUT"
    assert kb.confidence("fact:0") == 0.0


# -- memory half-life 30 d, 20 failures --------------------------------------------------------
@pytest.mark.parametrize(("days", "printed"), [(0, "0.32"), (30, "0.48"), (60, "0.63"), (120, "0.84")])
def test_memory_half_life(days: int, printed: str) -> None:
    clock = ManualClock(1_000_000)
    ledger = TrustLedger(memory_half_life=timedelta(days=30), clock=clock)
    kb = BeliefBase(ledger=ledger, clock=clock)
    kb.assert_("eta", "Tuesday", source="tool:carrier_api")
    for _ in range(20):
        kb.record_outcome("tool:carrier_api", False, reason="outage")
    clock.advance(timedelta(days=days))
    expected = 9.5 / (10 + 20 * 2 ** (-days / 30))
    assert kb.reliability("tool:carrier_api") == pytest.approx(expected, abs=1e-12)
    assert fc(kb.reliability("tool:carrier_api")) == printed
    # the belief resting on it follows the clock, with no new outcomes
    assert kb.confidence("eta") == pytest.approx(expected, abs=1e-12)


def test_memory_half_life_one_base_over_time() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(ledger=TrustLedger(memory_half_life=timedelta(days=30), clock=clock), clock=clock)
    kb.assert_("eta", "Tuesday", source="tool:carrier_api")
    for _ in range(20):
        kb.record_outcome("tool:carrier_api", False)
    seen = []
    for step in (0, 30, 30, 60):
        clock.advance(timedelta(days=step))
        seen.append((fc(kb.reliability("tool:carrier_api")), fc(kb.confidence("eta"))))
    assert seen == [("0.32", "0.32"), ("0.48", "0.48"), ("0.63", "0.63"), ("0.84", "0.84")]
    # drifting back toward the prior, never past it
    clock.advance(timedelta(days=240))
    assert kb.reliability("tool:carrier_api") == pytest.approx(9.5 / (10 + 20 * 2 ** -12), abs=1e-12)
    assert 0.94 < kb.reliability("tool:carrier_api") < 0.95


# -- premise half-life 1 min --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("age", "printed"), [(0, "0.95"), (30, "0.67"), (60, "0.475"), (120, "0.24")]
)
def test_premise_half_life(age: float, printed: str) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("price:ACME", 101.5, source="tool:quote", half_life=timedelta(minutes=1))
    clock.advance(timedelta(seconds=age))
    expected = 0.95 * 2 ** (-age / 60)
    assert kb.confidence("price:ACME") == pytest.approx(expected, abs=1e-12)
    places = len(printed.split(".")[1])
    assert fc(kb.confidence("price:ACME"), places) == printed
    assert kb.label("price:ACME") == "IN"  # decay never changes the status


def test_premise_half_life_prints_half_up() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("price:ACME", 101.5, source="tool:quote", half_life=60)
    printed = []
    for step in (0, 30, 30, 60):
        clock.advance(step)
        printed.append(fc(kb.confidence("price:ACME")))
    # 0.475 prints as people round it (a plain f"{0.475:.2f}" would print 0.47)
    assert printed == ["0.95", "0.67", "0.48", "0.24"]


def test_tool_declared_half_life_gives_the_same_numbers() -> None:
    @tool(half_life=timedelta(minutes=1))
    def quote(symbol: str) -> float:
        return 101.5

    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, tools=[quote])
    kb.call(quote, "price:ACME", "ACME")
    clock.advance(30)
    assert fc(kb.confidence("price:ACME")) == "0.67"
    clock.advance(30)
    assert fc(kb.confidence("price:ACME"), 3) == "0.475"


# -- agreement: registry + 10-K -> 0.9959 --------------------------------------------------------
def test_registry_and_10k_agreement() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:registry")
    assert kb.confidence("hq") == pytest.approx(0.95)
    kb.assert_("hq", "Austin", source="document:10-K")
    expected = 1 - (1 - 10.5 / 11) * (1 - 10 / 11)
    assert kb.confidence("hq") == pytest.approx(expected, abs=1e-12)
    assert fc(kb.confidence("hq"), 4) == "0.9959"
    # higher than the plain noisy-OR of the priors, because the confirmation was learned from
    assert kb.confidence("hq") > 1 - 0.05 * 0.1
    # the two right outcomes in the ledger
    for source, reliability in (("tool:registry", 10.5 / 11), ("document:10-K", 10 / 11)):
        record = kb.ledger.record_of(source)
        assert (record.correct, record.wrong) == (1, 0)
        assert kb.reliability(source) == pytest.approx(reliability, abs=1e-12)
        outcomes = kb.ledger.outcomes(source)
        assert len(outcomes) == 1 and outcomes[0].correct is True
        assert outcomes[0].key == "hq"


# -- the chain: 0.99 / 0.891 / 0.802 --------------------------------------------------------------
@tool(trust="high", name="worked_revenue")  # another module's tool is named revenue
def revenue(quarter: str) -> float:
    """Revenue from the filings database."""
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


def _chain(learn: bool) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), tools=[revenue], learn_from_checks=learn)
    kb.call(revenue, "revenue:Q2", "Q2")
    kb.call(revenue, "revenue:Q3", "Q3")
    kb.claim("growth", 0.1, source="model:analyst",
             inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"}, formula="(q3 - q2) / q2")
    kb.claim("trend", "up", source="model:analyst", inputs=["growth"])
    kb.claim("answer", "revenue is growing", source="model:analyst", inputs=["revenue:Q3", "trend"])
    return kb


def test_chain_rule_worked_example() -> None:
    kb = _chain(learn=False)
    assert kb.confidence("revenue:Q2") == pytest.approx(0.99)
    assert kb.confidence("revenue:Q3") == pytest.approx(0.99)
    assert kb.confidence("growth") == pytest.approx(1.0 * min(0.99, 0.99), abs=1e-12)
    assert kb.confidence("trend") == pytest.approx(0.9 * 0.99, abs=1e-12)
    assert kb.confidence("answer") == pytest.approx(0.9 * min(0.99, 0.891), abs=1e-12)
    assert [fc(kb.confidence(k), 3) for k in ("growth", "trend", "answer")] == ["0.990", "0.891", "0.802"]
    assert kb.reliability("model:analyst") == 0.9
    assert kb.ledger.outcomes("model:analyst") == []


def test_chain_with_learning_on_lifts_the_model_to_10_of_11() -> None:
    kb = _chain(learn=True)
    rel = (10 * 0.9 + 1) / 11
    assert kb.reliability("model:analyst") == pytest.approx(10 / 11, abs=1e-12)
    record = kb.ledger.record_of("model:analyst")
    assert (record.correct, record.wrong) == (1, 0)
    assert kb.confidence("growth") == pytest.approx(0.99, abs=1e-12)  # verified: no model factor
    assert kb.confidence("trend") == pytest.approx(rel * 0.99, abs=1e-12)
    assert kb.confidence("answer") == pytest.approx(rel * min(0.99, rel * 0.99), abs=1e-12)
    assert fc(kb.confidence("trend"), 3) == "0.900"
    assert fc(kb.confidence("answer"), 3) == "0.818"


# -- self-consistency k = 5 --------------------------------------------------------------------------
@pytest.mark.parametrize(("agreeing", "printed"), [(5, "1.00"), (4, "0.83"), (3, "0.67"), (1, "0.33")])
def test_self_consistency(agreeing: int, printed: str) -> None:
    score = self_consistency(agreeing, 5)
    assert score == pytest.approx((agreeing + 1) / 6, abs=1e-15)
    assert fc(score) == printed
    assert self_consistency(5, 5) == 1.0


@pytest.mark.parametrize("agreeing", [5, 4, 3, 1])
def test_self_consistency_as_claim_certainty(agreeing: int) -> None:
    kb = BeliefBase(clock=ManualClock(0), learn_from_checks=False)
    kb.assert_("revenue:Q3", 110.0, source="human:cfo")
    certainty = self_consistency(agreeing, 5)
    kb.claim("outlook", "good", source="model:analyst", inputs=["revenue:Q3"], certainty=certainty)
    assert kb.confidence("outlook") == pytest.approx(0.9 * certainty * 0.99, abs=1e-12)
    proof = kb.explain("outlook").to_dict()
    step = proof["reasons"][0]
    assert step["kind"] == "model"
    assert step["certainty"] == pytest.approx(certainty)
    assert step["step"] == pytest.approx(0.9 * certainty)


# -- a stated certainty: reliability x certainty (x freshness) -----------------------------------


def test_a_stated_certainty_is_bounded_by_the_sources_reliability() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("answer:q1", 42, source="model:qwen", certainty=0.83)
    assert kb.confidence("answer:q1") == pytest.approx(0.9 * 0.83, abs=1e-12)
    assert fc(kb.confidence("answer:q1"), 3) == "0.747"
    kb.assert_("answer:q2", 7, source="model:qwen", certainty=0.83, half_life=60)
    clock.advance(60)
    assert kb.confidence("answer:q2") == pytest.approx(0.9 * 0.83 * 0.5, abs=1e-12)
    assert fc(kb.confidence("answer:q2")) == "0.37"
    # a scraper at reliability 0.72 stating 0.83: 0.60, never the 0.83 it states
    for i in range(100):
        kb.record_outcome("tool:scraper", i < 70, reason="audit")
    kb.assert_("price:ACME", 101.5, source="tool:scraper", certainty=0.83)
    assert kb.confidence("price:ACME") == pytest.approx(SCRAPER * 0.83, abs=1e-12)
    assert fc(kb.confidence("price:ACME")) == "0.60"
    assert "stated certainty 0.83" in str(kb.explain("price:ACME"))

"""Proofs: ``print(kb.explain(key))`` and ``kb.explain(key).to_dict()``."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    TrustPolicy,
    UnknownBeliefError,
    rule,
    tool,
)
from corollary.foundations._format import format_number
from corollary.tms.proof import format_age, format_confidence


@tool(trust="high", name="proof_filings")
def filings(quarter: str) -> float:
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


def chain() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), tools=[filings], learn_from_checks=False)
    kb.call(filings, "revenue:Q2", "Q2")
    kb.call(filings, "revenue:Q3", "Q3")
    kb.claim("growth", 0.1, source="model:analyst", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
             formula="(q3 - q2) / q2")
    kb.claim("trend", "up", source="model:analyst", inputs=["growth"])
    kb.claim("answer", "revenue is growing", source="model:analyst", inputs=["revenue:Q3", "trend"])
    return kb


def test_format_confidence_rounds_half_up() -> None:
    assert format_confidence(0.475) == "0.48"
    assert f"{0.475:.2f}" == "0.47"  # why it exists
    assert format_confidence(0.8019) == "0.80"
    assert format_confidence(0.99587, 4) == "0.9959"
    assert format_confidence(1.0) == "1.00"
    assert format_confidence(0.0) == "0.00"
    assert format_confidence(0.125, 2) == "0.13"
    assert format_age(30) == "30 s" and format_age(90) == "1.5 min" and format_age(86400 * 3) == "3 d"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_number_formats(value: float) -> None:
    # 1e30 raised decimal.InvalidOperation (more digits than decimal's default precision)
    close = Decimal(abs(value)) * Decimal("0.001") + Decimal("0.005")
    for text in (format_confidence(value), format_confidence(value, 4), format_number(value)):
        assert abs(Decimal(text) - Decimal(value)) <= close, text  # read back, it is the number
    unit = {"s": 1, "min": 60, "h": 3600, "d": 86400}
    number, name = format_age(abs(value)).split()
    assert abs(Decimal(number) * unit[name] - Decimal(abs(value))) <= close * 86400


def test_a_half_life_and_ttl_of_1e30_explain() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("slow", 1, source="tool:feed", half_life=1e30, ttl=1e30)
    kb.claim("derived", 2, source="model:m", inputs=["slow"])
    kb.clock.advance(60)  # type: ignore[attr-defined]
    text = str(kb.explain("derived"))
    assert "half-life 1.157e+25 d, freshness 1, ttl 1.157e+25 d → " in text
    assert kb.explain("derived").to_dict()["confidence"] == kb.confidence("derived")


def test_chain_proof_text() -> None:
    text = str(chain().explain("answer"))
    lines = text.splitlines()
    assert lines[0] == "answer = 'revenue is growing' [IN 0.80]"
    assert ("model judgement by model:analyst: step 0.9 = reliability 0.9 × certainty 1; "
            "0.9 × min(0.99, 0.891) = 0.802") in text
    assert "trend = 'up' [IN 0.89]" in text
    assert "growth = 0.1 [IN 0.99]" in text
    assert ("formula (q3 - q2) / q2 by model:analyst, re-executed: reproduced 0.1; "
            "step 1.0 × certainty 1; 1 × min(0.99, 0.99) = 0.99") in text
    assert "premise from tool:proof_filings: prior 0.99, reliability 0.99 → 0.99" in text
    # revenue:Q3 is reached twice: printed once, then referred to
    assert text.count("revenue:Q3 = 110.0 [IN 0.99]") == 2
    assert "revenue:Q3 = 110.0 [IN 0.99] (see above)" in text
    assert lines[1].startswith("└─ ")
    assert any(line.startswith("   ├─ ") for line in lines)
    assert repr(chain().explain("answer")) == text


def test_chain_proof_structure() -> None:
    tree = chain().explain("answer").to_dict()
    assert isinstance(tree, dict)
    assert {"key", "value", "label", "confidence", "reasons"} <= set(tree)
    assert (tree["key"], tree["value"], tree["label"]) == ("answer", "revenue is growing", "IN")
    assert tree["confidence"] == pytest.approx(0.8019)
    (step,) = tree["reasons"]
    assert step["kind"] == "model" and step["name"] == "model:analyst"
    assert step["reliability"] == pytest.approx(0.9) and step["certainty"] == 1.0
    assert step["step"] == pytest.approx(0.9) and step["valid"] is True and step["best"] is True
    assert step["confidence"] == pytest.approx(0.8019)
    q3, trend = step["inputs"]
    assert q3["key"] == "revenue:Q3"
    (premises,) = q3["reasons"]
    assert premises["kind"] == "premises" and premises["combine"] == "single"
    (p,) = premises["premises"]
    assert p["source"] == "tool:proof_filings" and p["origin"] == "tool:proof_filings"
    assert p["prior"] == pytest.approx(0.99) and p["reliability"] == pytest.approx(0.99)
    assert p["freshness"] == 1.0 and p["half_life"] is None and p["ttl"] is None
    assert p["expired"] is False and p["age"] == 0.0
    growth = trend["reasons"][0]["inputs"][0]
    formula = growth["reasons"][0]
    assert formula["kind"] == "formula"
    assert formula["formula"] == "(q3 - q2) / q2" and formula["reproduced"] is True
    assert formula["stated"] == 0.1 and formula["computed"] == pytest.approx(0.1)
    assert formula["names"] == ["q2", "q3"]
    assert formula["inputs"][1].get("see_above") is True


def test_premise_numbers_age_freshness_origin_and_agreement() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("price", 101.5, source="tool:quote", half_life=timedelta(minutes=1), ttl=600)
    kb.assert_("price", 101.5, source="human:trader", origin="desk")
    clock.advance(30)
    text = str(kb.explain("price"))
    assert "agreement of 2 premises (noisy-or) = " in text
    assert "premise from human:trader (origin desk):" in text
    assert "age 30 s, half-life 1 min, freshness 0.707, ttl 10 min" in text
    tree = kb.explain("price").to_dict()
    agreement = tree["reasons"][0]
    assert agreement["combine"] == "noisy-or"
    by_source = {p["source"]: p for p in agreement["premises"]}
    quote = by_source["tool:quote"]
    assert quote["age"] == 30 and quote["half_life"] == 60 and quote["ttl"] == 600
    assert quote["freshness"] == pytest.approx(2 ** -0.5)
    assert quote["confidence"] == pytest.approx(quote["reliability"] * 2 ** -0.5)
    assert by_source["human:trader"]["origin"] == "desk"
    expected = 1 - (1 - quote["confidence"]) * (1 - by_source["human:trader"]["confidence"])
    assert agreement["confidence"] == pytest.approx(expected)
    assert tree["confidence"] == pytest.approx(expected)


def test_corroboration_off_says_max() -> None:
    kb = BeliefBase(clock=ManualClock(0), policy=TrustPolicy(corroboration=False))
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K")
    assert "agreement of 2 premises (max)" in str(kb.explain("hq"))


def test_out_reasons() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence())
    kb.assert_("old", 1, source="tool:t")
    kb.retract("old", reason="restated in the 10-K/A")
    assert str(kb.explain("old")).splitlines()[0] == "old = 1 [OUT] retracted: restated in the 10-K/A"
    kb.assert_("plain", 1, source="tool:t")
    kb.retract("plain")
    assert str(kb.explain("plain")).splitlines()[0] == "plain = 1 [OUT] retracted"

    kb.assert_("quote", 5, source="tool:q", ttl=60)
    clock.advance(60)
    text = str(kb.explain("quote"))
    assert text.splitlines()[0] == "quote = 5 [OUT] expired"
    assert text.rstrip().endswith("[expired]")
    assert kb.explain("quote").to_dict()["why"] == "expired"

    kb.claim("ceo", "Bob", source="model:analyst", certainty=0.8)
    kb.assert_("ceo", "Alice", source="human:ops")
    head = str(kb.explain("ceo", "Bob")).splitlines()[0]
    assert head == "ceo = 'Bob' [OUT] lost to ceo = 'Alice' (0.99); would be 0.72"
    tree = kb.explain("ceo", "Bob").to_dict()
    assert tree["lost_to"] == {"key": "ceo", "value": "Alice", "confidence": pytest.approx(0.99)}
    assert tree["would_be"] == pytest.approx(0.72)
    assert tree["confidence"] == 0.0 and tree["label"] == "OUT"

    kb.assert_("x", 1, source="tool:t")
    kb.claim("y", 2, source="model:m", inputs=["x"])  # y reads x = 1, so x = 1 stays known
    kb.assert_("x", 2, source="tool:t")  # x = 1 loses its premise
    assert str(kb.explain("x", 1)).splitlines()[0] == "x = 1 [OUT] unsupported"
    assert kb.explain("x", 1).to_dict()["why"] == "unsupported"
    # a derived belief whose input fell: the step is shown as not valid now
    kb.assert_("base", 3, source="tool:t")
    kb.claim("derived", 6, source="model:m", inputs=["base"])
    kb.retract("base")
    text = str(kb.explain("derived"))
    assert text.splitlines()[0] == "derived = 6 [OUT] unsupported"
    assert "(not valid now)" in text
    assert "base = 3 [OUT] retracted" in text


def test_explain_of_a_key_shows_the_held_value() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("x", 1, source="tool:t")
    kb.assert_("x", 2, source="tool:t")
    assert str(kb.explain("x")).splitlines()[0] == "x = 2 [IN 0.95]"
    with pytest.raises(UnknownBeliefError):  # superseded and read by nothing: forgotten
        kb.explain("x", 1)


def test_an_open_conflict_explains_every_held_value() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ceo", "Alice", source="human:a")
    kb.assert_("ceo", "Bob", source="tool:crm")
    proof = kb.explain("ceo")
    trees = proof.to_dict()
    assert isinstance(trees, list) and {t["value"] for t in trees} == {"Alice", "Bob"}
    text = str(proof)
    assert "ceo = 'Alice' [IN 0.99]" in text and "ceo = 'Bob' [IN 0.95]" in text


def test_rule_and_wrong_formula_and_citation_in_proofs() -> None:
    @rule(output="double", inputs={"x": "x"}, confidence=0.8, name="test_proof.double")
    def double(x: float) -> float:
        return 2 * x

    kb = BeliefBase(clock=ManualClock(0), rules=[double])
    kb.assert_("x", 2.0, source="human:a")
    assert "rule test_proof.double: step 0.8; 0.8 × min(0.99) = 0.792" in str(kb.explain("double"))
    kb.claim("y", 5.0, source="model:m", inputs=["x"], formula="x * 2")
    text = str(kb.explain("y"))
    assert text.splitlines()[0] == "y = 4.0 [IN 0.99]"
    assert "re-executed: stated 5.0 but computes 4.0 (believed)" in text
    kb.assert_("doc", "Revenue grew 10%.", source="document:d")
    kb.claim("q", "yes", source="model:m", citation=("doc", "revenue fell"), certainty=0.5)
    text = str(kb.explain("q"))
    assert "cites doc: 'revenue fell' (NOT found)" in text
    assert "× certainty 0.5" in text
    tree = kb.explain("q").to_dict()["reasons"][0]
    assert tree["citation_found"] is False and tree["quote"] == "revenue fell"


def test_cycles_print_finitely() -> None:
    @rule(output="b", inputs={"a": "a"}, name="test_proof.cycle_b")
    def to_b(a: int) -> int:
        return a

    @rule(output="a", inputs={"b": "b"}, name="test_proof.cycle_a")
    def to_a(b: int) -> int:
        return b

    kb = BeliefBase(clock=ManualClock(0), rules=[to_b, to_a])
    kb.assert_("a", 1, source="tool:t")
    text = str(kb.explain("a"))
    assert "a = 1 [IN 0.95] (see above)" in text
    assert len(text.splitlines()) < 10

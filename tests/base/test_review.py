"""Defects found in review, each shown through the public API."""

from __future__ import annotations

import pytest

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    TrustPolicy,
    rule,
    tool,
)
from corollary.errors import CorollaryError, InvalidInputError

# -- rules see what an outcome or a clock move changed, on the very first query ----------------


@rule(output="review_y", inputs={"v": "review_x"}, name="tests.review.times_ten")
def _times_ten(v):
    return v * 10


def _conflicted_base(clock, half_life=None):
    kb = BeliefBase(clock=clock, conflicts=PreferHigherConfidence(), rules=[_times_ten])
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


# -- snapshots: a restored base keeps its fired-rule memo apart from new beliefs ---------------


@rule(output="review_out", inputs={"v": "review_in"}, name="tests.review.none_on_two")
def _none_on_two(v):
    return None if v == 2 else v * 10


def test_restored_base_fires_rules_for_new_beliefs():
    kb = BeliefBase(clock=ManualClock(0), rules=[_none_on_two])
    kb.assert_("review_in", 1, source="tool:a")
    kb.assert_("review_in", 2, source="tool:b")  # the rule concludes nothing for 2
    kb.assert_("review_in", 1, source="tool:b")  # 2 is superseded and forgotten
    restored = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(0))
    for base in (kb, restored):
        base.retract("review_in", 1)
        base.assert_("review_in", 7, source="tool:c")
        assert base.value("review_out") == 70


# -- PreferSource: "derived-only values and unlisted sources rank last; ties: confidence" ------


@rule(output="review_ps", inputs={"b": "review_ps_base"}, name="tests.review.derive_two")
def _derive_two(b):
    return 2


def _prefer_source_base():
    kb = BeliefBase(clock=ManualClock(0), conflicts=PreferSource(["human"]), rules=[_derive_two])
    kb.assert_("review_ps", 1, source="assumption:a")  # unlisted: ranks last, 0.6
    kb.assert_("review_ps_base", 0, source="tool:t")  # derives review_ps = 2 at 0.95
    return kb


def test_prefer_source_derived_only_value_ties_with_unlisted_source_on_confidence():
    kb = _prefer_source_base()
    assert kb.value("review_ps") == 2


def test_prefer_source_loser_proof_says_what_it_would_be():
    kb = BeliefBase(clock=ManualClock(0), conflicts=PreferSource(["assumption"]),
                    rules=[_derive_two])
    kb.assert_("review_ps", 1, source="assumption:a")
    kb.assert_("review_ps_base", 0, source="tool:t")
    proof = kb.explain("review_ps", 2).to_dict()
    assert proof["label"] == "OUT" and "lost_to" in proof
    assert proof["would_be"] == pytest.approx(0.95)


# -- bad input: a typed CorollaryError, and nothing changes ------------------------------------


@pytest.mark.parametrize("options", [{"priors": 5}, {"tool_trust": 5}, {"source_priors": 5},
                                     {"priors": ["sensor"]}])
def test_policy_rejects_non_mappings_with_a_typed_error(options):
    with pytest.raises(CorollaryError):
        TrustPolicy(**options)


@pytest.mark.parametrize("start", ["abc", None, [1]])
def test_manual_clock_rejects_non_numbers_with_a_typed_error(start):
    with pytest.raises(CorollaryError):
        ManualClock(start)
    clock = ManualClock(5)
    with pytest.raises(CorollaryError):
        clock.set(start)
    assert clock() == 5


def test_rule_rejects_bad_inputs_and_functions_with_a_typed_error():
    with pytest.raises(CorollaryError):
        rule(inputs="abc")(lambda abc: abc)
    with pytest.raises(CorollaryError):
        rule(int)  # no signature to read parameters from


@pytest.mark.parametrize("options", [{"origin": 5}, {"origin": ""}, {"name": 5}, {"name": ""}])
def test_tool_rejects_bad_origin_and_name(options):
    with pytest.raises(CorollaryError):
        tool(**options)(lambda: 1)


def test_claim_rejects_unhashable_input_keys_with_a_typed_error():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="human:x")
    with pytest.raises(CorollaryError):
        kb.claim("y", 1, inputs=[["a"]])
    assert "y" not in kb


def test_values_that_cannot_survive_a_snapshot_are_refused(tmp_path):
    kb = BeliefBase(clock=ManualClock(0))
    with pytest.raises(InvalidInputError):
        kb.assert_("big", 2**70, source="human:x")
    assert "big" not in kb
    kb.assert_("ok", -(2**63), source="human:x")
    kb.save(tmp_path / "kb.msgpack")  # the default format holds every value the base accepts
    assert BeliefBase.load(tmp_path / "kb.msgpack", clock=ManualClock(0)).value("ok") == -(2**63)


def test_save_with_an_unknown_format_is_a_typed_error(tmp_path):
    kb = BeliefBase(clock=ManualClock(0))
    with pytest.raises(CorollaryError):
        kb.save(tmp_path / "kb.bin", format="xml")
    assert not (tmp_path / "kb.bin").exists()


# -- the ledger's own view of a declared tool agrees with the base's ---------------------------


@tool(trust="high", name="review_quote")
def _review_quote(symbol):
    return 1.0


def test_ledger_record_of_a_declared_tool_matches_the_base():
    kb = BeliefBase(clock=ManualClock(0), tools=[_review_quote])
    kb.record_outcome("tool:review_quote", False)
    record = kb.ledger.record_of("tool:review_quote")
    assert record.prior == pytest.approx(0.99)
    assert record.reliability == pytest.approx(kb.reliability("tool:review_quote"))

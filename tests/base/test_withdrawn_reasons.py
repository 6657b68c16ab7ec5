"""A value withdrawn and then asserted or claimed afresh rests on its new evidence only.

Withdrawn premises never came back; withdrawn justifications did (a blamed model's claim held
the value up again once the new evidence went away). Both now stay withdrawn.
"""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock


def test_a_claim_afresh_does_not_revive_the_withdrawn_claim() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", True, source="human:h")
    kb.assert_("b", True, source="human:h")
    kb.claim("d", True, source="model:m1", inputs=["a"])
    kb.retract("d", fault="source")
    kb.claim("d", True, source="model:m2", inputs=["b"])
    assert kb.confidence("d") == pytest.approx(0.9 * 0.99)  # m2's claim alone
    kb.retract("b")
    assert kb.label("d", True) == "OUT"  # m1's withdrawn, blamed claim does not hold it
    proof = kb.explain("d", True).to_dict()
    assert isinstance(proof, dict)
    assert [r["name"] for r in proof["reasons"]] == ["model:m2"]


def test_a_premise_afresh_that_expires_does_not_revive_the_withdrawn_claim() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("a", True, source="human:h")
    kb.claim("d", True, source="model:m1", inputs=["a"])
    kb.retract("d")
    kb.assert_("d", True, source="tool:t", ttl=10)
    assert kb.label("d") == "IN"
    clock.advance(20)
    assert kb.label("d", True) == "OUT"
    assert kb.explain("d", True).to_dict()["why"] == "expired"


def test_a_rule_derivation_of_a_withdrawn_value_stays_withdrawn() -> None:
    from corollary import rule

    @rule(output="flag", inputs={"x": "a"}, name="tests.withdrawn.flag")
    def flag(x: bool) -> bool:
        return x

    kb = BeliefBase(clock=ManualClock(0), rules=[flag])
    kb.assert_("a", True, source="human:h")
    assert kb.label("flag") == "IN"
    kb.retract("flag")
    kb.retract("a")
    kb.assert_("a", True, source="human:g")  # the rule's input is back: the rule does not re-fire
    assert kb.label("flag", True) == "OUT"

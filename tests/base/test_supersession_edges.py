"""Supersession at its edges (docs/model.md, "Time and change"): a claim an exception defeats
supersedes nothing, under every conflict policy (issue 37, item 4), and the margin is compared
with a tolerance, so 0.6 supersedes 0.9 with ``margin=0.3`` (issue 35, item 7)."""

from __future__ import annotations

import pytest

from corollary import (
    AmbiguousValueError,
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    PreferNewer,
    PreferSource,
    TrustPolicy,
)
from corollary.tms.conflicts import MARGIN_TOLERANCE

POLICIES = {
    "none": lambda: None,
    "confidence": PreferHigherConfidence,
    "source": lambda: PreferSource(["human"]),
    "newer": PreferNewer,
}


def replacement_declared(policy: str) -> BeliefBase:
    """Issue 37's minimal case: h = 'a' from 100, m = 'x' from 101, a document from 102, and
    "m is 'y' once h is no longer 'a'" as a claim over the document with ``unless``."""
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=POLICIES[policy]())
    kb.assert_("h", "a", source="human:ann", valid_from=100)
    kb.assert_("m", "x", source="human:ann", valid_from=101)
    kb.assert_("doc:rule", "if h changes, m is y", source="human:ann", valid_from=102)
    kb.claim("m", "y", source="model:m", inputs=["doc:rule"], unless=[("h", "a")])
    return kb


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_a_claim_whose_exception_holds_supersedes_nothing(policy: str) -> None:
    kb = replacement_declared(policy)
    assert kb.value("m") == "x"
    assert kb.label("m", "x") == "IN"
    assert kb.label("m", "y") == "OUT"
    proof = str(kb.explain("m", "x"))
    assert "superseded" not in proof, proof
    assert "an exception holds" in str(kb.explain("m", "y")) or "defeated" in str(kb.explain("m", "y"))
    assert kb.conflicts() == []
    assert kb.at(101.5).value("m") == "x"  # before the document: only x had begun
    assert kb.at(500).value("m") == "x"


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_the_replacement_takes_effect_when_its_exception_stops_holding(policy: str) -> None:
    kb = replacement_declared(policy)
    kb.retract("h", "a")  # h is no longer 'a': the declared replacement counts
    if policy == "none":  # no policy decides: both stand, an open conflict
        with pytest.raises(AmbiguousValueError):
            kb.value("m")
        return
    expected = {"confidence": "x",  # the human's 0.99 beats the model's claim
                "source": "x",  # a human's premise ranks first
                "newer": "y"}[policy]  # the claim began at 102, after x's 101
    assert kb.value("m") == expected
    if policy == "newer":
        assert "superseded by 'y'" in str(kb.explain("m", "x"))
        kb.assert_("h", "a", source="human:ann", valid_from=100)  # 'a' again: x is back
        assert kb.value("m") == "x"
        assert "superseded" not in str(kb.explain("m", "x"))


def test_a_newer_exception_ends_the_replacement_under_prefer_newer() -> None:
    kb = replacement_declared("newer")
    kb.assert_("h", "b", source="human:ann", valid_from=103)  # h changes: 'a' is superseded
    assert kb.value("h") == "b"
    assert kb.value("m") == "y"
    assert kb.at(102.5).value("m") == "x"  # h was still 'a' then: the exception held


def test_the_margin_is_compared_with_a_tolerance() -> None:
    """0.9 − 0.3 is 0.6000000000000001 in binary: a 0.6 value newer than a 0.9 one is "at
    least the older one's minus the margin" and supersedes it."""
    trust = TrustPolicy(source_priors={"tool:old": 0.9, "tool:new": 0.6})
    kb = BeliefBase(policy=trust, clock=ManualClock(1000), conflict_policy=PreferNewer(0.3))
    kb.assert_("addr", "Oak St", source="tool:old", valid_from=100)
    assert kb.confidence("addr") == 0.9
    kb.assert_("addr", "Pine Ave", source="tool:new", valid_from=200)
    assert kb.confidence("addr", "Pine Ave") == 0.6
    assert kb.conflicts() == []
    assert kb.value("addr") == "Pine Ave"
    assert "superseded by 'Pine Ave'" in str(kb.explain("addr", "Oak St"))
    # the tolerance is for rounding only: a value truly below the margin still does not supersede
    below = BeliefBase(policy=TrustPolicy(source_priors={"tool:old": 0.9,
                                                         "tool:new": 0.6 - 1e-6}),
                       clock=ManualClock(1000), conflict_policy=PreferNewer(0.3))
    below.assert_("addr", "Oak St", source="tool:old", valid_from=100)
    below.assert_("addr", "Pine Ave", source="tool:new", valid_from=200)
    assert len(below.conflicts()) == 1
    assert MARGIN_TOLERANCE < 1e-6

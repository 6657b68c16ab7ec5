"""Conflicts through the facade: open conflicts, the deciding policies (higher confidence, source order,
asking a person) and what follows the winner."""

from __future__ import annotations

from typing import Any

import pytest

from corollary import (
    AmbiguousValueError,
    AskHuman,
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    rule,
)


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
        kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence())
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
        kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence())
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
        kb = BeliefBase(clock=clock, conflict_policy=PreferSource(["document:memo", "tool"]))
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

        kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence(), rules=[greeting])
        kb.assert_("ceo", "Bob", source="tool:crm")
        assert kb.value("greeting") == "Dear Bob"
        kb.assert_("ceo", "Alice", source="human:alice")
        assert kb.value("greeting") == "Dear Alice"
        assert kb.label("greeting", "Dear Bob") == "OUT"
        kb.retract("ceo", "Alice")
        assert kb.value("greeting") == "Dear Bob"


# -- PreferSource: "derived-only values and unlisted sources rank last; ties: confidence" ----------


@rule(output="review_ps", inputs={"b": "review_ps_base"}, name="tests.review.derive_two")
def _derive_two(b):
    return 2


def _prefer_source_base():
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferSource(["human"]), rules=[_derive_two])
    kb.assert_("review_ps", 1, source="assumption:a")  # unlisted: ranks last, 0.6
    kb.assert_("review_ps_base", 0, source="tool:t")  # derives review_ps = 2 at 0.95
    return kb


def test_prefer_source_derived_only_value_ties_with_unlisted_source_on_confidence():
    kb = _prefer_source_base()
    assert kb.value("review_ps") == 2


def test_prefer_source_loser_proof_says_what_it_would_be():
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferSource(["assumption"]),
                    rules=[_derive_two])
    kb.assert_("review_ps", 1, source="assumption:a")
    kb.assert_("review_ps_base", 0, source="tool:t")
    proof = kb.explain("review_ps", 2).to_dict()
    assert proof["label"] == "OUT" and "lost_to" in proof
    assert proof["would_be"] == pytest.approx(0.95)


# -- AskHuman answers that cannot be used leave the conflict open (found by the API fuzzer) --------


@pytest.mark.parametrize("answer", ["bogus", [1], {1}], ids=["str", "list", "set"])
def test_ask_human_bad_answer_changes_nothing(answer: Any) -> None:
    """A wrong answer cannot undo the valid assertion that raised the conflict: it is reported
    with a warning and the conflict stays open (docs/model.md)."""
    from corollary import AskHuman

    kb = BeliefBase(clock=ManualClock(0), conflict_policy=AskHuman(lambda conflict: answer))
    kb.assert_("k", 1, source="tool:x")
    with pytest.warns(RuntimeWarning, match="stays open"):
        kb.assert_("k", 2, source="human:alice")
    assert [c.key for c in kb.conflicts()] == ["k"]
    assert kb.label("k", 1) == "IN" and kb.label("k", 2) == "IN"
    assert kb.ledger.outcomes() == []


def test_ask_human_that_raises_leaves_the_conflict_open() -> None:
    from corollary import AskHuman

    def ask(conflict: Any) -> Any:
        raise RuntimeError("the reviewer is away")

    kb = BeliefBase(clock=ManualClock(0), conflict_policy=AskHuman(ask))
    kb.assert_("k", 1, source="tool:x")
    with pytest.warns(RuntimeWarning, match="the reviewer is away"):
        kb.assert_("k", 2, source="human:alice")
    assert [c.key for c in kb.conflicts()] == ["k"]

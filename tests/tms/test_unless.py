"""Non-monotonic justifications: "x unless y" (the out-list of Doyle's TMS and ftl-reasons)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, Rule, rule
from corollary.foundations.errors import InvalidInputError, InvalidTypeError, StratificationError


def shop(**options: object) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), **options)  # type: ignore[arg-type]
    kb.assert_("shop:hours", "9-5", source="document:site")                 # 0.9
    kb.claim("shop:open", True, source="model:m", inputs=["shop:hours"],
             unless=["closure:notice"])                                       # 0.9 × 0.9
    return kb


def test_a_default_holds_until_its_exception_and_comes_back_by_itself() -> None:
    kb = shop()
    assert kb.label("shop:open") == "IN" and kb.confidence("shop:open") == pytest.approx(0.81)
    kb.assert_("closure:notice", "renovation", source="human:owner")
    assert kb.label("shop:open", True) == "OUT"
    assert kb.explain("shop:open", True).to_dict()["why"] == "an exception holds"
    kb.retract("closure:notice")
    assert kb.label("shop:open") == "IN"
    assert kb.confidence("shop:open") == pytest.approx(0.81)  # confidence unchanged while valid


def test_a_value_item_only_defeats_while_that_value_is_held() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("status", "open", source="human:a")
    kb.assert_("flight", "AB12", source="tool:booking")
    kb.claim("boarding", True, source="model:m", inputs=["flight"],
             unless=[("status", "cancelled")])
    assert kb.label("boarding") == "IN"
    kb.assert_("status", "cancelled", source="human:a")  # the source changes its word
    assert kb.label("boarding", True) == "OUT"
    kb.assert_("status", "delayed", source="human:a")
    assert kb.label("boarding") == "IN"


def test_proofs_say_which_exception_is_absent_and_which_defeats() -> None:
    kb = shop()
    assert "holds unless closure:notice, which is OUT" in str(kb.explain("shop:open"))
    kb.assert_("closure:notice", "renovation", source="human:owner")
    text = str(kb.explain("shop:open", True))
    assert "defeated: closure:notice = 'renovation' is IN (0.99)" in text
    reason = kb.explain("shop:open", True).to_dict()["reasons"][0]
    assert reason["valid"] is False
    assert reason["unless"] == [{"item": "closure:notice", "key": "closure:notice", "value": None,
                                 "held": True, "by": {"key": "closure:notice",
                                                      "value": "renovation",
                                                      "confidence": pytest.approx(0.99)}}]


def test_an_exception_chain_settles_in_strata() -> None:
    # c unless b, b unless a: with a held, b is defeated and c holds
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("base", 1, source="human:h")
    kb.claim("b", True, source="model:m", inputs=["base"], unless=["a"])
    kb.claim("c", True, source="model:m", inputs=["base"], unless=["b"])
    assert (kb.label("b"), kb.label("c", True)) == ("IN", "OUT")
    kb.assert_("a", True, source="human:h")
    assert (kb.label("b", True), kb.label("c")) == ("OUT", "IN")
    kb.retract("a")
    assert (kb.label("b"), kb.label("c", True)) == ("IN", "OUT")


def test_an_expiring_exception_brings_the_default_back_at_its_time() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("shop:hours", "9-5", source="document:site")
    kb.claim("shop:open", True, source="model:m", inputs=["shop:hours"], unless=["closure:notice"])
    kb.assert_("closure:notice", "today only", source="human:owner", ttl=3600)
    assert kb.label("shop:open", True) == "OUT"
    clock.advance(3600)
    assert kb.label("shop:open") == "IN"


@pytest.mark.parametrize("decided", [False, True])
def test_a_cycle_through_an_exception_is_refused_and_nothing_changes(decided: bool) -> None:
    kb = shop(conflict_policy=PreferHigherConfidence() if decided else None)
    before = kb.to_dict()
    with pytest.raises(StratificationError, match="own absence"):
        kb.claim("closure:notice", "x", source="model:m", inputs=["shop:open"])
    with pytest.raises(StratificationError):
        kb.claim("shop:open", False, source="model:m", inputs=[], unless=["shop:open"])
    after = kb.to_dict()
    before.pop("taken_at"), after.pop("taken_at")
    assert before == after
    assert kb.ledger.outcomes() == []  # refused before any check was recorded


def test_under_a_deciding_policy_a_value_cannot_rest_on_a_rivals_absence() -> None:
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferHigherConfidence())
    kb.assert_("x", 1, source="human:h")
    with pytest.raises(StratificationError, match="decide each other"):
        kb.claim("d", 1, source="model:m", inputs=["x"], unless=[("d", 2)])
    open_kb = BeliefBase(clock=ManualClock(0))  # with no policy, rival values are independent
    open_kb.assert_("x", 1, source="human:h")
    open_kb.claim("d", 1, source="model:m", inputs=["x"], unless=[("d", 2)])
    assert open_kb.label("d") == "IN"


calls: list[str] = []


@rule(output="shop:open", inputs={"hours": "shop:hours"}, unless=["closure:notice"],
      name="tests.unless.open_in_hours")
def open_in_hours(hours: str) -> bool:
    calls.append(hours)
    return True


def test_rules_take_exceptions_too() -> None:
    calls.clear()
    kb = BeliefBase(clock=ManualClock(0), rules=[open_in_hours])
    kb.assert_("shop:hours", "9-5", source="document:site")
    assert kb.label("shop:open") == "IN"
    kb.assert_("closure:notice", "renovation", source="human:owner")
    assert kb.label("shop:open", True) == "OUT"
    kb.retract("closure:notice")
    assert kb.label("shop:open") == "IN" and calls == ["9-5"]  # fired once, came back itself
    assert Rule(lambda a: a, output="z", unless=["q", ("r", 1)]).unless[1][:2] == ("r", 1)


def test_bad_exceptions_are_typed_errors() -> None:
    kb = shop()
    with pytest.raises(InvalidTypeError):
        kb.claim("y", 1, source="model:m", unless="closure:notice")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        kb.claim("y", 1, source="model:m", unless=[("a", 1, 2)])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        kb.claim("y", 1, source="model:m", unless=[3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        kb.claim("y", 1, source="model:m", unless=[""])


@pytest.mark.parametrize("fmt", ["cor", "json"])
def test_exceptions_survive_snapshots(tmp_path: Path, fmt: str) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("shop:hours", "9-5", source="document:site")
    kb.claim("shop:open", True, source="model:m", inputs=["shop:hours"],
             unless=["closure:notice", ("status", "sold")])
    kb.save(tmp_path / f"s.{fmt}")
    loaded = BeliefBase.load(tmp_path / f"s.{fmt}", clock=clock)
    assert loaded.to_dict()["justifications"] == kb.to_dict()["justifications"]
    loaded.assert_("status", "sold", source="human:owner")
    assert loaded.label("shop:open", True) == "OUT"
    loaded.retract("status")
    assert loaded.label("shop:open") == "IN"

"""Nogoods across keys, with culprit choice (dependency-directed backtracking to premises)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corollary import (
    AskHuman,
    BeliefBase,
    Conflict,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
)
from corollary.foundations.errors import InvalidInputError, StratificationError, UnknownBeliefError


def trip(conflict_policy: Any = None) -> BeliefBase:
    """A flight that cannot both leave at 9 and make a meeting at 9; the meeting time rests on
    a weak assumption."""
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=conflict_policy)
    kb.assert_("booking", "AB12", source="tool:airline")                       # 0.95
    kb.assert_("calendar", "9:00", source="assumption:guess")                   # 0.6
    kb.claim("flight:time", "9:00", source="model:m", inputs=["booking"])       # 0.855
    kb.claim("meeting:time", "9:00", source="model:m", inputs=["calendar"])     # 0.54
    return kb


def test_a_deciding_policy_gives_up_the_least_confident_item_and_names_the_culprit() -> None:
    kb = trip(PreferHigherConfidence())
    name = kb.nogood("flight:time", "meeting:time", name="double-booked")
    assert name == "double-booked"
    assert kb.label("flight:time") == "IN" and kb.label("meeting:time", "9:00") == "OUT"
    assert kb.conflicts() == []
    node = kb.explain("meeting:time", "9:00").to_dict()
    assert node["nogood"]["nogood"] == "double-booked"
    assert node["nogood"]["culprit"] == {"key": "calendar", "value": "9:00",
                                         "sources": ["assumption:guess"], "confidence": 0.6}
    text = str(kb.explain("meeting:time", "9:00"))
    assert "gave way to nogood double-booked" in text
    assert "culprit premise calendar = '9:00' from assumption:guess (0.60)" in text
    # the culprit's own support stays: only the item gave way
    assert kb.label("calendar") == "IN"
    # the nogood goes inactive when another item goes OUT: the loser comes back by itself
    kb.retract("booking")
    assert kb.label("meeting:time") == "IN"


def test_a_nogood_with_an_item_already_out_changes_nothing() -> None:
    kb = trip(PreferHigherConfidence())
    kb.retract("booking")
    kb.nogood("flight:time", "meeting:time")
    assert kb.label("meeting:time") == "IN"


def test_value_items_name_one_value_only() -> None:
    kb = trip(PreferHigherConfidence())
    kb.nogood(("flight:time", "10:00"), "meeting:time")  # 10:00 is not held: inactive
    assert kb.label("meeting:time") == "IN"
    kb.nogood(("flight:time", "9:00"), ("meeting:time", "9:00"))
    assert kb.label("meeting:time", "9:00") == "OUT"


def test_with_no_policy_the_nogood_is_an_open_conflict_with_its_culprits() -> None:
    kb = trip()
    kb.nogood("flight:time", "meeting:time", name="double-booked")
    assert kb.label("flight:time") == "IN" and kb.label("meeting:time") == "IN"
    [conflict] = kb.conflicts()
    assert conflict.nogood and conflict.key == "double-booked"
    assert [(c.key, c.value) for c in conflict.candidates] == [("flight:time", "9:00"),
                                                              ("meeting:time", "9:00")]
    assert [(c.key, c.sources, c.confidence) for c in conflict.culprits] == [
        ("calendar", ("assumption:guess",), 0.6), ("booking", ("tool:airline",), 0.95)]
    assert "cannot all hold" in str(conflict)


def test_a_person_gives_up_a_culprit_premise_and_the_ledger_learns() -> None:
    kb = trip()
    kb.nogood("flight:time", "meeting:time", name="double-booked")
    [conflict] = kb.conflicts()
    kb.resolve(conflict, give_up="calendar")
    assert kb.label("calendar", "9:00") == "OUT" and kb.label("meeting:time", "9:00") == "OUT"
    assert kb.label("flight:time") == "IN" and kb.conflicts() == []
    record = kb.ledger.record_of("assumption:guess")
    assert (record.correct, record.wrong) == (0, 1)
    assert kb.ledger.record_of("tool:airline").wrong == 0


def test_a_person_may_give_up_an_item_by_name_without_learning() -> None:
    kb = trip()
    kb.nogood("flight:time", "meeting:time", name="double-booked")
    kb.resolve("double-booked", give_up=("flight:time", "9:00"), learn=False)
    assert kb.label("flight:time", "9:00") == "OUT" and kb.label("meeting:time") == "IN"
    assert kb.ledger.outcomes() == []


def test_giving_up_something_else_is_refused_and_nothing_changes() -> None:
    kb = trip()
    kb.nogood("flight:time", "meeting:time", name="double-booked")
    [conflict] = kb.conflicts()
    with pytest.raises(InvalidInputError, match="neither an item nor a culprit"):
        kb.resolve(conflict, give_up="booking:other")
    with pytest.raises(InvalidInputError, match="give_up settles a nogood"):
        kb.resolve("flight:time", "9:00", give_up="calendar")
    assert len(kb.conflicts()) == 1 and kb.ledger.outcomes() == []


def test_ask_human_is_asked_with_the_candidate_culprits() -> None:
    asked: list[Conflict] = []

    def ask(conflict: Conflict) -> Any:
        asked.append(conflict)
        return conflict.culprits[0].key if conflict.nogood else None

    kb = trip(AskHuman(ask))
    kb.nogood("flight:time", "meeting:time")
    assert [c.nogood for c in asked] == [True]
    assert asked[0].culprits[0].key == "calendar"
    assert kb.label("calendar", "9:00") == "OUT" and kb.label("flight:time") == "IN"
    assert kb.ledger.record_of("assumption:guess").wrong == 1


def test_same_key_conflicts_keep_working_as_before() -> None:
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferHigherConfidence())
    kb.assert_("hq", "Austin", source="human:a")
    kb.assert_("hq", "Dallas", source="tool:b")
    assert kb.value("hq") == "Austin"
    kb.nogood(("hq", "Austin"), ("hq", "Dallas"))  # the same conflict, said as a nogood
    assert kb.value("hq") == "Austin" and kb.label("hq", "Dallas") == "OUT"


def test_preferred_sources_decide_nogoods_by_confidence() -> None:
    kb = trip(PreferSource(["assumption"]))
    kb.nogood("flight:time", "meeting:time")
    assert kb.label("meeting:time", "9:00") == "OUT"  # the rank orders values of a key only


def test_bad_nogoods_are_refused() -> None:
    kb = trip(PreferHigherConfidence())
    with pytest.raises(UnknownBeliefError, match="never heard of"):
        kb.nogood("flight:time", "unknown:key")
    with pytest.raises(InvalidInputError, match="at least two"):
        kb.nogood("flight:time")
    with pytest.raises(InvalidInputError, match="overlap"):
        kb.nogood("flight:time", ("flight:time", "9:00"))
    kb.nogood("flight:time", "meeting:time", name="n")
    with pytest.raises(InvalidInputError, match="already a nogood named"):
        kb.nogood("booking", "calendar", name="n")
    kb.claim("d", True, source="model:m", inputs=["booking"], unless=["calendar"])
    with pytest.raises(StratificationError):
        kb.nogood("d", "calendar")  # d rests on calendar's absence; they cannot decide each other


@pytest.mark.parametrize("fmt", ["cor", "json"])
def test_nogoods_survive_snapshots(tmp_path: Path, fmt: str) -> None:
    clock = ManualClock(0)
    kb = trip(PreferHigherConfidence())
    kb.nogood("flight:time", ("meeting:time", "9:00"), name="double-booked")
    kb.save(tmp_path / f"s.{fmt}")
    loaded = BeliefBase.load(tmp_path / f"s.{fmt}", clock=clock)
    assert loaded.to_dict()["nogoods"] == [["double-booked", ["flight:time",
                                                               ["meeting:time", "9:00"]]]]
    assert loaded.label("meeting:time", "9:00") == "OUT"

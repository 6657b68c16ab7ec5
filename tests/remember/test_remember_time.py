"""Time and remembered facts (docs/remember.md, "Supersession by time").

A fact is a claim resting on its document, and the document holds from the time the text was
said, so a fact is time-scoped through it (``kb.at(t)`` before a message's time does not see that
message's facts), and under ``PreferNewer`` it is ordered through its document's start (a later
message supersedes an earlier one). A ``valid_from`` the text gives is the fact's claim's own
start (``kb.claim(..., valid_from=)``), and wins over the message's time. Two values said at
one instant are an open conflict.
"""

from __future__ import annotations

from typing import Any

import pytest
from remember_cases import fact, facts

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.models import ScriptedModel

PARIS = fact("Alice", "city", "Paris", "I live in Paris")
LYON = fact("Alice", "home city", "Lyon", "I moved to Lyon")

@pytest.fixture
def kb() -> BeliefBase:
    return BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())


def paris_then_lyon(kb: BeliefBase, paris_at: float, lyon_at: float, lyon_by: str = "human:alice"
                    ) -> tuple[Any, Any]:
    """Paris remembered, then Lyon (said at the times given): the two remembered facts."""
    model = ScriptedModel([facts(PARIS), facts(LYON)])
    (paris,) = kb.remember("I live in Paris.", source="human:alice", model=model, at=paris_at)
    (lyon,) = kb.remember("I moved to Lyon.", source=lyon_by, model=model, at=lyon_at)
    return paris, lyon


def test_a_fact_is_time_scoped_through_its_document(kb: BeliefBase) -> None:
    paris_then_lyon(kb, 100, 200)
    assert kb.at(150).value("alice:city") == "Paris"
    assert kb.at(50).label("alice:city") == "OUT"


def test_two_values_said_at_one_time_are_an_open_conflict(kb: BeliefBase) -> None:
    # PreferNewer orders remembered facts through their documents' times; two said at the same
    # instant are not ordered, and stand as an open conflict for a person to settle
    paris_then_lyon(kb, 100, 100, lyon_by="human:bob")
    (conflict,) = kb.conflicts()
    assert conflict.key == "alice:city"
    assert sorted(c.value for c in conflict.candidates) == ["Lyon", "Paris"]
    assert "open conflict with 'Paris'" in str(kb.explain("alice:city", "Lyon"))
    kb.resolve("alice:city", winner="Lyon", learn=False)  # a person settles it
    assert kb.value("alice:city") == "Lyon"


def test_a_later_message_supersedes_an_earlier_one(kb: BeliefBase) -> None:
    paris, lyon = paris_then_lyon(kb, 100, 200)
    assert (paris.key, lyon.key, lyon.merged_from) == ("alice:city", "alice:city",
                                                      "alice:home_city")
    assert (lyon.label, lyon.superseded) == ("IN", ("Paris",))
    assert kb.value("alice:city") == "Lyon" and kb.label("alice:city", "Paris") == "OUT"
    assert kb.at(150).value("alice:city") == "Paris"
    assert [(t.value, t.status, t.superseded_by) for t in kb.timeline("alice:city")] == [
        ("Paris", "superseded", "Lyon"), ("Lyon", "held", None)]
    assert "supersedes 'Paris'" in str(kb.explain("alice:city"))
    # supersession blames nobody: the only outcomes are the two quotes found
    assert [o.correct for o in kb.ledger.outcomes()] == [True, True]


def test_an_earlier_message_arriving_later_is_superseded_at_once(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(LYON), facts(PARIS)])
    (lyon,) = kb.remember("I moved to Lyon.", source="human:alice", model=model, at=200)
    (paris,) = kb.remember("I live in Paris.", source="human:alice", model=model, at=100)
    assert (lyon.key, paris.key, paris.merged_from) == ("alice:home_city", "alice:home_city",
                                                        "alice:city")
    assert (paris.label, paris.confidence, paris.superseded) == ("OUT", 0.0, ())
    assert kb.value("alice:home_city") == "Lyon"
    assert kb.at(150).value("alice:home_city") == "Paris"


def test_the_order_of_arrival_does_not_matter(kb: BeliefBase) -> None:
    kb.assert_("alice:city", "Oslo", source="tool:crm", valid_from=50)
    model = ScriptedModel([facts(LYON), facts(PARIS)])
    (lyon,) = kb.remember("I moved to Lyon.", source="human:alice", model=model, at=200)
    (paris,) = kb.remember("I live in Paris.", source="human:alice", model=model, at=100)
    assert (lyon.key, paris.key) == ("alice:city", "alice:city")
    assert (lyon.label, paris.label) == ("IN", "OUT")
    assert kb.value("alice:city") == "Lyon"
    assert [t.value for t in kb.timeline("alice:city")] == ["Oslo", "Paris", "Lyon"]
    assert kb.at(150).value("alice:city") == "Paris" and kb.at(60).value("alice:city") == "Oslo"


def test_the_text_saying_when_wins_over_the_message_time(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(PARIS), facts(fact("Alice", "city", "Rome", "since 1970 in Rome",
                                                    valid_from="1970-01-01T00:00:50Z"))])
    kb.remember("I live in Paris.", source="human:alice", model=model, at=100)
    (rome,) = kb.remember("Oh, and since 1970 in Rome.", source="human:alice", model=model,
                          at=300)
    assert rome.valid_from == 50.0 and rome.label == "OUT"
    assert kb.value("alice:city") == "Paris"


def test_forgetting_the_newer_conversation_leaves_the_older_value(kb: BeliefBase) -> None:
    _, lyon = paris_then_lyon(kb, 100, 200)
    kb.retract(lyon.document, reason="forget that conversation")
    assert kb.value("alice:city") == "Paris"


def test_in_one_chat_the_later_message_wins(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(PARIS, LYON)])
    made = kb.remember(messages=[
        {"speaker": "human:alice", "text": "I live in Paris.", "at": 100},
        {"speaker": "human:alice", "text": "I moved to Lyon.", "at": 200}], model=model)
    assert [(r.key, r.label) for r in made] == [("alice:city", "OUT"), ("alice:city", "IN")]
    assert made[1].superseded == ("Paris",)

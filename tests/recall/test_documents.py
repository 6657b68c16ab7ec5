"""Issue 35 item 4: recall returns facts, not the transcripts they came from (docs/recall.md,
"Facts before the documents they came from").

Five chats in which Ann moves, remembered through ``kb.remember`` with a scripted model: the
fact ``ann:city`` holds Nantes, each chat is a ``doc:`` belief the fact of its day cites. On
main, ``recall("where does Ann live")`` put three transcripts first ("I live in Lyon.", "I live
in Paris now.") and the fact fourth.
"""

from __future__ import annotations

from typing import Any

import pytest

from corollary import (
    BeliefBase,
    InvalidTypeError,
    ManualClock,
    PreferNewer,
    render_recalled,
)
from corollary.facade.recall import Supported
from corollary.models import Reply, ScriptedModel, ToolCall
from tests.support.embedders import trigrams

DAY = 86400.0
CHATS = [  # (what Ann said, the city, the quote the model cites)
    ("I live in Lyon.", "Lyon", "I live in Lyon"),
    ("We moved to Bordeaux last week.", "Bordeaux", "We moved to Bordeaux"),
    ("I live in Paris now.", "Paris", "I live in Paris now"),
    ("Work sent me to Lille, I live there since Monday.", "Lille", "Work sent me to Lille"),
    ("Finally settled in Nantes, by the sea.", "Nantes", "settled in Nantes"),
]
SUPERSEDED = [text for text, city, _ in CHATS if city != "Nantes"]


def facts(*items: dict[str, Any]) -> Reply:
    return Reply(None, [ToolCall("c1", "facts", {"facts": list(items)})])


def city(value: str, quote: str) -> dict[str, Any]:
    return {"subject": "Ann", "attribute": "city", "value": value, "quote": quote}


def ann_moves(**options: Any) -> BeliefBase:
    """The five chats remembered, a day apart, under PreferNewer (an agent's base)."""
    kb = BeliefBase(clock=ManualClock(10 * DAY), conflict_policy=PreferNewer(), **options)
    model = ScriptedModel([facts(city(c, q)) for _, c, q in CHATS])
    for day, (text, _, _) in enumerate(CHATS, 1):
        kb.remember(text, source="human:ann", model=model, at=day * DAY)
    return kb


@pytest.fixture(params=["lexical", "fused"])
def kb(request: pytest.FixtureRequest) -> BeliefBase:
    return ann_moves(**({"embedder": trigrams} if request.param == "fused" else {}))


def test_the_held_fact_answers_and_no_superseded_transcript_is_shown(kb: BeliefBase) -> None:
    found = kb.recall("where does Ann live")
    assert (found[0].key, found[0].value) == ("ann:city", "Nantes")
    assert found[0].why == ("ann", "live")  # the words of the transcripts it answers for
    assert not any(r.value in SUPERSEDED for r in found)
    assert [r.key for r in found] == ["ann:city"]  # its own transcript gives way to it too


def test_a_superseded_statement_s_words_find_what_holds_now(kb: BeliefBase) -> None:
    # "Paris" is only in the third chat, whose fact Nantes superseded: the key's value now
    # answers for it, and the chat's text is not shown as if it held
    found = kb.recall("Does Ann live in Paris?")
    assert (found[0].key, found[0].value) == ("ann:city", "Nantes")
    assert "I live in Paris now." not in [r.value for r in found]


def test_documents_are_found_when_the_query_asks_for_them(kb: BeliefBase) -> None:
    found = kb.recall("what did Ann say in the chat")
    values = [r.value for r in found]
    assert set(SUPERSEDED) <= set(values) and values[0] == "Nantes"  # the fact still first
    paris = found[values.index("I live in Paris now.")]
    assert paris.source_of == (Supported("ann:city", "Paris", False),)
    assert render_recalled(paris).endswith(
        '[IN 0.99, source of ann:city = "Paris" (not held)]')
    nantes = found[values.index("Finally settled in Nantes, by the sea.")]
    assert nantes.source_of == (Supported("ann:city", "Nantes", True),)
    assert values.index("Nantes") < values.index(nantes.value)  # a fact above its source


def test_documents_true_and_false_override_the_query(kb: BeliefBase) -> None:
    shown = kb.recall("where does Ann live", documents=True)
    assert shown[0].value == "Nantes"
    assert {"I live in Lyon.", "I live in Paris now."} <= {r.value for r in shown}
    assert all(r.source_of for r in shown if r.key.startswith("doc:"))
    hidden = kb.recall("what did Ann say in the chat", documents=False)
    assert [r.key for r in hidden] == ["ann:city"]


def test_a_document_nothing_answers_for_is_shown_marked() -> None:
    kb = BeliefBase(clock=ManualClock(10 * DAY), conflict_policy=PreferNewer())
    model = ScriptedModel([facts(city("Lyon", "I live in Lyon"))])
    (made,) = kb.remember("I live in Lyon.", source="human:ann", model=model, at=DAY)
    kb.retract("ann:city")  # the fact withdrawn, its claim kept: nothing answers for the chat
    (found,) = kb.recall("where does Ann live")
    assert found.key == made.document
    assert found.source_of == (Supported("ann:city", "Lyon", False),)


def test_a_document_whose_claim_was_withdrawn_is_a_plain_belief_again() -> None:
    kb = BeliefBase(clock=ManualClock(10 * DAY), conflict_policy=PreferNewer())
    model = ScriptedModel([facts(city("Lyon", "I live in Lyon"))])
    (made,) = kb.remember("I live in Lyon.", source="human:ann", model=model, at=DAY)
    kb.retract("ann:city", source=made.source)  # the model's reason withdrawn: it cites nothing
    (found,) = kb.recall("where does Ann live")
    assert (found.key, found.source_of) == (made.document, ())


def test_a_plain_belief_no_claim_cites_is_unchanged() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("conv:1:D1:3", "I live in Paris", source="human:ann")
    (found,) = kb.recall("where does Ann live")
    assert (found.key, found.source_of) == ("conv:1:D1:3", ())
    assert render_recalled(found) == 'conv:1:D1:3 = "I live in Paris" [IN 0.99]'


def test_limit_is_filled_when_documents_give_way() -> None:
    # forty people's chats: each document gives way to its fact, and recall reads deeper
    kb = BeliefBase(clock=ManualClock(10 * DAY), conflict_policy=PreferNewer())
    names = [f"P{i}" for i in range(40)]
    model = ScriptedModel([facts({"subject": n, "attribute": "city", "value": f"Town{i}",
                                  "quote": f"I live in Town{i}"}) for i, n in enumerate(names)])
    for i, n in enumerate(names):
        kb.remember(f"I live in Town{i}.", source=f"human:{n.lower()}", model=model, at=DAY)
    found = kb.recall("who lives where, I live in", limit=5)
    assert len(found) == 5 and all(r.key.endswith(":city") for r in found)
    assert len(kb.recall("I live in", limit=60)) == 40


def test_expand_follows_a_fact_with_its_own_document_marked(kb: BeliefBase) -> None:
    found = kb.recall("where does Ann live", expand=True)
    assert [r.value for r in found] == ["Nantes", "Finally settled in Nantes, by the sea."]
    assert found[1].why == ("input of ann:city",)
    assert found[1].source_of == (Supported("ann:city", "Nantes", True),)


def test_documents_must_be_a_bool_or_none(kb: BeliefBase) -> None:
    with pytest.raises(InvalidTypeError):
        kb.recall("where", documents="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        kb.recall("where", documents=1)  # type: ignore[arg-type]


def test_at_a_past_time_the_fact_held_then_answers(kb: BeliefBase) -> None:
    # on day 3.5 Ann lived in Paris: that fact answers for its chat, and the later ones
    # (not begun then) are not recalled
    then = kb.at(3.5 * DAY)
    found = then.recall("where does Ann live")
    assert [(r.key, r.value) for r in found] == [("ann:city", "Paris")]
    shown = then.recall("where does Ann live", documents=True)
    assert "Finally settled in Nantes, by the sea." not in [r.value for r in shown]
    (lyon,) = [r for r in shown if r.value == "I live in Lyon."]
    assert lyon.source_of == (Supported("ann:city", "Lyon", False),)

"""The keys small-model mode writes (corollary/facade/clause_keys.py, docs/models.md, "The keys
small-model mode writes"): the clause's verb as an attribute becomes its noun, a relative's
name or age is the relative's, a subject that is its own value is the speaker; through
OpenAIChat against a loopback server that answers as llama-cpp-python's does."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from support.llama_server import LlamaLikeServer, Seen

from corollary import BeliefBase, ManualClock
from corollary.models import OpenAIChat

FAST = {"backoff_base": 0.001, "backoff_cap": 0.01, "api_key": "", "max_retries": 0}


def replies(by_clause: dict[str, list[tuple[str, str, str]]]) -> Any:
    """A model that answers each clause with the given (subject, attribute, value) facts."""
    def brain(seen: Seen) -> dict[str, Any]:
        found = re.search(r'The part: "(.*)"$', html.unescape(seen.text))
        assert found is not None
        return {"facts": [{"subject": s, "attribute": a, "value": v}
                          for s, a, v in by_clause.get(found.group(1), [])]}
    return brain


@pytest.fixture
def brain() -> list[Any]:
    return [replies({})]


@pytest.fixture
def server(brain: list[Any]) -> Iterator[LlamaLikeServer]:
    srv = LlamaLikeServer(lambda seen: brain[0](seen))
    try:
        yield srv
    finally:
        srv.close()


def keys(server: LlamaLikeServer, text: str, speaker: str, small: bool = True) -> list[Any]:
    model = OpenAIChat(server.url, "qwen2.5-coder-0.5b", dialect="llama-cpp-python",
                       small_model=small, **FAST)
    made = BeliefBase(clock=ManualClock(1_735_000_000)).remember(text, source=speaker,
                                                                  model=model)
    return [(r.key, r.value) for r in made]


def test_the_clause_verb_becomes_the_noun(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = replies({"I moved to Lisbon in January": [("Maria", "moved to", "Lisbon")],
                        "and I work at Feedzai now": [("Maria", "work at", "Feedzai")],
                        "I drive a blue Corolla": [("Kai", "drive a", "blue Corolla")]})
    assert keys(server, "I moved to Lisbon in January and I work at Feedzai now.",
                "human:maria") == [("maria:residence", "Lisbon"), ("maria:employer", "Feedzai")]
    assert keys(server, "I drive a blue Corolla.", "human:kai") == [("kai:car", "blue Corolla")]


def test_a_noun_loses_the_verb_copied_after_it(server: LlamaLikeServer,
                                               brain: list[Any]) -> None:
    brain[0] = replies({"The plate is KX-3391": [("Kai", "plate is", "KX-3391")]})
    assert keys(server, "The plate is KX-3391.", "human:kai") == [("kai:plate", "KX-3391")]


def test_a_relative_name_and_age_are_the_relative(server: LlamaLikeServer,
                                                  brain: list[Any]) -> None:
    brain[0] = replies({"My wife's name is Helen": [("George", "name", "Helen")],
                        "and our son Max just turned 7": [("Max", "son", "Max")],
                        "My cat Pixel is 4 years old": [("Henrik", "age", "4 years old")]})
    assert keys(server, "My wife's name is Helen and our son Max just turned 7.",
                "human:george") == [("george:wife", "Helen"), ("george:son", "Max")]
    assert keys(server, "My cat Pixel is 4 years old.", "human:henrik") == [
        ("henrik:cat_age", "4 years old"), ("henrik:cat", "Pixel")]


def test_the_speaker_own_name_stays(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = replies({"My name is Ines": [("Ines", "name", "Ines")],
                        "and my city is Porto": [("Ines", "city", "Porto")]})
    # "my name", "my city": no relative named, the speaker's own facts
    assert keys(server, "My name is Ines and my city is Porto.", "human:ines") == [
        ("ines:name", "Ines"), ("ines:city", "Porto")]


def test_the_default_mode_keeps_the_model_keys(server: LlamaLikeServer,
                                               brain: list[Any]) -> None:
    # one request a text, its facts quoted by the model: no clause to read the rules from
    brain[0] = lambda seen: {"facts": [{"subject": "Maria", "attribute": "moved to",
                                        "value": "Lisbon", "quote": "I moved to Lisbon"}]}
    assert keys(server, "I moved to Lisbon.", "human:maria", small=False) == [
        ("maria:moved_to", "Lisbon")]


def test_his_name_is_the_relative_spoken_of_before(server: LlamaLikeServer,
                                                   brain: list[Any]) -> None:
    brain[0] = replies({"his name is Biscuit": [("Sam", "name", "Biscuit")]})
    assert keys(server, "We adopted a dog last weekend, his name is Biscuit!", "human:sam") == [
        ("sam:dog", "Biscuit")]
    # no relative spoken of before: the name stays the speaker's (nothing to say whose else)
    assert keys(server, "Call me anything, his name is Biscuit!", "human:sam") == [
        ("sam:name", "Biscuit")]


def test_a_misspelt_attribute_word_is_mended(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = replies({"Our office is room 412": [("Ravi", "room umber", "412")],
                        "my emial is r@x.org": [("Ravi", "emial", "r@x.org")]})
    # "umber" is one edit from "number" (a word people write facts under); "emial" is the
    # clause's own word, so it stays as written
    assert keys(server, "Our office is room 412.", "human:ravi") == [("ravi:room_number", "412")]
    assert keys(server, "my emial is r@x.org", "human:ravi") == [("ravi:emial", "r@x.org")]


def test_a_lone_preposition_is_the_noun_named_before_it(server: LlamaLikeServer,
                                                        brain: list[Any]) -> None:
    brain[0] = replies({"my number changed to 555-0199": [("Amara", "to", "555-0199")],
                        "I moved to Porto": [("Amara", "to", "Porto")],
                        "I switched to Lyon": [("Amara", "to", "Lyon")]})
    assert keys(server, "my number changed to 555-0199", "human:amara") == [
        ("amara:number", "555-0199")]
    # no noun named before the preposition: the verb before it says the fact when it is one
    # a clause says a fact with ("moved to"), else nothing to take and the key stays
    assert keys(server, "I moved to Porto", "human:amara") == [("amara:residence", "Porto")]
    assert keys(server, "I switched to Lyon", "human:amara") == [("amara:to", "Lyon")]


def test_a_cut_negation_says_its_verb(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = replies({"I don't eat pork either": [("Li", "don not", "eat pork either")]})
    assert keys(server, "I don't eat pork either.", "human:li") == [
        ("li:does_not_eat", "eat pork either")]


def test_the_speaker_relative_is_the_speaker(server: LlamaLikeServer, brain: list[Any]) -> None:
    # the text is cut into "I live with my two cats" and "Miso and Tofu"
    brain[0] = replies({"Miso and Tofu": [("Miso and", "cat", "Tofu")],
                        "my friend's cat Tom": [("Tom", "cat", "Tom")]})
    assert keys(server, "I live with my two cats, Miso and Tofu.", "human:ines") == [
        ("ines:cat", "Tofu"), ("ines:cat", "Miso")]
    # the friend's cat: not a relative the clause says is the speaker's, but its own value
    assert keys(server, "my friend's cat Tom", "human:ines") == [("ines:cat", "Tom")]


def test_where_one_lives_is_one_key_whatever_the_place(server: LlamaLikeServer,
                                                       brain: list[Any]) -> None:
    # a state, a country and a city alike: "city" was wrong for two of them
    brain[0] = replies({"I live in Alabama": [("Uma", "living in", "Alabama")],
                        "I moved to Lisbon": [("Uma", "moved to", "Lisbon")]})
    assert keys(server, "I live in Alabama.", "human:uma") == [("uma:residence", "Alabama")]
    assert keys(server, "I moved to Lisbon.", "human:uma") == [("uma:residence", "Lisbon")]


def test_liking_and_coming_from_have_their_nouns(server: LlamaLikeServer,
                                                 brain: list[Any]) -> None:
    brain[0] = replies({"I love the beach too": [("Vik", "love the", "the beach")],
                        "I'm from Colorado": [("Vik", "from", "Colorado")]})
    assert keys(server, "I love the beach too. I'm from Colorado.", "human:vik") == [
        ("vik:likes", "the beach"), ("vik:hometown", "Colorado")]


def test_a_thing_named_in_the_clause_is_the_attribute(server: LlamaLikeServer,
                                                      brain: list[Any]) -> None:
    brain[0] = replies({"I have a golden retriever named Bailey": [("Sol", "name", "Bailey")],
                        "I'm from a little town called Springville": [
                            ("Sol", "name", "Springville")]})
    assert keys(server, "I have a golden retriever named Bailey.", "human:sol") == [
        ("sol:golden_retriever", "Bailey")]
    # a word of size or praise does not name the kind of thing
    assert keys(server, "I'm from a little town called Springville.", "human:sol") == [
        ("sol:town", "Springville")]


def test_favourite_alone_takes_the_thing_the_clause_names(server: LlamaLikeServer,
                                                           brain: list[Any]) -> None:
    brain[0] = replies({"My favorite RPG is The Witcher 3": [("Ola", "favorite", "The Witcher 3")]})
    assert keys(server, "My favorite RPG is The Witcher 3.", "human:ola") == [
        ("ola:favorite_rpg", "The Witcher 3")]


def test_a_value_that_is_the_clause_is_split_at_its_verb(server: LlamaLikeServer,
                                                         brain: list[Any]) -> None:
    brain[0] = replies({"Now I live in the United States": [
        ("Quin", "now", "I live in the United States")]})
    assert keys(server, "Now I live in the United States.", "human:quin") == [
        ("quin:residence", "the United States")]
    brain[0] = replies({"I work as a car salesman": [
        ("Eli", "car salesman", "I work as a car salesman")]})
    assert keys(server, "I work as a car salesman.", "human:eli") == [
        ("eli:job", "a car salesman")]


def test_a_fact_of_another_clause_is_keyed_with_that_clause(server: LlamaLikeServer,
                                                            brain: list[Any]) -> None:
    # asked about the second clause, the model gives the first's fact too: the rules read
    # the clause that says it (its quote), and a word of the text is not a misspelling
    brain[0] = replies({"and I work at Feedzai now": [("Maria", "moved to", "Lisbon"),
                                                      ("Maria", "work at", "Feedzai")],
                        "It's a nice place": [("Maria", "place", "Lisbon")]})
    assert keys(server, "I moved to Lisbon and I work at Feedzai now.", "human:maria") == [
        ("maria:residence", "Lisbon"), ("maria:employer", "Feedzai")]
    assert keys(server, "I moved to Lisbon. It's a nice place.", "human:maria") == [
        ("maria:place", "Lisbon")]


def test_a_relative_the_clause_names_is_kept(server: LlamaLikeServer, brain: list[Any]) -> None:
    # the model gave only when she starts; the clause names the daughter by its form
    brain[0] = replies({"My daughter Ana starts school next week": [
        ("Tom", "starts school", "next week")]})
    assert keys(server, "My daughter Ana starts school next week.", "human:tom") == [
        ("tom:starts_school", "next week"), ("tom:daughter", "Ana")]
    # a name the model gave already (under any key) is not added again
    brain[0] = replies({"our son Max just turned 7": [("Max", "son", "Max")]})
    assert keys(server, "our son Max just turned 7", "human:george") == [("george:son", "Max")]

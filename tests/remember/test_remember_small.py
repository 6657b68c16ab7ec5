"""Small-model mode's remember (docs/models.md, "A small-model mode"): a request per clause of
the text, the clause named in it and its quote by construction, the reply a structured-output
schema (subject, attribute, value), through OpenAIChat against a loopback server that answers
as llama-cpp-python's does (tests/support/llama_server.py)."""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from support.llama_server import LlamaLikeServer, Seen

from corollary import BeliefBase, ManualClock
from corollary.facade.remember_request import (
    ATTRIBUTE_PATTERN,
    SMALL_INSTRUCTIONS,
    SMALL_REQUEST_TOKENS,
    SUBJECT_PATTERN,
    clauses,
)
from corollary.foundations.errors import InvalidTypeError
from corollary.models import FunctionModel, OpenAIChat, ScriptedModel

FAST = {"backoff_base": 0.001, "backoff_cap": 0.01, "api_key": "", "max_retries": 0}
TEXT = "I moved to Pine Ave last month, but I still work at Acme."


def part(seen: Seen) -> str:
    """The clause a request asks about (the last line of its user message)."""
    found = re.search(r'The part: "(.*)"$', html.unescape(seen.text))
    assert found is not None, seen.text
    return found.group(1)


def reads_each_clause(seen: Seen) -> dict[str, Any]:
    """A model that names the fact of the clause it is asked about."""
    facts = {"I moved to Pine Ave last month": ("street", "Pine Ave"),
             "but I still work at Acme": ("employer", "Acme")}
    attribute, value = facts[part(seen)]
    return {"facts": [{"subject": "alice", "attribute": attribute, "value": value}]}


@pytest.fixture
def brain() -> list[Any]:
    return [reads_each_clause]


@pytest.fixture
def server(brain: list[Any]) -> Iterator[LlamaLikeServer]:
    srv = LlamaLikeServer(lambda seen: brain[0](seen))
    try:
        yield srv
    finally:
        srv.close()


def small(server: LlamaLikeServer, **settings: Any) -> OpenAIChat:
    return OpenAIChat(server.url, "qwen2.5-coder-0.5b", dialect="llama-cpp-python",
                      small_model=True, **FAST, **settings)


def base() -> BeliefBase:
    return BeliefBase(clock=ManualClock(1_713_614_400))


def test_a_request_per_clause_each_quoting_its_clause(server: LlamaLikeServer) -> None:
    made = base().remember(TEXT, source="human:alice", model=small(server))
    assert [(r.key, r.value, r.quote) for r in made] == [
        ("alice:street", "Pine Ave", "I moved to Pine Ave last month"),
        ("alice:employer", "Acme", "but I still work at Acme")]
    assert len(server.bodies) == 2
    for body, clause in zip(server.bodies, clauses(TEXT), strict=True):
        assert body["messages"][0]["content"] == SMALL_INSTRUCTIONS
        assert body["messages"][1]["content"].endswith(f'{TEXT}\n\nThe part: "{clause}"')


def test_the_reply_is_a_schema_not_a_tool(server: LlamaLikeServer) -> None:
    base().remember(TEXT, source="human:alice", model=small(server))
    body = server.bodies[0]
    # llama-cpp-python puts a named tool's schema in the prompt; a reply schema only
    # constrains the output: no tools, no tool_choice, the json_object form it reads
    assert "tools" not in body and "tool_choice" not in body
    schema = body["response_format"]["schema"]
    assert body["response_format"]["type"] == "json_object"
    facts = schema["properties"]["facts"]
    assert facts["maxItems"] == 2 and schema["required"] == ["facts"]
    item = facts["items"]
    assert list(item["properties"]) == ["subject", "attribute", "value"]  # no quote to write
    assert item["properties"]["subject"]["pattern"] == SUBJECT_PATTERN
    assert item["properties"]["attribute"]["pattern"] == ATTRIBUTE_PATTERN


@pytest.mark.parametrize(("attribute", "matches"), [
    ("employer", True), ("favourite dish", True), ("work at Feedzai now", False),
    ("Employer", False), ("", False)])
def test_an_attribute_is_one_or_two_lower_case_words(attribute: str, matches: bool) -> None:
    # Qwen2.5-Coder-0.5B, its attribute free, wrote the clause there: 'work at Feedzai now'
    assert (re.fullmatch(ATTRIBUTE_PATTERN.strip("^$"), attribute) is not None) is matches


def test_a_value_of_another_clause_is_quoted_with_that_clause(server: LlamaLikeServer,
                                                               brain: list[Any]) -> None:
    # asked about either clause, the model names the fact the second one says: its quote is
    # the clause that says it (kept once), not the clause asked about (docs/models.md)
    brain[0] = lambda seen: {"facts": [{"subject": "alice", "attribute": "employer",
                                        "value": "Acme"}]}
    made = base().remember(TEXT, source="human:alice", model=small(server))
    assert [(r.value, r.quote) for r in made] == [("Acme", "but I still work at Acme")]
    assert not made.refused


def test_a_value_in_no_clause_is_refused(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": [{"subject": "alice", "attribute": "employer",
                                        "value": "Google"}]}
    made = base().remember(TEXT, source="human:alice", model=small(server))
    assert list(made) == []
    assert sorted((r.fact["quote"], r.reason) for r in made.refused) == [
        ("I moved to Pine Ave last month", "value not in its quote"),
        ("but I still work at Acme", "value not in its quote")]


def test_an_initial_does_not_cut_a_clause(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": [{"subject": "alice", "attribute": "favorite book",
                                        "value": "Gatsby by F. Scott Fitzgerald"}]}
    made = base().remember('My favorite is "Gatsby" by F. Scott Fitzgerald.',
                           source="human:alice", model=small(server))
    assert [r.quote for r in made] == ['My favorite is "Gatsby" by F. Scott Fitzgerald']
    assert len(server.bodies) == 1


def test_a_clause_with_no_fact_gives_none(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": []}
    made = base().remember("Hi there. How are you?", source="human:alice", model=small(server))
    assert list(made) == [] and not made.refused and len(server.bodies) == 2


def test_a_long_text_shows_each_clause_with_its_stretch_only(server: LlamaLikeServer,
                                                              brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": []}
    text = " ".join(f"Sentence number {i} says little." for i in range(200))
    base().remember(text, source="human:alice", model=small(server))
    assert len(server.bodies) == 200  # one request per clause, never one for the whole text
    shown = [len(b["messages"][1]["content"]) for b in server.bodies]
    assert max(shown) <= SMALL_REQUEST_TOKENS * 4 + 200 < len(text)


def test_a_model_without_options_is_offered_its_clause_as_the_only_quote() -> None:
    seen: list[Any] = []

    def answer(messages: Any, tools: Any) -> str:  # written before per-request options
        seen.append(tools[0]["function"]["parameters"]["properties"]["facts"]["items"])
        quote = seen[-1]["properties"]["quote"]["enum"][0]
        return json.dumps({"facts": [{"quote": quote, "subject": "bo", "attribute": "city",
                                      "value": "Lyon"}]})
    made = base().remember("I live in Lyon.", source="human:bo", model=FunctionModel(answer),
                           small_model=True)
    assert [(r.key, r.value, r.quote) for r in made] == [("bo:city", "Lyon", "I live in Lyon")]
    assert [item["properties"]["quote"]["enum"] for item in seen] == [["I live in Lyon"]]


def test_aremember_sends_the_same_requests() -> None:
    reply = '{"facts": [{"subject": "bo", "attribute": "city", "value": "Lyon"}]}'
    model = ScriptedModel([reply, '{"facts": []}'])
    made = asyncio.run(base().aremember("I live in Lyon. I like tea.", source="human:bo",
                                        model=model, small_model=True))
    assert [(r.key, r.quote) for r in made] == [("bo:city", "I live in Lyon")]
    assert [o.schema is not None and o.tool_choice is None for o in model.options] == [True, True]
    assert [tools for _messages, tools in model.requests] == [[], []]


def test_clauses_split_before_and_with_a_pronoun() -> None:
    assert clauses("I moved to Lisbon in January and I work at Feedzai now.") == [
        "I moved to Lisbon in January", "and I work at Feedzai now"]
    assert clauses("I like salt and pepper.") == ["I like salt and pepper"]


def test_the_chat_form_asks_about_each_message_s_clauses(server: LlamaLikeServer,
                                                         brain: list[Any]) -> None:
    def names_the_pet(seen: Seen) -> dict[str, Any]:
        if part(seen) == "with my cat":
            return {"facts": [{"subject": "Bob", "attribute": "pet", "value": "cat"}]}
        return {"facts": []}
    brain[0] = names_the_pet
    kb = base()
    (pet,) = kb.remember(messages=[
        {"speaker": "human:alice", "text": "I live in Paris.", "at": 10},
        {"speaker": "human:bob", "text": "Same here, with my cat.", "at": 20}],
        model=small(server))
    # three clauses, three requests, each showing both messages; the fact rests on the
    # message its clause is in
    assert [part(Seen(b["messages"], None, None, None)) for b in server.bodies] == [
        "I live in Paris", "Same here", "with my cat"]
    assert "[1] human:alice" in server.bodies[2]["messages"][1]["content"]
    assert (pet.key, pet.quote, kb.value(pet.document)) == (
        "bob:pet", "with my cat", "Same here, with my cat.")


@pytest.mark.parametrize(("name", "chosen"), [
    ("qwen2.5-coder-0.5b-instruct", True), ("SmolLM2-135M-Instruct", True),
    ("Qwen2.5-Coder-1.5B-Instruct", True), ("Qwen/Qwen2.5-7B-Instruct", False),
    ("gpt-4o-mini", False), ("qwen2.5-coder", False)])
def test_a_name_stating_under_two_billion_parameters_picks_the_mode(
        server: LlamaLikeServer, brain: list[Any], name: str, chosen: bool) -> None:
    fact = {"subject": "alice", "attribute": "street", "value": "Pine Ave"}
    brain[0] = lambda seen: {"facts": [fact if seen.schema else {**fact, "quote": "Pine Ave"}]}
    model = OpenAIChat(server.url, name, dialect="llama-cpp-python", **FAST)
    assert model.small_model is chosen
    base().remember("I moved to Pine Ave last month.", source="human:alice", model=model)
    assert ("response_format" in server.bodies[0]) is chosen
    assert ("tools" in server.bodies[0]) is not chosen


def test_the_mode_said_explicitly_overrides_the_name(server: LlamaLikeServer) -> None:
    assert not OpenAIChat(server.url, "qwen2.5-coder-0.5b", dialect="llama-cpp-python",
                          small_model=False, **FAST).small_model
    assert OpenAIChat(server.url, "gpt-4o", small_model=True, **FAST).small_model
    with pytest.raises(InvalidTypeError, match="small_model must be a bool or None"):
        OpenAIChat(server.url, "gpt-4o", small_model="yes", **FAST)  # type: ignore[arg-type]


@pytest.mark.parametrize("dialect", ["llama.cpp", "ollama", "vllm"])
def test_only_a_local_server_s_dialect_is_guessed_small(server: LlamaLikeServer,
                                                        dialect: str) -> None:
    # the default "openai" dialect sends the reply schema in the form llama-cpp-python refuses
    # (HTTP 500): a model named small behind it keeps the one request a text that works there
    assert not OpenAIChat(server.url, "qwen2.5-coder-0.5b", **FAST).small_model
    assert OpenAIChat(server.url, "qwen2.5-coder-0.5b", dialect=dialect, **FAST).small_model

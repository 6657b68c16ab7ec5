"""kb.remember through OpenAIChat against a loopback server that answers as llama-cpp-python's
does (tests/support/llama_server.py): what issue 39 saw a real small model do, each case
scripted (docs/remember.md, "What a fact must be supported by"; docs/models.md)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from remember_cases import fact
from support.llama_server import LlamaLikeServer, Seen

from corollary import BeliefBase, ManualClock
from corollary.facade.remember_request import SMALL_INSTRUCTIONS
from corollary.foundations.errors import ModelResponseError
from corollary.models import FunctionModel, OpenAIChat

APRIL = datetime.datetime(2024, 4, 20, 12, tzinfo=datetime.timezone.utc).timestamp()
FAST = {"backoff_base": 0.001, "backoff_cap": 0.01, "api_key": "", "max_retries": 0}


def written_as_text(seen: Seen) -> dict[str, Any] | str:
    """The scripted model: a call when the tool is required, the reply's JSON under a reply
    schema (small-model mode: no quote), else the call written as text."""
    if seen.schema is not None:
        return {"facts": [{"subject": "alice", "attribute": "street", "value": "Pine Ave"}]}
    if seen.tool != "facts":
        return 'facts(["I moved to Pine Ave last month."])'
    return {"facts": [fact("alice", "street", "Pine Ave", "I moved to Pine Ave")]}


@pytest.fixture
def brain() -> list[Any]:
    return [written_as_text]


@pytest.fixture
def server(brain: list[Any]) -> Iterator[LlamaLikeServer]:
    srv = LlamaLikeServer(lambda seen: brain[0](seen))
    try:
        yield srv
    finally:
        srv.close()


def llama(server: LlamaLikeServer, **settings: Any) -> OpenAIChat:
    # a name that states no size: small-model mode only when asked (test_remember_small.py
    # tests the rule that picks it by the size a name states)
    return OpenAIChat(server.url, "qwen2.5-coder", dialect="llama-cpp-python",
                      **FAST, **settings)


def base() -> BeliefBase:
    return BeliefBase(clock=ManualClock(APRIL))


def test_remember_requires_its_one_tool(server: LlamaLikeServer) -> None:
    made = base().remember("I moved to Pine Ave last month.", source="human:alice",
                           model=llama(server))
    assert [(r.key, r.value) for r in made] == [("alice:street", "Pine Ave")]
    (body,) = server.bodies
    assert body["tool_choice"] == {"type": "function", "function": {"name": "facts"}}
    facts = body["tools"][0]["function"]["parameters"]["properties"]["facts"]
    assert facts["maxItems"] == 64 and facts["items"]["properties"]["quote"]["maxLength"] == 400


def test_a_model_without_options_gets_the_request_as_before() -> None:
    # a model written before per-request options: complete(messages, tools) only
    def answer(messages: Any, tools: Any) -> Any:
        return '{"facts": [{"subject": "bo", "attribute": "city", "value": "Lyon", ' \
               '"quote": "I live in Lyon"}]}'
    (r,) = base().remember("I live in Lyon.", source="human:bo", model=FunctionModel(answer))
    assert (r.key, r.value) == ("bo:city", "Lyon")


def test_the_speaker_is_named_in_the_request(server: LlamaLikeServer) -> None:
    base().remember("I moved to Pine Ave last month.", source="human:alice", model=llama(server))
    user = server.bodies[0]["messages"][-1]["content"]
    assert user.endswith("Text said by alice (human:alice):\nI moved to Pine Ave last month.")
    # a small model copies words the request lists: Qwen2.5-Coder-0.5B kept 'me' and 'my' as
    # attributes when the pronouns were listed (docs/models.md, "Measured with real models")
    assert "'me'" not in user and "'my'" not in user


def test_small_model_mode_shows_no_empty_list_of_keys(server: LlamaLikeServer) -> None:
    # Qwen2.5-Coder-0.5B took "existing keys (key = value)" for a subject when none was listed
    base().remember("I moved to Pine Ave last month.", source="human:alice",
                    model=llama(server, small_model=True))
    assert "Existing keys" not in server.bodies[0]["messages"][-1]["content"]
    base().remember("I moved to Pine Ave last month.", source="human:alice", model=llama(server))
    assert "Existing keys (key = value):\n(none)" in server.bodies[1]["messages"][-1]["content"]


def test_the_facts_schema_asks_for_the_quote_before_the_value(server: LlamaLikeServer) -> None:
    # llama.cpp's grammar writes an object's fields in the schema's order: the quote comes
    # first so that the value is written after, and from, the words it must be found in
    # (small-model mode asks for no quote: test_remember_small.py)
    base().remember("I moved to Pine Ave last month.", source="human:alice",
                    model=llama(server))
    item = server.bodies[0]["tools"][0]["function"]["parameters"]["properties"]["facts"]["items"]
    assert list(item["properties"])[:4] == ["quote", "subject", "attribute", "value"]
    assert item["required"] == ["quote", "subject", "attribute", "value"]


def test_entities_the_template_escaped_are_read_before_the_quote_is_checked(
        server: LlamaLikeServer, brain: list[Any]) -> None:
    def copies_its_input(seen: Seen) -> dict[str, Any]:
        said = seen.text.rpartition(":\n")[2]  # "I&#x27;m vegetarian..." as the model read it
        assert "&#x27;" in said
        return {"facts": [fact("me", "diet", "vegetarian", said.split(",")[0])]}
    brain[0] = copies_its_input
    made = base().remember("I'm vegetarian, mostly.", source="human:alice", model=llama(server))
    assert [(r.value, r.quote) for r in made] == [("vegetarian", "I'm vegetarian")]


def test_a_value_not_in_its_quote_is_refused(server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": [
        fact("me", "employer", "Google Inc.", "Use that one from now on."),
        fact("me", "email", "bo@acme.io", "my email is bo@acme.io")]}
    made = base().remember("My email is bo@acme.io. Use that one from now on.",
                           source="human:bo", model=llama(server))
    assert [r.value for r in made] == ["bo@acme.io"]
    assert [(r.fact["value"], r.reason, r.counted) for r in made.refused] == [
        ("Google Inc.", "value not in its quote", True)]


def test_an_invented_valid_from_gives_way_to_the_message_s_time(
        server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": [fact("me", "street", "Pine Ave", "I moved to Pine Ave",
                                            valid_from="2024-03-01")]}
    kb = base()
    (r,) = kb.remember("I moved to Pine Ave last month.", source="human:alice",
                       model=llama(server))
    # before: the fact held from 2024-03-01, older than the base's value, and was OUT at 0
    assert (r.valid_from, r.label) == (APRIL, "IN") and r.confidence > 0.5


def test_a_valid_from_later_than_the_message_is_not_taken(
        server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": [fact("me", "street", "Pine Ave", "Pine Ave in June 2024",
                                            valid_from="2024-06-01")]}
    (r,) = base().remember("I move to Pine Ave in June 2024.", source="human:alice",
                           model=llama(server))
    assert r.valid_from == APRIL


def test_a_reply_cut_at_the_limit_keeps_its_complete_facts_and_says_so(
        server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = lambda seen: {"facts": [fact("me", "city", "Lyon", "I live in Lyon"),
                                       fact("me", "pet", "cat", "I have a cat"),
                                       fact("me", "employer", "Acme", "I work at Acme")]}
    text = "I live in Lyon. I have a cat. I work at Acme."
    made = base().remember(text, source="human:alice", model=llama(server, max_tokens=60))
    assert server.bodies and made.cut == 1
    assert [r.value for r in made] == ["Lyon", "cat"]  # the third fact fell in the cut


def test_an_unreadable_text_reply_is_an_error_not_no_facts(server: LlamaLikeServer) -> None:
    # a server that ignores tool_choice: the model writes the call as prose
    def ignores_the_tool(messages: Any, tools: Any) -> str:
        return written_as_text(Seen(messages, None, None, None))  # type: ignore[return-value]
    kb = base()
    with pytest.raises(ModelResponseError, match="no facts object"):
        kb.remember("I moved to Pine Ave last month.", source="human:alice",
                    model=FunctionModel(ignores_the_tool))
    assert not kb.engine.keys


def test_small_model_mode_is_chosen_by_remember_over_the_model(server: LlamaLikeServer) -> None:
    base().remember("I moved to Pine Ave last month.", source="human:alice",
                    model=llama(server, small_model=True), small_model=False)
    assert server.bodies[0]["messages"][0]["content"] != SMALL_INSTRUCTIONS

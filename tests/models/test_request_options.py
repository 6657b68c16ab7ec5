"""Per-request options (docs/models.md, "Per-request options"): a request's own ``tool_choice``
and reply schema, merged over the instance's settings, in each server's form; checked against a
loopback server that answers as llama-cpp-python's does (tests/support/llama_server.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.llama_server import LlamaLikeServer, Seen

from corollary.foundations.errors import InvalidInputError, ModelHTTPError
from corollary.models import (
    FunctionModel,
    OpenAIChat,
    RequestOptions,
    ScriptedModel,
    acomplete,
    complete,
    tool_named,
)

FAST = {"backoff_base": 0.001, "backoff_cap": 0.01, "api_key": "", "max_retries": 0}
HI = [{"role": "user", "content": "hi"}]
TOOL = {"type": "function", "function": {"name": "facts", "parameters": {"type": "object"}}}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def brain(seen: Seen) -> dict[str, Any] | str:
    if seen.tool is not None:
        return {"called": seen.tool}
    if seen.schema is not None:
        return {"city": "Lyon"}
    return "free text"


@pytest.fixture
def llama() -> Iterator[LlamaLikeServer]:
    srv = LlamaLikeServer(brain)
    try:
        yield srv
    finally:
        srv.close()


def test_a_request_s_tool_choice_goes_over_the_setting() -> None:
    model = OpenAIChat("http://127.0.0.1:9/v1", "m", api_key="", tool_choice="none", seed=1)
    body = model.request_body(HI, [TOOL], RequestOptions(tool_choice=tool_named("facts")))
    assert body["tool_choice"] == {"type": "function", "function": {"name": "facts"}}
    assert body["seed"] == 1 and model.request_body(HI, [TOOL])["tool_choice"] == "none"


@pytest.mark.parametrize(("dialect", "form"), [
    ("openai", {"type": "json_schema", "json_schema": {"name": "place", "schema": SCHEMA}}),
    ("vllm", {"type": "json_schema", "json_schema": {"name": "place", "schema": SCHEMA}}),
    ("ollama", {"type": "json_schema", "json_schema": {"name": "place", "schema": SCHEMA}}),
    ("llama.cpp", {"type": "json_object", "schema": SCHEMA}),
    ("llama-cpp-python", {"type": "json_object", "schema": SCHEMA}),
])
def test_a_reply_schema_is_sent_in_the_server_s_form(dialect: str, form: dict[str, Any]) -> None:
    model = OpenAIChat("http://127.0.0.1:9/v1", "m", api_key="", dialect=dialect,
                       response_format={"type": "text"})
    body = model.request_body(HI, [], {"schema": SCHEMA, "schema_name": "place"})
    assert body["response_format"] == form


def test_auto_is_never_sent_to_llama_cpp_python() -> None:
    with pytest.raises(InvalidInputError, match="generates without end"):
        OpenAIChat("http://127.0.0.1:9/v1", "m", api_key="", dialect="llama-cpp-python",
                   tool_choice="auto")
    model = OpenAIChat("http://127.0.0.1:9/v1", "m", api_key="", dialect="llama-cpp-python")
    with pytest.raises(InvalidInputError, match="name the tool instead"):
        model.request_body(HI, [TOOL], {"tool_choice": "auto"})


def test_the_tool_is_called_only_when_named(llama: LlamaLikeServer) -> None:
    model = OpenAIChat(llama.url, "m", dialect="llama-cpp-python", **FAST)
    assert complete(model, HI, [TOOL]).text == "free text"
    reply = complete(model, HI, [TOOL], {"tool_choice": tool_named("facts")})
    assert reply.tool_calls[0].arguments == {"called": "facts"}
    assert "tool_choice" not in llama.bodies[0]


def test_a_call_cut_at_the_token_limit_is_read_as_cut(llama: LlamaLikeServer) -> None:
    # llama-cpp-python says "tool_calls" of a named call cut at max_tokens: only usage shows it
    model = OpenAIChat(llama.url, "m", dialect="llama-cpp-python", max_tokens=3, **FAST)
    reply = complete(model, HI, [TOOL], {"tool_choice": tool_named("facts")})
    assert llama.usages[0]["completion_tokens"] == 3
    assert reply.finish_reason == "length"
    assert reply.tool_calls[0].arguments_error is not None  # '{"called": ' does not parse
    whole = OpenAIChat(llama.url, "m", dialect="llama-cpp-python", max_tokens=100, **FAST)
    assert complete(whole, HI, [TOOL], {"tool_choice": tool_named("facts")}).finish_reason \
        == "tool_calls"


def test_the_json_object_form_is_read_and_the_json_schema_form_refused(
        llama: LlamaLikeServer) -> None:
    ours = OpenAIChat(llama.url, "m", dialect="llama-cpp-python", **FAST)
    reply = asyncio.run(acomplete(ours, HI, [], RequestOptions(schema=SCHEMA)))
    assert json.loads(reply.text or "") == {"city": "Lyon"}
    openai_form = OpenAIChat(llama.url, "m", **FAST)
    with pytest.raises(ModelHTTPError) as caught:
        complete(openai_form, HI, [], RequestOptions(schema=SCHEMA))
    assert caught.value.status == 500


def test_options_reach_only_models_that_take_them() -> None:
    scripted = ScriptedModel(["a", "b"])
    complete(scripted, HI, [TOOL], {"tool_choice": "required"})
    complete(scripted, HI, [])
    assert [o.tool_choice for o in scripted.options] == ["required", None]
    given: list[Any] = []

    def takes(messages: Any, tools: Any, options: Any = None) -> str:
        given.append(options)
        return "ok"
    complete(FunctionModel(takes), HI, [TOOL], {"tool_choice": "required"})
    complete(FunctionModel(lambda messages, tools: "old"), HI, [TOOL], {"tool_choice": "required"})
    assert [o.tool_choice for o in given] == ["required"]


def test_bad_options_are_refused_before_anything_is_sent() -> None:
    with pytest.raises(InvalidInputError, match="unknown request options"):
        complete(ScriptedModel(["a"]), HI, [], {"tool_choise": "required"})
    with pytest.raises(InvalidInputError):
        RequestOptions(tool_choice={"type": "function", "function": {}})


def test_llama_cpp_python_is_sent_empty_content_for_null(llama: LlamaLikeServer) -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "facts", "arguments": "{}"}}]
    history = [*HI, {"role": "assistant", "content": None, "tool_calls": calls},
               {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    assert complete(OpenAIChat(llama.url, "m", dialect="llama-cpp-python", **FAST), history,
                    [TOOL]).text == "free text"
    assert llama.bodies[0]["messages"][1]["content"] == ""
    with pytest.raises(ModelHTTPError):  # what the server does with null
        complete(OpenAIChat(llama.url, "m", dialect="llama.cpp", **FAST), history, [TOOL])

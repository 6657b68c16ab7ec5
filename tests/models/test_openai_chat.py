"""OpenAIChat against a real HTTP server on 127.0.0.1: what goes over the wire, what comes back."""

from __future__ import annotations

import asyncio
import json
import pickle
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_server import Answer, Server, completion

from corollary.foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
)
from corollary.models import OpenAIChat, Reply, ToolCall, acomplete, complete, tool_message

USER = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Price of ACME?"}]
QUOTE = {
    "type": "function",
    "function": {
        "name": "quote",
        "description": "Last trade price.",
        "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}},
                       "required": ["symbol"]},
    },
}
FAST = {"backoff_base": 0.001, "backoff_cap": 0.01}


def chat(server: Server, **options: Any) -> OpenAIChat:
    options.setdefault("api_key", "")
    return OpenAIChat(server.url, "m", **{**FAST, **options})


def call(id: Any, name: str, arguments: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if id is not None:
        wire["id"] = id
    return wire


def record_retries() -> tuple[list[tuple[int, ModelError, float]], Any]:
    seen: list[tuple[int, ModelError, float]] = []
    return seen, lambda attempt, error, delay: seen.append((attempt, error, delay))


# -- the request -------------------------------------------------------------------------------


def test_text_reply_and_exactly_what_went_over_the_wire(server):
    model = OpenAIChat(server.url, "qwen", "sk-test", temperature=0, max_tokens=50, seed=7,
                       stop=["\n"], top_p=0.9)
    reply = model.complete(USER, [QUOTE])
    assert reply == Reply("hello", (), "stop")
    assert len(server.requests) == 1
    sent = server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["content-length"] == str(len(sent.body))
    assert sent.headers["connection"] == "close"  # one request per connection
    assert sent.json == {"model": "qwen", "messages": USER, "tools": [QUOTE], "temperature": 0,
                         "max_tokens": 50, "seed": 7, "stop": ["\n"], "top_p": 0.9}
    assert "n" not in sent.json


def test_no_tools_means_no_tools_nor_tool_choice_in_the_body(server):
    model = chat(server, tool_choice="auto", parallel_tool_calls=False, temperature=0.5)
    model.complete(USER, [])
    model.complete(USER, [QUOTE])
    without, with_tools = (r.json for r in server.requests)
    assert without == {"model": "m", "messages": USER, "temperature": 0.5}
    assert with_tools == {"model": "m", "messages": USER, "tools": [QUOTE], "tool_choice": "auto",
                          "parallel_tool_calls": False, "temperature": 0.5}


def test_the_key_comes_from_openai_api_key_and_an_empty_key_sends_none(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    OpenAIChat(server.url, "m").complete(USER, [])
    OpenAIChat(server.url, "m", api_key="").complete(USER, [])
    monkeypatch.delenv("OPENAI_API_KEY")
    OpenAIChat(server.url, "m").complete(USER, [])
    assert [r.headers.get("authorization") for r in server.requests] == ["Bearer sk-from-env", None, None]


def test_extra_headers_and_a_query_in_the_base_url_are_kept(server):
    model = OpenAIChat(server.url + "/?api-version=2024-06-01", "m", api_key="",
                       headers={"api-key": "azure-secret", "OpenAI-Organization": "org-1"})
    model.complete(USER, [])
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions?api-version=2024-06-01"
    assert (sent.headers["api-key"], sent.headers["openai-organization"]) == ("azure-secret", "org-1")
    assert "azure-secret" not in repr(model)


def test_a_request_that_cannot_be_sent_is_refused_before_sending(server):
    model = chat(server)
    with pytest.raises(InvalidTypeError):
        model.complete([{"role": "user", "content": {1, 2}}], [])
    with pytest.raises(InvalidInputError):
        model.complete([{"role": "user", "content": float("nan")}], [])
    with pytest.raises(InvalidInputError):
        model.complete([], [])
    with pytest.raises(InvalidInputError):
        model.complete([{"content": "no role"}], [])
    with pytest.raises(InvalidTypeError):
        model.complete(USER, [QUOTE, "not a schema"])
    assert server.requests == []


def test_text_that_is_not_valid_unicode_still_goes_over_the_wire_as_json(server):
    # A lone surrogate (e.g. from a JSON "\\ud800" in an earlier reply) cannot be UTF-8 encoded:
    # the body escapes it, as it does every non-ASCII character.
    server.then(Answer(body=completion(None, [call("c1", "say", '{"text": "\\ud800 caf\\u00e9"}')])))
    model = chat(server)
    reply = model.complete([{"role": "user", "content": "caf\u00e9 \ud800"}], [])
    assert reply.tool_calls[0].arguments == {"text": "\ud800 caf\u00e9"}
    model.complete([{"role": "user", "content": "x"}, reply.to_message(), tool_message("c1", "ok")], [])
    assert server.requests[0].body.isascii()
    assert server.requests[0].json["messages"][0]["content"] == "caf\u00e9 \ud800"
    assert json.loads(server.requests[1].json["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {
        "text": "\ud800 caf\u00e9"}


# -- the reply ---------------------------------------------------------------------------------


def test_tool_calls_with_json_string_arguments_are_parsed(server):
    server.then(Answer(body=completion(None, [
        call("call_a", "quote", '{"symbol": "ACME"}'),
        call("call_b", "quote", '{"symbol": "INIT", "venue": null, "depth": [1, 2.5]}'),
    ], finish="tool_calls")))
    reply = chat(server).complete(USER, [QUOTE])
    assert reply == Reply(None, (
        ToolCall("call_a", "quote", {"symbol": "ACME"}),
        ToolCall("call_b", "quote", {"symbol": "INIT", "venue": None, "depth": [1, 2.5]}),
    ), "tool_calls")


@pytest.mark.parametrize(("raw", "error"), [
    ('{"symbol": "AC', "the arguments are not valid JSON: Unterminated string"),
    ("[1, 2]", "the arguments must be a JSON object, not an array"),
    ('"ACME"', "the arguments must be a JSON object, not a string"),
    ("null", "the arguments must be a JSON object, not null"),
    ('{"x": NaN}', "the arguments are not valid JSON: NaN is not JSON"),
    ("[" * 100_000 + "]" * 100_000, "the arguments are not valid JSON: maximum recursion depth"),
])
def test_unreadable_arguments_become_an_error_on_the_call_not_an_exception(server, raw, error):
    server.then(Answer(body=completion(None, [call("c1", "quote", raw), call("c2", "quote", "{}")])))
    first, second = chat(server).complete(USER, [QUOTE]).tool_calls
    assert (first.id, first.name, first.arguments, first.raw_arguments) == ("c1", "quote", {}, raw)
    assert first.arguments_error is not None and first.arguments_error.startswith(error)
    assert second == ToolCall("c2", "quote", {})
    # The agent answers with the error; the conversation stays valid JSON for the next request.
    follow_up = [*USER, Reply(None, (first, second)).to_message(),
                 tool_message(first.id, first.arguments_error), tool_message(second.id, "101.5")]
    chat(server).complete(follow_up, [QUOTE])
    assert server.requests[1].json["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{}"


@pytest.mark.parametrize(("raw", "arguments"), [
    ("", {}),             # some servers send "" for a call without arguments
    (None, {}),
    ({"symbol": "ACME"}, {"symbol": "ACME"}),  # Ollama-style: the object itself
])
def test_empty_and_object_arguments(server, raw, arguments):
    server.then(Answer(body=completion(None, [call("c1", "quote", raw)])))
    (only,) = chat(server).complete(USER, [QUOTE]).tool_calls
    assert only == ToolCall("c1", "quote", arguments)


def test_content_parts_are_joined_and_null_content_is_none(server):
    server.then(
        Answer(body=completion([{"type": "text", "text": "Hel"}, {"type": "image_url", "image_url": {"url": "x"}},
                                {"type": "text", "text": "lo"}])),
        Answer(body=completion(None)),
        Answer(body=completion([{"type": "image_url", "image_url": {"url": "x"}}])),
        Answer(body=completion(None, refusal="I cannot help with that.")),
    )
    model = chat(server)
    assert [model.complete(USER, []).text for _ in range(4)] == ["Hello", None, None, "I cannot help with that."]


def test_calls_without_an_id_get_stable_distinct_generated_ids(server):
    body = completion(None, [call(None, "quote", '{"symbol": "A"}'), call("", "quote", '{"symbol": "B"}'),
                             call("dup", "quote", "{}"), call("dup", "quote", "{}")])
    server.then(*[Answer(body=body)] * 3)
    model = chat(server)
    first = [c.id for c in model.complete(USER, [QUOTE]).tool_calls]
    again = [c.id for c in model.complete(USER, [QUOTE]).tool_calls]
    other = [c.id for c in model.complete([*USER, {"role": "user", "content": "and?"}], [QUOTE]).tool_calls]
    assert first == again
    assert len(set(first)) == 4 and first[2] == "dup"
    assert all(i.startswith("call_") for i in first[:2] + first[3:])
    assert other[0] != first[0]  # another conversation: another id


def test_a_reply_goes_back_in_the_wire_format(server):
    server.then(Answer(body=completion("Checking.", [call("c1", "quote", '{"symbol":"ACME"}')])))
    model = chat(server)
    reply = model.complete(USER, [QUOTE])
    model.complete([*USER, reply.to_message(), tool_message("c1", "101.5")], [QUOTE])
    assert server.requests[1].json["messages"][2:] == [
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "quote", "arguments": '{"symbol": "ACME"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "101.5"},
    ]


@pytest.mark.parametrize("body", [
    b"not json{",
    b"\xff\xfe",
    b"[1, 2]",
    b"{}",
    b'{"choices": []}',
    b'{"choices": [{"index": 0}]}',
    b'{"choices": [{"message": "hello"}]}',
    b'{"choices": [{"message": {"content": 5}}]}',
    b'{"choices": [{"message": {"content": "x", "tool_calls": {"id": 1}}}]}',
    b'{"choices": [{"message": {"content": null, "tool_calls": [{"id": "c1"}]}}]}',
    b"[" * 100_000 + b"]" * 100_000,
])
def test_a_reply_that_is_not_a_completion_is_a_typed_error_without_retry(server, body):
    server.then(Answer(body=body))
    with pytest.raises(ModelResponseError):
        chat(server, max_retries=3).complete(USER, [])
    assert len(server.requests) == 1


def test_an_error_object_with_status_200_shows_the_server_message(server):
    server.then(Answer(body={"error": {"message": "model overloaded", "code": 503}}))
    with pytest.raises(ModelResponseError, match="model overloaded"):
        chat(server).complete(USER, [])


def test_a_reply_longer_than_max_response_bytes_is_refused(server):
    server.then(Answer(body=completion("x" * 5000)))
    with pytest.raises(ModelResponseError, match="max_response_bytes=1000"):
        chat(server, max_response_bytes=1000).complete(USER, [])


# -- retries and errors --------------------------------------------------------------------------


def test_429_then_200_retries_once_and_honours_retry_after_capped(server):
    seen, on_retry = record_retries()
    server.then(Answer(429, {"error": {"message": "slow down"}}, {"Retry-After": "30"}))
    reply = chat(server, backoff_cap=0.02, on_retry=on_retry).complete(USER, [])
    assert reply.text == "hello"
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body
    assert [(attempt, type(error), error.status, delay) for attempt, error, delay in seen] == [
        (1, ModelHTTPError, 429, 0.02)]


@pytest.mark.parametrize(("headers", "delay"), [
    ({"Retry-After": "0"}, 0.0),
    ({"retry-after-ms": "5"}, 0.005),
    ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # a date long past
])
def test_retry_after_below_the_cap_is_waited_exactly(server, headers, delay):
    seen, on_retry = record_retries()
    server.then(Answer(503, "busy", headers))
    chat(server, backoff_cap=5.0, on_retry=on_retry).complete(USER, [])
    assert [d for _, _, d in seen] == [delay]
    assert len(server.requests) == 2


def test_500_on_every_attempt_gives_up_after_max_retries_plus_one(server):
    seen, on_retry = record_retries()
    server.default = Answer(500, {"error": {"message": "boom"}})
    with pytest.raises(ModelHTTPError) as caught:
        chat(server, max_retries=2, backoff_base=0.004, backoff_cap=0.005, on_retry=on_retry).complete(USER, [])
    assert (caught.value.status, caught.value.message, caught.value.attempts) == (500, "boom", 3)
    assert len(server.requests) == 3
    assert [attempt for attempt, _, _ in seen] == [1, 2]
    first, second = (delay for _, _, delay in seen)
    assert 0.002 <= first <= 0.004 and 0.0025 <= second <= 0.005  # jittered in [b/2, b], capped


def test_no_retries_at_all(server):
    server.default = Answer(502, "bad gateway", {"Content-Type": "text/plain"})
    with pytest.raises(ModelHTTPError, match="bad gateway"):
        chat(server, max_retries=0).complete(USER, [])
    assert len(server.requests) == 1


@pytest.mark.parametrize(("status", "body", "message"), [
    (400, {"error": {"message": "messages: too short", "type": "invalid_request_error"}}, "messages: too short"),
    (401, {"error": {"message": "Incorrect API key provided: sk-test."}}, "Incorrect API key provided: ***."),
    (404, {"object": "error", "message": "The model `m` does not exist.", "code": 404},  # vLLM
     "The model `m` does not exist."),
    (404, {"error": "model 'm' not found"}, "model 'm' not found"),  # Ollama
    (422, {"detail": [{"msg": "field required"}]}, '[{"msg": "field required"}]'),  # FastAPI
    (400, "plain text trouble", "plain text trouble"),
    (307, "", "redirected to 'https://elsewhere/v1': check base_url"),
])
def test_other_statuses_are_not_retried_and_carry_the_server_message(server, status, body, message):
    server.then(Answer(status, body, {"Location": "https://elsewhere/v1"} if status == 307 else {}))
    model = chat(server, api_key="sk-test", max_retries=3)
    with pytest.raises(ModelHTTPError) as caught:
        model.complete(USER, [])
    assert (caught.value.status, caught.value.message, caught.value.attempts) == (status, message, 1)
    assert "sk-test" not in str(caught.value)
    assert len(server.requests) == 1


def test_a_server_that_never_answers_times_out_without_retry(server):
    server.default = Answer(action="hang")
    with pytest.raises(ModelTimeoutError) as caught:
        chat(server, timeout=0.2, max_retries=2).complete(USER, [])
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, ModelError)
    assert len(server.requests) == 1


def test_a_server_that_trickles_bytes_still_times_out(server):
    # Each header line comes within the socket timeout; only a deadline on the whole attempt
    # stops this (without one the call would end with "too late" after 3 s).
    server.default = Answer(action="trickle")
    with pytest.raises(ModelTimeoutError):
        chat(server, timeout=0.3, max_retries=0).complete(USER, [])
    assert len(server.requests) == 1


def test_connection_refused_is_retried_then_a_typed_error(closed_port):
    seen, on_retry = record_retries()
    model = OpenAIChat(f"http://127.0.0.1:{closed_port}/v1", "m", api_key="sk-test", max_retries=2,
                       on_retry=on_retry, **FAST)
    with pytest.raises(ModelConnectionError, match=r"\(3 attempts\)") as caught:
        model.complete(USER, [])
    assert isinstance(caught.value, ConnectionError)
    assert "sk-test" not in str(caught.value)
    assert [attempt for attempt, _, _ in seen] == [1, 2]
    assert all(isinstance(error, ModelConnectionError) for _, error, _ in seen)


def test_a_dropped_connection_is_retried(server):
    server.then(Answer(action="drop"))
    assert chat(server).complete(USER, []).text == "hello"
    assert len(server.requests) == 2


def test_a_connection_dropped_every_time_gives_up(server):
    server.default = Answer(action="drop")
    with pytest.raises(ModelConnectionError):
        chat(server, max_retries=1).complete(USER, [])
    assert len(server.requests) == 2


def test_a_reply_cut_short_is_retried_as_a_dropped_connection(server):
    # the body stops short of its Content-Length, then a clean close: this was "not JSON"
    server.then(Answer(body=completion("cut"), action="short"))
    assert chat(server).complete(USER, []).text == "hello"
    assert len(server.requests) == 2


def test_a_reply_cut_short_every_time_gives_up_as_a_connection_error(server):
    server.default = Answer(body=completion("cut"), action="short")
    seen, on_retry = record_retries()
    with pytest.raises(ModelConnectionError, match=r"IncompleteRead.*\(2 attempts\)"):
        chat(server, max_retries=1, on_retry=on_retry).complete(USER, [])
    assert len(server.requests) == 2 and [attempt for attempt, _, _ in seen] == [1]


def test_model_http_error_pickles_with_its_fields():
    error = pickle.loads(pickle.dumps(ModelHTTPError(503, "busy", 4)))
    assert (type(error), error.status, error.message, error.attempts, str(error)) == (
        ModelHTTPError, 503, "busy", 4, "the model server answered HTTP 503 (after 4 attempts): busy")


def test_the_model_is_safe_to_share_between_threads(server):
    model = chat(server)
    replies: list[Reply] = []

    def ask() -> None:
        replies.append(model.complete(USER, []))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(replies), len(server.requests)) == (8, 8)
    assert set(replies) == {Reply("hello", (), "stop")}


# -- async -----------------------------------------------------------------------------------------


def test_acomplete_speaks_the_same_wire(server):
    server.then(Answer(429, "wait", {"retry-after-ms": "1"}),
                Answer(body=completion(None, [call("c1", "quote", '{"symbol": "ACME"}')])))
    model = chat(server, api_key="sk-async", seed=3)

    async def run() -> tuple[Reply, Reply]:
        return await model.acomplete(USER, [QUOTE]), await acomplete(model, USER, [])

    first, second = asyncio.run(run())
    assert first.tool_calls == (ToolCall("c1", "quote", {"symbol": "ACME"}),)
    assert second == Reply("hello", (), "stop")
    assert len(server.requests) == 3
    assert server.requests[1].json == {"model": "m", "messages": USER, "tools": [QUOTE], "seed": 3}
    assert server.requests[2].json == {"model": "m", "messages": USER, "seed": 3}
    assert {r.headers["authorization"] for r in server.requests} == {"Bearer sk-async"}


def test_acomplete_errors_are_the_same_typed_errors(server, closed_port):
    server.then(Answer(action="hang"))
    with pytest.raises(ModelTimeoutError):
        asyncio.run(chat(server, timeout=0.2).acomplete(USER, []))
    server.default = Answer(500, "boom")
    with pytest.raises(ModelHTTPError) as caught:
        asyncio.run(chat(server, max_retries=1).acomplete(USER, []))
    assert caught.value.attempts == 2
    assert len(server.requests) == 3
    with pytest.raises(ModelConnectionError):
        asyncio.run(OpenAIChat(f"http://127.0.0.1:{closed_port}", "m", max_retries=0).acomplete(USER, []))


def test_complete_helper_accepts_openai_chat(server):
    assert complete(chat(server), USER, []).text == "hello"


# -- construction ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "options", "error"), [
    (("ftp://host/v1", "m"), {}, InvalidInputError),
    (("localhost:8000", "m"), {}, InvalidInputError),
    (("http://", "m"), {}, InvalidInputError),
    (("http://host:99999/v1", "m"), {}, InvalidInputError),
    (("http://host/v1#x", "m"), {}, InvalidInputError),
    (("http://ho st/v1", "m"), {}, InvalidInputError),
    ((b"http://host/v1", "m"), {}, InvalidTypeError),
    (("http://host/v1", ""), {}, InvalidInputError),
    (("http://host/v1", "  "), {}, InvalidInputError),
    (("http://host/v1", None), {}, InvalidTypeError),
    (("http://host/v1", "m", 5), {}, InvalidTypeError),
    (("http://host/v1", "m"), {"timeout": 0}, InvalidInputError),
    (("http://host/v1", "m"), {"timeout": -1.0}, InvalidInputError),
    (("http://host/v1", "m"), {"timeout": float("inf")}, InvalidInputError),
    (("http://host/v1", "m"), {"timeout": "5"}, InvalidTypeError),
    (("http://host/v1", "m"), {"timeout": True}, InvalidTypeError),
    (("http://host/v1", "m"), {"max_retries": -1}, InvalidInputError),
    (("http://host/v1", "m"), {"max_retries": 1.0}, InvalidTypeError),
    (("http://host/v1", "m"), {"max_retries": True}, InvalidTypeError),
    (("http://host/v1", "m"), {"backoff_base": -0.1}, InvalidInputError),
    (("http://host/v1", "m"), {"backoff_cap": float("nan")}, InvalidInputError),
    (("http://host/v1", "m"), {"max_response_bytes": 0}, InvalidInputError),
    (("http://host/v1", "m"), {"on_retry": 5}, InvalidTypeError),
    (("http://host/v1", "m"), {"headers": {"Host": "x"}}, InvalidInputError),
    (("http://host/v1", "m"), {"headers": {"bad name": "x"}}, InvalidInputError),
    (("http://host/v1", "m"), {"headers": {"X-A": "a\r\nX-B: b"}}, InvalidInputError),
    (("http://host/v1", "m"), {"headers": [("X-A", "a")]}, InvalidTypeError),
    (("http://host/v1", "m"), {"n": 2}, InvalidInputError),
    (("http://host/v1", "m"), {"n": 1}, InvalidInputError),
    (("http://host/v1", "m"), {"stream": True}, InvalidInputError),
    (("http://host/v1", "m"), {"messages": []}, InvalidInputError),
    (("http://host/v1", "m"), {"temperature": float("nan")}, InvalidInputError),
    (("http://host/v1", "m"), {"stop": {"a", "b"}}, InvalidTypeError),
])
def test_bad_construction_is_a_typed_error(args, options, error):
    with pytest.raises(error) as caught:
        OpenAIChat(*args, **options)
    assert isinstance(caught.value, CorollaryError)


def test_n_is_refused_with_a_clear_message():
    with pytest.raises(InvalidInputError, match="one completion per request"):
        OpenAIChat("http://localhost:8000/v1", "m", n=4)


@pytest.mark.parametrize("options", [{"api_key": "sk-\u2615"}, {"headers": {"X-Note": "\u2615"}}])
def test_header_values_http_cannot_carry_are_refused_up_front(server, options):
    with pytest.raises(InvalidInputError):
        chat(server, **options).complete(USER, [])
    assert server.requests == []


def test_secrets_stay_out_of_repr_and_errors():
    with pytest.raises(InvalidInputError) as caught:
        OpenAIChat("http://localhost/v1", "m", api_key="sk-secret\nX-Injected: 1")
    assert "sk-secret" not in str(caught.value)
    with pytest.raises(InvalidInputError) as caught:
        OpenAIChat("http://user:hunter2@localhost/v1", "m")
    assert "hunter2" not in str(caught.value)
    model = OpenAIChat("http://localhost:8000/v1/", "m", "sk-secret", temperature=0)
    assert "sk-secret" not in repr(model) and "api_key='***'" in repr(model)
    assert repr(OpenAIChat("http://localhost:8000/v1", "m", "")).count("api_key=None") == 1
    assert (model.base_url, model.url) == ("http://localhost:8000/v1", "http://localhost:8000/v1/chat/completions")


KEY = "sk-proj-0123456789abcdefghij"


@pytest.mark.parametrize("answer", [
    # a tool call naming no function, which echoes the request (key included)
    Answer(body=completion(None, [{"type": "function", "id": "c1", "echo": f"Bearer {KEY}",
                                   "function": {"arguments": "{}"}}])),
    # a redirect whose Location echoes it
    Answer(status=302, headers={"Location": f"https://login.example/?key={KEY}"}),
    Answer(status=307, headers={"Location": f"https://login.example/?k={'x' * 480}{KEY}"}),
    # a server message (or body) cut at 500 characters with the key's first 14 across the cut
    Answer(status=401, body={"error": {"message": "x" * 486 + KEY}}),
    Answer(status=400, body={"error": {"message": {"detail": "y" * 452 + KEY}}}),
    Answer(status=200, body={"error": {"message": "z" * 486 + KEY}}),
    Answer(status=200, body="not json " + "w" * 477 + KEY),
    Answer(status=200, body=["a" * 484 + KEY]),
    Answer(status=200, body={"choices": [], "echo": "b" * 461 + KEY}),
])
def test_the_key_is_masked_in_every_error_before_it_is_cut(server, answer):
    server.then(answer)
    model = chat(server, api_key=KEY, max_retries=0)
    with pytest.raises(ModelError) as caught:
        model.complete(USER, [])
    text = str(caught.value)
    # not the key, nor any 6 characters of it past its common "sk-proj-" prefix
    assert not any(KEY[i:i + 6] in text for i in range(8, len(KEY) - 5)), text


def test_a_token_in_the_base_url_query_stays_out_of_errors(closed_port):
    model = OpenAIChat(f"http://127.0.0.1:{closed_port}/v1?token=tok-secret", "m", max_retries=0)
    with pytest.raises(ModelConnectionError) as caught:
        model.complete(USER, [])
    assert "tok-secret" not in str(caught.value)
    assert f"http://127.0.0.1:{closed_port}/v1/chat/completions" in str(caught.value)


def test_settings_are_copied_at_construction(server):
    stop = ["END"]
    model = chat(server, stop=stop)
    stop.append("MORE")
    model.settings["stop"].append("EVEN MORE")
    model.complete(USER, [])
    assert server.requests[0].json["stop"] == ["END"]


# -- fuzz: no arguments text crashes the parse -----------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.one_of(st.text(max_size=40), st.from_regex(r'\{"[a-z]{1,3}": ?[0-9a-z\[\]{}",.:-]{0,12}\}?')))
def test_any_arguments_text_gives_a_tool_call(server, raw):
    server.requests.clear()
    server.then(Answer(body=completion(None, [call("c1", "f", raw)])))
    (only,) = chat(server).complete(USER, []).tool_calls
    if only.arguments_error is None:
        assert only.arguments == (json.loads(raw) if raw.strip() else {})
    else:
        assert (only.arguments, only.raw_arguments) == ({}, raw)
    assert json.loads(only.to_wire()["function"]["arguments"]) == only.arguments

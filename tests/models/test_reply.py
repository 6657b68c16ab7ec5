"""Reply and ToolCall: frozen validated values, and the messages they become."""

from __future__ import annotations

import json

import attrs
import pytest

from corollary.foundations.errors import CorollaryError, InvalidInputError, InvalidTypeError
from corollary.models import Reply, ToolCall, assistant_message, tool_message


def test_tool_call_copies_its_arguments_and_is_frozen():
    arguments = {"symbol": "ACME", "depth": [1, 2]}
    call = ToolCall("c1", "quote", arguments)
    arguments["depth"].append(3)
    arguments["extra"] = True
    assert call.arguments == {"symbol": "ACME", "depth": [1, 2]}
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        call.name = "other"  # type: ignore[misc]
    assert not hasattr(call, "__dict__")  # slotted


def test_equal_calls_hash_equal_though_arguments_are_a_dict():
    a = ToolCall("c1", "quote", {"a": 1, "b": [1, {"c": None}]})
    b = ToolCall("c1", "quote", {"b": [1, {"c": None}], "a": 1})
    assert a == b and hash(a) == hash(b)
    assert len({a, b, ToolCall("c2", "quote", {"a": 1})}) == 2
    assert hash(Reply("x", [a])) == hash(Reply("x", (b,)))


def test_a_call_with_unreadable_arguments_keeps_the_error_and_the_raw_text():
    call = ToolCall("c1", "quote", arguments_error="not JSON", raw_arguments='{"sym')
    assert (call.arguments, call.arguments_error, call.raw_arguments) == ({}, "not JSON", '{"sym')
    assert call.to_wire() == {"id": "c1", "type": "function", "function": {"name": "quote", "arguments": "{}"}}


@pytest.mark.parametrize(("args", "kwargs", "error"), [
    (("", "quote"), {}, InvalidInputError),
    (("c1", ""), {}, InvalidInputError),
    ((1, "quote"), {}, InvalidTypeError),
    (("c1", None), {}, InvalidTypeError),
    (("c1", "quote", [1]), {}, InvalidTypeError),
    (("c1", "quote", {1: "a"}), {}, InvalidTypeError),
    (("c1", "quote", {"a": {1, 2}}), {}, InvalidTypeError),
    (("c1", "quote", {"a": float("nan")}), {}, InvalidInputError),
    (("c1", "quote", {"a": 1}), {"arguments_error": "bad"}, InvalidInputError),
    (("c1", "quote"), {"arguments_error": ""}, InvalidInputError),
    (("c1", "quote"), {"arguments_error": 5}, InvalidTypeError),
    (("c1", "quote"), {"raw_arguments": b"{}"}, InvalidTypeError),
])
def test_bad_tool_calls_are_typed_errors(args, kwargs, error):
    with pytest.raises(error) as caught:
        ToolCall(*args, **kwargs)
    assert isinstance(caught.value, CorollaryError)


def test_arguments_nested_too_deep_are_a_typed_error():
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(InvalidInputError):
        ToolCall("c1", "f", deep)
    circular: dict = {}
    circular["self"] = circular
    with pytest.raises(InvalidInputError):
        ToolCall("c1", "f", circular)


@pytest.mark.parametrize(("args", "error"), [
    ((5,), InvalidTypeError),
    ((None, "not calls"), InvalidTypeError),
    ((None, [{"id": "c1"}]), InvalidTypeError),
    ((None, {"c1": ToolCall("c1", "f")}), InvalidTypeError),
    ((None, [ToolCall("c1", "f"), ToolCall("c1", "g")]), InvalidInputError),
    ((None, (), 3), InvalidTypeError),
])
def test_bad_replies_are_typed_errors(args, error):
    with pytest.raises(error):
        Reply(*args)


def test_assistant_message_in_the_wire_format():
    calls = [ToolCall("c1", "quote", {"symbol": "ACME"}), ToolCall("c2", "now")]
    assert Reply("Looking.", calls).to_message() == {
        "role": "assistant",
        "content": "Looking.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "quote", "arguments": '{"symbol": "ACME"}'}},
            {"id": "c2", "type": "function", "function": {"name": "now", "arguments": "{}"}},
        ],
    }
    assert assistant_message(Reply(None, calls))["content"] is None
    assert assistant_message(Reply("done")) == {"role": "assistant", "content": "done"}
    assert assistant_message(Reply()) == {"role": "assistant", "content": ""}
    unicode = ToolCall("c1", "say", {"text": "café ☕"}).to_wire()["function"]["arguments"]
    assert json.loads(unicode) == {"text": "café ☕"}
    with pytest.raises(InvalidTypeError):
        assistant_message({"role": "assistant"})  # type: ignore[arg-type]


def test_tool_message():
    assert tool_message("c1", "ok") == {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    with pytest.raises(InvalidInputError):
        tool_message("", "ok")
    with pytest.raises(InvalidTypeError):
        tool_message("c1", {"price": 1})  # type: ignore[arg-type]

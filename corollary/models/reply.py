"""What a model answers: :class:`Reply` (text and :class:`ToolCall`\\ s), and the messages an
agent appends to the conversation (:func:`assistant_message`, :func:`tool_message`).

Messages follow the OpenAI chat format (``role``, ``content``, ``tool_calls``,
``tool_call_id``), which every OpenAI-compatible server (vLLM, Ollama, llama.cpp) speaks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import attrs

from ..foundations.errors import InvalidInputError, InvalidTypeError


def strict_json(value: Any, what: str, *, ascii_only: bool = False) -> str:
    """``value`` as strict JSON text (no NaN or infinity, which servers refuse), or a typed error.

    ``ascii_only`` escapes every non-ASCII character: text that is not valid Unicode (a lone
    surrogate) then still encodes.

    >>> strict_json({"n": [1, 2]}, "settings")
    '{"n": [1, 2]}'
    >>> strict_json(float("nan"), "settings")
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: settings must be JSON-serialisable: Out of range float values are not JSON compliant
    """
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=ascii_only)
    except TypeError as exc:
        raise InvalidTypeError(f"{what} must be JSON-serialisable: {exc}") from None
    except ValueError as exc:  # NaN / infinity, or a circular reference
        raise InvalidInputError(f"{what} must be JSON-serialisable: {exc}") from None
    except RecursionError:
        raise InvalidInputError(f"{what}: nested too deeply to serialise") from None


def _non_empty_str(what: str) -> Any:
    def check(_instance: Any, _attribute: Any, value: Any) -> None:
        if not isinstance(value, str):
            raise InvalidTypeError(f"{what} must be a str, not {type(value).__name__}")
        if not value:
            raise InvalidInputError(f"{what} must not be empty")

    return check


def _optional_str(what: str) -> Any:
    def check(_instance: Any, _attribute: Any, value: Any) -> None:
        if value is not None and not isinstance(value, str):
            raise InvalidTypeError(f"{what} must be a str or None, not {type(value).__name__}")

    return check


def _arguments(value: Any) -> dict[str, Any]:
    # A JSON round trip both checks the arguments can go back over the wire and copies them,
    # so the caller's later changes to its dict never reach a frozen ToolCall.
    if not isinstance(value, dict):
        raise InvalidTypeError(f"a tool call's arguments must be a dict, not {type(value).__name__}")
    if not all(isinstance(key, str) for key in value):
        raise InvalidTypeError("a tool call's argument names must be str")
    copied: dict[str, Any] = json.loads(strict_json(value, "a tool call's arguments"))
    return copied


@attrs.frozen(slots=True, unsafe_hash=False)
class ToolCall:
    """One function call a model asked for.

    Parameters
    ----------
    id : str
        The call's id; the tool's answer refers to it (:func:`tool_message`).
    name : str
        The function's name.
    arguments : dict, default {}
        The arguments by name: strict JSON values (copied on construction).
    arguments_error : str or None, default None
        Set when the model's arguments could not be read (not JSON, or JSON that is not an
        object): then ``arguments`` is ``{}``, and the agent should not run the tool but send
        this error back to the model in a :func:`tool_message`, so the model can try again.
    raw_arguments : str or None, default None
        The arguments' text exactly as the model wrote it, kept when ``arguments_error`` is set.

    Examples
    --------
    >>> call = ToolCall("call_1", "quote", {"symbol": "ACME"})
    >>> call.arguments["symbol"], call.arguments_error is None
    ('ACME', True)
    >>> broken = ToolCall("call_2", "quote", arguments_error="not JSON", raw_arguments="{sym")
    >>> broken.arguments, broken.raw_arguments
    ({}, '{sym')
    """

    id: str = attrs.field(validator=_non_empty_str("a tool call's id"))
    name: str = attrs.field(validator=_non_empty_str("a tool call's name"))
    arguments: dict[str, Any] = attrs.field(factory=dict, converter=_arguments)
    arguments_error: str | None = attrs.field(default=None, validator=_optional_str("arguments_error"))
    raw_arguments: str | None = attrs.field(default=None, validator=_optional_str("raw_arguments"))

    def __attrs_post_init__(self) -> None:
        if self.arguments_error is not None:
            if not self.arguments_error:
                raise InvalidInputError("arguments_error, when set, must say what went wrong")
            if self.arguments:
                raise InvalidInputError("a tool call with an arguments_error has no arguments")

    def __hash__(self) -> int:
        # The arguments are a dict (what tools are called with), so hash their canonical JSON.
        canonical = json.dumps(self.arguments, sort_keys=True)
        return hash((self.id, self.name, canonical, self.arguments_error, self.raw_arguments))

    def to_wire(self) -> dict[str, Any]:
        """The call in the OpenAI wire format, its arguments serialised as a JSON string.

        A call whose arguments could not be read is written with ``"{}"``: some servers (vLLM)
        parse the arguments of earlier calls and refuse a conversation holding invalid JSON.

        Examples
        --------
        >>> ToolCall("call_1", "quote", {"symbol": "ACME"}).to_wire()["function"]
        {'name': 'quote', 'arguments': '{"symbol": "ACME"}'}
        """
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": strict_json(self.arguments, "arguments")},
        }


def _tool_calls(value: Any) -> tuple[ToolCall, ...]:
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise InvalidTypeError(f"tool_calls must be a sequence of ToolCall, not {type(value).__name__}")
    calls = tuple(value)
    for call in calls:
        if not isinstance(call, ToolCall):
            raise InvalidTypeError(f"tool_calls must hold ToolCall objects, not {type(call).__name__}")
    ids = [call.id for call in calls]
    if len(set(ids)) != len(ids):
        # The tool messages answer calls by id: two calls with one id could not be told apart.
        raise InvalidInputError(f"the tool calls of one reply need distinct ids, got {ids}")
    return calls


@attrs.frozen(slots=True)
class Reply:
    """A model's answer: text, tool calls, or both.

    Parameters
    ----------
    text : str or None, default None
        What the model said (``None`` when it only called tools).
    tool_calls : sequence of ToolCall, default ()
        The calls it asked for, in order, with distinct ids.
    finish_reason : str or None, default None
        Why the model stopped, as the server said (``"stop"``, ``"tool_calls"``, ``"length"``
        when it ran out of tokens, ...); ``None`` when unknown.

    Examples
    --------
    >>> reply = Reply("Let me look.", [ToolCall("c1", "quote", {"symbol": "ACME"})])
    >>> reply.text, [call.name for call in reply.tool_calls]
    ('Let me look.', ['quote'])
    >>> Reply("done").to_message()
    {'role': 'assistant', 'content': 'done'}
    """

    text: str | None = attrs.field(default=None, validator=_optional_str("a reply's text"))
    tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), converter=_tool_calls)
    finish_reason: str | None = attrs.field(default=None, validator=_optional_str("finish_reason"))

    def to_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation (see :func:`assistant_message`)."""
        return assistant_message(self)


def assistant_message(reply: Reply) -> dict[str, Any]:
    """The assistant message for ``reply``, in the OpenAI chat format.

    Tool calls go in ``tool_calls`` with their arguments as JSON strings (:meth:`ToolCall.to_wire`);
    ``content`` is ``None`` for a reply that only calls tools, and ``""`` for an empty reply (the
    format requires content when there are no tool calls).

    Parameters
    ----------
    reply : Reply

    Returns
    -------
    dict
        ``{"role": "assistant", "content": ..., "tool_calls": [...]}`` (no ``tool_calls`` key
        when there are none: some servers refuse an empty list).

    Examples
    --------
    >>> reply = Reply(None, [ToolCall("c1", "quote", {"symbol": "ACME"})])
    >>> message = assistant_message(reply)
    >>> message["content"], message["tool_calls"][0]["function"]["arguments"]
    (None, '{"symbol": "ACME"}')
    """
    if not isinstance(reply, Reply):
        raise InvalidTypeError(f"assistant_message needs a Reply, not {type(reply).__name__}")
    if not reply.tool_calls:
        return {"role": "assistant", "content": "" if reply.text is None else reply.text}
    return {
        "role": "assistant",
        "content": reply.text,
        "tool_calls": [call.to_wire() for call in reply.tool_calls],
    }


def tool_message(call_id: str, content: str) -> dict[str, Any]:
    """The message that gives a tool's result (or error) back to the model.

    Parameters
    ----------
    call_id : str
        The :attr:`ToolCall.id` this answers.
    content : str
        The result, as text (serialise structured results, e.g. with ``json.dumps``).

    Examples
    --------
    >>> tool_message("c1", "101.5")
    {'role': 'tool', 'tool_call_id': 'c1', 'content': '101.5'}
    """
    _non_empty_str("call_id")(None, None, call_id)
    if not isinstance(content, str):
        raise InvalidTypeError(f"a tool message's content must be a str, not {type(content).__name__}")
    return {"role": "tool", "tool_call_id": call_id, "content": content}

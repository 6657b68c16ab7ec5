"""What a model is: any object with ``complete(messages, tools) -> Reply``.

``messages`` is the conversation in the OpenAI chat format (a list of dicts with ``role``,
``content``, and ``tool_calls`` / ``tool_call_id`` where they apply); ``tools`` is a list of
OpenAI function schemas (see :func:`corollary.models.tool_schema`). A model may also have an
async ``acomplete`` with the same signature; :func:`acomplete` runs ``complete`` in a worker
thread for a model that has none.

A model whose ``complete`` also takes ``options=`` is sent each request's own
:class:`~corollary.foundations.model_request.RequestOptions` (a ``tool_choice``, a schema for
the reply), merged over its settings; a model without that parameter gets the request without
them (docs/models.md, "Per-request options").
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Protocol, runtime_checkable

from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.model_request import RequestOptions, accepts_options, request_options
from .reply import Reply, strict_json

Messages = list[dict[str, Any]]
Tools = list[dict[str, Any]]


@runtime_checkable
class Model(Protocol):
    """A chat model: ``complete(messages, tools) -> Reply``.

    Examples
    --------
    >>> from corollary.models import ScriptedModel
    >>> isinstance(ScriptedModel(["hi"]), Model)
    True
    """

    def complete(self, messages: Messages, tools: Tools) -> Reply:
        """One reply to ``messages``, which may call ``tools``."""
        ...  # pragma: no cover - a protocol


@runtime_checkable
class AsyncModel(Protocol):
    """A chat model with an async ``acomplete(messages, tools) -> Reply``.

    Examples
    --------
    >>> from corollary.models import ScriptedModel
    >>> isinstance(ScriptedModel(["hi"]), AsyncModel)
    True
    """

    async def acomplete(self, messages: Messages, tools: Tools) -> Reply:
        """One reply to ``messages``, which may call ``tools``."""
        ...  # pragma: no cover - a protocol


def check_request(messages: Any, tools: Any) -> None:
    """Refuse a request no chat server would accept, with a typed error.

    ``messages`` must be a non-empty list of dicts, each with a str ``role``; ``tools`` a list
    of dicts; both must be strict JSON (what goes over the wire).

    Examples
    --------
    >>> check_request([{"role": "user", "content": "hi"}], [])
    >>> check_request([{"content": "hi"}], [])
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: message 0 has no str 'role'
    """
    if not isinstance(messages, list):
        raise InvalidTypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
    if not messages:
        raise InvalidInputError("messages must not be empty")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidTypeError(f"message {index} must be a dict, not {type(message).__name__}")
        if not isinstance(message.get("role"), str):
            raise InvalidInputError(f"message {index} has no str 'role'")
    if not isinstance(tools, list):
        raise InvalidTypeError(f"tools must be a list of dicts, not {type(tools).__name__}")
    for index, schema in enumerate(tools):
        if not isinstance(schema, dict):
            raise InvalidTypeError(f"tool {index} must be a dict, not {type(schema).__name__}")
    strict_json(messages, "messages")
    strict_json(tools, "tools")


def as_reply(value: Any, source: object) -> Reply:
    """``value`` as a :class:`Reply`: a Reply as is, a str as a text reply; else a typed error.

    Examples
    --------
    >>> as_reply("hi", "my model")
    Reply(text='hi', tool_calls=(), finish_reason=None)
    """
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(value)
    raise InvalidTypeError(f"{source!r} returned {type(value).__name__}, not a Reply or a str")


def _method(model: Any, name: str) -> Any:
    method = getattr(model, name, None)
    return method if callable(method) else None


def _call_args(method: Any, options: RequestOptions) -> dict[str, Any]:
    """``{"options": options}`` when there are options and ``method`` takes them, else ``{}``."""
    return {"options": options} if not options.empty and accepts_options(method) else {}


def complete(model: Model, messages: Messages, tools: Tools, options: Any = None) -> Reply:
    """Ask ``model`` for one reply, checking the request and the reply.

    Parameters
    ----------
    model : Model
        Any object with ``complete(messages, tools)``.
    messages : list of dict
        The conversation, in the OpenAI chat format.
    tools : list of dict
        OpenAI function schemas the model may call (``[]`` for none).
    options : RequestOptions or dict, optional
        This request's own options, passed as ``options=`` to a model whose ``complete``
        takes it (:func:`~corollary.foundations.model_request.accepts_options`).

    Returns
    -------
    Reply
        A str returned by the model is read as a text reply.

    Raises
    ------
    InvalidTypeError, InvalidInputError
        A malformed request, a model without ``complete``, or a reply that is not one.
    ModelError
        Whatever the model raises when it cannot answer.

    Examples
    --------
    >>> from corollary.models import ScriptedModel
    >>> complete(ScriptedModel(["Paris."]), [{"role": "user", "content": "Capital of France?"}], [])
    Reply(text='Paris.', tool_calls=(), finish_reason=None)
    """
    method = _method(model, "complete")
    if method is None:
        raise InvalidTypeError(f"{model!r} is not a model: it has no complete(messages, tools)")
    check_request(messages, tools)
    extra = _call_args(method, request_options(options))
    return as_reply(method(messages, tools, **extra), model)


async def acomplete(model: Model | AsyncModel, messages: Messages, tools: Tools,
                    options: Any = None) -> Reply:
    """Ask ``model`` for one reply without blocking the event loop.

    Uses the model's ``acomplete`` when it has one; otherwise runs its ``complete`` in a worker
    thread (:func:`asyncio.to_thread`), so ``complete`` must then be safe to call from another
    thread. Arguments, result and errors as :func:`complete`.

    Examples
    --------
    >>> import asyncio
    >>> from corollary.models import ScriptedModel
    >>> messages = [{"role": "user", "content": "Capital of France?"}]
    >>> asyncio.run(acomplete(ScriptedModel(["Paris."]), messages, [])).text
    'Paris.'
    """
    chosen = request_options(options)
    method = _method(model, "acomplete")
    if method is None:
        method = _method(model, "complete")
        if method is None:
            raise InvalidTypeError(f"{model!r} is not a model: it has no complete(messages, tools)")
        check_request(messages, tools)
        extra = _call_args(method, chosen)
        return as_reply(await asyncio.to_thread(method, messages, tools, **extra), model)
    check_request(messages, tools)
    result = method(messages, tools, **_call_args(method, chosen))
    if not inspect.isawaitable(result):
        raise InvalidTypeError(f"{model!r}.acomplete returned {type(result).__name__}, not an awaitable")
    return as_reply(await result, model)

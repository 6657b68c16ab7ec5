"""Models for tests and examples: :class:`ScriptedModel` (replies given in advance) and
:class:`FunctionModel` (a Python function answers)."""

from __future__ import annotations

import asyncio
import copy
import inspect
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ..foundations.errors import InvalidTypeError, ModelError, ScriptExhaustedError
from ..foundations.model_request import RequestOptions, accepts_options, request_options
from .protocol import Messages, Tools, as_reply, check_request
from .reply import Reply


class ScriptedModel:
    """A model that gives the replies it was given, in order, and records every request.

    Parameters
    ----------
    replies : iterable of Reply, str or Exception
        The replies, in order. A str is a text reply; an exception instance is raised at its
        turn (to test how an agent copes with a model that fails).

    Attributes
    ----------
    requests : list of (messages, tools)
        A deep copy of every request as it was sent, in order, including one that found the
        script exhausted: changing the lists afterwards does not change them.
    options : list of RequestOptions
        Each request's own options (``RequestOptions()`` for none), in the same order.

    Raises
    ------
    ScriptExhaustedError
        From :meth:`complete` once every reply has been given.

    Examples
    --------
    >>> from corollary.models import ToolCall
    >>> model = ScriptedModel([Reply(None, [ToolCall("c1", "quote", {"symbol": "ACME"})]),
    ...                        "ACME trades at 101.5."])
    >>> messages = [{"role": "user", "content": "Price of ACME?"}]
    >>> model.complete(messages, []).tool_calls[0].name
    'quote'
    >>> model.complete(messages, []).text
    'ACME trades at 101.5.'
    >>> len(model.requests), model.remaining
    (2, 0)
    >>> model.complete(messages, [])
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.ScriptExhaustedError: ScriptedModel: request 3 found no reply left (the script held 2)
    """

    def __init__(self, replies: Iterable[Reply | str | BaseException]) -> None:
        if isinstance(replies, (str, Reply)) or not isinstance(replies, Iterable):
            raise InvalidTypeError(
                f"ScriptedModel needs a list of replies, not {type(replies).__name__}"
            )
        script: list[Reply | BaseException] = []
        for item in replies:
            if isinstance(item, BaseException):
                script.append(item)
            else:
                script.append(as_reply(item, "a ScriptedModel's script"))
        self._script = script
        self._next = 0
        self._lock = threading.Lock()  # agents may share one model between threads
        self.requests: list[tuple[Messages, Tools]] = []
        self.options: list[RequestOptions] = []

    @property
    def remaining(self) -> int:
        """How many replies are left."""
        return len(self._script) - self._next

    def complete(self, messages: Messages, tools: Tools, options: Any = None) -> Reply:
        """The next reply (see the class); ``options`` is recorded, not obeyed."""
        check_request(messages, tools)
        request = (copy.deepcopy(messages), copy.deepcopy(tools))
        chosen = request_options(options)
        with self._lock:
            self.requests.append(request)
            self.options.append(chosen)
            if self._next >= len(self._script):
                raise ScriptExhaustedError(
                    f"ScriptedModel: request {len(self.requests)} found no reply left "
                    f"(the script held {len(self._script)})"
                )
            item = self._script[self._next]
            self._next += 1
        if isinstance(item, BaseException):
            raise item
        return item

    async def acomplete(self, messages: Messages, tools: Tools, options: Any = None) -> Reply:
        """As :meth:`complete`, for async runs."""
        return self.complete(messages, tools, options)

    def __repr__(self) -> str:
        return f"ScriptedModel({self.remaining} of {len(self._script)} replies left)"


class FunctionModel:
    """A model whose replies come from a function ``fn(messages, tools)``.

    Parameters
    ----------
    fn : callable
        ``fn(messages, tools)`` returns a :class:`Reply` or a str (a text reply); a ``fn`` that
        takes ``options=`` is given each request's own options. Anything else
        is an :class:`~corollary.foundations.errors.InvalidTypeError`. An async ``fn`` is awaited by
        :meth:`acomplete` (and run with :func:`asyncio.run` by :meth:`complete`, outside an
        event loop); a plain ``fn`` runs in a worker thread under :meth:`acomplete`, as for any
        model without ``acomplete``.

    Examples
    --------
    >>> def echo(messages, tools):
    ...     return "You said: " + messages[-1]["content"]
    >>> FunctionModel(echo).complete([{"role": "user", "content": "hi"}], []).text
    'You said: hi'
    """

    def __init__(self, fn: Callable[[Messages, Tools], Any]) -> None:
        if not callable(fn):
            raise InvalidTypeError(f"FunctionModel needs a function, not {type(fn).__name__}")
        self.fn = fn

    @property
    def takes_options(self) -> bool:
        """Whether ``fn`` takes ``options=`` (:func:`~corollary.foundations.model_request.
        accepts_options` asks this of a model: one whose function does not is sent what a
        model without options is, e.g. ``remember``'s tools rather than a reply schema).

        >>> FunctionModel(lambda messages, tools: "").takes_options
        False
        """
        return accepts_options(self.fn)

    def _is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(
            getattr(self.fn, "__call__", None)  # noqa: B004 - an async __call__ on an object
        )

    def _extra(self, options: Any) -> dict[str, Any]:
        chosen = request_options(options)
        return {"options": chosen} if not chosen.empty and accepts_options(self.fn) else {}

    def complete(self, messages: Messages, tools: Tools, options: Any = None) -> Reply:
        """``fn``'s reply (see the class)."""
        check_request(messages, tools)
        result = self.fn(messages, tools, **self._extra(options))
        if inspect.isawaitable(result):
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # no loop in this thread: run the coroutine to its end here
                return as_reply(asyncio.run(_awaited(result)), self)
            if inspect.iscoroutine(result):
                result.close()  # never awaited: close it so Python does not warn
            raise ModelError(
                f"{self!r}: the function is async and an event loop is running: use acomplete"
            )
        return as_reply(result, self)

    async def acomplete(self, messages: Messages, tools: Tools, options: Any = None) -> Reply:
        """``fn``'s reply without blocking the event loop (see the class)."""
        check_request(messages, tools)
        extra = self._extra(options)
        if self._is_async():
            result = self.fn(messages, tools, **extra)
        else:
            result = await asyncio.to_thread(self.fn, messages, tools, **extra)
        if inspect.isawaitable(result):
            result = await result
        return as_reply(result, self)

    def __repr__(self) -> str:
        return f"FunctionModel({getattr(self.fn, '__qualname__', self.fn)!r})"


async def _awaited(awaitable: Any) -> Any:
    return await awaitable

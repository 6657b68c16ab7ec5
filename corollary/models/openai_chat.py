"""A model behind an OpenAI-compatible ``/chat/completions`` endpoint, in the standard library.

Speaks to OpenAI and every server that copies its chat API (vLLM, Ollama, llama.cpp's
``llama-server``, LM Studio, ...). One HTTP connection per request (``http.client``, so the
model can be shared between threads), bounded retries with backoff on 429, 5xx and dropped
connections, a deadline per attempt, and typed errors for everything else.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import http.client
import json
import logging
import math
import os
import random
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from ..foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
)
from ..foundations.model_request import RequestOptions, request_options
from .protocol import Messages, Tools, check_request
from .reply import Reply, ToolCall, strict_json
from .sizes import small_by_name

log = logging.getLogger(__name__)

#: Request body fields that are not settings: what the class sends itself, or cannot read.
_REFUSED_SETTINGS = {
    "n": "one completion per request: OpenAIChat never asks for n completions",
    "stream": "OpenAIChat reads whole replies: streaming is not supported",
    "messages": "messages are the argument of complete(), not a setting",
    "tools": "tools are the argument of complete(), not a setting",
}
#: Settings that only make sense with tools: servers refuse them without (OpenAI does).
_TOOL_SETTINGS = ("tool_choice", "parallel_tool_calls")
#: The servers whose request forms differ (docs/models.md, "Per-request options"): each one's
#: form of a reply schema, and the ``tool_choice`` strings it must never be sent.
DIALECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "openai": ("json_schema", ()),
    "vllm": ("json_schema", ()),
    "ollama": ("json_schema", ()),
    "llama.cpp": ("json_object", ()),
    # its chatml-function-calling format generates without end under "auto": no reply in 300 s,
    # every later request blocked (issue 39)
    "llama-cpp-python": ("json_object", ("auto",)),
}
#: The dialects whose server offers the tools only when ``tool_choice`` names one (tried for
#: real: llama-cpp-python 0.3.36, docs/models.md).
TOOLS_ONLY_WHEN_NAMED = frozenset({"llama-cpp-python"})
#: Headers the connection itself must set.
_MANAGED_HEADERS = {"host", "content-length", "transfer-encoding"}
_CHUNK = 1 << 16
_EXCERPT = 500


class _Retry(Exception):
    """An attempt failed in a way worth another try: a 429/5xx (``status``) or the connection."""

    def __init__(self, status: int | None, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after

    def error(self, attempts: int) -> ModelError:
        """The error to raise if no attempt is left."""
        if self.status is not None:
            return ModelHTTPError(self.status, self.message, attempts)
        return ModelConnectionError(f"{self.message} ({attempts} attempt{'s' * (attempts > 1)})")


class _Deadline:
    """Shuts a connection's socket down when an attempt's time is up.

    A socket timeout bounds each read, not the whole reply: a server that trickles a byte at a
    time would never time out. This timer bounds the attempt as a whole.
    """

    def __init__(self) -> None:
        self.fired = False
        self._done = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def arm(self, sock: socket.socket, seconds: float) -> None:
        self._timer = threading.Timer(max(seconds, 0.0), self._fire, (sock,))
        self._timer.daemon = True
        self._timer.start()

    def _fire(self, sock: socket.socket) -> None:
        with self._lock:
            if self._done:
                return
            self.fired = True
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed: the attempt ended as the timer fired
            pass

    def disarm(self) -> None:
        with self._lock:
            self._done = True
        if self._timer is not None:
            self._timer.cancel()


def _number(value: Any, what: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(f"{what} must be a number, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise InvalidInputError(f"{what} must be a finite number {'>' if positive else '>='} 0, not {value!r}")
    return float(value)


def _count(value: Any, what: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise InvalidInputError(f"{what} must be >= {minimum}, not {value!r}")
    return value


def _header_value(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidTypeError(f"{what} must be a str, not {type(value).__name__}")
    # Never echo the value: it may be a secret.
    if any(c in value for c in "\r\n\0"):
        raise InvalidInputError(f"{what} must not hold a line break or a NUL character")
    try:
        value.encode("latin-1")  # what http.client sends header values as
    except UnicodeEncodeError:
        raise InvalidInputError(f"{what} holds characters an HTTP header cannot carry") from None
    return value


def _headers(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"headers must be a mapping of str to str, not {type(value).__name__}")
    headers: dict[str, str] = {}
    for name, header in value.items():
        if not isinstance(name, str) or not name or not all(
            c.isascii() and (c.isalnum() or c in "!#$%&'*+-.^_`|~") for c in name
        ):
            raise InvalidInputError(f"{name!r} is not an HTTP header name")
        if name.lower() in _MANAGED_HEADERS:
            raise InvalidInputError(f"the {name} header is set by the connection, not by you")
        headers[name] = _header_value(header, f"the {name} header")
    return headers


def _settings(settings: dict[str, Any]) -> dict[str, Any]:
    for name, reason in _REFUSED_SETTINGS.items():
        if name in settings:
            raise InvalidInputError(f"the {name!r} setting is refused: {reason}")
    # A round trip through JSON checks the settings can be sent, and copies them.
    copied: dict[str, Any] = json.loads(strict_json(settings, "settings"))
    return copied


def _url(base_url: Any) -> urllib.parse.SplitResult:
    if not isinstance(base_url, str):
        raise InvalidTypeError(f"base_url must be a str, not {type(base_url).__name__}")
    try:
        parts = urllib.parse.urlsplit(base_url.strip())
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise InvalidInputError(f"base_url is not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInputError(f"base_url must be an http(s) URL with a host, not {base_url!r}")
    if parts.username is not None or parts.password is not None:
        # Do not echo it: the URL holds a password.
        raise InvalidInputError("base_url must not hold credentials: pass api_key (or headers)")
    if parts.fragment:
        raise InvalidInputError(f"base_url must not have a #fragment: {base_url!r}")
    if any(c.isspace() or c == "\0" for c in base_url.strip()):
        raise InvalidInputError(f"base_url must not hold whitespace: {base_url!r}")
    return parts


def _retry_after(headers: http.client.HTTPMessage) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After``), if any."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:  # an HTTP date
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        value = max((when - datetime.now(timezone.utc)).total_seconds(), 0.0)
    return value if math.isfinite(value) and value >= 0 else None


def _excerpt(data: bytes) -> str:
    """The body as text, whole: :meth:`OpenAIChat._show` masks the key, then cuts it."""
    return data.decode("utf-8", "replace").strip()


def _cut(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[:_EXCERPT] + "..."


def _server_message(data: bytes, status: int) -> str:
    """The error message in an error reply: OpenAI's ``error.message``, vLLM's ``message``,
    Ollama's ``error``, FastAPI's ``detail``; else the start of the body."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        doc = None
    message: Any = None
    if isinstance(doc, dict):
        error = doc.get("error")
        if isinstance(error, dict):
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        if not isinstance(message, str) or not message:
            message = doc.get("message") or doc.get("detail")
        if message is not None and not isinstance(message, str):
            message = json.dumps(message)
    if not isinstance(message, str) or not message.strip():
        message = _excerpt(data) or http.client.responses.get(status, "no message")
    return message


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "a number",
               float: "a number", bool: "a boolean", type(None): "null"}


def _arguments(raw: Any) -> tuple[dict[str, Any], str | None, str]:
    """``(arguments, arguments_error, text)`` for a tool call's ``arguments`` field.

    The field should be a JSON string of an object; some servers (Ollama) send the object
    itself. An empty string or a missing field is no arguments. Anything unreadable becomes an
    ``arguments_error``, never an exception: the agent sends the error back to the model.
    ``text`` is the arguments as the model wrote them.
    """
    if raw is None:
        return {}, None, ""
    if isinstance(raw, str):
        text = raw
    else:
        try:
            text = json.dumps(raw)
        except (ValueError, RecursionError):
            text = "<arguments nested too deeply to show>"
    if not text.strip():
        return {}, None, text
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        return {}, f"the arguments are not valid JSON: {exc}", text
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, not {_JSON_TYPES[type(value)]}", text
    return value, None, text


def _used_every_token(doc: dict[str, Any], body: bytes) -> bool:
    """Whether the reply used every token the request allowed (``usage.completion_tokens`` at
    its ``max_tokens`` or ``max_completion_tokens``): it was cut, whatever its
    ``finish_reason`` says. llama-cpp-python's function-calling format says ``"tool_calls"``
    of a named call cut at the limit (docs/models.md, "Measured with real models").

    >>> _used_every_token({"usage": {"completion_tokens": 64}}, b'{"max_tokens": 64}')
    True
    >>> _used_every_token({"usage": {"completion_tokens": 12}}, b'{"max_tokens": 64}')
    False
    """
    usage = doc.get("usage")
    used = usage.get("completion_tokens") if isinstance(usage, dict) else None
    if not isinstance(used, int) or isinstance(used, bool):
        return False
    try:
        sent = json.loads(body)
    except ValueError:
        return False
    limit = sent.get("max_completion_tokens", sent.get("max_tokens")) \
        if isinstance(sent, dict) else None
    return isinstance(limit, int) and not isinstance(limit, bool) and 0 < limit <= used


def _content(message: dict[str, Any]) -> str | None:
    """The text of a message: ``content`` as a string, or the text parts of a list of parts."""
    content = message.get("content")
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:  # text parts; images, audio and the like have no text
            text = part if isinstance(part, str) else None
            if isinstance(part, dict) and part.get("type", "text") in ("text", "output_text"):
                text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
        content = "".join(texts) if texts else None
    elif content is not None and not isinstance(content, str):
        raise ModelResponseError(f"the message's content is {_JSON_TYPES.get(type(content), 'unknown')}, "
                                 "not a string or a list of parts")
    refusal = message.get("refusal")
    if not content and isinstance(refusal, str) and refusal:
        return refusal  # OpenAI says why it would not answer here, with no content
    return content


class OpenAIChat:
    """A chat model behind ``POST {base_url}/chat/completions`` (OpenAI and compatible servers).

    Parameters
    ----------
    base_url : str
        The API root, e.g. ``https://api.openai.com/v1``, ``http://localhost:8000/v1`` (vLLM),
        ``http://localhost:11434/v1`` (Ollama), ``http://localhost:8080/v1`` (llama.cpp).
    model : str
        The model's name on that server.
    api_key : str or None, default None
        Sent as ``Authorization: Bearer <key>``. ``None`` reads ``$OPENAI_API_KEY`` once, here;
        ``""`` sends no key (a local server, when ``$OPENAI_API_KEY`` is set for another).
        The key is never shown by ``repr`` nor put in an error message.
    timeout : float, default 60.0
        Seconds one attempt may take in all: connecting, sending, waiting, reading the reply.
        A timed-out attempt is not retried (:class:`~corollary.foundations.errors.ModelTimeoutError`).
    max_retries : int, default 3
        Retries after a 429, a 5xx, or a connection that failed or was dropped.
    backoff_base, backoff_cap : float, default 0.5, 8.0
        Retry ``k`` waits a random time in ``[b/2, b]`` with ``b = min(cap, base * 2**(k-1))``;
        a ``Retry-After`` (or ``retry-after-ms``) from the server is waited instead, but never
        more than ``backoff_cap`` seconds either.
    headers : mapping of str to str, optional
        More request headers (e.g. ``OpenAI-Organization``, or ``api-key`` for Azure).
    max_response_bytes : int, default 16 MiB
        A longer reply is refused (:class:`~corollary.foundations.errors.ModelResponseError`).
    dialect : str, default "openai"
        The server's request forms (:data:`DIALECTS`): ``"openai"``, ``"vllm"`` and
        ``"ollama"`` are sent a reply schema as ``{"type": "json_schema", "json_schema": ...}``;
        ``"llama.cpp"`` (``llama-server``) and ``"llama-cpp-python"`` as ``{"type":
        "json_object", "schema": ...}`` (llama-cpp-python refuses the other with HTTP 500).
        ``"llama-cpp-python"`` refuses ``tool_choice="auto"`` (its function-calling format then
        generates without end), and sends ``""`` for an assistant message's ``null`` content
        (that server refuses ``null`` beside ``tool_calls`` with HTTP 500).
    small_model : bool, optional
        Says the model is small: ``kb.remember`` and the agent then make its requests in their
        small-model mode (docs/models.md, "A small-model mode") unless told otherwise.
        ``None`` (the default): small when ``dialect`` names a local server (any but
        ``"openai"``) and ``model`` states a size under two billion parameters
        (``"qwen2.5-coder-0.5b"``, ``"SmolLM2-135M"``: :func:`~corollary.models.sizes.
        small_by_name`). The ``"openai"`` dialect is never guessed small: its reply schema's
        form is refused by llama-cpp-python's server, which small-model remember needs.
    on_retry : callable, optional
        ``on_retry(attempt, error, delay)`` is called before each retry's wait, with the retry's
        number (1, 2, ...), the :class:`~corollary.foundations.errors.ModelError` that caused it, and the
        seconds about to be waited (to log or count retries). An exception it raises ends the
        call with that exception.
    **settings
        Request body fields: ``temperature``, ``max_tokens``, ``seed``, ``top_p``, ``stop``,
        ``tool_choice``, ... (strict JSON; copied). ``n`` and ``stream`` are refused: one
        whole completion per request. ``tool_choice`` and ``parallel_tool_calls`` are left out
        of requests without tools. A request's own options (``complete(..., options=)``) are
        sent over them.

    Raises
    ------
    InvalidInputError, InvalidTypeError
        A bad argument (nothing is sent).

    Notes
    -----
    :meth:`acomplete` runs each attempt in a worker thread (:func:`asyncio.to_thread`) and
    waits between attempts with :func:`asyncio.sleep`; cancelling it stops the retries, but an
    attempt under way ends in its thread (within ``timeout``).

    Examples
    --------
    >>> model = OpenAIChat("http://localhost:8000/v1", "qwen2.5-7b-instruct", api_key="sk-secret",
    ...                    temperature=0, seed=7)
    >>> model
    OpenAIChat('http://localhost:8000/v1', 'qwen2.5-7b-instruct', api_key='***', timeout=60.0, max_retries=3, temperature=0, seed=7)
    >>> model.url
    'http://localhost:8000/v1/chat/completions'
    >>> OpenAIChat("http://localhost:8000/v1", "m", n=3)
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: the 'n' setting is refused: one completion per request: OpenAIChat never asks for n completions
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        headers: Mapping[str, str] | None = None,
        max_response_bytes: int = 16 << 20,
        on_retry: Callable[[int, ModelError, float], Any] | None = None,
        dialect: str = "openai",
        small_model: bool | None = None,
        **settings: Any,
    ) -> None:
        parts = _url(base_url)
        if dialect not in DIALECTS:
            raise InvalidInputError(f"dialect is one of {sorted(DIALECTS)}, not {dialect!r}")
        if not isinstance(small_model, (bool, type(None))):
            raise InvalidTypeError(f"small_model must be a bool or None, not "
                                   f"{type(small_model).__name__}")
        self._dialect = dialect
        #: Whether remember and the agent make this model's requests in small-model mode
        self.small_model = (small_model is True if small_model is not None
                            else dialect != "openai" and isinstance(model, str)
                            and small_by_name(model))
        if not isinstance(model, str):
            raise InvalidTypeError(f"model must be a str, not {type(model).__name__}")
        if not model.strip():
            raise InvalidInputError("model must name a model, not be empty")
        if api_key is None:
            api_key = os.environ.get("OPENAI_API_KEY", "")
        self._api_key = _header_value(api_key, "api_key")
        self._timeout = _number(timeout, "timeout", positive=True)
        self._max_retries = _count(max_retries, "max_retries", minimum=0)
        self._backoff_base = _number(backoff_base, "backoff_base")
        self._backoff_cap = _number(backoff_cap, "backoff_cap")
        self._extra_headers = _headers(headers)
        self._max_response_bytes = _count(max_response_bytes, "max_response_bytes", minimum=1)
        if on_retry is not None and not callable(on_retry):
            raise InvalidTypeError(f"on_retry must be callable, not {type(on_retry).__name__}")
        self._on_retry = on_retry
        self._settings = _settings(settings)
        self._refuse_choice(self._settings.get("tool_choice"))
        self._model = model
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._path = parts.path.rstrip("/") + "/chat/completions" + (f"?{parts.query}" if parts.query else "")
        self._base_url = urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/")))
        # Errors name the endpoint without its query, which may hold a token.
        self._where = urllib.parse.urlunsplit(parts._replace(path=self._path.split("?")[0], query=""))

    @property
    def base_url(self) -> str:
        """The API root, without a trailing slash."""
        return self._base_url

    @property
    def url(self) -> str:
        """The endpoint requests go to."""
        base = urllib.parse.urlsplit(self._base_url)
        return urllib.parse.urlunsplit(base._replace(path=base.path + "/chat/completions"))

    @property
    def model(self) -> str:
        """The model's name on the server."""
        return self._model

    @property
    def timeout(self) -> float:
        """Seconds one attempt may take."""
        return self._timeout

    @property
    def max_retries(self) -> int:
        """Retries after a 429, a 5xx or a failed connection."""
        return self._max_retries

    @property
    def dialect(self) -> str:
        """The server's request forms (:data:`DIALECTS`)."""
        return self._dialect

    @property
    def tools_only_when_named(self) -> bool:
        """Whether the server puts the tools in the model's prompt only when ``tool_choice``
        names one (llama-cpp-python's ``chatml-function-calling``, seen in issue 39): an agent
        then names a tool in every request (docs/agent.md, "Named steps").

        >>> OpenAIChat("http://localhost:8000/v1", "m", api_key="",
        ...            dialect="llama-cpp-python").tools_only_when_named
        True
        """
        return self._dialect in TOOLS_ONLY_WHEN_NAMED

    @property
    def settings(self) -> dict[str, Any]:
        """A copy of the settings sent in every request body."""
        copied: dict[str, Any] = json.loads(json.dumps(self._settings))
        return copied

    def __repr__(self) -> str:
        settings = "".join(f", {name}={value!r}" for name, value in self._settings.items())
        headers = f", headers=[{', '.join(sorted(self._extra_headers))}]" if self._extra_headers else ""
        dialect = "" if self._dialect == "openai" else f", dialect={self._dialect!r}"
        small = ", small_model=True" if self.small_model else ""
        return (
            f"OpenAIChat({self._base_url!r}, {self._model!r}, "
            f"api_key={'***' if self._api_key else None!r}, timeout={self._timeout!r}, "
            f"max_retries={self._max_retries!r}{headers}{dialect}{small}{settings})"
        )

    # -- the request ---------------------------------------------------------------------

    def request_body(self, messages: Messages, tools: Tools, options: Any = None) -> dict[str, Any]:
        """The JSON body :meth:`complete` would send (a new dict; nothing is sent).

        ``options`` (:class:`~corollary.foundations.model_request.RequestOptions`, or a dict of
        its fields) are this request's own: its ``tool_choice`` replaces the setting, and its
        ``schema`` is sent as ``response_format`` in the dialect's form.

        Examples
        --------
        >>> model = OpenAIChat("http://localhost:8000/v1", "m", api_key="", temperature=0,
        ...                    tool_choice="auto")
        >>> model.request_body([{"role": "user", "content": "hi"}], [])
        {'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}], 'temperature': 0}
        >>> llama = OpenAIChat("http://localhost:8080/v1", "m", api_key="", dialect="llama.cpp")
        >>> llama.request_body([{"role": "user", "content": "hi"}], [],
        ...                    {"schema": {"type": "object"}})["response_format"]
        {'type': 'json_object', 'schema': {'type': 'object'}}
        """
        check_request(messages, tools)
        chosen = request_options(options)
        self._refuse_choice(chosen.tool_choice)
        if self._dialect == "llama-cpp-python":
            messages = [dict(m, content="") if m.get("role") == "assistant"
                        and m.get("content") is None else m for m in messages]
        body: dict[str, Any] = {"model": self._model, "messages": messages}
        if tools:
            body["tools"] = tools
        settings = self.settings
        if chosen.tool_choice is not None:
            settings["tool_choice"] = chosen.tool_choice
        if chosen.schema is not None:
            settings["response_format"] = self._response_format(chosen)
        for name in _TOOL_SETTINGS if not tools else ():
            settings.pop(name, None)
        body.update(settings)
        return body

    def _refuse_choice(self, tool_choice: Any) -> None:
        if isinstance(tool_choice, str) and tool_choice in DIALECTS[self._dialect][1]:
            raise InvalidInputError(f"tool_choice={tool_choice!r} is refused for the "
                                    f"{self._dialect} dialect: that server generates without "
                                    "end under it; name the tool instead")

    def _response_format(self, chosen: RequestOptions) -> dict[str, Any]:
        """A reply schema in the form the dialect's server reads."""
        if DIALECTS[self._dialect][0] == "json_object":
            return {"type": "json_object", "schema": chosen.schema}
        return {"type": "json_schema",
                "json_schema": {"name": chosen.schema_name, "schema": chosen.schema}}

    def _encode(self, messages: Messages, tools: Tools, options: Any = None) -> bytes:
        body = self.request_body(messages, tools, options)
        return strict_json(body, "the request", ascii_only=True).encode("ascii")

    def _request_headers(self, length: int) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "corollary-models",
            # One request per connection: a server that sends no length then ends the reply
            # by closing, rather than leaving us waiting for the deadline.
            "Connection": "close",
            "Content-Length": str(length),
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        headers.update(self._extra_headers)
        return headers

    def _scrub(self, text: str) -> str:
        """``text`` with the key masked, as written and as JSON or ``repr`` would escape it."""
        if not self._api_key:
            return text
        for form in {self._api_key, json.dumps(self._api_key)[1:-1], repr(self._api_key)[1:-1]}:
            text = text.replace(form, "***")
        return text

    def _show(self, text: str) -> str:
        """Server text fit for an error message: the key masked first, then cut to length.

        Cut first, a key straddling the cut kept its first characters unmasked.
        """
        return _cut(self._scrub(text))

    # -- one attempt -----------------------------------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self._timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)

    def _read(self, response: http.client.HTTPResponse) -> bytes:
        length = response.getheader("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > self._max_response_bytes:
            raise ModelResponseError(
                f"the reply would be {int(length)} bytes, more than max_response_bytes={self._max_response_bytes}"
            )
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(_CHUNK):
            size += len(chunk)
            if size > self._max_response_bytes:
                raise ModelResponseError(
                    f"the reply is longer than max_response_bytes={self._max_response_bytes}"
                )
            chunks.append(chunk)
        if response.length:
            # read(n) returns what came before a clean close without complaint, even short of
            # the Content-Length: that is a dropped connection (retried), not a bad reply
            raise http.client.IncompleteRead(b"".join(chunks), response.length)
        return b"".join(chunks)

    def _timed_out(self) -> ModelTimeoutError:
        return ModelTimeoutError(f"{self._where} did not answer within timeout={self._timeout} s")

    def _exchange(self, body: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
        """Send ``body``; the reply's status, headers and body, within the deadline."""
        started = time.monotonic()
        deadline = _Deadline()
        connection = self._connection()
        try:
            try:
                connection.connect()
                if connection.sock is not None:
                    deadline.arm(connection.sock, self._timeout - (time.monotonic() - started))
                connection.request("POST", self._path, body=body, headers=self._request_headers(len(body)))
                response = connection.getresponse()
                data = self._read(response)
            except TimeoutError as exc:
                raise self._timed_out() from exc
            except ssl.SSLCertVerificationError as exc:
                raise ModelConnectionError(f"{self._where}: {exc}") from exc
            except (OSError, http.client.IncompleteRead) as exc:
                if deadline.fired:
                    raise self._timed_out() from exc
                raise _Retry(None, self._scrub(f"the connection to {self._where} failed: {exc!r}")) from exc
            except http.client.HTTPException as exc:
                if deadline.fired:
                    raise self._timed_out() from exc
                raise ModelResponseError(self._show(f"{self._where} did not answer in HTTP: {exc!r}")) from exc
        finally:
            deadline.disarm()
            connection.close()
        if deadline.fired:  # a reply read to its end only because the socket was shut down
            raise self._timed_out()
        return response.status, response.headers, data

    def _attempt(self, body: bytes) -> Reply:
        status, headers, data = self._exchange(body)
        if 200 <= status < 300:
            return self._parse(data, body)
        if 300 <= status < 400:
            # a server may echo the request, key included, in the Location
            location = headers.get("Location")
            shown = None if location is None else self._show(location)
            message = f"redirected to {shown!r}: check base_url"
        else:
            message = self._show(_server_message(data, status))
        if status == 429 or 500 <= status < 600:
            raise _Retry(status, message, _retry_after(headers))
        raise ModelHTTPError(status, message)

    # -- the reply ---------------------------------------------------------------------------

    def _parse(self, data: bytes, body: bytes) -> Reply:
        try:
            doc = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ModelResponseError(
                f"{self._where} answered something that is not JSON ({exc}): {self._show(_excerpt(data))!r}"
            ) from None
        if not isinstance(doc, dict):
            raise ModelResponseError(f"{self._where} answered JSON that is not an object: {self._show(_excerpt(data))!r}")
        choices = doc.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
                or not isinstance(choices[0].get("message"), dict):
            what = self._show(_server_message(data, 200) if "error" in doc else _excerpt(data))
            raise ModelResponseError(f"{self._where} answered with no choices[0].message: {what!r}")
        choice = choices[0]
        message = choice["message"]
        calls = message.get("tool_calls")
        if calls is None:
            calls = []
        if not isinstance(calls, list):
            raise ModelResponseError(f"the message's tool_calls is {_JSON_TYPES.get(type(calls), 'unknown')}, not a list")
        seed = hashlib.sha256(body + b"\0" + str(doc.get("id")).encode("utf-8", "replace"))
        tool_calls: list[ToolCall] = []
        for index, call in enumerate(calls):
            tool_calls.append(self._tool_call(call, index, {c.id for c in tool_calls}, seed))
        finish = choice.get("finish_reason")
        if _used_every_token(doc, body):
            finish = "length"
        return Reply(_content(message), tool_calls, finish if isinstance(finish, str) else None)

    def _tool_call(self, call: Any, index: int, taken: set[str], seed: Any) -> ToolCall:
        function: dict[str, Any] = call.get("function") if isinstance(call, dict) else None  # type: ignore[assignment]
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise ModelResponseError(f"tool call {index} names no function: {self._show(str(call))!r}")
        arguments, error, text = _arguments(function.get("arguments"))
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id or call_id in taken:
            # Stable: the same request and reply always give the same id; distinct within the
            # reply (the tool messages answer calls by id).
            digest = seed.copy()
            digest.update(f"\0{index}\0{name}\0{text}".encode("utf-8", "replace"))
            call_id = "call_" + digest.hexdigest()[:24]
            while call_id in taken:
                digest.update(b"\0")
                call_id = "call_" + digest.hexdigest()[:24]
        try:
            return ToolCall(call_id, name, arguments, error, text if error else None)
        except (InvalidInputError, InvalidTypeError) as exc:  # e.g. nested too deep to copy
            return ToolCall(call_id, name, {}, f"the arguments cannot be used: {exc}", text)

    # -- retries ------------------------------------------------------------------------------

    def _retry_delay(self, retry: _Retry, attempt: int) -> float:
        """The wait before retry number ``attempt``; raises the final error when none is left."""
        error = retry.error(attempt)
        if attempt > self._max_retries:
            raise error from retry.__cause__
        if retry.retry_after is not None:
            delay = min(retry.retry_after, self._backoff_cap)
        else:
            ceiling = min(self._backoff_cap, self._backoff_base * 2.0 ** min(attempt - 1, 60))
            delay = random.uniform(ceiling / 2, ceiling)
        log.warning("%s; retry %d of %d in %.2f s", error, attempt, self._max_retries, delay)
        if self._on_retry is not None:
            self._on_retry(attempt, error, delay)
        return delay

    def complete(self, messages: Messages, tools: Tools, options: Any = None) -> Reply:
        """One reply to ``messages``, which may call ``tools``.

        Parameters
        ----------
        messages : list of dict
            The conversation, in the OpenAI chat format.
        tools : list of dict
            OpenAI function schemas (``[]``: the request carries no ``tools``).
        options : RequestOptions or dict, optional
            This request's own ``tool_choice`` and reply schema (see :meth:`request_body`).

        Returns
        -------
        Reply
            Tool-call arguments parsed into dicts; unreadable ones set
            :attr:`ToolCall.arguments_error`. A call without an id gets a stable generated one.

        Raises
        ------
        ModelHTTPError
            An HTTP error status: at once for 4xx (but 429), after the retries for 429 and 5xx.
        ModelConnectionError
            The server could not be reached, or dropped the connection, on every attempt.
        ModelTimeoutError
            An attempt took more than ``timeout`` seconds.
        ModelResponseError
            A reply that is not JSON, has no ``choices[0].message``, or is too long.
        InvalidInputError, InvalidTypeError
            A malformed request (nothing is sent).
        """
        body = self._encode(messages, tools, options)
        attempt = 0
        while True:
            try:
                return self._attempt(body)
            except _Retry as retry:
                attempt += 1
                time.sleep(self._retry_delay(retry, attempt))

    async def acomplete(self, messages: Messages, tools: Tools, options: Any = None) -> Reply:
        """As :meth:`complete`, without blocking the event loop (see the class's notes)."""
        body = self._encode(messages, tools, options)  # now, before the caller can change the messages
        attempt = 0
        while True:
            try:
                return await asyncio.to_thread(self._attempt, body)
            except _Retry as retry:
                attempt += 1
                await asyncio.sleep(self._retry_delay(retry, attempt))

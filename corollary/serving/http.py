"""Serving over HTTP, guarded (``corollary mcp --transport http`` and ``corollary ui``): a
bearer token, Host and Origin on an allow-list, and a listening socket that says why it cannot.

The SDK turns its DNS-rebinding protection on only for ``127.0.0.1``, ``localhost`` and ``::1``,
and has no authentication of its own short of OAuth. :func:`guard` wraps the server's ASGI app
so that every request, whatever address the server is bound to, must

1. carry a ``Host`` whose name is on the allow-list (else ``421 Misdirected Request``): a
   page served from ``attacker.example`` whose name was rebound to this server sends
   ``Host: attacker.example``;
2. carry no ``Origin``, or one whose host is on the allow-list (else ``403 Forbidden``): a
   browser adds it to every cross-site request;
3. carry ``Authorization: Bearer <token>`` when the server has a token (else
   ``401 Unauthorized``), compared in constant time (:func:`hmac.compare_digest`).

:func:`check_exposure` refuses a server bound to anything but a loopback name without a token.
The token itself travels in the clear over plain HTTP: beyond the machine, serve it behind a
reverse proxy that terminates TLS (docs/mcp.md).
"""

from __future__ import annotations

import hmac
import os
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..foundations.errors import InvalidInputError

__all__ = ["LOOPBACK", "TOKEN_ENV", "UI_TOKEN_ENV", "allowed_names", "check_exposure",
           "check_request", "guard", "listen", "read_token", "send_refusal"]

#: The names a server may be bound to without a token: the machine's own loopback names. Any
#: other address (``0.0.0.0``, a LAN address, even ``127.0.0.2``) needs one.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The environment variable holding the bearer token when ``--token-file`` is not given.
TOKEN_ENV = "COROLLARY_MCP_TOKEN"
#: The inspector's own (read-only) token when ``corollary ui --token-file`` is not given: never
#: the MCP server's, whose holder may write (docs/ui.md).
UI_TOKEN_ENV = "COROLLARY_UI_TOKEN"
#: The shortest token taken (a guessable token is no lock).
TOKEN_LEAST = 16
_WILDCARDS = {"0.0.0.0", "::", ""}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def read_token(token_file: str | os.PathLike[str] | None,
               environ: MutableMapping[str, str] | None = None, *,
               variable: str = TOKEN_ENV) -> str | None:
    """The bearer token: the text of ``token_file`` (surrounding whitespace dropped), else
    the environment variable ``variable`` (``$COROLLARY_MCP_TOKEN``; unset or empty: no token).

    Examples
    --------
    >>> read_token(None, {"COROLLARY_MCP_TOKEN": "k3Jq9-aV0x_Zt2LmW8pR"})
    'k3Jq9-aV0x_Zt2LmW8pR'
    >>> read_token(None, {}) is None
    True
    """
    if token_file is not None:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except UnicodeDecodeError:
            raise InvalidInputError(f"token file {os.fspath(token_file)}: not UTF-8 text") from None
        where = f"token file {os.fspath(token_file)}"
    else:
        token = (os.environ if environ is None else environ).get(variable, "").strip()
        if not token:
            return None
        where = f"${variable}"
    if len(token) < TOKEN_LEAST or any(c.isspace() or not c.isprintable() for c in token):
        raise InvalidInputError(
            f"{where}: a token must be at least {TOKEN_LEAST} printable characters without "
            "spaces, e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))'")
    return token


def check_exposure(host: str, token: str | None, variable: str = TOKEN_ENV) -> None:
    """Refuse to serve on ``host`` without a token unless ``host`` is a loopback name.

    Examples
    --------
    >>> check_exposure("127.0.0.1", None)
    >>> check_exposure("0.0.0.0", None)
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: --host 0.0.0.0 is reachable from other machines: give a token (--token-file FILE or $COROLLARY_MCP_TOKEN), or serve on 127.0.0.1
    """
    if token is None and host not in LOOPBACK:
        raise InvalidInputError(
            f"--host {host} is reachable from other machines: give a token (--token-file FILE "
            f"or ${variable}), or serve on 127.0.0.1")


def allowed_names(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a request may name in ``Host`` and ``Origin``: the loopback names, the
    address the server is bound to (unless a wildcard), and ``extra`` (``--allowed-host``).

    Examples
    --------
    >>> sorted(allowed_names("127.0.0.2", ["MCP.example.com"]))
    ['127.0.0.1', '127.0.0.2', '::1', 'localhost', 'mcp.example.com']
    """
    names = set(LOOPBACK)
    if host not in _WILDCARDS:
        names.add(host)
    for name in extra:
        if not isinstance(name, str) or not name.strip() or any(c in name for c in "/@ "):
            raise InvalidInputError(f"--allowed-host takes a host name, got {name!r}")
        names.add(_bare(name.strip()))
    return frozenset(n.lower() for n in names)


def _bare(name: str) -> str:
    """A host name without brackets (``[::1]`` is ``::1``)."""
    return name[1:-1] if name.startswith("[") and name.endswith("]") else name


def _host_name(header: str) -> str:
    """The name in a ``Host`` header: without its port, and an IPv6 address without brackets."""
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def guard(app: App, *, token: str | None, allowed: frozenset[str]) -> App:
    """``app`` behind the checks of this module (a plain ASGI app wrapping another)."""
    expected = None if token is None else token.encode()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)  # lifespan
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = check_request(headers, expected, allowed)
        if refusal is None:
            await app(scope, receive, send)
            return
        await send_refusal(send, *refusal)

    return guarded


async def send_refusal(send: Any, status: int, text: str,
                       extra: list[tuple[bytes, bytes]]) -> None:
    """Answer an ASGI request with ``status`` and the plain text ``text`` (and ``extra``
    headers): what every guard in front of a served app says when it refuses."""
    body = text.encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()), *extra]})
    await send({"type": "http.response.body", "body": body})


def check_request(headers: dict[str, str], expected: bytes | None, allowed: frozenset[str]
                  ) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
    """``None`` when a request with these ``headers`` (lower-case names) may go on, else its
    refusal for :func:`send_refusal`: a Host or an Origin not among the ``allowed`` names, or
    no bearer token equal to ``expected`` (``None``: no token asked).

    >>> local = frozenset(LOOPBACK)
    >>> check_request({"host": "localhost:8000"}, None, local) is None
    True
    >>> check_request({"host": "evil.example"}, None, local)[0]
    421
    >>> check_request({"host": "localhost"}, b"s3cret", local)[0]
    401
    """
    if _host_name(headers.get("host", "")).lower() not in allowed:
        return 421, "Host not allowed (see corollary mcp --allowed-host)\n", []
    origin = headers.get("origin")
    if origin is not None:
        try:
            parts = urlsplit(origin)
            name = parts.hostname if parts.scheme in ("http", "https") else None
        except ValueError:  # e.g. an unclosed IPv6 bracket
            name = None
        if name is None or name not in allowed:
            return 403, "Origin not allowed (see corollary mcp --allowed-host)\n", []
    if expected is not None:
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if not (scheme.lower() == "bearer"
                and hmac.compare_digest(given.strip().encode("latin-1"), expected)):
            return 401, "a bearer token is required\n", [(b"www-authenticate", b"Bearer")]
    return None


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, for a server to accept on. A busy port or an unknown
    host is an ``OSError`` saying ``cannot listen on HOST:PORT: why``, before anything else is
    opened or printed.

    Examples
    --------
    >>> with listen("127.0.0.1", 0) as sock:
    ...     sock.getsockname()[0]
    '127.0.0.1'
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port,
                                                             type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock

"""Which sessions a bearer token may open, for a server of many users (``corollary mcp
--tokens-file``; docs/many-users.md).

A token maps to the sessions its holder may open: session ids, or prefixes ending in ``*``
(``"user-7/*"``: every session whose id starts with ``user-7/``). A request names its session
by its path (``/sessions/<id>/mcp``) or by the ``Corollary-Session`` header; a token that maps
to exactly one session id (no prefix) needs neither. :func:`sessions_guard` checks this before
anything is served: a token for user 7 never opens user 42's session, whatever the tool.

Tokens never travel in a URL (which proxies and access logs keep): only in the
``Authorization: Bearer`` header. They are kept as SHA-256 digests, so a lookup's time does not
depend on how much of a token was right.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import attrs

from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..storage.checks import check_session
from .http import TOKEN_LEAST, App, Receive, Scope, Send, check_request, send_refusal

__all__ = ["SESSION_HEADER", "SESSION_KEY", "SessionTokens", "sessions_guard"]

#: The request header that names the session (when the path does not).
SESSION_HEADER = "corollary-session"
#: Where :func:`sessions_guard` puts the session it checked, in the request's ASGI scope: no
#: client can set it, so a server behind the guard serves only sessions a token may open.
SESSION_KEY = "corollary.session"
_PREFIX = "/sessions/"


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@attrs.frozen(slots=True)
class SessionTokens:
    """Bearer tokens and the sessions each may open.

    Examples
    --------
    >>> tokens = SessionTokens.of({"k3Jq9-aV0x_Zt2LmW8pR-user7": ["user-7"],
    ...                            "Zt2LmW8pRk3Jq9-aV0x_-admin": ["user-*"]})
    >>> tokens.session_for("k3Jq9-aV0x_Zt2LmW8pR-user7", None)
    'user-7'
    >>> tokens.session_for("k3Jq9-aV0x_Zt2LmW8pR-user7", "user-42") is None
    True
    >>> tokens.session_for("Zt2LmW8pRk3Jq9-aV0x_-admin", "user-42")
    'user-42'
    """

    grants: Mapping[bytes, tuple[str, ...]]

    @classmethod
    def of(cls, mapping: Mapping[str, Iterable[str] | str]) -> SessionTokens:
        """From ``{token: session ids or prefixes ending in '*'}`` (a single str is one)."""
        if not isinstance(mapping, Mapping):
            raise InvalidTypeError("tokens must map each token to the sessions it may open")
        grants: dict[bytes, tuple[str, ...]] = {}
        for token, sessions in mapping.items():
            if (not isinstance(token, str) or len(token) < TOKEN_LEAST
                    or any(c.isspace() or not c.isprintable() for c in token)):
                raise InvalidInputError(f"a token must be at least {TOKEN_LEAST} printable "
                                        "characters without spaces")
            listed = (sessions,) if isinstance(sessions, str) else tuple(sessions)
            for pattern in listed:
                if not isinstance(pattern, str) or not pattern.rstrip("*"):
                    raise InvalidInputError(f"a token's sessions are ids or prefixes ending "
                                            f"in '*', not {pattern!r}")
                if not pattern.endswith("*"):
                    check_session(pattern)
            grants[_digest(token)] = listed
        return cls(grants)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> SessionTokens:
        """From a JSON file ``{"<token>": ["<session>", "<prefix>*"], ...}``."""
        try:
            data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidInputError(f"tokens file {os.fspath(path)}: {exc}") from None
        return cls.of(data)

    def session_for(self, token: str, asked: str | None) -> str | None:
        """The session a request with ``token`` asking for ``asked`` (``None``: none named)
        opens, or ``None`` when the token may not open it (or names no session)."""
        granted = self.grants.get(_digest(token))
        if granted is None:
            return None
        if asked is None:
            exact = [s for s in granted if not s.endswith("*")]
            return exact[0] if len(granted) == 1 and exact else None
        for pattern in granted:
            if asked == pattern or (pattern.endswith("*") and asked.startswith(pattern[:-1])):
                return asked
        return None

    def knows(self, token: str) -> bool:
        """Whether ``token`` is one of these."""
        return _digest(token) in self.grants


def sessions_guard(app: App, *, tokens: SessionTokens, allowed: frozenset[str]) -> App:
    """``app`` behind :func:`corollary.serving.http.guard`'s Host and Origin checks, and a
    token that may open the session the request names (``/sessions/<id>/mcp``, else the
    ``Corollary-Session`` header, else the token's one session): ``401`` without a known
    token, ``400`` when no session is named, ``403`` when the token may not open it. The path
    reaches ``app`` as ``/mcp``, the session as the scope's :data:`SESSION_KEY`."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)  # lifespan
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = check_request(headers, None, allowed)
        path = scope.get("path", "")
        asked = headers.get(SESSION_HEADER)
        if path.startswith(_PREFIX) and path.endswith("/mcp"):
            asked, path = unquote(path[len(_PREFIX):-len("/mcp")]), "/mcp"
        if refusal is None:
            scheme, _, given = headers.get("authorization", "").partition(" ")
            token = given.strip() if scheme.lower() == "bearer" else ""
            if not tokens.knows(token):
                refusal = 401, "a bearer token is required\n", [(b"www-authenticate", b"Bearer")]
            else:
                session = tokens.session_for(token, asked)
                if session is None and asked is None:
                    refusal = 400, ("name the session: /sessions/<id>/mcp or the "
                                    "Corollary-Session header\n"), []
                elif session is None:
                    refusal = 403, "this token may not open that session\n", []
                else:
                    inner = dict(scope, path=path, raw_path=path.encode())
                    inner[SESSION_KEY] = session
                    await app(inner, receive, send)
                    return
        await send_refusal(send, *refusal)

    return guarded

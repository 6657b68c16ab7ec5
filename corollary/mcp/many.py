"""An MCP server for many users: every tool of the table, each call on the session its request
names, through one :class:`~corollary.serving.shards.SessionCache` (one ledger, one connection
pool, however many sessions); docs/many-users.md.

The server is served over streamable HTTP behind
:func:`~corollary.serving.session_tokens.sessions_guard`, which checks that the request's
bearer token may open the session it names and puts that session in the request's ASGI scope;
the tools read it there. A request that did not pass the guard has no session there, and every
tool refuses it: the server is never served without the guard.
"""

from __future__ import annotations

import socket
import weakref
from collections.abc import Sequence
from typing import Any

from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..serving import http
from ..serving.opening import Imported
from ..serving.session_tokens import SESSION_KEY, SessionTokens, sessions_guard
from ..serving.shards import SessionCache
from ..serving.tool_host import ToolHost
from ..serving.tools import Tool
from ..storage.targets import local_file
from ..trust.ledger import open_ledger
from . import sdk as sdk_server
from .sdk import Server as MCPServer
from .server import new

__all__ = ["NO_SESSION", "build_many", "many_app", "run_many", "run_tokens_file"]

#: What a tool answers to a request that names no session checked by the guard.
NO_SESSION = ("no session: a server of many users is served behind its token guard "
              "(corollary.mcp.sessions_app, or corollary mcp --tokens-file)")


#: The cache and tokens of each server of many users (what many_app guards it with).
_GUARDED: weakref.WeakKeyDictionary[Any, tuple[SessionCache, SessionTokens]] = (
    weakref.WeakKeyDictionary())


class _CachedHost(ToolHost):
    """A cached session, served for one call: :meth:`SessionCache.session` holds its lock and
    synced it with other writers as it handed it over, so no second sync is needed."""

    def sync(self) -> int:
        return 0


def build_many(cache: SessionCache, tokens: SessionTokens, *, name: str = "corollary",
               model: Any = None) -> MCPServer:
    """The server of many users over ``cache`` (see :func:`corollary.mcp.make_server`)."""
    if not isinstance(cache, SessionCache):
        raise InvalidTypeError(f"make_server serves a BeliefBase or a SessionCache, not "
                               f"{type(cache).__name__}")
    if not isinstance(tokens, SessionTokens):
        tokens = SessionTokens.of(tokens)

    def hosting(ctx: Any, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
        request = getattr(getattr(ctx, "request_context", None), "request", None)
        session = None if request is None else request.scope.get(SESSION_KEY)
        if not isinstance(session, str):
            raise InvalidInputError(NO_SESSION)
        with cache.session(session) as kb:
            return tool.call(_CachedHost(kb, model=model), arguments)

    server = new(name, hosting)
    _GUARDED[server] = (cache, tokens)  # what many_app guards it with
    return server


def many_app(server: MCPServer, *, host: str = "127.0.0.1",
             allowed_hosts: Sequence[str] = ()) -> Any:
    """The ASGI app of a server of many users (:func:`build_many`), behind its token guard:
    mount it in any ASGI server (uvicorn, hypercorn). Its MCP endpoint is
    ``/sessions/<session>/mcp`` (or ``/mcp`` with a ``Corollary-Session`` header)."""
    found = _GUARDED.get(server)
    if found is None:
        raise InvalidTypeError("sessions_app serves a server of many users "
                               "(make_server(SessionCache(...), tokens=...))")
    _, tokens = found
    allowed = http.allowed_names(host, allowed_hosts)
    return sessions_guard(sdk_server.http_app(server, host), tokens=tokens, allowed=allowed)


def run_many(ledger: Any, *, tokens: SessionTokens, host: str, port: int,
             allowed_hosts: Sequence[str] = (), max_sessions: int = 1000,
             model: Any = None, listening: socket.socket | None = None,
             **options: Any) -> None:
    """Serve every session of ``ledger`` (an open ledger) that a token may open, over HTTP on
    ``host:port``, until stopped (``corollary mcp --tokens-file``)."""
    import uvicorn  # the SDK's own dependency

    cache = SessionCache(ledger, max_sessions=max_sessions, **options)
    server = build_many(cache, tokens, model=model)
    app = many_app(server, host=host, allowed_hosts=allowed_hosts)
    sock = http.listen(host, port) if listening is None else listening
    # no access log: a URL names a session (never a token), and a busy server logs nothing
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    with sock:
        uvicorn.Server(config).run(sockets=[sock])


def run_tokens_file(ledger: str | None, *, tokens_file: str, transport: str, host: str,
                    port: int, token_file: str | None, scope: Sequence[str] | None,
                    allowed_hosts: Sequence[str], imported: Imported, model: Any,
                    max_sessions: int) -> None:
    """``corollary mcp --tokens-file``: every session of ``ledger`` (created if new) a token
    may open, over HTTP."""
    if transport != "http" or token_file is not None or scope:
        raise InvalidInputError("--tokens-file serves many users over --transport http; it "
                                "replaces --token-file, and each session is its own scope")
    tokens = SessionTokens.read(tokens_file)
    http.allowed_names(host, allowed_hosts)  # a bad name fails before anything is opened
    listening = http.listen(host, port)
    path = local_file(ledger)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    with open_ledger(ledger) as opened:
        run_many(opened, tokens=tokens, host=host, port=port, allowed_hosts=allowed_hosts,
                 max_sessions=max_sessions, model=model, listening=listening,
                 rules=list(imported.rules), tools=list(imported.tools))

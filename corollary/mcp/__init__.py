"""corollary over the Model Context Protocol: one belief base served to agent frameworks.

:func:`make_server` wraps a base in an MCP server (the SDK's ``MCPServer``) whose tools assert,
claim, retract, record outcomes, explain, list and resolve, and whose resources
``belief://{key}`` and ``proof://{key}`` read one belief. :func:`serve` is ``corollary mcp``: it
serves a session of a ledger, as a journal on SQLite and PostgreSQL (one entry per change,
several servers on one session) or as a snapshot saved after every change, so a killed server
loses nothing it acknowledged. See docs/mcp.md.

The SDK is the optional extra ``mcp`` (``pip install 'corollary[mcp]'``); it is imported only
when a server is made, and its absence raises :class:`~corollary.foundations.errors.MissingExtraError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..foundations.errors import require

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..reasons.rules import Rule
    from ..serving.session_tokens import SessionTokens
    from ..serving.shards import SessionCache

__all__ = ["make_server", "serve", "sessions_app"]

_FEATURE = "corollary's MCP server"


def make_server(kb: BeliefBase | SessionCache, *, session: str | None = None,
                name: str = "corollary", model: Any = None,
                scope: str | Sequence[str] | None = None,
                tokens: SessionTokens | Mapping[str, Any] | None = None) -> Any:
    """An MCP server (``mcp.server.mcpserver.MCPServer``) over ``kb``, or over the sessions of
    a :class:`~corollary.serving.shards.SessionCache` for many users.

    Parameters
    ----------
    kb : BeliefBase or SessionCache
        The base the tools read and change; or a cache of the sessions of one ledger, each
        request's tools then running on the session it names, which its token must be allowed
        to open (``tokens``): serve it over HTTP with :func:`sessions_app`
        (docs/many-users.md). Tool calls may run in worker threads: the server
        serialises them with a lock, so use the base only through the server while it runs.
        A journaled base (:meth:`~corollary.BeliefBase.open_session`) saves each change as one
        journal entry and syncs with the session's other writers before every read and change.
    session : str, optional
        For a base that is not journaled: save ``kb`` under this session id in its ledger's
        store after every change (:meth:`~corollary.BeliefBase.save_session`); a save that
        fails (another writer saved the session meanwhile) is a tool error, and the server
        reloads the stored session.
    name : str
        The server's name, as clients show it.
    model : Model, optional
        What the ``remember`` tool extracts facts with (``kb.remember``); without one the tool
        refuses every call, saying how to configure one.
    scope : str or sequence of str, optional
        Key prefixes the clients are confined to (docs/integrations.md, "Scope"): no tool shows
        or changes a key outside them, and a proof names such an input only as outside.
    tokens : SessionTokens or mapping, optional
        With a SessionCache (and only then): which sessions each bearer token may open,
        ``{token: [session id, or prefix ending in '*', ...]}``
        (:class:`~corollary.serving.session_tokens.SessionTokens`).
    """
    require("mcp.server", "mcp", _FEATURE)
    from ..serving.shards import SessionCache

    if isinstance(kb, SessionCache) or tokens is not None:
        from ..foundations.errors import InvalidInputError
        from .many import build_many

        if tokens is None or session is not None or scope is not None:
            raise InvalidInputError("a server of many users takes tokens (which sessions each "
                                    "may open), and no session or scope")
        return build_many(kb, tokens, name=name, model=model)  # type: ignore[arg-type]
    from .server import build

    return build(kb, session=session, name=name, model=model, scope=scope)


def sessions_app(server: Any, *, host: str = "127.0.0.1",
                 allowed_hosts: Sequence[str] = ()) -> Any:
    """The ASGI app serving a server of many users (``make_server(cache, tokens=...)``) over
    streamable HTTP, behind its tokens: ``/sessions/<id>/mcp`` (or ``/mcp`` with a
    ``Corollary-Session: <id>`` header) serves session ``<id>`` to a bearer token that may open
    it. ``host`` and ``allowed_hosts``: the names requests may give in Host and Origin, as
    ``corollary mcp --allowed-host``. Run it with any ASGI server (uvicorn)."""
    require("mcp.server", "mcp", _FEATURE)
    from .many import many_app

    return many_app(server, host=host, allowed_hosts=allowed_hosts)


def serve(ledger: str | None = None, session: str = "default", transport: str = "stdio",
          host: str = "127.0.0.1", port: int = 8000, *, token_file: str | None = None,
          allowed_hosts: Sequence[str] = (), rules: Sequence[Rule] = (),
          tools: Sequence[Callable[..., Any]] = (), model: Any = None,
          scope: Sequence[str] | None = None, tokens_file: str | None = None,
          max_sessions: int = 1000) -> None:
    """Serve the base saved under ``session`` in ``ledger`` (``corollary mcp``) until the
    client goes away; the session is created if new.

    Parameters
    ----------
    ledger : str, optional
        A ledger path or URL (default: ``$COROLLARY_LEDGER``, else the default ledger path).
    session : str
        The session id.
    transport : {"stdio", "http"}
        stdio (a client starts the server as a child process) or streamable HTTP on
        ``host:port`` (path ``/mcp``).
    token_file : str, optional
        HTTP: a file holding the bearer token every request must carry (default:
        ``$COROLLARY_MCP_TOKEN``; neither: no token, allowed on a loopback ``host`` only).
    allowed_hosts : sequence of str
        HTTP: host names requests may name in ``Host`` and ``Origin``, besides the loopback
        names and ``host`` (the name clients or a reverse proxy use). See docs/mcp.md.
    rules, tools : sequence of @rule and @tool functions
        What the session's base runs (``--import``: what the imported modules define): a new
        session starts with them, and an existing one that lacks some gets them (on a
        journal, one entry each; a snapshot is saved again):
        :func:`corollary.serving.opening.open_to_serve`.
    model : Model, optional
        What the ``remember`` tool extracts facts with (``corollary mcp --model URL``).
    scope : sequence of str, optional
        Key prefixes the server's clients are confined to (``--scope``), as in
        :func:`make_server`.
    tokens_file : str, optional
        HTTP only: serve many users (``--tokens-file``), each request on the session it names,
        if its token may open it; the file maps tokens to sessions (JSON,
        :meth:`SessionTokens.read <corollary.serving.session_tokens.SessionTokens.read>`).
        ``session`` is then unused; at most ``max_sessions`` are open at once.
    """
    require("mcp.server", "mcp", _FEATURE)
    from ..serving.opening import Imported

    imported = Imported(rules=tuple(rules), tools=tuple(tools))
    if tokens_file is not None:
        from .many import run_tokens_file

        run_tokens_file(ledger, tokens_file=tokens_file, transport=transport, host=host,
                        port=port, token_file=token_file, scope=scope,
                        allowed_hosts=allowed_hosts, imported=imported, model=model,
                        max_sessions=max_sessions)
        return
    from .server import run

    run(ledger=ledger, session=session, transport=transport, host=host, port=port,
        token_file=token_file, allowed_hosts=allowed_hosts, imported=imported, model=model,
        scope=scope)

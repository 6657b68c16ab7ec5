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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..foundations.errors import require

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..reasons.rules import Rule

__all__ = ["make_server", "serve"]

_FEATURE = "corollary's MCP server"


def make_server(kb: BeliefBase, *, session: str | None = None, name: str = "corollary",
                model: Any = None, scope: str | Sequence[str] | None = None) -> Any:
    """An MCP server (``mcp.server.mcpserver.MCPServer``) over ``kb``.

    Parameters
    ----------
    kb : BeliefBase
        The base the tools read and change. Tool calls may run in worker threads: the server
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
    """
    require("mcp.server", "mcp", _FEATURE)
    from .server import build

    return build(kb, session=session, name=name, model=model, scope=scope)


def serve(ledger: str | None = None, session: str = "default", transport: str = "stdio",
          host: str = "127.0.0.1", port: int = 8000, *, token_file: str | None = None,
          allowed_hosts: Sequence[str] = (), rules: Sequence[Rule] = (),
          tools: Sequence[Callable[..., Any]] = (), model: Any = None,
          scope: Sequence[str] | None = None) -> None:
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
    """
    require("mcp.server", "mcp", _FEATURE)
    from ..serving.opening import Imported
    from .server import run

    run(ledger=ledger, session=session, transport=transport, host=host, port=port,
        token_file=token_file, allowed_hosts=allowed_hosts,
        imported=Imported(rules=tuple(rules), tools=tuple(tools)), model=model, scope=scope)

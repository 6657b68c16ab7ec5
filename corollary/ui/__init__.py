"""``corollary ui``: a read-only inspector of one base in a browser.

Pages for the beliefs (a sortable, filtered, paginated table and a search through
``kb.recall``), one belief (its proof as a tree, the graph around it, what to check next, its
history), conflicts, faded and expired beliefs, the sources (reliability now and over time,
routing tiers) and the promises, all read through a JSON API under ``/api/`` (docs/ui.md). No
network at run time: the page and its script are files of this package.

Starlette and uvicorn are the optional extra ``ui`` (``pip install 'corollary[ui]'``; the
``mcp`` extra brings them too); they are imported only when an app is made, and their absence
raises :class:`~corollary.foundations.errors.MissingExtraError`.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..foundations.errors import require
from ..serving.http import UI_TOKEN_ENV, allowed_names, check_exposure, listen, read_token
from ..serving.served import ServedBase, log_to_stderr

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

__all__ = ["make_app", "serve"]

_FEATURE = "corollary's browser inspector"


def make_app(kb: BeliefBase | ServedBase, *, token: str | None = None, host: str = "127.0.0.1",
             allowed_hosts: Sequence[str] = ()) -> Any:
    """The inspector over ``kb`` as an ASGI application (serve it with any ASGI server).

    Parameters
    ----------
    kb : BeliefBase or ServedBase
        The base shown (read only; use it through the app only while the app runs), or the
        served base another surface serves too (one lock, one follower).
    token : str, optional
        Every request must carry it (a bearer header, or the cookie the login form at
        ``/login`` sets).
    host : str
        The address served on: its name is allowed in ``Host`` and ``Origin``.
    allowed_hosts : sequence of str
        More host names allowed in ``Host`` and ``Origin`` (a reverse proxy's).
    """
    require("starlette", "ui", _FEATURE)
    from .app import build_app

    return build_app(kb, token=token, allowed=allowed_names(host, allowed_hosts))


def serve(kb: BeliefBase, *, host: str = "127.0.0.1", port: int = 8765,
          token_file: str | None = None, allowed_hosts: Sequence[str] = (),
          open_browser: bool = False, listening: socket.socket | None = None) -> None:
    """Serve the inspector over ``kb`` on ``host:port`` until interrupted (``corollary ui``).

    A ``host`` other than a loopback name needs a token (``token_file``, else
    ``$COROLLARY_UI_TOKEN``: the inspector's own, never the MCP server's write token). A busy
    port is an ``OSError`` (``cannot listen on HOST:PORT: ...``) before anything is printed;
    ``listening``, a socket already bound to ``host:port``, is served instead.
    """
    require("uvicorn", "ui", _FEATURE)
    import uvicorn

    token = read_token(token_file, variable=UI_TOKEN_ENV)
    check_exposure(host, token, UI_TOKEN_ENV)
    if listening is None:
        listening = listen(host, port)
    app = make_app(kb, token=token, host=host, allowed_hosts=allowed_hosts)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"corollary ui: {url}" + (" (log in with its token there)" if token else ""),
          flush=True)
    log_to_stderr("corollary ui")
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()  # once the server listens
    # an open event stream never ends by itself: give streams 2 s to go when stopped
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
    with listening:
        uvicorn.Server(config).run(sockets=[listening])


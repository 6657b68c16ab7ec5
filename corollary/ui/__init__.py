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

import threading
import webbrowser
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..foundations.errors import require
from ..mcp.http import allowed_names, check_exposure, read_token

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

__all__ = ["make_app", "serve"]

_FEATURE = "corollary's browser inspector"


def make_app(kb: BeliefBase, *, token: str | None = None, host: str = "127.0.0.1",
             allowed_hosts: Sequence[str] = ()) -> Any:
    """The inspector over ``kb`` as an ASGI application (serve it with any ASGI server).

    Parameters
    ----------
    kb : BeliefBase
        The base shown (read only; use it through the app only while the app runs).
    token : str, optional
        Every request must carry it (a bearer header, or the cookie ``/?token=`` sets).
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
          open_browser: bool = False) -> None:
    """Serve the inspector over ``kb`` on ``host:port`` until interrupted (``corollary ui``).

    A ``host`` other than a loopback name needs a token (``token_file``, else
    ``$COROLLARY_MCP_TOKEN``), as ``corollary mcp`` does.
    """
    require("uvicorn", "ui", _FEATURE)
    import uvicorn

    token = read_token(token_file)
    check_exposure(host, token)
    app = make_app(kb, token=token, host=host, allowed_hosts=allowed_hosts)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"corollary ui: {url}" + (" (open it with ?token=...)" if token else ""), flush=True)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()  # once the server listens
    # an open event stream never ends by itself: give streams 2 s to go when stopped
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)

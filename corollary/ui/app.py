"""The inspector's web application (Starlette): the page, its static files, the JSON API under
``/api/`` and the server-sent events of ``/api/events`` (docs/ui.md).

Every handler runs on the event loop, one at a time, so the base is never read by two threads.
Requests pass the checks of :mod:`corollary.mcp.http` (``Host`` and ``Origin`` on the allow-list)
and, when the server has a token, carry it: as ``Authorization: Bearer``, or in the cookie a
browser gets by opening ``/?token=...`` once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import math
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..foundations.errors import CorollaryError, UnknownBeliefError, UnknownSourceError
from ..mcp.http import guard
from .views import Inspector

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

__all__ = ["COOKIE", "STATIC", "SYNC_SECONDS", "build_app"]

#: The directory of the page, its script, its style sheet (and their licences).
STATIC = Path(__file__).resolve().parent / "static"
#: The cookie that carries the token after ``/?token=...``.
COOKIE = "corollary_ui_token"
#: How often the server asks the journal for other processes' changes (seconds).
SYNC_SECONDS = 1.0
#: How long changes are gathered into one event (seconds).
_GATHER = 0.1
#: How often an idle event stream says it is alive (seconds).
_HEARTBEAT = 15.0


def _safe(x: Any) -> Any:
    """JSON a browser parses: NaN and infinities as null, anything else plain."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): _safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_safe(v) for v in x]
    if x is None or isinstance(x, (str, int, bool)):
        return x
    return repr(x)


class _Live:
    """Changes to the base, fanned out to every open event stream."""

    def __init__(self, kb: BeliefBase, inspector: Inspector) -> None:
        self.kb = kb
        self.inspector = inspector
        self.queues: set[asyncio.Queue[dict[str, Any]]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.handle: Any = None
        self.available = hasattr(kb, "watch")
        self.pending: set[str] = set()
        self.changes = 0
        self.scheduled = False

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        if self.available:
            self.handle = self.kb.watch(self._changed)  # type: ignore[attr-defined]

    def stop(self) -> None:
        for name in ("close", "cancel", "stop"):
            method = getattr(self.handle, name, None)
            if callable(method):
                method()
                break

    def _changed(self, *args: Any, **kwargs: Any) -> None:
        """The journal's watch callback (one call per changed value): keep its key."""
        keys: list[str] = []
        for item in args:
            for entry in item if isinstance(item, (list, tuple, set)) else [item]:
                key = entry if isinstance(entry, str) else getattr(entry, "key", None)
                if isinstance(key, str):
                    keys.append(key)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._publish, keys)

    def _publish(self, keys: list[str]) -> None:
        """Gather changes for :data:`_GATHER` seconds, then send one event (a bulk change of
        many beliefs is one event, not one per belief)."""
        self.inspector.dirty = True
        self.pending.update(keys)
        self.changes += 1
        if not self.scheduled and self.loop is not None:
            self.scheduled = True
            self.loop.call_later(_GATHER, self._flush)

    def _flush(self) -> None:
        event = {"keys": sorted(self.pending)[:100], "changes": self.changes}
        self.pending.clear()
        self.changes = 0
        self.scheduled = False
        for q in list(self.queues):
            q.put_nowait(event)

    async def sync_forever(self) -> None:
        """Pick up other processes' changes (``kb.sync()``) every :data:`SYNC_SECONDS`."""
        sync: Callable[[], Any] | None = getattr(self.kb, "sync", None)
        if sync is None or not self.available:
            return
        while True:
            await asyncio.sleep(SYNC_SECONDS)
            with contextlib.suppress(CorollaryError, OSError):
                sync()


def build_app(kb: BeliefBase, *, token: str | None = None,
              allowed: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1"})) -> Any:
    """The inspector over ``kb`` as an ASGI application (Starlette behind the checks of
    :func:`corollary.mcp.http.guard`)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import (
        FileResponse,
        JSONResponse,
        RedirectResponse,
        Response,
        StreamingResponse,
    )
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    inspector = Inspector(kb)
    live = _Live(kb, inspector)

    def reply(data: Any) -> Response:
        return Response(json.dumps(_safe(data), allow_nan=False), media_type="application/json",
                        headers={"cache-control": "no-store"})

    def refused(exc: Exception) -> Response:
        status = 404 if isinstance(exc, (UnknownBeliefError, UnknownSourceError)) else 400
        return JSONResponse({"error": str(exc)}, status_code=status)

    def api(read: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                return reply(read(request))
            except (CorollaryError, ValueError, KeyError) as exc:
                return refused(exc)
        return endpoint

    def text(request: Request, name: str) -> str | None:
        value = request.query_params.get(name)
        return value if value else None

    def number(request: Request, name: str, default: float | None = None) -> float | None:
        value = request.query_params.get(name)
        if value is None or value == "":
            return default
        found = float(value)
        if not math.isfinite(found):
            raise ValueError(f"{name} must be a finite number")
        return found

    def beliefs(request: Request) -> Any:
        return inspector.beliefs(
            sort=request.query_params.get("sort", "key"),
            descending=request.query_params.get("order") == "desc",
            label=text(request, "label"), source=text(request, "source"),
            kind=text(request, "kind"),
            min_confidence=number(request, "min_confidence"),
            max_confidence=number(request, "max_confidence"),
            offset=int(number(request, "offset", 0) or 0),
            limit=int(number(request, "limit", 50) or 50), q=text(request, "q"))

    def required(request: Request, name: str) -> str:
        value = request.query_params.get(name)
        if not value:
            raise ValueError(f"give ?{name}=")
        return value

    async def events(request: Request) -> Response:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        live.queues.add(queue)

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 2000\n"
                yield f"event: hello\ndata: {json.dumps({'live': live.available})}\n\n"
                while True:
                    try:
                        event = await asyncio.wait_for(queue.get(), _HEARTBEAT)
                    except asyncio.TimeoutError:
                        yield ": alive\n\n"
                        continue
                    yield f"event: change\ndata: {json.dumps(_safe(event))}\n\n"
            finally:
                live.queues.discard(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    async def index(request: Request) -> Response:
        if token is not None and request.query_params.get("token"):
            page = RedirectResponse("/", status_code=303)
            page.set_cookie(COOKIE, request.query_params["token"], httponly=True,
                            samesite="strict")
            return page
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        inspector.table()  # read the beliefs before the first request (a big base: seconds)
        live.start()
        task = asyncio.create_task(live.sync_forever())
        try:
            yield
        finally:
            task.cancel()
            live.stop()

    routes = [
        Route("/", index),
        Route("/api/summary", api(lambda r: inspector.summary())),
        Route("/api/beliefs", api(beliefs)),
        Route("/api/belief", api(lambda r: inspector.belief(required(r, "key")))),
        Route("/api/problems", api(lambda r: inspector.problems(number(r, "threshold")))),
        Route("/api/sources", api(lambda r: inspector.sources())),
        Route("/api/source", api(lambda r: inspector.source(required(r, "name")))),
        Route("/api/promises", api(lambda r: inspector.promises())),
        Route("/api/history", api(lambda r: {"history": inspector.history(text(r, "key"))})),
        Route("/api/events", events),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return guard(_token_check(app, token), token=None, allowed=allowed)


def _token_check(app: Any, token: str | None) -> Any:
    """``app`` behind the token (header, cookie, or ``/?token=`` that sets the cookie)."""
    if token is None:
        return app
    expected = token.encode()

    def matches(given: str) -> bool:
        return hmac.compare_digest(given.strip().encode("latin-1", "replace"), expected)

    async def checked(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        scheme, _, given = headers.get("authorization", "").partition(" ")
        ok = scheme.lower() == "bearer" and matches(given)
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            ok = ok or (name == COOKIE and matches(value))
        if not ok and scope.get("path") == "/":
            from urllib.parse import parse_qs

            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            ok = any(matches(v) for v in query.get("token", []))
        if ok:
            await app(scope, receive, send)
            return
        body = b"a token is required: open /?token=... once, or send Authorization: Bearer\n"
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})

    return checked

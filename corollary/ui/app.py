"""The inspector's web application (Starlette): the page, its static files, the JSON API under
``/api/`` and the server-sent events of ``/api/events`` (docs/ui.md).

The base is a :class:`~corollary.serving.ServedBase`: the API reads it in a worker thread under
its lock (a big answer never holds up the event loop, so ``/api/summary`` and the event
stream keep answering), and a follower applies other writers' entries as they come. When it
cannot, the summary says ``"live": false`` with ``"not_live": reason``, the page shows
"not live: <reason>", and the reason is logged. Requests pass the checks of
:mod:`corollary.serving.http` (``Host`` and ``Origin`` on the allow-list) and, when the server
has a token, carry it: as ``Authorization: Bearer``, or in the cookie a browser gets from the
login form (``/login``; the token never goes in a URL).
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
from urllib.parse import parse_qs

from ..foundations.errors import CorollaryError, UnknownBeliefError, UnknownSourceError
from ..serving.http import guard
from ..serving.served import ServedBase
from .views import HISTORY_PAGE, SOURCES_PAGE, Inspector

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

__all__ = ["COOKIE", "QUEUE_MOST", "STATIC", "SYNC_SECONDS", "build_app"]

#: The directory of the page, its script, its style sheet (and their licences).
STATIC = Path(__file__).resolve().parent / "static"
#: The cookie that carries the token after the login form.
COOKIE = "corollary_ui_token"
#: How long the follower waits for other processes' changes between looks (seconds).
SYNC_SECONDS = 1.0
#: How many events an event stream may have unread before its client is dropped (it
#: reconnects, and reads the pages again).
QUEUE_MOST = 64
#: How long changes are gathered into one event (seconds).
_GATHER = 0.1
#: How often an idle event stream says it is alive (seconds).
_HEARTBEAT = 15.0
#: What a dropped client's queue holds: the stream ends.
_DROPPED: dict[str, Any] = {}
#: The paths open without the token: the login form, and what it is drawn with.
_OPEN_PATHS = ("/login", "/static/login.js", "/static/app.css")


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
    """Changes to the base (``watch``) and whether it is live, fanned out to every open event
    stream; the follower that applies other writers' entries."""

    def __init__(self, served: ServedBase, inspector: Inspector) -> None:
        self.served = served
        self.inspector = inspector
        self.queues: set[asyncio.Queue[dict[str, Any]]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.handle: Any = None
        self.pending: set[str] = set()
        self.changes = 0
        self.scheduled = False
        self.shown: str | None = None  # the not-live reason the streams were last told

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.handle = self.served.watch(self._changed)

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.stop()

    def _changed(self, event: Any) -> None:
        """The journal's watch callback (one call per changed value): keep its key."""
        key = getattr(event, "key", None)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._publish, [key] if isinstance(key, str) else [])

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
        self.send(event)

    def send(self, event: dict[str, Any]) -> None:
        """Queue ``event`` for every stream; a client that has not read :data:`QUEUE_MOST`
        events is dropped (its stream ends; the browser reconnects)."""
        for q in list(self.queues):
            try:
                q.put_nowait(event)
            except asyncio.QueueFull:
                self.queues.discard(q)
                while not q.empty():
                    q.get_nowait()
                q.put_nowait(_DROPPED)

    def status(self) -> dict[str, Any]:
        return {"live": self.served.live, "not_live": self.served.not_live}

    async def follow_forever(self) -> None:
        """Apply other processes' changes as they come (woken by the store, or every
        :data:`SYNC_SECONDS`), and tell the streams when the base stops or starts being live."""
        if not self.served.journaled:
            return
        while True:
            await asyncio.to_thread(self.served.follow, SYNC_SECONDS)
            if self.served.not_live != self.shown:
                self.shown = self.served.not_live
                self.inspector.dirty = True
                self.send({"keys": [], "changes": 0, **self.status()})


def build_app(kb: BeliefBase | ServedBase, *, token: str | None = None,
              allowed: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1"})) -> Any:
    """The inspector over ``kb`` as an ASGI application (Starlette behind the checks of
    :func:`corollary.serving.http.guard`)."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    served = kb if isinstance(kb, ServedBase) else ServedBase(kb)
    inspector = Inspector(served.kb)
    live = _Live(served, inspector)

    async def index(request: Any) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        inspector.table()  # read the beliefs before the first request (a big base: seconds)
        live.start()
        task = asyncio.create_task(live.follow_forever())
        try:
            yield
        finally:
            served.stop()
            task.cancel()
            live.stop()

    routes = [Route("/", index), *_api_routes(served, inspector, live),
              Route("/api/events", _events(live)), *_login_routes(token),
              Mount("/static", app=StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, lifespan=lifespan)
    return guard(_token_check(app, token), token=None, allowed=allowed)


def _reply(data: Any) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(_safe(data), allow_nan=False), media_type="application/json",
                    headers={"cache-control": "no-store"})


def _refused(exc: Exception) -> Any:
    from starlette.responses import JSONResponse

    status = 404 if isinstance(exc, (UnknownBeliefError, UnknownSourceError)) else 400
    return JSONResponse({"error": str(exc)}, status_code=status)


def _text(request: Any, name: str) -> str | None:
    value = request.query_params.get(name)
    return value if value else None


def _number(request: Any, name: str, default: float | None = None) -> float | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    found = float(value)
    if not math.isfinite(found):
        raise ValueError(f"{name} must be a finite number")
    return found


def _whole(request: Any, name: str, default: int) -> int:
    return int(_number(request, name, default) or 0)


def _required(request: Any, name: str) -> str:
    value = request.query_params.get(name)
    if not value:
        raise ValueError(f"give ?{name}=")
    return value


def _api_routes(served: ServedBase, inspector: Inspector, live: _Live) -> list[Any]:
    """The JSON API: each answer read in a worker thread, under the served base's lock."""
    from starlette.routing import Route

    def api(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def locked(request: Any) -> Any:
            with served.lock:
                return read(request)

        async def endpoint(request: Any) -> Any:
            try:
                return _reply(await asyncio.to_thread(locked, request))
            except (CorollaryError, ValueError, KeyError) as exc:
                return _refused(exc)
        return endpoint

    def beliefs(r: Any) -> Any:
        return inspector.beliefs(
            sort=r.query_params.get("sort", "key"), descending=r.query_params.get("order")
            == "desc", label=_text(r, "label"), source=_text(r, "source"),
            kind=_text(r, "kind"), min_confidence=_number(r, "min_confidence"),
            max_confidence=_number(r, "max_confidence"), offset=_whole(r, "offset", 0),
            limit=_whole(r, "limit", 50), q=_text(r, "q"))

    def history(r: Any) -> Any:
        before = _number(r, "before")
        return inspector.history_page(_text(r, "key"), limit=_whole(r, "limit", HISTORY_PAGE),
                                      before=None if before is None else int(before))

    return [
        Route("/api/summary", api(lambda r: {**inspector.summary(), **live.status()})),
        Route("/api/beliefs", api(beliefs)),
        Route("/api/belief", api(lambda r: inspector.belief(_required(r, "key")))),
        Route("/api/problems", api(lambda r: inspector.problems(_number(r, "threshold")))),
        Route("/api/sources", api(lambda r: inspector.sources(
            offset=_whole(r, "offset", 0), limit=_whole(r, "limit", SOURCES_PAGE)))),
        Route("/api/source", api(lambda r: inspector.source(_required(r, "name")))),
        Route("/api/promises", api(lambda r: inspector.promises())),
        Route("/api/history", api(history)),
    ]


def _events(live: _Live) -> Callable[[Any], Any]:
    """``/api/events``: server-sent events, one queue of at most :data:`QUEUE_MOST` a client."""
    from starlette.responses import StreamingResponse

    async def events(request: Any) -> Any:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(QUEUE_MOST)
        live.queues.add(queue)

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 2000\n"
                yield f"event: hello\ndata: {json.dumps(_safe(live.status()))}\n\n"
                while True:
                    try:
                        event = await asyncio.wait_for(queue.get(), _HEARTBEAT)
                    except asyncio.TimeoutError:
                        yield ": alive\n\n"
                        continue
                    if event is _DROPPED:  # it read too slowly: it reconnects and reloads
                        return
                    yield f"event: change\ndata: {json.dumps(_safe(event))}\n\n"
            finally:
                live.queues.discard(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    return events


def _login_routes(token: str | None) -> list[Any]:
    """``/login``: a form that takes the token and sets the cookie (a POST: the token is never
    in a URL, so never in browser history or a proxy's log)."""
    from starlette.responses import FileResponse, RedirectResponse, Response
    from starlette.routing import Route

    async def form(request: Any) -> Response:
        return FileResponse(STATIC / "login.html", headers={"cache-control": "no-store"})

    async def login(request: Any) -> Response:
        given = parse_qs((await request.body()).decode("utf-8", "replace")).get("token", [""])
        if token is None or not _matches(given[0], token.encode()):
            return Response("wrong token: go back and try again\n", status_code=401,
                            media_type="text/plain")
        page = RedirectResponse("/", status_code=303)
        page.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return page

    return [Route("/login", form, methods=["GET"]), Route("/login", login, methods=["POST"])]


def _matches(given: str, expected: bytes) -> bool:
    return hmac.compare_digest(given.strip().encode("latin-1", "replace"), expected)


def _token_check(app: Any, token: str | None) -> Any:
    """``app`` behind the token (a bearer header, or the cookie the login form sets); a
    browser without it is sent to the form."""
    if token is None:
        return app
    expected = token.encode()

    async def checked(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") in _OPEN_PATHS:
            await app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        scheme, _, given = headers.get("authorization", "").partition(" ")
        ok = scheme.lower() == "bearer" and _matches(given, expected)
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            ok = ok or (name == COOKIE and _matches(value, expected))
        if ok:
            await app(scope, receive, send)
            return
        if scope.get("path") == "/":  # a browser: to the form
            await send({"type": "http.response.start", "status": 303, "headers": [
                (b"location", b"/login"), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b"a token is required: log in at /login, or send Authorization: Bearer\n"
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})

    return checked

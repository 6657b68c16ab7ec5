"""The MCP SDK's server API, from either major version it comes in (imports the SDK).

``corollary[mcp]`` takes ``mcp>=1.24,<3``: mcp 2 (``mcp.server.mcpserver.MCPServer``) and
mcp 1.24 and later (``mcp.server.fastmcp.FastMCP``, the same server before its rename), so the
server installs beside frameworks that still pin ``mcp<2`` (langchain-mcp-adapters 0.3.2,
pydantic-ai's FastMCP 3 client). The tools, their schemas and their answers are the same on
both; what differs is said here once:

- mcp 2 checks resource-template parameters as paths (``..``, ``/``, ``x:y``); keys are not
  paths, so ``key`` is exempted. mcp 1 has no such check.
- mcp 2 unquotes a resource URI's parameters (``belief://a%2Fb`` reads key ``a/b``); mcp 1
  passes them as sent, so they are unquoted here.
- mcp 2 says "resource not found" (JSON-RPC ``-32602``) for an unknown key; mcp 1 has one
  resource error for every failure, with corollary's message.
- The HTTP app's DNS-rebinding check is turned off on both (:mod:`corollary.serving.http` checks
  Host and Origin on every address instead): an argument of ``streamable_http_app`` in mcp 2,
  a server setting in mcp 1.
- Resource updates: mcp 2 has ``subscriptions/listen`` (a client listens to URIs on a stream;
  the server publishes ``ResourceUpdated`` on its subscription bus); mcp 1 has
  ``resources/subscribe`` and ``resources/unsubscribe`` (the server sends
  ``notifications/resources/updated`` on each subscribed session). mcp 1 runs sync tools on the
  event loop's thread, mcp 2 in worker threads: :func:`resource_updates` sends from either.
  mcp 1 does not advertise ``subscribe`` among the server's capabilities (its SDK always says
  ``False``); clients that subscribe anyway are answered and told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, suppress
from typing import Any
from urllib.parse import unquote

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations

try:  # mcp 2
    from mcp.server.mcpserver import Context, ResourceSecurity
    from mcp.server.mcpserver import MCPServer as Server
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
    from mcp.shared.subscriptions import ResourceUpdated

    MAJOR = 2
except ImportError:  # mcp 1.24 and later
    from mcp.server.fastmcp import Context  # type: ignore[no-redef,attr-defined]
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef,attr-defined]
    from mcp.server.fastmcp.exceptions import (  # type: ignore[no-redef,assignment]
        ResourceError,
        ToolError,
    )
    from mcp.server.fastmcp.utilities.func_metadata import (  # type: ignore[no-redef,assignment]
        FuncMetadata,
    )

    ResourceNotFoundError = ResourceError  # type: ignore[misc,assignment]
    ResourceSecurity = None  # type: ignore[misc,assignment]
    ResourceUpdated = None  # type: ignore[misc,assignment]
    MAJOR = 1

__all__ = ["MAJOR", "Context", "FuncMetadata", "ResourceError", "ResourceNotFoundError", "Server",
           "ToolError", "http_app", "new_server", "resource_key", "resource_options",
           "resource_updates", "tool_hints"]

#: Lifespan of a server: entered while it runs (once for stdio; mcp 1 enters it once per
#: streamable-HTTP session, mcp 2 once for the app).
Lifespan = Callable[[Any], AbstractAsyncContextManager[Any]]


def new_server(name: str, *, instructions: str, version: str,
               lifespan: Lifespan | None = None) -> Any:
    """The SDK's high-level server, logging at WARNING (stdout belongs to stdio), running
    ``lifespan`` (if given) while it serves."""
    if MAJOR == 2:
        return Server(name, instructions=instructions, version=version, log_level="WARNING",
                      lifespan=lifespan)
    server: Any = Server(name, instructions=instructions, log_level="WARNING",
                         lifespan=lifespan)
    server._mcp_server.version = version  # mcp 1 takes no version; clients read it here
    return server


def tool_hints(**hints: bool) -> ToolAnnotations:
    """Tool annotations by their wire names, ``readOnlyHint=True`` (mcp 1 names its fields so;
    mcp 2 names them ``read_only_hint`` and takes the wire names as aliases)."""
    return ToolAnnotations.model_validate(hints)


def resource_options(*params: str) -> dict[str, Any]:
    """Keyword arguments of ``server.resource`` taking ``params`` as they are, not as paths."""
    if ResourceSecurity is None:
        return {}
    return {"security": ResourceSecurity(exempt_params=set(params))}


def resource_key(param: str) -> str:
    """A key read from a resource URI (``belief://{key}``), which clients percent-quote: mcp 2
    unquotes template parameters, mcp 1 passes them as sent."""
    return unquote(param) if MAJOR == 1 else param


def http_app(server: Any, host: str) -> Any:
    """The server's streamable-HTTP ASGI app at ``/mcp``, without the SDK's own Host/Origin
    check (on for loopback names only, with a list of its own)."""
    off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    if MAJOR == 2:
        return server.streamable_http_app(transport_security=off, host=host)
    server.settings.transport_security = off
    server.settings.host = host
    return server.streamable_http_app()


def resource_updates(server: Any, listening: Callable[[Sequence[str], int], None]
                     ) -> Callable[[str], None]:
    """Serve clients' subscriptions to resources; return ``updated(uri)``, which tells those
    listening to ``uri`` that it changed (from a worker thread or the event loop's thread;
    without a running server it does nothing).

    ``listening(uris, n)`` is called in a worker thread when clients start (``n = 1``) or stop
    (``n = -1``) listening to ``uris`` (URIs unquoted), so the server can watch what is
    listened to only.
    """
    if MAJOR == 2:
        return _listen_v2(server, listening)
    return _subscribe_v1(server, listening)


def _listen_v2(server: Any, listening: Callable[[Sequence[str], int], None]
               ) -> Callable[[str], None]:
    bus = server._subscriptions  # no public way to reach it outside a request
    # the SDK's listen handler runs for as long as the client's stream is open: wrapped, it
    # counts the URIs listened to (no public way to wrap one)
    handlers = server._lowlevel_server._request_handlers
    entry = handlers.get("subscriptions/listen")
    if entry is not None:
        inner = entry.handler

        async def counting(ctx: Any, params: Any) -> Any:
            wanted = getattr(params.notifications, "resource_subscriptions", None) or ()
            uris = [unquote(str(u)) for u in wanted]
            await anyio.to_thread.run_sync(listening, uris, 1)
            try:
                return await inner(ctx, params)
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(listening, uris, -1)

        handlers["subscriptions/listen"] = type(entry)(entry.params_type, counting)

    def updated(uri: str) -> None:
        with suppress(RuntimeError):  # not in an anyio worker thread: nobody to tell
            anyio.from_thread.run(bus.publish, ResourceUpdated(uri=uri))

    return updated


def _subscribe_v1(server: Any, listening: Callable[[Sequence[str], int], None]
                  ) -> Callable[[str], None]:
    lowlevel = server._mcp_server
    subscribed: dict[Any, dict[str, Any]] = {}  # session -> {unquoted URI: URI as sent}
    pending: set[asyncio.Task[None]] = set()  # sends started from the loop's thread

    @lowlevel.subscribe_resource()  # type: ignore[untyped-decorator,unused-ignore]
    async def subscribe(uri: Any) -> None:
        session = lowlevel.request_context.session
        key = unquote(str(uri))
        if key not in subscribed.setdefault(session, {}):
            subscribed[session][key] = uri
            await anyio.to_thread.run_sync(listening, [key], 1)

    @lowlevel.unsubscribe_resource()  # type: ignore[untyped-decorator,unused-ignore]
    async def unsubscribe(uri: Any) -> None:
        key = unquote(str(uri))
        if subscribed.get(lowlevel.request_context.session, {}).pop(key, None) is not None:
            await anyio.to_thread.run_sync(listening, [key], -1)

    async def send(uri: str) -> None:
        key = unquote(uri)
        for session, uris in list(subscribed.items()):
            if key in uris:
                try:
                    await session.send_resource_updated(uris[key])
                except Exception:  # noqa: BLE001 - the session is gone: forget what it listened to
                    gone = list(subscribed.pop(session, {}))
                    await anyio.to_thread.run_sync(listening, gone, -1)

    def updated(uri: str) -> None:
        if not any(unquote(uri) in uris for uris in subscribed.values()):
            return
        try:
            anyio.from_thread.run(send, uri)  # from a worker thread
        except RuntimeError:  # on the event loop's thread (mcp 1 runs sync tools there)
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no server running: nobody to tell
            task = loop.create_task(send(uri))
            pending.add(task)
            task.add_done_callback(pending.discard)

    return updated

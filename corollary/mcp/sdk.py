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
- The HTTP app's DNS-rebinding check is turned off on both (:mod:`corollary.mcp.http` checks
  Host and Origin on every address instead): an argument of ``streamable_http_app`` in mcp 2,
  a server setting in mcp 1.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations

try:  # mcp 2
    from mcp.server.mcpserver import MCPServer as Server
    from mcp.server.mcpserver import ResourceSecurity
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    MAJOR = 2
except ImportError:  # mcp 1.24 and later
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
    MAJOR = 1

__all__ = ["MAJOR", "FuncMetadata", "ResourceError", "ResourceNotFoundError", "Server",
           "ToolError", "http_app", "new_server", "resource_key", "resource_options", "tool_hints"]


def new_server(name: str, *, instructions: str, version: str) -> Any:
    """The SDK's high-level server, logging at WARNING (stdout belongs to stdio)."""
    if MAJOR == 2:
        return Server(name, instructions=instructions, version=version, log_level="WARNING")
    server: Any = Server(name, instructions=instructions, log_level="WARNING")
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

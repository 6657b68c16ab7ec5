"""Serving one base to many callers, for every surface (``corollary mcp``, ``corollary ui``,
the CLI): :class:`~corollary.serving.served.ServedBase` (the lock, following other writers,
saving, whether the base is live) and :mod:`corollary.serving.http` (the HTTP guard, tokens,
a listening socket), and :mod:`corollary.serving.opening` (which base a session is served
as: its journal, or a whole snapshot). Nothing here imports a web framework or the MCP SDK."""

from __future__ import annotations

from .served import LOG, NotLive, ServedBase, Unsaved, log_to_stderr

__all__ = ["LOG", "NotLive", "ServedBase", "Unsaved", "log_to_stderr"]

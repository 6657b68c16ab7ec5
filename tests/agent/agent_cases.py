"""Tools and scripted replies shared by the agent tests: the worked analysis is the one
examples/agent_offline.py runs (its tool and its model's replies)."""

from __future__ import annotations

from typing import Any

from agent_offline import SCRIPT, revenue

from corollary import ToolCall
from corollary.models import Reply

__all__ = ["call", "calls", "revenue", "state", "worked_script"]


def state(kb: Any) -> dict[str, Any]:
    """The base as plain data, without the time the snapshot was taken."""
    data: dict[str, Any] = kb.to_dict()
    del data["taken_at"]
    return data


def call(name: str, arguments: dict[str, Any] | None = None, id: str | None = None) -> ToolCall:
    return ToolCall(id or f"call_{name}_{len(str(arguments))}", name, arguments or {})


def calls(*items: ToolCall, text: str | None = None) -> Reply:
    return Reply(text, list(items))


def worked_script() -> list[Reply]:
    """The worked analysis of docs/model.md, as a model would run it."""
    return list(SCRIPT)

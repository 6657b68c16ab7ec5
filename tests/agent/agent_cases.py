"""Tools and scripted replies shared by the agent tests."""

from __future__ import annotations

from typing import Any

from corollary import ToolCall, tool
from corollary.models import Reply

CALLS: list[tuple[str, Any]] = []


def state(kb: Any) -> dict[str, Any]:
    """The base as plain data, without the time the snapshot was taken."""
    data: dict[str, Any] = kb.to_dict()
    del data["taken_at"]
    return data


@tool(trust="high", key="revenue:{quarter}")
def revenue(quarter: str) -> float:
    """Quarterly revenue in $M, from the filings database.

    Parameters
    ----------
    quarter : str
        The quarter, e.g. Q2.
    """
    CALLS.append(("revenue", quarter))
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


def call(name: str, arguments: dict[str, Any] | None = None, id: str | None = None) -> ToolCall:
    return ToolCall(id or f"call_{name}_{len(str(arguments))}", name, arguments or {})


def calls(*items: ToolCall, text: str | None = None) -> Reply:
    return Reply(text, list(items))


def worked_script() -> list[Reply]:
    """The worked analysis of docs/model.md, as a model would run it."""
    return [
        calls(call("revenue", {"quarter": "Q2"}, "c1"), call("revenue", {"quarter": "Q3"}, "c2")),
        calls(call("claim", {"key": "growth", "value": 0.1, "formula": "(q3 - q2) / q2",
                             "inputs": {"q2": "revenue:Q2", "q3": "revenue:Q3"}}, "c3")),
        calls(call("claim", {"key": "trend", "value": "up", "inputs": ["growth"]}, "c4")),
        calls(call("answer", {"value": "revenue is growing",
                              "inputs": ["revenue:Q3", "trend"]}, "c5")),
    ]

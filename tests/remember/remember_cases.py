"""Helpers of the remember tests: a fact, and a reply calling ``facts`` with some."""

from __future__ import annotations

from typing import Any

from corollary.models import Reply, ToolCall


def fact(subject: str, attribute: str, value: Any, quote: str, **more: Any) -> dict[str, Any]:
    return {"subject": subject, "attribute": attribute, "value": value, "quote": quote, **more}


def facts(*items: Any) -> Reply:
    return Reply(None, [ToolCall("c1", "facts", {"facts": list(items)})])


"""Helpers of the remember tests: a fact, and a reply calling ``facts`` with some (as a\nReply, and as a server sends it)."""

from __future__ import annotations

import json
from typing import Any

from model_server import completion

from corollary.models import Reply, ToolCall


def fact(subject: str, attribute: str, value: Any, quote: str, **more: Any) -> dict[str, Any]:
    return {"subject": subject, "attribute": attribute, "value": value, "quote": quote, **more}


def facts(*items: Any) -> Reply:
    return Reply(None, [ToolCall("c1", "facts", {"facts": list(items)})])


def wire_facts(*items: object) -> dict[str, object]:
    """A chat completion calling ``facts`` with ``items``, as a server sends it."""
    return completion(None, [{"id": "c1", "type": "function", "function": {
        "name": "facts", "arguments": json.dumps({"facts": list(items)})}}], finish="tool_calls")

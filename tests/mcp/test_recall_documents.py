"""Issue 35 item 4 on the MCP server and the native toolsets: a recalled transcript says which
facts it states and whether each holds, so that a client never reads a superseded statement as
held (docs/recall.md, "Facts before the documents they came from")."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

try:
    from mcp import Client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary.integrations.operations import Operations  # noqa: E402
from corollary.mcp import make_server  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recall"))
from test_documents import ann_moves  # noqa: E402


def test_the_recall_tool_puts_the_fact_first_and_marks_each_transcript() -> None:
    server = make_server(ann_moves())

    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            where = await client.call_tool("recall", {"query": "where does Ann live"})
            said = await client.call_tool("recall", {"query": "what did Ann say in the chat"})
            return where.structured_content["beliefs"], said.structured_content["beliefs"]

    where, said = asyncio.run(go())
    assert [(b["key"], b["value"], b["source_of"]) for b in where] == [
        ("ann:city", "Nantes", [])]
    assert said[0]["value"] == "Nantes"
    (paris,) = [b for b in said if b["value"] == "I live in Paris now."]
    assert paris["source_of"] == [{"key": "ann:city", "value": "Paris", "held": False}]


def test_the_toolsets_recall_marks_each_transcript() -> None:
    ops = Operations(ann_moves())
    assert [b["key"] for b in ops.recall("where does Ann live")["beliefs"]] == ["ann:city"]
    said = ops.recall("what did Ann say in the chat")["beliefs"]
    (paris,) = [b for b in said if b["value"] == "I live in Paris now."]
    assert paris["source_of"] == [{"key": "ann:city", "value": "Paris", "held": False}]
    assert said[0]["source_of"] == []  # the fact itself states nothing of its own

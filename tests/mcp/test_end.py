"""Issue 35, item 1: the MCP server's ``end`` tool ends a fact (``kb.end``): the key then holds
nothing, an earlier time still reads the value, the proof says who ended it and why, and
``retract`` stays "it was never right". Before, the server had no way to say a fact stopped
holding: retracting the newest value brought the older one back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

try:
    from mcp import Client
    from mcp.types import CallToolResult
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary import BeliefBase, ManualClock, PreferNewer  # noqa: E402
from corollary.mcp import make_server  # noqa: E402

KEY = "customer:42:address"


def call(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def moved() -> BeliefBase:
    """Oak St from 2024-01-02 (a tool, 0.95), Pine Ave from 2025-03-02 (a document, 0.9)."""
    kb = BeliefBase(clock=ManualClock(1_780_000_000.0), conflict_policy=PreferNewer())
    kb.assert_(KEY, "Oak St", source="tool:crm", valid_from=1_704_153_600.0)
    kb.assert_(KEY, "Pine Ave", source="document:email", valid_from=1_740_873_600.0)
    return kb


def test_end_leaves_nothing_held_and_never_brings_back_the_older_value() -> None:
    kb = moved()

    async def body(client: Client) -> Any:
        ended: CallToolResult = await client.call_tool("end", {
            "key": KEY, "source": "human:ann", "at": "2026-03-01",
            "reason": "I moved abroad"})
        belief = await client.call_tool("belief", {"key": KEY})
        proof = await client.call_tool("explain", {"key": KEY})
        found = await client.call_tool("recall", {"query": "customer 42 address", "k": 5})
        return ended.structured_content, belief.structured_content, proof.structured_content, \
            found.structured_content

    ended, belief, proof, found = call(make_server(kb), body)
    assert (ended["value"], ended["label"], ended["confidence"]) == (None, "OUT", 0.0)
    assert (belief["value"], belief["label"]) == (None, "OUT")
    assert proof["text"].splitlines()[0] == (
        f"{KEY} ended at 2026-03-01 by human:ann ('I moved abroad') [IN 0.99]")
    assert found["beliefs"] == []
    assert kb.value(KEY) is None and kb.at(1_760_000_000.0).value(KEY) == "Pine Ave"


def test_end_of_a_value_that_does_not_hold_then_is_a_tool_error_and_changes_nothing() -> None:
    kb = moved()
    before = kb.to_dict()

    async def body(client: Client) -> Any:
        return await client.call_tool("end", {"key": KEY, "value": "Oak St",
                                              "source": "human:ann", "at": "2026-03-01"})

    result = call(make_server(kb), body)
    assert result.is_error is True and "does not hold" in result.content[0].text
    assert kb.to_dict() == before


def test_retract_stays_withdrawal_and_end_is_told_apart_in_the_instructions() -> None:
    from corollary.agent.prompts import MCP_INSTRUCTIONS

    assert "end it; when it turns out wrong, retract it" in MCP_INSTRUCTIONS

    async def body(client: Client) -> Any:
        return {t.name: t.description for t in (await client.list_tools()).tools}

    described = call(make_server(moved()), body)
    assert "never right" in described["retract"] and "no longer holds" in described["end"]

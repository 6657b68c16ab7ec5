"""The MCP tool ``depend`` (issue 37, item 1: dependencies and declared replacements available
from MCP): one tool, ``on`` for a dependency, ``if_changes`` for a declared replacement, inside
the server's scope; a change of the root made through ``assert_fact`` ripples."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

try:
    from mcp import Client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary import BeliefBase, ManualClock, PreferNewer  # noqa: E402
from corollary.mcp import make_server  # noqa: E402


def call(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def ann() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("user:ann:condition", "asthma", source="human:ann", valid_from=100)
    kb.assert_("user:ann:exercise", "running", source="human:ann", valid_from=101)
    return kb


def test_depend_declares_both_and_a_change_of_the_root_ripples() -> None:
    kb = ann()

    async def body(client: Client) -> Any:
        rests = await client.call_tool("depend", {
            "key": "user:ann:medication", "value": "inhaler", "source": "model:agent",
            "on": ["user:ann:condition"]})
        waits = await client.call_tool("depend", {
            "key": "user:ann:exercise", "value": "cycling", "source": "model:agent",
            "if_changes": "user:ann:condition"})
        await client.call_tool("assert_fact", {"key": "user:ann:condition", "value": "none",
                                               "source": "human:ann", "valid_from": 500})
        medication = await client.call_tool("belief", {"key": "user:ann:medication"})
        exercise = await client.call_tool("explain", {"key": "user:ann:exercise"})
        return (rests.structured_content, waits.structured_content,
                medication.structured_content, exercise.structured_content)

    rests, waits, medication, exercise = call(make_server(kb), body)
    assert (rests["value"], rests["label"]) == ("inhaler", "IN")
    assert (waits["value"], waits["label"]) == ("cycling", "OUT")
    assert medication["label"] == "OUT"
    assert "replaces 'running' since user:ann:condition changed" in str(exercise)
    assert kb.value("user:ann:exercise") == "cycling"


def test_depend_needs_one_of_on_or_if_changes_and_stays_in_the_scope() -> None:
    kb = ann()
    kb.assert_("user:bob:condition", "flu", source="human:bob")
    before = kb.to_dict()

    async def body(client: Client) -> Any:
        return [await client.call_tool("depend", {"key": "user:ann:medication", "value": "x",
                                                  "source": "model:agent"}),
                await client.call_tool("depend", {"key": "user:ann:medication", "value": "x",
                                                  "source": "model:agent",
                                                  "on": ["user:bob:condition"]})]

    neither, outside = call(make_server(kb, scope="user:ann"), body)
    assert neither.is_error and "one of them" in neither.content[0].text
    assert outside.is_error and "user:bob:condition" in outside.content[0].text
    assert kb.to_dict() == before

"""The MCP ``beliefs`` tool reads what a user has (issue 35, item 6): ``scope`` narrows it to a
key prefix, ``offset`` and ``limit`` page it, and a server with its own ``--scope`` never lists
anything outside that scope, whatever scope a client asks for (a wider one is a tool error)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

try:
    from mcp import Client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary import BeliefBase, ManualClock  # noqa: E402
from corollary.mcp import make_server  # noqa: E402


def call(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def customers() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000.0))
    for c in (42, 7, 420):
        kb.assert_(f"customer:{c}:email", f"{c}@example.com", source="human:ann")
        kb.assert_(f"customer:{c}:city", f"city {c}", source="tool:crm")
    kb.assert_("store:hours", "9-5", source="tool:crm")
    return kb


def listed(result: Any) -> list[tuple[str, Any]]:
    assert result.is_error is False, result.content
    return [(b["key"], b["value"]) for b in result.structured_content["beliefs"]]


def test_beliefs_lists_a_scope_a_page_at_a_time() -> None:
    async def body(client: Client) -> list[Any]:
        return [await client.call_tool("beliefs", {"scope": "customer:42"}),
                await client.call_tool("beliefs", {"scope": "customer:42", "limit": 1}),
                await client.call_tool("beliefs", {"scope": "customer:42", "limit": 1,
                                                   "offset": 1}),
                await client.call_tool("beliefs", {"scope": "customer:42", "query": "city"})]

    every, first, second, found = call(make_server(customers()), body)
    assert listed(every) == [("customer:42:email", "42@example.com"),
                             ("customer:42:city", "city 42")]
    assert listed(first) == [("customer:42:email", "42@example.com")]
    assert first.structured_content["truncated"] is True
    assert listed(second) == [("customer:42:city", "city 42")]
    assert second.structured_content["truncated"] is False
    assert listed(found) == [("customer:42:city", "city 42")]


def test_a_scoped_server_never_lists_outside_its_scope() -> None:
    async def body(client: Client) -> list[Any]:
        return [await client.call_tool("beliefs", {}),
                await client.call_tool("beliefs", {"scope": "customer:42:city"}),
                await client.call_tool("beliefs", {"scope": "customer"}),
                await client.call_tool("beliefs", {"scope": "customer:7"}),
                await client.call_tool("beliefs", {"scope": "customer:"})]

    mine, narrower, wider, other, bad = call(make_server(customers(), scope="customer:42"), body)
    assert listed(mine) == [("customer:42:email", "42@example.com"),
                            ("customer:42:city", "city 42")]
    assert listed(narrower) == [("customer:42:city", "city 42")]
    for refused in (wider, other):
        assert refused.is_error is True
        assert "outside the scope (customer:42)" in refused.content[0].text
        assert "@example.com" not in refused.content[0].text
    assert bad.is_error is True and "does not end with ':'" in bad.content[0].text

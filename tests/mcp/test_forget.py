"""The MCP ``forget`` tool (docs/mcp.md; issue 35): one value of a key, what a source said, a list
of prefixes; bad calls are tool errors with the base unchanged. The whole lifecycle is
tests/integrations/test_lifecycle.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

try:
    from mcp import Client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary import BeliefBase, ManualClock  # noqa: E402
from corollary.mcp import make_server  # noqa: E402


def base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000.0), conflict_policy=None)
    kb.assert_("user:ann:pet", "Brixwold-the-cat", source="human:ann")
    kb.assert_("user:ann:pet", "Tumblequist-the-dog", source="tool:crm")
    kb.assert_("user:bob:pet", "Pellwhistle", source="human:bob")
    kb.assert_("user:cy:pet", "Quorrimane", source="human:cy")
    return kb


def calls(kb: BeliefBase, *args: dict[str, Any], scope: str | None = None) -> list[Any]:
    async def go() -> list[Any]:
        async with Client(make_server(kb, scope=scope), raise_exceptions=True,
                          read_timeout_seconds=30) as client:
            return [await client.call_tool("forget", a) for a in args]

    return asyncio.run(go())


def test_forget_one_value_a_source_and_several_prefixes() -> None:
    kb = base()
    value, source, prefixes = calls(
        kb, {"key": "user:ann:pet", "value": "Brixwold-the-cat"}, {"source": "human:bob"},
        {"scope": ["user:cy", "user:bob"], "reason": "accounts closed"})
    assert value.structured_content["beliefs"] == 1
    assert source.structured_content["beliefs"] == 1
    assert prefixes.structured_content["beliefs"] == 1
    assert sorted(kb.keys()) == ["user:ann:pet"]
    assert kb.value("user:ann:pet") == "Tumblequist-the-dog"
    assert "Brixwold" not in repr(kb.to_dict())


def test_bad_calls_are_tool_errors_and_change_nothing() -> None:
    kb = base()
    before = kb.to_dict()
    results = calls(kb, {}, {"key": "user:ann:pet", "scope": "user:ann"},
                    {"key": "user:ann:zed"}, {"scope": ["user:ann", "shop"]},
                    {"key": "user:bob:pet"}, scope="user:ann")
    texts = [r.content[0].text for r in results]
    assert all(r.is_error for r in results), texts
    assert "exactly one" in texts[0] or "one of" in texts[0], texts[0]
    assert "not in this base" in texts[2] and "shop" in texts[3] and "user:bob" in texts[4]
    assert kb.to_dict() == before

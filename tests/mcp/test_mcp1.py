"""The server on mcp 1.x (``mcp>=1.24,<2``, what langchain-mcp-adapters 0.3.2 and FastMCP 3
clients pin): the same tools, strict types, values as sent, resources with quoted keys and
tool errors as on mcp 2 (corollary/mcp/sdk.py). Runs where mcp 1 is installed (CI's second
environment, .ci/run); the rest of tests/mcp drives mcp 2's client."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import quote

import pytest

try:
    from mcp.shared.exceptions import McpError
    from mcp.shared.memory import create_connected_server_and_client_session as connect

    from corollary.mcp import sdk
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
if sdk.MAJOR != 1:
    pytest.skip("mcp 1.x is not installed here (CI's second environment has it)",
                allow_module_level=True)

from corollary import BeliefBase, ManualClock  # noqa: E402
from corollary.mcp import make_server  # noqa: E402


def test_every_tool_works_on_mcp1() -> None:
    async def body() -> dict[str, Any]:
        server = make_server(BeliefBase(clock=ManualClock(1000.0), conflict_policy=None))
        async with connect(server._mcp_server) as client:
            done: dict[str, Any] = {"init": None}
            done["listed"] = (await client.list_tools()).tools
            done["assert"] = await client.call_tool("assert_fact", {
                "key": "a/b:c", "value": "[1, 2]", "source": "tool:registry"})
            done["coerced"] = await client.call_tool("record_outcome", {
                "source": "tool:registry", "correct": "no"})
            done["bad"] = await client.call_tool("assert_fact", {
                "key": "hq", "value": "Austin", "source": "nokind"})
            done["claim"] = await client.call_tool("claim", {
                "key": "double", "value": 3, "source": "model:gpt", "inputs": {"x": "n"},
                "formula": "2 * x"})
            done["resource"] = await client.read_resource(f"belief://{quote('a/b:c', safe='')}")
            done["proof"] = await client.read_resource(f"proof://{quote('a/b:c', safe='')}")
            try:
                await client.read_resource("belief://nope")
            except McpError as exc:
                done["missing"] = str(exc)
            return done

    done = asyncio.run(body())
    tools = {t.name: t for t in done["listed"]}
    assert set(tools) >= {"assert_fact", "claim", "retract", "record_outcome", "belief",
                          "recall", "beliefs", "explain", "conflicts", "resolve", "faded"}
    assert tools["belief"].annotations.readOnlyHint is True
    assert tools["retract"].annotations.destructiveHint is True
    assert tools["belief"].outputSchema is not None
    assert done["assert"].isError is False
    assert done["assert"].structuredContent == {  # a JSON text for a value is that text
        "key": "a/b:c", "value": "[1, 2]", "label": "IN", "confidence": 0.95,
        "saved_version": None}
    assert done["coerced"].isError is True  # strict: "no" is no boolean
    assert "correct" in done["coerced"].content[0].text
    assert done["bad"].content[0].text == ("Error executing tool assert_fact: a source must "
                                           "look like 'kind:name', got 'nokind'")
    assert done["claim"].isError is True  # 'n' is not held: the base's own message
    assert "'n'" in done["claim"].content[0].text
    assert json.loads(done["resource"].contents[0].text)["value"] == "[1, 2]"
    assert done["proof"].contents[0].text.startswith("a/b:c = '[1, 2]' [IN")
    assert "no belief about 'nope'" in done["missing"]

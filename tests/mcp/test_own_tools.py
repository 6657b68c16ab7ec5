"""Two sessions served in one process keep their own tools (issue 26, point 7): each MCP
server's base reads ``tool:lookup`` with the trust its own ``lookup`` declares, and loading a
session by name binds the tool it is given, or refuses a name two live tools share. Before,
``@tool`` wrote a process-wide table where the second ``lookup`` replaced the first for every
base loaded afterwards."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

try:
    from mcp import Client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary import BeliefBase, ManualClock, NameTakenError, open_ledger, tool  # noqa: E402
from corollary.cli.opening import Imported, open_to_serve  # noqa: E402
from corollary.mcp import make_server  # noqa: E402


def _lookup(trust: str) -> Any:
    @tool(trust=trust, name="lookup")
    def lookup(q: str) -> str:
        return q

    return lookup


def _asserted(server: Any) -> float:
    async def go() -> float:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            result = await client.call_tool("assert_fact", {"key": "hq", "value": "Austin",
                                                            "source": "tool:lookup"})
            return float(result.structured_content["confidence"])  # type: ignore[index]

    return asyncio.run(go())


@pytest.mark.parametrize("name", ["ledger.db", "ledger.json"])  # a journal, whole snapshots
def test_two_served_sessions_in_one_process_keep_their_own_lookup(tmp_path: Path,
                                                                   name: str) -> None:
    high, low = _lookup("high"), _lookup("low")
    with open_ledger(tmp_path / name) as ledger:
        one, _ = open_to_serve(ledger, "one", Imported(tools=(high,)), clock=ManualClock(0))
        two, _ = open_to_serve(ledger, "two", Imported(tools=(low,)), clock=ManualClock(0))
        first = _asserted(make_server(one, session="one"))
        second = _asserted(make_server(two, session="two"))
        assert one.tools["lookup"].trust == "high" and two.tools["lookup"].trust == "low"
        assert first > second  # each base its own declared trust
        if name == "ledger.json":  # a whole snapshot names its tools: bound by name on load
            with pytest.raises(NameTakenError, match="tools named 'lookup'"):
                BeliefBase.load_session(ledger, "two", clock=ManualClock(0))
            again = BeliefBase.load_session(ledger, "two", clock=ManualClock(0), tools=[low])
            assert again.tools["lookup"].trust == "low"

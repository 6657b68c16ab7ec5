"""The MCP server whose base cannot follow its other writers reports it on the next call
(issue 26 point 5): another process appends an entry it cannot replay (a rule it was started
without). A real ``corollary mcp`` child over stdio, the real MCP client, a real SQLite
ledger; the inspector's side is tests/ui/test_not_live.py."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from ui.test_not_live import env, session, write_elsewhere


def test_the_mcp_server_reports_it_on_the_next_call(tmp_path: Path) -> None:
    mcp = pytest.importorskip("mcp", reason="the MCP SDK is the optional extra corollary[mcp]")
    if not hasattr(mcp, "Client"):
        pytest.skip("this test drives mcp 2's Client")
    path = tmp_path / "l.db"
    session(path)
    server = mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "corollary", "mcp", "--ledger", str(path),
                                      "--session", "s"], env=env())

    async def body() -> tuple[Any, Any]:
        async with mcp.Client(server, read_timeout_seconds=60) as client:
            before = await client.call_tool("belief", {"key": "x"})
            await asyncio.to_thread(write_elsewhere, path)
            after = await client.call_tool("belief", {"key": "x"})
            return before, after

    before, after = asyncio.run(body())
    assert not before.is_error
    assert after.is_error
    text = after.content[0].text
    assert "not live: JournalReplayError: rule 'elsewhere.double' is not known here" in text

"""Time over MCP (issue 27): ``assert_fact`` takes ``valid_from``/``valid_until`` as ISO 8601
strings or POSIX seconds, a bad time is a tool error with the base unchanged, and the base
``corollary mcp`` serves on a new session prefers newer values."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

# not importorskip("mcp"): with tests/ on sys.path, this folder passes for a namespace package
# "mcp" when the SDK is missing
try:
    from mcp import Client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger  # noqa: E402
from corollary.cli.opening import open_to_serve  # noqa: E402
from corollary.mcp import make_server  # noqa: E402

OAK_FROM = 1704153600.0  # 2024-01-02
PINE_FROM = 1740873600.0  # 2025-03-02


def call(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def test_assert_fact_takes_valid_times_as_iso_8601_or_seconds() -> None:
    kb = BeliefBase(clock=ManualClock(1.8e9), conflict_policy=PreferNewer())

    async def body(client: Client) -> Any:
        old = await client.call_tool("assert_fact", {
            "key": "addr", "value": "Oak St", "source": "tool:crm", "valid_from": "2024-01-02"})
        new = await client.call_tool("assert_fact", {
            "key": "addr", "value": "Pine Ave", "source": "document:email",
            "valid_from": PINE_FROM, "valid_until": "2030-01-01T00:00:00Z"})
        return old.structured_content, new.structured_content

    old, new = call(make_server(kb), body)
    assert (old["label"], new["label"]) == ("IN", "IN")  # each held when it was asserted
    assert kb.value("addr") == "Pine Ave"
    entries = kb.timeline("addr")
    assert [(e.value, e.valid_from, e.valid_until, e.status) for e in entries] == [
        ("Oak St", OAK_FROM, PINE_FROM, "superseded"),
        ("Pine Ave", PINE_FROM, 1893456000.0, "held")]
    assert kb.at(OAK_FROM + 86400).value("addr") == "Oak St"


@pytest.mark.parametrize(("valid_from", "match"), [
    ("soon", "valid_from must be ISO 8601"),
    ("2024-01-02T09:00:00", "naive"),
])
def test_a_bad_valid_time_is_a_tool_error_and_changes_nothing(valid_from: str,
                                                               match: str) -> None:
    kb = BeliefBase(clock=ManualClock(1.8e9), conflict_policy=PreferNewer())

    async def body(client: Client) -> Any:
        return await client.call_tool("assert_fact", {
            "key": "addr", "value": "Oak St", "source": "tool:crm", "valid_from": valid_from})

    result = call(make_server(kb), body)
    assert result.is_error is True
    assert match in result.content[0].text
    assert "addr" not in kb


@pytest.mark.parametrize("ledger_name", [":memory:", "ledger.json"])
def test_corollary_mcp_serves_a_new_session_that_prefers_newer_values(
        ledger_name: str, tmp_path: Path) -> None:
    target = ledger_name if ledger_name == ":memory:" else str(tmp_path / ledger_name)
    with open_ledger(target) as ledger:
        kb, how = open_to_serve(ledger, "support")
        assert how in ("new", "new snapshot")
        assert kb.conflict_policy == PreferNewer()
        kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK_FROM)
        kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE_FROM)
        assert kb.value("addr") == "Pine Ave" and kb.conflicts() == []


def test_an_existing_session_keeps_its_own_policy(tmp_path: Path) -> None:
    """A session written without a policy reads as it was written (served by corollary mcp,
    read by the CLI); one corollary mcp made keeps PreferNewer when served again."""
    from corollary.cli.opening import open_base

    path = str(tmp_path / "ledger.db")
    with open_ledger(path) as ledger:
        clock = ManualClock(100)
        plain = BeliefBase.open_session(ledger, "plain", clock=clock)
        plain.assert_("hq", "Austin", source="tool:registry")
        clock.set(200)
        plain.assert_("hq", "Boston", source="tool:registry")
        plain.retract("hq")
        kb, how = open_to_serve(ledger, "plain")
        assert how == "journal" and kb.conflict_policy is None and kb.label("hq") == "OUT"
        made, how = open_to_serve(ledger, "support")
        assert how == "new"
    with open_ledger(path) as ledger:
        again, how = open_to_serve(ledger, "support")
        assert how == "journal" and again.conflict_policy == PreferNewer()
    with open_base(None, path, "support") as opened:
        assert opened.kb.conflict_policy == PreferNewer()
    with open_base(None, path, "plain") as opened:
        assert opened.kb.conflict_policy is None

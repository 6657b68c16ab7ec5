"""Every surface opens the base it serves one way (issue 26, point 5): ``corollary mcp``,
``corollary remember`` and ``corollary ui`` open a session through corollary.serving.opening
(its journal, or a whole snapshot saved after each change; an existing journal followed
read-only), and the ``--import``ed tools a session names are bound to the imported ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, Session, open_ledger, tool
from corollary.serving import opening


def _lookup(trust: str) -> Any:
    @tool(trust=trust, name="lookup")
    def lookup(q: str) -> str:
        return q

    return lookup


def test_the_cli_and_mcp_open_what_they_serve_through_serving() -> None:
    import importlib.metadata

    try:  # the distribution, not an import: with tests/ on sys.path, tests/mcp passes for "mcp"
        importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the MCP server is the optional extra corollary[mcp]")
    from corollary.cli import commands
    from corollary.cli import opening as cli_opening
    from corollary.mcp import server

    assert cli_opening.open_to_serve is opening.open_to_serve is server.open_to_serve
    assert cli_opening.Imported is opening.Imported
    assert commands.open_to_follow is opening.open_to_follow  # corollary ui


def test_open_to_follow_opens_a_journal_and_creates_nothing(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "l.db") as ledger:
        assert opening.open_to_follow(ledger, "s") is None
        assert ledger.store.list_sessions() == [] and opening.journal_doc(ledger, "s") is None
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
        kb.assert_("hq", "Austin", source="tool:registry")
        followed = opening.open_to_follow(ledger, "s", clock=ManualClock(0))
        assert isinstance(followed, Session) and followed.value("hq") == "Austin"


def test_a_saved_session_is_bound_to_the_imported_tool_whatever_else_the_process_defines(
        tmp_path: Path) -> None:
    high, low = _lookup("high"), _lookup("low")
    with open_ledger(tmp_path / "l.json") as ledger:
        opening.open_to_serve(ledger, "s", opening.Imported(tools=(low,)), clock=ManualClock(0))
        kb, how = opening.open_to_serve(ledger, "s", opening.Imported(tools=(low,)),
                                        clock=ManualClock(0))
        assert how == "snapshot" and kb.tools["lookup"].trust == "low"
        assert high is not low

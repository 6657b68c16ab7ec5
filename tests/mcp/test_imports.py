"""``corollary mcp --import MODULE``: the rules and tools a module defines reach the session the
server serves, whether the command creates it or finds it saved without them (issue 20)."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

# not importorskip("mcp"): with tests/ on sys.path, this folder passes for a namespace package
# "mcp" when the SDK is missing
try:
    from mcp import Client, StdioServerParameters
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
from support.cli_support import env_for  # noqa: E402

from corollary import BeliefBase, ManualClock, open_ledger  # noqa: E402
from corollary.cli.opening import import_modules  # noqa: E402
from corollary.snapshot.state import read_session  # noqa: E402

#: A user's module: a rule over two keys and a tool with declared trust.
RULES = textwrap.dedent('''
    from corollary import rule, tool

    @rule(output="margin", inputs={"revenue": "revenue:Q3", "cost": "cost:Q3"},
          name="pricing.margin")
    def margin(revenue, cost):
        return round((revenue - cost) / revenue, 6)

    @tool(trust="high", name="pricing_books")
    def books(quarter: str) -> float:
        """Cost from the books."""
        return 70.0
''')


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "pricing.py").write_text(RULES)
    return home


def _serve(home: Path, session: str, *imports: str, ledger: str = "ledger.db"
           ) -> tuple[Any, Any]:
    """Start ``corollary mcp`` on ``session``, assert both inputs of the rule, read its output
    (``ledger.db``: a journaled session; ``ledger.json``: a whole snapshot saved)."""
    args = ["-m", "corollary", "mcp", "--ledger", str(home / ledger), "--session", session]
    for name in imports:
        args += ["--import", name]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(home),
                                   env=env_for(home))

    async def body() -> tuple[Any, Any]:
        async with Client(params, read_timeout_seconds=30) as client:
            for key, value, source in [("revenue:Q3", 100.0, "document:10-Q"),
                                       ("cost:Q3", 70.0, "tool:pricing_books")]:
                done = await client.call_tool("assert_fact", {"key": key, "value": value,
                                                              "source": source})
                assert done.is_error is False, done.content
            return (await client.call_tool("belief", {"key": "margin"}),
                    await client.call_tool("belief", {"key": "cost:Q3"}))

    return asyncio.run(body())


def _saved(home: Path, session: str, ledger: str = "ledger.db") -> dict[str, Any]:
    """The rules and tools the session keeps: a snapshot's, or a journal's replayed."""
    with open_ledger(home / ledger) as opened:
        if ledger.endswith(".json"):
            doc, _ = read_session(opened.store, session)
            return {"rules": doc.get("rules"), "tools": doc.get("tools")}
        from corollary.cli.opening import import_modules

        import_modules([str(home / "pricing.py")])  # the journal names its rule and tool
        try:
            kb = BeliefBase.open_session(opened, session, clock=ManualClock(0))
            return {"rules": [r.name for r in kb.rules], "tools": sorted(kb.tools)}
        finally:
            sys.modules.pop("pricing", None)


@pytest.mark.parametrize(("imported", "ledger"), [("pricing", "ledger.db"),
                                                  ("pricing.py", "ledger.json")])
def test_a_new_session_gets_the_imported_rules_and_tools(tmp_path: Path, imported: str,
                                                         ledger: str) -> None:
    home = _home(tmp_path)
    margin, cost = _serve(home, "fresh", imported, ledger=ledger)
    assert margin.is_error is False, margin.content
    assert margin.structured_content["value"] == 0.3
    assert margin.structured_content["label"] == "IN"
    # the tool's declared trust ("high") applies to its premises: above a plain tool's 0.95
    assert cost.structured_content["confidence"] > 0.95
    assert _saved(home, "fresh", ledger) == {"rules": ["pricing.margin"],
                                             "tools": ["pricing_books"]}


@pytest.mark.parametrize("ledger", ["ledger.db", "ledger.json"])
def test_a_session_saved_without_them_gets_them_at_the_next_start(tmp_path: Path,
                                                                  ledger: str) -> None:
    """On a journal (SQLite) the rule and tool added are entries of the journal; on a JSON
    ledger the snapshot is saved again with them."""
    home = _home(tmp_path)
    margin, _ = _serve(home, "early", ledger=ledger)  # started once without --import: no rule
    assert margin.is_error is True and "no belief about 'margin'" in margin.content[0].text
    assert _saved(home, "early", ledger) == {"rules": [], "tools": []}
    margin, _ = _serve(home, "early", "pricing", ledger=ledger)
    assert (margin.structured_content["value"], margin.structured_content["label"]) == (0.3, "IN")
    assert _saved(home, "early", ledger) == {"rules": ["pricing.margin"],
                                             "tools": ["pricing_books"]}


def test_import_modules_returns_what_each_module_defines(tmp_path: Path) -> None:
    home = _home(tmp_path)
    sys.modules.pop("pricing", None)
    first = import_modules([str(home / "pricing.py")])
    assert [r.name for r in first.rules] == ["pricing.margin"]
    assert [t.__corollary_tool__.name for t in first.tools] == ["pricing_books"]
    # a module imported before (cached in sys.modules, defining nothing new) is read from its
    # namespace
    again = import_modules(["pricing"])
    assert ([r.name for r in again.rules], [t.__name__ for t in again.tools]) == (
        ["pricing.margin"], ["books"])
    kb = BeliefBase(clock=ManualClock(0), rules=again.rules, tools=again.tools)
    kb.assert_("revenue:Q3", 100.0, source="document:10-Q")
    kb.assert_("cost:Q3", 70.0, source="tool:pricing_books")
    assert kb.value("margin") == 0.3
    sys.modules.pop("pricing", None)


def test_a_rule_that_fails_when_added_refuses_the_start_and_saves_nothing(tmp_path: Path
                                                                          ) -> None:
    from corollary import rule
    from corollary.cli.opening import Imported, open_to_serve
    from corollary.foundations.errors import RuleError

    @rule(output="inverse", inputs={"x": "x"}, name="tests.inverse")
    def inverse(x: float) -> float:
        return 1 / x

    with open_ledger(tmp_path / "ledger.json") as ledger:  # a snapshot ledger
        kb = BeliefBase(ledger=ledger)
        kb.assert_("x", 0.0, source="tool:t")
        kb.save_session("s")
        with pytest.raises(RuleError, match="tests.inverse"):
            open_to_serve(ledger, "s", Imported(rules=(inverse,)))
        doc, version = read_session(ledger.store, "s")
        assert (doc["rules"], version) == ([], 1)
        kb.assert_("x", 4.0, source="tool:t")  # once its input allows it, the rule is added
        kb.save_session("s")
        served, how = open_to_serve(ledger, "s", Imported(rules=(inverse,)))
        assert (how, served.value("inverse")) == ("snapshot", 0.25)
        assert read_session(ledger.store, "s")[0]["rules"] == ["tests.inverse"]


def test_a_rule_that_fails_when_added_to_a_journal_writes_no_entry(tmp_path: Path) -> None:
    """On a journaled session adding the imported rule is a change of its own: refused, it
    leaves the journal as it was; once another writer's change allows it, it is one entry
    that every writer of the session applies."""
    from corollary import rule
    from corollary.cli.opening import Imported, open_to_serve
    from corollary.foundations.errors import RuleError

    @rule(output="inverse", inputs={"x": "x"}, name="tests.journal_inverse")
    def inverse(x: float) -> float:
        return 1 / x

    path = tmp_path / "ledger.db"
    with open_ledger(path) as ledger, open_ledger(path) as theirs:
        other = BeliefBase.open_session(theirs, "s", clock=ManualClock(10))
        other.assert_("x", 0.0, source="tool:t")
        head = other.journal_seq
        with pytest.raises(RuleError, match="tests.journal_inverse"):
            open_to_serve(ledger, "s", Imported(rules=(inverse,)), clock=ManualClock(20))
        assert ledger.store.journal_head("s") == head  # type: ignore[attr-defined]
        other.assert_("x", 4.0, source="tool:t")
        served, how = open_to_serve(ledger, "s", Imported(rules=(inverse,)),
                                    clock=ManualClock(30))
        assert (how, served.value("inverse")) == ("journal", 0.25)
        assert ledger.store.journal_head("s") == head + 2  # type: ignore[attr-defined]
        other.sync()
        assert ([r.name for r in other.rules], other.value("inverse")) == (
            ["tests.journal_inverse"], 0.25)
        again, _ = open_to_serve(ledger, "s", Imported(rules=(inverse,)), clock=ManualClock(40))
        assert ledger.store.journal_head("s") == head + 2  # nothing lacking: nothing written

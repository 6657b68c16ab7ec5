"""One tool table (issue 36, item 4): the MCP server, the pydantic-ai toolset, the Agents SDK
tools and the agent's built-ins list the table's tools, each with the table's description and
arguments (those a surface fills itself left out), derived from it: a changed or added entry
shows on every surface, with nothing else edited."""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
import pytest

from corollary import BeliefBase, InvalidInputError, ManualClock, ScriptedModel
from corollary.serving import tools
from corollary.serving.tool_host import ToolHost

pytest.importorskip("pydantic_ai", reason="the frameworks extra: pydantic-ai-slim")
pytest.importorskip("agents", reason="the frameworks extra: openai-agents")
try:  # not importorskip: with tests/ on sys.path, tests/mcp passes for a package "mcp"
    import mcp.types  # noqa: F401
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)

#: What each surface fills itself instead of offering (the toolsets and the agent: a claim is on
#: the model's own word; the agent's recall reads at its floor).
TOOLSET_BOUND = {"claim": {"source"}, "depend": {"source"}}
AGENT_BOUND = {"claim": {"source"}, "recall": {"min_confidence"}}


def _mcp(kb: BeliefBase) -> dict[str, tuple[str, dict[str, Any]]]:
    from corollary.mcp import make_server

    listed = asyncio.run(make_server(kb, model=ScriptedModel([])).list_tools())
    return {t.name: (t.description or "", t.input_schema if hasattr(t, "input_schema")
                     else t.inputSchema) for t in listed}


def _pydantic_ai(kb: BeliefBase) -> dict[str, tuple[str, dict[str, Any]]]:
    from corollary.integrations.pydantic_ai import make_toolset

    toolset = make_toolset(kb, model=ScriptedModel([]))
    return {name: (t.description or "", t.function_schema.json_schema)
            for name, t in toolset.tools.items()}


def _agents_sdk(kb: BeliefBase) -> dict[str, tuple[str, dict[str, Any]]]:
    from corollary.integrations.openai_agents import make_tools

    return {t.name: (t.description, t.params_json_schema)
            for t in make_tools(kb, model=ScriptedModel([]))}


def _agent(kb: BeliefBase) -> dict[str, tuple[str, dict[str, Any]]]:
    from corollary.agent.builtins import builtin_schema

    made = {name: builtin_schema(name)["function"] for name in ("claim", "recall")}
    return {name: (f["description"], f["parameters"]) for name, f in made.items()}


def _expected(tool: tools.Tool, bound: set[str]) -> tuple[str, list[str], dict[str, str]]:
    params = [p for p in tool.params if p.name not in bound]
    return (tool.description, [p.name for p in params],
            {p.name: p.description for p in params})


def _shown(description: str, schema: dict[str, Any]) -> tuple[str, list[str], dict[str, str]]:
    properties = schema.get("properties", {})
    return (description.strip(), list(properties),
            {name: prop.get("description", "") for name, prop in properties.items()})


def test_every_surface_lists_the_table_s_tools_with_its_texts_and_arguments() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    names = [t.name for t in tools.TOOLS]
    surfaces = {"mcp": _mcp(kb), "pydantic-ai": _pydantic_ai(kb), "agents-sdk": _agents_sdk(kb)}
    for surface, listed in surfaces.items():
        assert sorted(listed) == sorted(names), surface
        bound = {} if surface == "mcp" else TOOLSET_BOUND
        for tool in tools.TOOLS:
            assert _shown(*listed[tool.name]) == _expected(tool, bound.get(tool.name, set())), \
                (surface, tool.name)
            required = [p.name for p in tool.params if p.required
                        and p.name not in bound.get(tool.name, set())]
            assert sorted(listed[tool.name][1].get("required", [])) == sorted(required), \
                (surface, tool.name)
    for name, shown in _agent(kb).items():
        assert _shown(*shown) == _expected(tools.tool_named(name), AGENT_BOUND[name]), name


def _echo(host: ToolHost, key: str, times: int = 1) -> dict[str, Any]:
    host.check(key)
    with host.reading() as kb:
        return {"key": key, "said": [kb.value(key)] * times}


ECHO = tools.Tool("echo", "Say key's value again, times times.", (
    tools.Param("key", str, "The key to say"),
    tools.Param("times", int, "How often (1 to 3)", 1, 1, 3)), "read", _echo)


def test_a_changed_or_added_entry_shows_on_every_surface(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    changed = tuple(attrs.evolve(t, description="FIND THINGS.") if t.name == "recall" else t
                    for t in tools.TOOLS)
    monkeypatch.setattr(tools, "TOOLS", changed + (ECHO,))
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:registry")
    for surface in (_mcp, _pydantic_ai, _agents_sdk):
        listed = surface(kb)
        assert listed["recall"][0].strip() == "FIND THINGS."
        assert _shown(*listed["echo"]) == _expected(ECHO, set())
    assert _agent(kb)["recall"][0] == "FIND THINGS."

    from corollary.integrations.operations import Operations

    ops = Operations(kb)
    assert ops.echo("hq", times=2) == {"key": "hq", "said": ["Austin", "Austin"]}
    with pytest.raises(InvalidInputError, match="times must be an integer from 1 to 3"):
        ops.echo("hq", times=4)


def test_the_refutation_is_the_same_on_every_surface() -> None:
    """The claim's "refuted" answer is made once, in the table: the toolsets and MCP agree."""
    from corollary.integrations.operations import Operations
    from corollary.mcp import make_server

    def fresh() -> BeliefBase:
        kb = BeliefBase(clock=ManualClock(0))
        kb.assert_("q3", 110.0, source="document:10-Q")
        return kb

    claim = {"key": "growth", "value": 0.5, "inputs": {"q3": "q3"}, "formula": "q3 / 1100"}
    by_toolset = Operations(fresh(), source="model:m").claim(**claim)
    by_mcp = asyncio.run(make_server(fresh()).call_tool(
        "claim", {**claim, "source": "model:m"}))
    structured = by_mcp[1] if isinstance(by_mcp, tuple) else by_mcp.structured_content
    assert by_toolset["refuted"] == structured["refuted"] == {
        "stated": 0.5, "computed": 0.1, "formula": "q3 / 1100"}

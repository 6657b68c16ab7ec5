"""The native toolsets, in-process and without MCP, driven by each framework's own test model as
tests/frameworks drives the MCP server: pydantic-ai's ``FunctionModel`` over ``make_toolset``, a
scripted Agents SDK ``Model`` over ``make_tools``. The model's calls change the base, a refused
call (a bad input, a key outside the scope) goes back to it with corollary's message and the
base unchanged, and the proofs and recalls it reads come from the base."""

from __future__ import annotations

import asyncio
import json

import pytest

from corollary import BeliefBase, ManualClock

FACTS = [("revenue:Q2", 100.0), ("revenue:Q3", 110.0)]
CLAIM = {"key": "growth", "value": 0.1, "inputs": {"q2": "revenue:Q2", "q3": "revenue:Q3"},
         "formula": "(q3 - q2) / q2"}
OUTSIDE = {"key": "growth", "value": 1, "inputs": ["customer:7:plan"]}
#: every tool of the one table but remember (offered with a model only)
EXPECTED = {"assert_fact", "claim", "retract", "end", "forget", "depend", "record_outcome", "resolve",
            "belief", "recall", "beliefs", "explain", "conflicts", "faded", "what_to_check"}


def base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000.0))
    kb.assert_("customer:7:plan", "secret-enterprise", source="tool:crm")
    return kb


def check_base(kb: BeliefBase) -> None:
    assert kb.label("revenue:Q2") == "OUT"  # retracted by the model, nobody blamed
    assert kb.label("growth", 0.1) == "OUT"  # it rested on Q2
    assert kb.label("customer:7:plan") == "IN"
    assert kb.reliability("document:10-Q") == BeliefBase().reliability("document:10-Q")


# -- pydantic-ai ---------------------------------------------------------------------------------
def test_a_pydantic_ai_agent_uses_the_toolset() -> None:
    pytest.importorskip("pydantic_ai", reason="the frameworks extra: pydantic-ai-slim")
    from pydantic_ai import Agent
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from corollary.integrations.pydantic_ai import make_toolset

    script = [
        [ToolCallPart("assert_fact", {"key": k, "value": v, "source": "document:10-Q"},
                      tool_call_id=f"a{i}") for i, (k, v) in enumerate(FACTS)],
        [ToolCallPart("claim", OUTSIDE, tool_call_id="bad")],
        [ToolCallPart("claim", CLAIM, tool_call_id="c")],
        [ToolCallPart("explain", {"key": "growth"}, tool_call_id="e"),
         ToolCallPart("recall", {"query": "growth revenue"}, tool_call_id="r")],
        [ToolCallPart("retract", {"key": "revenue:Q2", "reason": "restated"},
                      tool_call_id="x")],
        [TextPart("Revenue grew 10%.")],
    ]
    seen: list[AgentInfo] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return ModelResponse(parts=script.pop(0))

    kb = base()
    agent = Agent(FunctionModel(model), toolsets=[make_toolset(
        kb, source="model:analyst", scope=("revenue", "growth"))])
    result = agent.run_sync("How much did revenue grow?")
    assert result.output == "Revenue grew 10%."
    assert {t.name for t in seen[0].function_tools} == EXPECTED
    claim = next(t for t in seen[0].function_tools if t.name == "claim")
    assert "formula" in claim.parameters_json_schema["properties"]
    assert "re-executed" in (claim.description or "")
    parts = [p for m in result.all_messages() for p in getattr(m, "parts", [])]
    # pydantic-ai 2 returns a retried call as a ToolReturnPart (outcome 'retried'), 1.x as a
    # RetryPromptPart: either way the model reads corollary's message
    retry = next(p for p in parts if isinstance(p, (RetryPromptPart, ToolReturnPart))
                 and p.tool_call_id == "bad")
    assert "input 'customer:7:plan' is outside the scope (growth, revenue)" in str(retry.content)
    returns = {p.tool_call_id: p.content for p in parts
               if isinstance(p, ToolReturnPart) and p.tool_call_id != "bad"}
    assert returns["c"]["value"] == 0.1 and returns["c"]["refuted"] is None
    assert "(q3 - q2) / q2" in returns["e"]["text"]
    assert [b["key"] for b in returns["r"]["beliefs"]][:1] == ["growth"]
    assert "customer:7" not in json.dumps(returns["r"])
    check_base(kb)


# -- the OpenAI Agents SDK -----------------------------------------------------------------------
def test_an_openai_agents_agent_uses_the_function_tools() -> None:
    pytest.importorskip("agents", reason="the frameworks extra: openai-agents")
    from agents import Agent, Runner, set_tracing_disabled

    # the scripted Agents SDK model and its reply items, as tests/frameworks scripts them
    from frameworks.test_openai_agents import ScriptedModel, call, text

    from corollary.integrations.openai_agents import make_tools

    set_tracing_disabled(True)  # no trace export: nothing leaves the machine
    model = ScriptedModel([
        [call(f"a{i}", "assert_fact", {"key": k, "value": v, "source": "document:10-Q"})
         for i, (k, v) in enumerate(FACTS)],
        [call("bad", "claim", OUTSIDE), call("k", "recall", {"query": "x", "k": 0})],
        [call("c", "claim", CLAIM)],
        [call("e", "explain", {"key": "growth"}), call("r", "recall", {"query": "growth"})],
        [call("x", "retract", {"key": "revenue:Q2", "reason": "restated"})],
        [text("Revenue grew 10%.")],
    ])
    kb = base()
    agent = Agent(name="analyst", instructions="Keep what you learn in corollary.",
                  model=model, tools=make_tools(kb, source="model:analyst",
                                                scope=("revenue", "growth")))
    result = asyncio.run(Runner.run(agent, "How much did revenue grow?"))
    assert result.final_output == "Revenue grew 10%."
    assert set(model.seen[0]["tools"]) == EXPECTED
    outputs = {item["call_id"]: item["output"] for item in model.seen[-1]["input"]
               if isinstance(item, dict) and item.get("type") == "function_call_output"}
    assert outputs["bad"] == ("error: input 'customer:7:plan' is outside the scope "
                              "(growth, revenue)")
    assert outputs["k"] == "error: k must be an integer from 1 to 50, not 0"
    assert json.loads(outputs["c"])["value"] == 0.1
    assert "(q3 - q2) / q2" in json.loads(outputs["e"])["text"]
    assert "customer:7" not in outputs["r"]
    check_base(kb)


def test_without_the_frameworks_the_modules_say_which_extra(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    import importlib
    import sys

    from corollary import MissingExtraError

    for module, blocked in (("corollary.integrations.pydantic_ai", "pydantic_ai"),
                            ("corollary.integrations.openai_agents", "agents"),
                            ("corollary.integrations.langgraph", "langgraph")):
        monkeypatch.delitem(sys.modules, module, raising=False)
        for name in [n for n in sys.modules if n == blocked or n.startswith(blocked + ".")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, blocked, None)  # an import of it fails
        with pytest.raises(MissingExtraError, match=r"pip install 'corollary\["):
            importlib.import_module(module)
        monkeypatch.delitem(sys.modules, blocked)


def test_remember_is_offered_with_a_model_and_keeps_to_the_scope() -> None:
    from corollary import ScriptedModel
    from corollary.integrations.operations import Operations
    from corollary.models import Reply, ToolCall

    def facts(*items: dict[str, str]) -> Reply:
        return Reply(None, [ToolCall("c1", "facts", {"facts": list(items)})])

    kb = BeliefBase(clock=ManualClock(1_000.0))
    assert "remember" not in [f.__name__ for f in Operations(kb).tools()]  # no model: no tool
    model = ScriptedModel([facts(
        {"subject": "Alice", "attribute": "city", "value": "Paris", "quote": "I live in Paris"},
        {"subject": "Bob", "attribute": "city", "value": "Rome", "quote": "Bob is in Rome"})])
    ops = Operations(kb, model=model, scope="alice")
    assert [f.__name__ for f in ops.tools()][-1] == "remember"
    done = ops.remember("I live in Paris. Bob is in Rome.", "human:alice")
    assert [(r["key"], r["value"], r["label"]) for r in done["remembered"]] == [
        ("alice:city", "Paris", "IN")]
    assert done["refused"] == [{"reason": "outside the scope", "key": "bob:city",
                                "value": "Rome", "quote": "Bob is in Rome"}]
    assert kb.value("alice:city") == "Paris" and "bob:city" not in kb.keys()

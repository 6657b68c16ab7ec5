"""Issue 35, item 1: the native toolsets (corollary.integrations.operations, handed to
pydantic-ai and the OpenAI Agents SDK) offer ``end``: the model says a fact stopped holding,
the key then holds nothing and never the value it replaced; ``retract`` stays withdrawal.
Before, the toolsets had no ``end``."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.foundations.errors import InvalidInputError
from corollary.integrations.operations import NAMES, Operations

KEY = "customer:42:address"


def moved() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_780_000_000.0), conflict_policy=PreferNewer())
    kb.assert_(KEY, "Oak St", source="tool:crm", valid_from=1_704_153_600.0)
    kb.assert_(KEY, "Pine Ave", source="document:email", valid_from=1_740_873_600.0)
    return kb


def test_end_is_an_operation_and_leaves_nothing_held() -> None:
    assert NAMES.index("end") == NAMES.index("retract") + 1
    kb = moved()
    ops = Operations(kb, source="model:agent", scope="customer:42")
    state = ops.end(KEY, "human:ann", at="2026-03-01", reason="I moved abroad")
    assert state == {"key": KEY, "value": None, "label": "OUT", "confidence": 0.0,
                     "saved_version": None}  # the MCP tool's answer: one tool table
    assert ops.recall("customer 42 address")["beliefs"] == []
    assert ops.explain(KEY)["text"].startswith(
        f"{KEY} ended at 2026-03-01 by human:ann ('I moved abroad')")
    assert kb.at(1_760_000_000.0).value(KEY) == "Pine Ave"
    before = kb.to_dict()
    with pytest.raises(InvalidInputError, match="outside the scope"):
        ops.end("customer:7:plan", "human:ann")
    assert kb.to_dict() == before


def test_a_pydantic_ai_agent_ends_a_fact() -> None:
    pytest.importorskip("pydantic_ai", reason="the frameworks extra: pydantic-ai-slim")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from corollary.integrations.pydantic_ai import make_toolset

    script = [[ToolCallPart("end", {"key": KEY, "source": "human:ann",
                                    "reason": "I moved abroad"}, tool_call_id="e")],
              [TextPart("Noted: no address on file.")]]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=script.pop(0))

    kb = moved()
    Agent(FunctionModel(model), toolsets=[make_toolset(kb)]).run_sync("I moved abroad.")
    assert kb.value(KEY) is None and kb.timeline(KEY)[-1].status == "ended"

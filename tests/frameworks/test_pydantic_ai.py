"""docs/mcp.md's pydantic-ai snippet, run as written with pydantic-ai's own FunctionModel in
place of the OpenAI model: its tool calls reach a real ``corollary mcp`` child, the server's
instructions reach the model (``include_instructions=True``), and the session keeps what the
model recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.mcp", reason="the frameworks extra: pydantic-ai-slim[mcp]")
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from support.snippets import CLAIM, FACTS, run_snippet, saved_growth, snippet  # noqa: E402

from corollary.agent.prompts import MCP_INSTRUCTIONS  # noqa: E402


def test_the_pydantic_ai_snippet_runs(tmp_path: Path) -> None:
    seen: list[AgentInfo] = []
    script = [
        [ToolCallPart("assert_fact", {"key": k, "value": v, "source": "document:10-Q"},
                      tool_call_id=f"a{i}") for i, (k, v) in enumerate(FACTS)],
        [ToolCallPart("claim", dict(CLAIM), tool_call_id="c")],
        [ToolCallPart("explain", {"key": "growth"}, tool_call_id="e")],
        [TextPart("Revenue grew 10% from Q2 to Q3, by the filings.")],
    ]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return ModelResponse(parts=script.pop(0))

    done = run_snippet(snippet("pydantic_ai.mcp import MCPToolset"), tmp_path,
                       {'"openai-chat:gpt-4.1"': "MODEL"}, {"MODEL": FunctionModel(model)})
    assert done["result"].output == "Revenue grew 10% from Q2 to Q3, by the filings."
    assert MCP_INSTRUCTIONS in (seen[0].instructions or "")
    assert {t.name for t in seen[0].function_tools} >= {"assert_fact", "claim", "explain"}
    returns = {p.tool_name: p.content for m in done["result"].all_messages()
               for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)}
    claimed = returns["claim"] if isinstance(returns["claim"], dict) else json.loads(
        returns["claim"])
    assert (claimed["value"], claimed["label"], claimed["refuted"]) == (0.1, "IN", None)
    explained: Any = returns["explain"]
    assert "(q3 - q2) / q2" in (explained["text"] if isinstance(explained, dict) else explained)
    assert saved_growth(tmp_path) == (0.1, "IN")

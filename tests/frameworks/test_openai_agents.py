"""docs/mcp.md's OpenAI Agents SDK snippet, run as written with a scripted model (the SDK's
``Model`` interface; the SDK ships no fake model) in place of ``gpt-4.1``: its tool calls reach
a real ``corollary mcp`` child, the snippet's instructions (with the server's) reach the model,
and the session keeps what the model recorded."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents.mcp", reason="the frameworks extra: openai-agents")
from agents import set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from support.snippets import CLAIM, FACTS, run_snippet, saved_growth, snippet  # noqa: E402

from corollary.agent.prompts import MCP_INSTRUCTIONS  # noqa: E402


def call(call_id: str, name: str, arguments: dict[str, Any]) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=f"fc_{call_id}", call_id=call_id, name=name,
                                    arguments=json.dumps(arguments), type="function_call",
                                    status="completed")


def text(words: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg_1", role="assistant", status="completed",
                                 type="message", content=[ResponseOutputText(
                                     text=words, type="output_text", annotations=[])])


class ScriptedModel(Model):
    """Answers from a script, keeping what it was sent."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = script
        self.seen: list[dict[str, Any]] = []

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any,
                           tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                           **_: Any) -> ModelResponse:
        self.seen.append({"instructions": system_instructions, "input": input,
                          "tools": [t.name for t in tools]})
        return ModelResponse(output=self.script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the snippet does not stream")


def test_the_openai_agents_snippet_runs(tmp_path: Path) -> None:
    set_tracing_disabled(True)  # no trace export: nothing leaves the machine
    model = ScriptedModel([
        [call(f"a{i}", "assert_fact", {"key": k, "value": v, "source": "document:10-Q"})
         for i, (k, v) in enumerate(FACTS)],
        [call("c", "claim", CLAIM)],
        [call("e", "explain", {"key": "growth"})],
        [text("Revenue grew 10% from Q2 to Q3, by the filings.")],
    ])
    done = run_snippet(snippet("from agents.mcp import MCPServerStdio"), tmp_path,
                       {'model="gpt-4.1"': "model=MODEL"}, {"MODEL": model})
    assert done["result"].final_output == "Revenue grew 10% from Q2 to Q3, by the filings."
    first = model.seen[0]
    assert first["instructions"].startswith("Keep what you learn in corollary. ")
    assert MCP_INSTRUCTIONS in first["instructions"]
    assert {"assert_fact", "claim", "explain", "belief"} <= set(first["tools"])
    # the tools' answers went back to the model as their outputs
    outputs = {item["call_id"]: item["output"] for item in model.seen[-1]["input"]
               if isinstance(item, dict) and item.get("type") == "function_call_output"}
    claimed = json.loads(outputs["c"])
    assert (claimed["value"], claimed["label"], claimed["refuted"]) == (0.1, "IN", None)
    assert "(q3 - q2) / q2" in json.loads(outputs["e"])["text"]
    assert saved_growth(tmp_path) == (0.1, "IN")

"""docs/mcp.md's langchain-mcp-adapters snippet, run as written with LangChain's own fake chat
model (``FakeMessagesListChatModel``, answering from a list) in place of a real one: its tool
calls reach a real ``corollary mcp`` child through the adapter's tools, and the session keeps
what the model recorded. langchain-mcp-adapters 0.3.2 pins ``mcp<2``: this runs in CI's
second environment (mcp 1.x, .ci/run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_mcp_adapters.client",
                    reason="langchain-mcp-adapters (CI's mcp 1.x environment)")
from langchain_core.language_models.fake_chat_models import (  # noqa: E402
    FakeMessagesListChatModel,
)
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from support.snippets import CLAIM, FACTS, run_snippet, saved_growth, snippet  # noqa: E402

from corollary.agent.prompts import MCP_INSTRUCTIONS  # noqa: E402


class ToolCallingFake(FakeMessagesListChatModel):
    """The fake, answering from its list, taking tools as a tool-calling model does (the
    fake's own ``bind_tools`` is not implemented); it keeps what it was sent."""

    seen: list[Any] = []
    bound: list[Any] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound.extend(tools)
        return self

    def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def test_the_langchain_snippet_runs(tmp_path: Path) -> None:
    def calls(*made: tuple[str, str, dict[str, Any]]) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"id": i, "name": n, "args": a, "type":
                                                  "tool_call"} for i, n, a in made])

    chat_model = ToolCallingFake(responses=[
        calls(*[(f"a{i}", "assert_fact", {"key": k, "value": v, "source": "document:10-Q"})
                for i, (k, v) in enumerate(FACTS)]),
        calls(("c", "claim", dict(CLAIM))),
        calls(("e", "explain", {"key": "growth"})),
        AIMessage(content="Revenue grew 10% from Q2 to Q3, by the filings."),
    ])
    done = run_snippet(snippet("langchain_mcp_adapters"), tmp_path, {},
                       {"chat_model": chat_model})
    assert done["reply"].content == "Revenue grew 10% from Q2 to Q3, by the filings."
    assert {t.name for t in chat_model.bound} >= {"assert_fact", "claim", "explain"}
    first = chat_model.seen[0]
    assert first[0].content == MCP_INSTRUCTIONS
    answers = {m.tool_call_id: m for m in done["history"] if isinstance(m, ToolMessage)}
    assert set(answers) == {"a0", "a1", "c", "e"}

    def data(message: ToolMessage) -> Any:
        content = message.content
        if isinstance(content, list):  # content blocks: the structured answer as text
            content = "".join(b["text"] if isinstance(b, dict) else str(b) for b in content)
        return json.loads(content)

    claimed = data(answers["c"])
    assert (claimed["value"], claimed["label"], claimed["refuted"]) == (0.1, "IN", None)
    assert "(q3 - q2) / q2" in data(answers["e"])["text"]
    assert saved_growth(tmp_path) == (0.1, "IN")

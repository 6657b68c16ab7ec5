"""The adapter docs/agent.md gives for clients of the `openai` package works: run against a
stand-in client shaped like the package's (attributes, JSON-string arguments), an agent
completes the worked analysis, and unreadable arguments go back to the model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from agent_cases import revenue

from corollary import Agent, BeliefBase, ManualClock

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "agent.md"


def adapter() -> Any:
    block = next(b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
                 if "class OpenAISDKModel" in b)
    assert len(block.splitlines()) <= 26  # "a 20-line adapter", imports and docstring aside
    space: dict[str, Any] = {}
    exec(compile(block, str(DOC), "exec"), space)  # noqa: S102 - our own documentation
    return space["OpenAISDKModel"]


def message(content: Any, *calls: tuple[str, str, str]) -> Any:
    tool_calls = [NS(id=i, type="function", function=NS(name=n, arguments=a)) for i, n, a in calls]
    return NS(choices=[NS(message=NS(content=content, tool_calls=tool_calls or None),
                          finish_reason="tool_calls" if calls else "stop")])


class Client:
    """Shaped like openai.OpenAI(): client.chat.completions.create(**request)."""

    def __init__(self, responses: list[Any]) -> None:
        self.responses = responses
        self.requests: list[dict[str, Any]] = []
        self.chat = NS(completions=NS(create=self.create))

    def create(self, **request: Any) -> Any:
        self.requests.append(request)
        return self.responses.pop(0)


def test_the_documented_adapter_runs_an_agent() -> None:
    client = Client([
        message(None, ("a", "revenue", "{quarter: Q2"),),
        message(None, ("c1", "revenue", json.dumps({"quarter": "Q2"})),
                ("c2", "revenue", json.dumps({"quarter": "Q3"}))),
        message(None, ("c3", "claim", json.dumps({"key": "growth", "value": 0.1,
                                                  "formula": "(q3 - q2) / q2",
                                                  "inputs": {"q2": "revenue:Q2",
                                                             "q3": "revenue:Q3"}}))),
        message(None, ("c4", "claim", json.dumps({"key": "trend", "value": "up",
                                                  "inputs": ["growth"]}))),
        message("Done.", ("c5", "answer", json.dumps({"value": "revenue is growing",
                                                      "inputs": ["revenue:Q3", "trend"]}))),
    ])
    model = adapter()(client, "gpt-test", temperature=0)
    run = Agent(model, BeliefBase(clock=ManualClock(0)), tools=[revenue], name="analyst",
                learn_from_checks=False).run("Is revenue growing?")
    assert run.status == "ok" and f"{run.confidence:.3f}" == "0.802"
    assert run.steps[0].error is not None and run.steps[0].error.startswith(
        "the arguments could not be read")
    assert len(client.requests) == 5
    assert client.requests[0]["model"] == "gpt-test" and client.requests[0]["temperature"] == 0
    assert [t["function"]["name"] for t in client.requests[0]["tools"]] == ["revenue", "claim",
                                                                           "answer", "recall"]

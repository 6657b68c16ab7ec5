"""``await kb.aremember(...)`` (issue 35, item 5): the model is awaited (its ``acomplete``), so
the event loop runs on while it answers; the toolsets' ``remember`` (pydantic-ai, the Agents SDK)
awaits it in the framework's own loop."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from model_server import Answer, Server
from remember_cases import fact, facts, wire_facts

from corollary import BeliefBase, ManualClock
from corollary.foundations.errors import ModelResponseError
from corollary.models import FunctionModel, OpenAIChat, Reply

CITY = fact("Alice", "city", "Paris", "I live in Paris")


def test_aremember_over_http_leaves_the_event_loop_free(server: Server) -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    model = OpenAIChat(server.url, "m", api_key="", max_retries=0)
    # the first answer trickles in until the loop has ticked five times; the second is facts
    server.then(Answer(action="trickle"), Answer(body=wire_facts(CITY)))

    async def go() -> tuple[Any, int, Any]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while ticks < 5:
                await asyncio.sleep(0.02)
                ticks += 1
            server.released.set()  # the server may answer now

        ticker = asyncio.create_task(tick())
        # the trickled answer is text with no facts object: an error (docs/remember.md)
        with pytest.raises(ModelResponseError, match="no facts object"):
            await kb.aremember("Hello.", source="human:alice", model=model)
        seen = ticks  # 0 with a call that blocks the loop: the answer came only after 3 s
        await ticker
        made = await kb.aremember("I live in Paris.", source="human:alice", model=model)
        return seen, made

    seen, made = asyncio.run(go())
    assert seen >= 5 and len(server.requests) == 2  # the first changed nothing
    assert [(r.key, r.value, r.label) for r in made] == [("alice:city", "Paris", "IN")]
    assert server.requests[-1].json["tools"][0]["function"]["name"] == "facts"


def test_aremember_refuses_what_remember_refuses_before_asking() -> None:
    from corollary.foundations.errors import InvalidInputError

    kb = BeliefBase(clock=ManualClock(1000))
    asked: list[Any] = []

    async def extract(messages: Any, tools: Any) -> Reply:
        asked.append(messages)
        return facts(CITY)

    with pytest.raises(InvalidInputError):
        asyncio.run(kb.aremember("I live in Paris.", model=FunctionModel(extract)))
    assert asked == [] and not kb.engine.keys


def _extractor(loops: list[asyncio.AbstractEventLoop]) -> FunctionModel:
    """A corollary model that awaits: it notes the loop it answers in."""
    async def extract(messages: Any, tools: Any) -> Reply:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return facts(CITY)

    return FunctionModel(extract)


def test_the_pydantic_ai_toolset_awaits_remember_in_the_agents_loop() -> None:
    pytest.importorskip("pydantic_ai", reason="the frameworks extra: pydantic-ai-slim")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo
    from pydantic_ai.models.function import FunctionModel as AgentModel

    from corollary.integrations.pydantic_ai import make_toolset

    agent_loops: list[asyncio.AbstractEventLoop] = []
    extract_loops: list[asyncio.AbstractEventLoop] = []
    script = [[ToolCallPart("remember", {"text": "I live in Paris.", "source": "human:alice"},
                            tool_call_id="m")], [TextPart("Noted.")]]

    async def drive(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        agent_loops.append(asyncio.get_running_loop())
        return ModelResponse(parts=script.pop(0))

    kb = BeliefBase(clock=ManualClock(1000))
    agent = Agent(AgentModel(drive), toolsets=[make_toolset(kb, model=_extractor(extract_loops),
                                                            scope="alice")])
    result = asyncio.run(agent.run("Remember this."))
    assert result.output == "Noted."
    # on main the tool ran remember in a worker thread, whose model ran in a loop of its own
    assert extract_loops == [agent_loops[0]]
    assert kb.value("alice:city") == "Paris"


def test_the_agents_sdk_tools_await_remember_in_the_runs_loop() -> None:
    pytest.importorskip("agents", reason="the frameworks extra: openai-agents")
    from agents import Agent, Runner, set_tracing_disabled
    from frameworks.test_openai_agents import ScriptedModel, call, text

    from corollary.integrations.openai_agents import make_tools

    set_tracing_disabled(True)  # no trace export: nothing leaves the machine
    extract_loops: list[asyncio.AbstractEventLoop] = []
    model = ScriptedModel([[call("m", "remember", {"text": "I live in Paris.",
                                                   "source": "human:alice"})],
                           [text("Noted.")]])
    kb = BeliefBase(clock=ManualClock(1000))
    agent = Agent(name="memo", instructions="Remember.", model=model,
                  tools=make_tools(kb, model=_extractor(extract_loops)))

    async def go() -> Any:
        return asyncio.get_running_loop(), await Runner.run(agent, "Remember this.")

    loop, result = asyncio.run(go())
    assert result.final_output == "Noted."
    assert extract_loops == [loop]
    outputs = [item["output"] for item in model.seen[-1]["input"]
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert [r["key"] for r in json.loads(outputs[0])["remembered"]] == ["alice:city"]

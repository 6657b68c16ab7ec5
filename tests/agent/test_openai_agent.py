"""One whole agent run through OpenAIChat against a real HTTP server on 127.0.0.1: what the
agent sends over the wire each turn, and the worked numbers at the end."""

from __future__ import annotations

import asyncio
import json
from contextlib import closing
from typing import Any

from agent_cases import revenue
from model_server import Answer, Server, completion

from corollary import Agent, BeliefBase, ManualClock, OpenAIChat
from corollary.agent import DEFAULT_SYSTEM


def wire(id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def script(server: Server, *, broken_first: bool = False) -> None:
    first = [wire("c1", "revenue", {"quarter": "Q2"}), wire("c2", "revenue", {"quarter": "Q3"})]
    if broken_first:  # a model that writes arguments that are not JSON, then corrects itself
        server.then(Answer(body=completion(None, [{"id": "c0", "type": "function", "function": {
            "name": "revenue", "arguments": "{quarter: Q2"}}], "tool_calls")))
    server.then(
        Answer(body=completion(None, first, "tool_calls")),
        Answer(body=completion(None, [wire("c3", "claim", {
            "key": "growth", "value": 0.1, "formula": "(q3 - q2) / q2",
            "inputs": {"q2": "revenue:Q2", "q3": "revenue:Q3"}})], "tool_calls")),
        Answer(body=completion(None, [wire("c4", "claim", {
            "key": "trend", "value": "up", "inputs": ["growth"]})], "tool_calls")),
        Answer(body=completion("Revenue rose.", [wire("c5", "answer", {
            "value": "revenue is growing", "inputs": ["revenue:Q3", "trend"]})], "tool_calls")),
    )


def agent(server: Server) -> Agent:
    model = OpenAIChat(server.url, "local-model", api_key="", temperature=0)
    return Agent(model, BeliefBase(clock=ManualClock(0)), tools=[revenue], name="analyst",
                 learn_from_checks=False, context_budget=None)


def test_an_agent_run_over_http() -> None:
    with closing(Server()) as server:
        script(server)
        run = agent(server).run("Is revenue growing?")
    assert (run.status, run.answer) == ("ok", "revenue is growing")
    assert f"{run.confidence:.3f}" == "0.802"
    assert len(server.requests) == 4
    bodies = [r.json for r in server.requests]
    assert all(b["model"] == "local-model" and b["temperature"] == 0 for b in bodies)
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == ["revenue", "claim", "answer",
                                                                   "recall"]
    assert bodies[0]["messages"] == [
        {"role": "system", "content": DEFAULT_SYSTEM},
        {"role": "user", "content": "Is revenue growing?"},
        {"role": "user", "content": "Beliefs held now (key = value [IN confidence]):\n(none yet)"}]
    last = bodies[3]["messages"]
    for before, after in zip(bodies, bodies[1:], strict=False):  # each request starts with the one before
        assert after["messages"][:len(before["messages"])] == before["messages"]
    assert [m["role"] for m in last[3:]] == ["assistant", "tool", "tool", "assistant", "tool",
                                            "assistant", "tool"]
    assert last[3]["tool_calls"][0]["function"] == {"name": "revenue",
                                                    "arguments": '{"quarter": "Q2"}'}
    assert json.loads(last[-1]["content"]) == {"key": "trend", "value": "up", "confidence": 0.891,
                                               "label": "IN"}
    assert str(run.explain()).startswith("answer = 'revenue is growing' [IN 0.80]")


def test_an_async_run_over_http_recovers_from_unreadable_arguments() -> None:
    with closing(Server()) as server:
        script(server, broken_first=True)
        run = asyncio.run(agent(server).arun("Is revenue growing?"))
    assert run.status == "ok" and f"{run.confidence:.3f}" == "0.802"
    assert len(server.requests) == 5
    second = server.requests[1].json["messages"]
    assert second[3]["tool_calls"][0]["function"]["arguments"] == "{}"  # written back as valid JSON
    assert json.loads(second[4]["content"])["error"].startswith(
        "the arguments could not be read")
    assert not run.steps[0].ok and run.steps[0].name == "revenue"

"""AnswerAfterText: the request after a nudged plain-text reply goes to the model that must call
``answer``; every other request to the free one; a forced answer resting on nothing held is
refused like any answer, and the message goes back to the model. With ``force_answer=False``:
the agent's own named steps (docs/agent.md) otherwise name ``answer`` themselves."""

from __future__ import annotations

import asyncio

import pytest

from corollary import Agent, BeliefBase, InvalidTypeError, ScriptedModel
from corollary.agent import prompts
from corollary.integrations.local_model import AnswerAfterText
from corollary.models import Reply, ToolCall


def base() -> BeliefBase:
    kb = BeliefBase()
    kb.assert_("customer:7:email", "bo@example.com", source="tool:crm")
    return kb


def answer(value: str, inputs: list[str], n: int) -> Reply:
    return Reply(None, [ToolCall(f"a{n}", "answer", {"value": value, "inputs": inputs})])


def test_only_the_request_after_a_nudge_is_forced() -> None:
    free = ScriptedModel([
        Reply(None, [ToolCall("r", "recall", {"query": "customer 7 email"})]),
        "It is bo@example.com.",
        "As I said, bo@example.com.",  # after the refusal the model is free again, and talks
    ])
    forced = ScriptedModel([answer("bo@example.com", ["customer:9:email"], 1),
                            answer("bo@example.com", ["customer:7:email"], 2)])
    run = Agent(AnswerAfterText(free, forced), base(), max_steps=5, force_answer=False).run(
        "customer 7's email?")
    assert (run.status, run.answer) == ("ok", "bo@example.com")
    assert len(free.requests) == 3 and len(forced.requests) == 2
    assert all(m[-1]["content"] != prompts.NUDGE for m, _ in free.requests)
    assert forced.requests[0][0][-1]["content"] == prompts.NUDGE
    refused = [s.error for s in run.steps if s.error]
    assert len(refused) == 1 and "customer:9:email" in refused[0]
    # the refusal went back to the model as the answer call's tool message (to the free
    # model); it was forced again only after its next plain-text reply
    assert free.requests[2][0][-1]["role"] == "tool"
    assert "customer:9:email" in free.requests[2][0][-1]["content"]
    assert forced.requests[1][0][-1]["content"] == prompts.NUDGE


def test_async_and_bad_models() -> None:
    free = ScriptedModel(["talk"])
    forced = ScriptedModel([answer("bo@example.com", ["customer:7:email"], 1)])
    run = asyncio.run(Agent(AnswerAfterText(free, forced), base(), force_answer=False).arun(
        "customer 7's email?"))
    assert run.status == "ok"
    with pytest.raises(InvalidTypeError):
        AnswerAfterText(free, object())


def test_the_forced_request_sends_answer_with_a_schema_a_grammar_takes() -> None:
    from corollary.integrations.local_model import ANSWER_PARAMETERS

    free = ScriptedModel(["talk"])
    forced = ScriptedModel([answer("bo@example.com", ["customer:7:email"], 1)])
    Agent(AnswerAfterText(free, forced), base(), force_answer=False).run("customer 7's email?")
    sent = {t["function"]["name"]: t["function"]["parameters"] for t in forced.requests[0][1]}
    assert sent["answer"] == ANSWER_PARAMETERS
    assert all("type" in p or "anyOf" in p for p in ANSWER_PARAMETERS["properties"].values())
    kept = {t["function"]["name"]: t["function"]["parameters"] for t in free.requests[0][1]}
    assert kept["answer"] != ANSWER_PARAMETERS and sent["claim"] == kept["claim"]

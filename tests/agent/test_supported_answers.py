"""Answers are supported, and a forced answer cites only held keys (issue 39 items 2 and 3;
docs/agent.md, "Supported answers" and "A forced answer")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from agent_cases import call, calls
from support.llama_server import LlamaLikeServer, Seen

from corollary import Agent, BeliefBase, ManualClock, ScriptedModel
from corollary.agent import prompts
from corollary.models import OpenAIChat

EMAIL = {"value": "bo@example.com", "inputs": ["customer:7:email"]}


def base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), learn_from_checks=False)
    kb.assert_("customer:7:email", "bo@example.com", source="tool:crm")
    kb.assert_("customer:42:plan", "enterprise", source="tool:crm")
    return kb


def told(model: ScriptedModel, request: int) -> str:
    return str(model.requests[request][0][-1]["content"])


@pytest.mark.parametrize(("bad", "why"), [
    ({"value": 10, "inputs": []}, "the answer cites no belief"),
    ({"value": 10, "inputs": ["customer:7:email"]}, "no cited belief holds 10"),
])
def test_an_unsupported_answer_is_refused_and_the_model_told_why(bad: dict[str, Any],
                                                                 why: str) -> None:
    kb = base()
    model = ScriptedModel([calls(call("answer", bad, "a1")), calls(call("answer", EMAIL, "a2"))])
    run = Agent(model, kb).run("What is customer 7's email?")
    assert why in told(model, 1)  # the tool message of the refused answer
    assert (run.status, run.answer) == ("ok", "bo@example.com")
    assert [s.ok for s in run.steps] == [False, True] and why in str(run.steps[0].error)


def test_an_unsupported_answer_alone_never_ends_ok() -> None:
    model = ScriptedModel([calls(call("answer", {"value": 10, "inputs": []}, "a1"))])
    run = Agent(model, base(), max_steps=1).run("What is customer 7's email?")
    assert run.status == "no answer" and run.confidence == 0.0


def test_under_doubt_an_unsupported_answer_is_believed_at_a_confidence_that_says_so() -> None:
    model = ScriptedModel([calls(call("answer", {"value": 10, "inputs": ["customer:7:email"]}))])
    run = Agent(model, base(), unsupported_answers="doubt").run("What is customer 7's email?")
    assert run.status == "ok" and run.confidence <= 0.2
    assert run.why is not None and "unsupported" in run.why and "no cited belief holds 10" in run.why


def test_an_answer_restating_what_it_cites_is_supported() -> None:
    model = ScriptedModel([calls(call("answer", {"value": "Customer 7 is bo@example.com",
                                                 "inputs": ["customer:7:email"]}))])
    run = Agent(model, base()).run("What is customer 7's email?")
    assert run.status == "ok" and run.confidence > 0.8


def test_a_key_not_held_is_answered_with_the_nearest_held_keys() -> None:
    model = ScriptedModel([
        calls(call("answer", {"value": "bo@example.com", "inputs": ["customer:7 email"]}, "a1")),
        calls(call("answer", EMAIL, "a2"))])
    Agent(model, base()).run("What is customer 7's email?")
    assert '"nearest": {"customer:7 email": ["customer:7:email"' in told(model, 1)


def test_after_a_text_reply_the_forced_answer_names_its_tool_and_the_held_keys() -> None:
    model = ScriptedModel(["Let me see.", calls(call("answer", EMAIL))])
    run = Agent(model, base(), force_answer=True, context_budget=None).run(
        "What is customer 7's email?")
    assert run.status == "ok"
    assert model.options[0].tool_choice is None  # the first request is free
    assert model.options[1].tool_choice == {"type": "function", "function": {"name": "answer"}}
    (tool,) = model.requests[1][1]
    inputs = tool["function"]["parameters"]["properties"]["inputs"]
    assert inputs["minItems"] == 1
    # the held keys sharing the most words with the task (docs/agent.md, "Named steps")
    assert inputs["items"]["enum"] == ["customer:7:email"]
    # and its value is one those keys hold (a supported answer's is)
    assert tool["function"]["parameters"]["properties"]["value"]["enum"] == ["bo@example.com"]


def test_the_last_step_is_a_forced_answer() -> None:
    model = ScriptedModel([calls(call("recall", {"query": "customer 7"})),
                           calls(call("answer", EMAIL))])
    Agent(model, base(), force_answer=True, max_steps=2).run("What is customer 7's email?")
    assert [o.tool for o in model.options] == [None, "answer"]


@pytest.fixture
def llama() -> Iterator[LlamaLikeServer]:
    def qwen(seen: Seen) -> dict[str, Any] | str:
        if seen.tool is None:  # the tools left out of its prompt: it talks
            return "I will look at the beliefs held."
        assert seen.parameters is not None
        offered = seen.parameters["properties"]["inputs"]["items"]["enum"]
        values = seen.parameters["properties"]["value"]["enum"]
        # a grammar-constrained reply: the key and the value among those offered
        return {"value": values[offered.index("customer:7:email")], "inputs": ["customer:7:email"]}
    srv = LlamaLikeServer(qwen)
    try:
        yield srv
    finally:
        srv.close()


def test_a_small_model_on_a_llama_cpp_server_answers_through_the_forced_call(
        llama: LlamaLikeServer) -> None:
    model = OpenAIChat(llama.url, "qwen", api_key="", dialect="llama-cpp-python",
                       small_model=True, max_retries=0)
    agent = Agent(model, base(), context_budget=None)
    assert agent.small_model and agent.system == prompts.SMALL_SYSTEM
    run = agent.run("What is customer 7's email?")
    assert (run.status, run.answer) == ("ok", "bo@example.com")
    # this server offers tools only when one is named: the first request names answer
    assert [b.get("tool_choice") for b in llama.bodies] == [
        {"type": "function", "function": {"name": "answer"}}]


def test_the_forced_answer_asks_for_its_inputs_before_its_value(llama: LlamaLikeServer) -> None:
    # llama.cpp's grammar writes an object's fields in the schema's order: Qwen2.5-Coder-0.5B,
    # asked for the value first, answered 'Chen' and then cited whatever keys came first; the
    # beliefs come first so that the value is written after, and from, them
    model = OpenAIChat(llama.url, "qwen", api_key="", dialect="llama-cpp-python",
                       small_model=True, max_retries=0)
    Agent(model, base(), context_budget=None).run("What is customer 7's email?")
    answer = llama.bodies[-1]["tools"][0]["function"]["parameters"]
    assert list(answer["properties"]) == ["inputs", "value"]
    assert answer["required"] == ["inputs", "value"]


def test_a_text_reply_naming_one_held_belief_is_read_as_the_answer() -> None:
    # Qwen2.5-Coder-0.5B's words named the key and value ("employee:chen:extension = 4388"),
    # then its forced call cited the first keys offered with another value (docs/agent.md)
    def qwen(seen: Seen) -> dict[str, Any] | str:
        if seen.tool is None:  # the template escapes its quotes: the model copies &#34;
            return 'customer:7:email = "bo@example.com" [IN 0.95]'
        offered = seen.parameters["properties"]["inputs"]["items"]["enum"] if seen.parameters \
            else []
        return {"inputs": offered[:2], "value": "starter"}
    srv = LlamaLikeServer(qwen)
    try:
        model = OpenAIChat(srv.url, "qwen", api_key="", dialect="llama-cpp-python",
                           small_model=True, max_retries=0)
        # a first request offering every tool, unnamed: what the model says in words
        run = Agent(model, base(), context_budget=None, force_answer=True).run(
            "What is customer 7's email?")
        assert (run.status, run.answer) == ("ok", "bo@example.com")
        answer = next(s for s in run.steps if s.kind == "answer")
        assert answer.arguments == {"inputs": ["customer:7:email"], "value": "bo@example.com"}
        assert len(srv.bodies) == 1  # no forced request was needed
        # a text naming two held beliefs is not guessed between: the forced answer follows
        srv.bodies.clear()
        two = ScriptedModel(["customer:7:email = bo@example.com; customer:42:plan = enterprise",
                             calls(call("answer", EMAIL))])
        Agent(two, base(), force_answer=True, context_budget=None).run("Customer 7's email?")
        assert [o.tool for o in two.options] == [None, "answer"]
    finally:
        srv.close()

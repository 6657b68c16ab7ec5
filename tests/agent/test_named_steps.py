"""The agent's defaults on a server that offers tools only when one is named (llama.cpp's;
issue 39: the defaults answered 0 of 8 tasks there): once the model has answered in words,
each request names one tool, the one the task asks for or ``answer`` (docs/agent.md, "Named
steps")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from agent_cases import call, calls
from support.llama_server import LlamaLikeServer, Seen

from corollary import Agent, BeliefBase, ManualClock, ScriptedModel, tool
from corollary.models import OpenAIChat

RATES = {"GBP": 1.27, "EUR": 1.08}


@tool(name="fx_rate", key="fx:{currency}")
def fx_rate(currency: str) -> float:
    """The exchange rate of a currency in US dollars."""
    return RATES[currency.upper()]


def base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), tools=[fx_rate], learn_from_checks=False)
    kb.assert_("employee:ada:team", "Platform", source="tool:hr")
    kb.assert_("employee:bo:team", "Billing", source="tool:hr")
    kb.assert_("employee:bo:extension", 4102, source="tool:hr")
    kb.assert_("customer:7:email", "bo@example.com", source="tool:crm")
    return kb


def small(seen: Seen) -> dict[str, Any] | str:
    """A small model on llama-cpp-python: it talks when no tool is named (its words name no
    belief), and under a named tool's grammar picks the first key offered and its value."""
    if seen.tool is None:
        return "Let me look that up."
    assert seen.parameters is not None
    if seen.tool == "fx_rate":
        return {"currency": "GBP"}
    offered = seen.parameters["properties"]["inputs"]["items"]["enum"]
    return {"inputs": [offered[0]], "value": HELD[offered[0]]}


HELD = {"employee:ada:team": "Platform", "employee:bo:team": "Billing",
        "employee:bo:extension": 4102, "customer:7:email": "bo@example.com", "fx:GBP": 1.27}


@pytest.fixture
def llama() -> Iterator[LlamaLikeServer]:
    srv = LlamaLikeServer(small)
    try:
        yield srv
    finally:
        srv.close()


def chat(srv: LlamaLikeServer, dialect: str = "llama-cpp-python") -> OpenAIChat:
    return OpenAIChat(srv.url, "qwen", api_key="", dialect=dialect, max_retries=0)


def named(srv: LlamaLikeServer) -> list[str | None]:
    return [(b.get("tool_choice") or {}).get("function", {}).get("name") for b in srv.bodies]


def test_by_default_a_look_up_is_answered_on_a_server_that_needs_a_tool_named(
        llama: LlamaLikeServer) -> None:
    run = Agent(chat(llama), base(), tools=[fx_rate], context_budget=None).run(
        "Which team is Bo in?")
    assert (run.status, run.answer) == ("ok", "Billing")
    assert named(llama) == ["answer"]  # this dialect's server needs a tool named from the start
    # the forced answer offers the held keys sharing the most words with the task
    offered = llama.bodies[0]["tools"][0]["function"]["parameters"]["properties"]["inputs"]
    assert offered["items"]["enum"] == ["employee:bo:team"]


def test_by_default_the_tool_the_task_asks_for_is_named_then_the_answer(
        llama: LlamaLikeServer) -> None:
    run = Agent(chat(llama), base(), tools=[fx_rate], context_budget=None).run(
        "What is the exchange rate of GBP in US dollars?")
    assert (run.status, run.answer) == ("ok", 1.27)
    assert named(llama) == ["fx_rate", "answer"]
    assert [t["function"]["name"] for t in llama.bodies[0]["tools"]] == ["fx_rate"]
    assert [s.kind for s in run.steps] == ["tool", "answer"]


def test_a_model_not_known_to_need_names_is_named_after_its_first_words() -> None:
    # a model that does not say its server needs a tool named: the first request offers every
    # tool, and the model's words show they did not reach it
    model = ScriptedModel(["Let me look that up.", calls(call("fx_rate", {"currency": "GBP"})),
                           calls(call("answer", {"value": 1.27, "inputs": ["fx:GBP"]}))])
    run = Agent(model, base(), tools=[fx_rate], context_budget=None).run(
        "What is the exchange rate of GBP in US dollars?")
    assert (run.status, run.answer) == ("ok", 1.27)
    assert [o.tool for o in model.options] == [None, "fx_rate", "answer"]
    assert [t["function"]["name"] for t in model.requests[1][1]] == ["fx_rate"]


def test_a_tool_the_model_names_in_words_is_the_one_named() -> None:
    # Qwen2.5-Coder-0.5B, its tools left out, wrote the call as text (issue 39)
    model = ScriptedModel(['fx_rate("GBP")', calls(call("fx_rate", {"currency": "GBP"})),
                           calls(call("answer", {"value": 1.27, "inputs": ["fx:GBP"]}))])
    run = Agent(model, base(), tools=[fx_rate], context_budget=None).run(
        "How much is a pound worth?")
    assert [o.tool for o in model.options] == [None, "fx_rate", "answer"]
    assert (run.status, run.answer) == ("ok", 1.27)
    # the forced answer offers what the tool made, the task sharing no word with any key
    offered = model.requests[2][1][0]["function"]["parameters"]["properties"]["inputs"]
    assert offered["items"]["enum"] == ["fx:GBP"]


def test_the_last_step_names_answer_by_default() -> None:
    model = ScriptedModel([calls(call("recall", {"query": "bo team"})),
                           calls(call("answer", {"value": "Billing",
                                                 "inputs": ["employee:bo:team"]}))])
    Agent(model, base(), max_steps=2).run("Which team is Bo in?")
    assert [o.tool for o in model.options] == [None, "answer"]


def test_force_answer_false_never_names_a_tool() -> None:
    model = ScriptedModel(["Let me see.", calls(call("answer", {
        "value": "Billing", "inputs": ["employee:bo:team"]}))])
    run = Agent(model, base(), force_answer=False).run("Which team is Bo in?")
    assert run.status == "ok"
    assert [o.tool for o in model.options] == [None, None]


def test_a_model_calling_tools_unnamed_is_never_named_but_on_its_last_step() -> None:
    model = ScriptedModel([calls(call("fx_rate", {"currency": "EUR"})),
                           calls(call("answer", {"value": 1.08, "inputs": ["fx:EUR"]}))])
    run = Agent(model, base(), tools=[fx_rate], max_steps=3).run("EUR in dollars?")
    assert (run.status, run.answer) == ("ok", 1.08)
    assert [o.tool for o in model.options] == [None, None]


def test_a_forced_answer_s_value_is_one_its_keys_hold(llama: LlamaLikeServer) -> None:
    # Qwen2.5-Coder-0.5B, offered product:gizmo:price alone with a free value, answered another
    # product's price four times, refused each time
    run = Agent(chat(llama), base(), tools=[fx_rate], context_budget=None).run(
        "What is Bo's phone extension?")
    assert (run.status, run.answer) == ("ok", 4102)
    value = llama.bodies[0]["tools"][0]["function"]["parameters"]["properties"]["value"]
    assert value["enum"] == [4102]

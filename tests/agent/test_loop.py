"""The agent's loop with real parts: a BeliefBase, @tool functions and scripted models.

What a run returns, what the model is sent each turn (system message, task, the beliefs at or
above the floor, tools), what goes back after each call, and how a run ends. How the
conversation grows (its prefix never changes) is in test_prompts.py; the recalled beliefs of a
large base in test_recall_tool.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agent_cases import call, calls, revenue, worked_script

import corollary
from corollary import (
    Agent,
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    Reply,
    Run,
    ScriptedModel,
    TrustPolicy,
    tool,
)
from corollary.agent import DEFAULT_SYSTEM
from corollary.agent.prompts import NUDGE
from corollary.foundations.errors import ModelError, ScriptExhaustedError
from corollary.models import FunctionModel


def base(**options: Any) -> BeliefBase:
    return BeliefBase(clock=ManualClock(0), **options)


def test_the_agent_and_the_models_are_at_the_top() -> None:
    # before: `from corollary import Agent` raised ImportError (the first finding)
    for name in ("Agent", "Run", "ScriptedModel", "FunctionModel", "OpenAIChat", "Reply",
                 "ToolCall"):
        assert name in corollary.__all__ and hasattr(corollary, name)


def test_the_worked_run_gives_the_spec_numbers() -> None:
    kb = base()
    model = ScriptedModel(worked_script())
    run = Agent(model, kb, tools=[revenue], name="analyst", learn_from_checks=False).run(
        "Is revenue growing?")
    assert isinstance(run, Run)
    assert (run.status, run.key, run.answer, run.label) == ("ok", "answer", "revenue is growing", "IN")
    assert run.confidence == pytest.approx(0.9 * min(0.99, 0.9 * 0.99), abs=1e-12)
    assert kb.confidence("trend") == pytest.approx(0.891, abs=1e-12)
    assert [(s.kind, s.key) for s in run.steps] == [
        ("tool", "revenue:Q2"), ("tool", "revenue:Q3"), ("claim", "growth"), ("claim", "trend"),
        ("answer", "answer")]
    assert all(s.ok for s in run.steps)
    assert model.remaining == 0 and len(model.requests) == 4
    proof = str(run.explain())
    assert proof.startswith("answer = 'revenue is growing' [IN 0.80]")
    assert "formula (q3 - q2) / q2 by model:analyst, re-executed: reproduced 0.1" in proof


def test_claims_come_from_model_name_and_learning_follows_the_agent() -> None:
    kb = base()  # the base learns from checks; the agent may say otherwise for its claims
    Agent(ScriptedModel(worked_script()), kb, tools=[revenue], name="analyst",
          learn_from_checks=False).run("Is revenue growing?")
    assert kb.ledger.outcomes("model:analyst") == []
    assert kb.learn_from_checks is True  # the base's own setting is back
    kb2 = base()
    Agent(ScriptedModel(worked_script()), kb2, tools=[revenue], name="analyst").run("Growing?")
    outcomes = kb2.ledger.outcomes("model:analyst")
    assert [(o.correct, o.key) for o in outcomes] == [(True, "growth")]
    assert kb2.reliability("model:analyst") == pytest.approx(10 / 11, abs=1e-12)
    assert kb2.confidence("trend") == pytest.approx(10 / 11 * 0.99, abs=1e-12)


def test_what_the_model_sees_each_turn() -> None:
    kb = base(policy=TrustPolicy(min_confidence=0.5))
    kb.assert_("hunch", "maybe", source="assumption:me")  # 0.6: shown
    kb.assert_("rumour", "secret-rumour-value", source="tool:gossip")
    for _ in range(10):
        kb.record_outcome("tool:gossip", False)
    assert kb.confidence("rumour") == pytest.approx(9.5 / 20)  # 0.475: below the floor 0.5
    model = ScriptedModel(worked_script())
    Agent(model, kb, tools=[revenue], name="analyst", learn_from_checks=False,
          context_budget=None).run("Growing?")
    first, tools = model.requests[0]
    assert first == [
        {"role": "system", "content": DEFAULT_SYSTEM},
        {"role": "user", "content": "Growing?"},
        {"role": "user", "content": "Beliefs held now (key = value [IN confidence]):\n"
                                    'hunch = "maybe" [IN 0.60]'},
    ]
    assert [t["function"]["name"] for t in tools] == ["revenue", "claim", "answer", "recall"]
    assert tools[0] == {"type": "function", "function": {
        "name": "revenue", "description": "Quarterly revenue in $M, from the filings database.",
        "parameters": {"type": "object", "properties": {
            "quarter": {"type": "string", "description": "The quarter, e.g. Q2."}},
            "required": ["quarter"]}}}
    # the second turn: the first request, then the reply and the tool messages; the tool
    # messages told the model of the results, so no list of changes follows them
    second, _ = model.requests[1]
    assert second[:3] == first
    assert second[3]["role"] == "assistant" and len(second[3]["tool_calls"]) == 2
    assert [m["role"] for m in second[4:]] == ["tool", "tool"]
    # the low-confidence value never appears in any request, of any turn
    assert all("secret-rumour-value" not in json.dumps(r) for r in model.requests)
    assert len(model.requests) == 4


def test_the_tool_message_is_json_with_key_value_confidence_label() -> None:
    model = ScriptedModel(worked_script())
    Agent(model, base(), tools=[revenue], learn_from_checks=False).run("Growing?")
    tool_messages = [m for m in model.requests[-1][0] if m["role"] == "tool"]
    assert [json.loads(m["content"]) for m in tool_messages] == [
        {"key": "revenue:Q2", "value": 100.0, "confidence": 0.99, "label": "IN"},
        {"key": "revenue:Q3", "value": 110.0, "confidence": 0.99, "label": "IN"},
        {"key": "growth", "value": 0.1, "confidence": 0.99, "label": "IN"},
        {"key": "trend", "value": "up", "confidence": 0.891, "label": "IN"},
    ]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2", "c3", "c4"]


def test_a_result_below_the_floor_is_withheld_from_the_tool_message() -> None:
    @tool(trust=0.4, name="shaky")
    def shaky(q: str) -> str:
        """A source nobody trusts."""
        return "hidden-" + q

    model = ScriptedModel([calls(call("shaky", {"q": "x"}, "s1")), "thinking"])
    run = Agent(model, base(), tools=[shaky], min_confidence=0.5, max_steps=2).run("Go")
    assert json.loads(model.requests[1][0][-1]["content"]) == {
        "key": 'shaky(q="x")', "value": None, "confidence": 0.4, "label": "IN",
        "withheld": "confidence below 0.5: the value is not shown"}
    assert all("hidden-x" not in json.dumps(r) for r in model.requests)
    assert run.steps[0].value == "hidden-x"  # the run itself records what happened


def test_a_custom_projector_replaces_the_rendering() -> None:
    seen: list[int] = []

    def projector(kb: BeliefBase) -> str:
        seen.append(len(kb))
        return f"{len(kb)} beliefs"

    model = ScriptedModel(worked_script())
    Agent(model, base(), tools=[revenue], projector=projector).run("Growing?")
    assert model.requests[0][0][2]["content"].endswith("\n0 beliefs")
    # each later turn, a changed projection is a message of its changes (lines in and out)
    assert model.requests[1][0][-1]["content"] == (
        "The beliefs shown have changed:\nheld now:\n2 beliefs\n"
        "no longer held (or below the floor):\n0 beliefs")
    assert model.requests[3][0][-1]["content"].startswith(
        "The beliefs shown have changed:\nheld now:\n4 beliefs\n")
    assert seen == [0, 2, 3, 4]
    with pytest.raises(InvalidTypeError, match="projector returned int"):
        Agent(ScriptedModel(["x"]), base(), projector=lambda kb: 3).run("Go")


def test_keys_from_templates_else_name_and_arguments() -> None:
    @tool(name="fx")
    def fx(pair: str, venue: str = "ECB", size: int = 1) -> float:
        """An exchange rate."""
        return 1.08

    kb = base()
    model = ScriptedModel([calls(call("fx", {"pair": "EURUSD", "size": 2}, "f")),
                           calls(call("answer", {"value": 1.08, "inputs": [
                               'fx(pair="EURUSD", venue="ECB", size=2)']}, "a"))])
    run = Agent(model, kb, tools=[fx]).run("Rate?")
    assert run.steps[0].key == 'fx(pair="EURUSD", venue="ECB", size=2)'
    assert run.steps[0].arguments == {"pair": "EURUSD", "venue": "ECB", "size": 2}
    assert run.status == "ok"
    assert [(r.key, r.tool, r.arguments) for r in kb.calls()] == [
        ('fx(pair="EURUSD", venue="ECB", size=2)', "fx", {"pair": "EURUSD", "venue": "ECB",
                                                           "size": 2})]


def test_no_answer_when_max_steps_run_out_and_text_replies_are_nudged() -> None:
    model = ScriptedModel(["Let me think.", "Still thinking."])
    run = Agent(model, base(), max_steps=2).run("Growing?")
    assert (run.status, run.answer, run.confidence, run.label) == ("no answer", None, 0.0, "OUT")
    assert [(s.kind, s.text) for s in run.steps] == [("text", "Let me think."),
                                                    ("text", "Still thinking.")]
    second = model.requests[1][0]
    assert second[3:] == [{"role": "assistant", "content": "Let me think."},
                          {"role": "user", "content": NUDGE}]


def test_calls_after_the_answer_are_skipped() -> None:
    kb = base()
    kb.assert_("x", 1, source="human:me")
    model = ScriptedModel([calls(call("answer", {"value": 1, "inputs": ["x"]}, "a"),
                                 call("revenue", {"quarter": "Q2"}, "r"))])
    run = Agent(model, kb, tools=[revenue]).run("x?")
    assert run.status == "ok" and [s.kind for s in run.steps] == ["answer", "skipped"]
    assert "revenue:Q2" not in kb


def test_abstain_when_a_promise_says_so() -> None:
    kb = base()
    kb.guarantee(examples=[(0.97, True)] * 40 + [(0.5, False)] * 10, max_risk=0.1)
    run = Agent(ScriptedModel(worked_script()), kb, tools=[revenue], learn_from_checks=False
                ).run("Growing?")
    assert run.status == "abstain"
    assert run.answer == "revenue is growing" and len(run.verdicts) == 1
    assert run.verdicts[0].threshold == 0.97 and run.confidence < 0.97


def test_a_grouped_promise_needs_the_group() -> None:
    from corollary.promises.guarantee import calibrate

    kb = base()
    kb.promises["by_desk"] = calibrate([0.95] * 20 + [0.1] * 5 + [0.8] * 20 + [0.2] * 5,
                                       [True] * 20 + [False] * 5 + [True] * 20 + [False] * 5,
                                       max_risk=0.1, groups=["a"] * 25 + ["b"] * 25)
    model = ScriptedModel(worked_script())
    agent = Agent(model, kb, tools=[revenue], learn_from_checks=False)
    with pytest.raises(InvalidInputError, match=r"\['by_desk'\] have a threshold per group"):
        agent.run("Growing?")
    assert model.requests == []  # refused before anything was asked
    run = agent.run("Growing?", group="a")
    assert (run.status, run.verdicts[0].threshold) == ("abstain", 0.95)  # 0.802 < 0.95
    again = Agent(ScriptedModel(worked_script()), kb, tools=[revenue], learn_from_checks=False)
    run = again.run("Growing?", group="b")
    assert (run.status, run.verdicts[0].threshold) == ("ok", 0.8)  # 0.802 >= 0.8


def test_arun_awaits_async_tools_and_the_async_model() -> None:
    @tool(trust="high", key="price:{symbol}")
    async def price(symbol: str) -> float:
        """Last trade price."""
        await asyncio.sleep(0)
        return 101.5

    assert asyncio.iscoroutinefunction(price)  # @tool keeps it a coroutine function
    kb = base()
    model = ScriptedModel([calls(call("price", {"symbol": "ACME"}, "p")),
                           calls(call("answer", {"value": 101.5, "inputs": ["price:ACME"]}, "a"))])
    run = asyncio.run(Agent(model, kb, tools=[price]).arun("Price?"))
    assert run.status == "ok" and kb.value("price:ACME") == 101.5
    assert [r.tool for r in kb.calls()] == ["price"]
    # a sync run cannot await it: the model is told, nothing is asserted
    kb2 = base()
    model2 = ScriptedModel([calls(call("price", {"symbol": "ACME"}, "p")), "ok"])
    run2 = Agent(model2, kb2, tools=[price], max_steps=2).run("Price?")
    assert run2.steps[0].error == ("price failed: AsyncToolError: price is an async tool: use "
                                   "await kb.acall(...)")
    assert "price:ACME" not in kb2


def test_arun_with_a_sync_only_model_runs_it_in_a_thread() -> None:
    replies = iter(worked_script())
    model = FunctionModel(lambda messages, tools: next(replies))
    run = asyncio.run(Agent(model, base(), tools=[revenue], learn_from_checks=False).arun("G?"))
    assert run.status == "ok" and round(run.confidence, 3) == 0.802


def test_a_failing_model_raises_out_of_the_run() -> None:
    model = ScriptedModel([ModelError("the server is down")])
    with pytest.raises(ModelError, match="the server is down"):
        Agent(model, base()).run("Growing?")
    with pytest.raises(ScriptExhaustedError):
        Agent(ScriptedModel([]), base()).run("Growing?")


@pytest.mark.parametrize(("options", "error", "match"), [
    ({"name": ""}, InvalidInputError, "name must be"),
    ({"name": "a:b"}, InvalidInputError, "name must be"),
    ({"self_consistency": 0}, InvalidInputError, "self_consistency"),
    ({"max_steps": 0}, InvalidInputError, "max_steps"),
    ({"min_confidence": 1.5}, InvalidInputError, "min_confidence"),
    ({"tolerance": -1.0}, InvalidInputError, "tolerance"),
    ({"system": 3}, InvalidTypeError, "system"),
    ({"projector": "x"}, InvalidTypeError, "projector"),
    ({"learn_from_checks": 1}, InvalidTypeError, "learn_from_checks"),
    ({"context_budget": 0}, InvalidInputError, "context_budget"),
    ({"context_budget": 1.5}, InvalidTypeError, "context_budget"),
    ({"tools": [len]}, InvalidTypeError, "not a corollary tool"),
    ({"tools": [revenue, revenue]}, InvalidInputError, "two tools"),
    ({"kb": {}}, InvalidTypeError, "kb must be"),
])
def test_bad_settings_are_refused(options: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Agent(ScriptedModel([]), **options)


def test_a_tool_may_not_take_a_builtin_name_nor_the_model_be_something_else() -> None:
    @tool(name="answer")
    def answer(x: str) -> str:
        return x

    with pytest.raises(InvalidInputError, match="the agent's own"):
        Agent(ScriptedModel([]), tools=[answer])
    with pytest.raises(InvalidTypeError, match="is not a model"):
        Agent(object())  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="task"):
        Agent(ScriptedModel([])).run("  ")


def test_a_fresh_base_gets_the_tools_and_rules() -> None:
    from corollary import rule

    @rule(output="double", inputs={"r": "revenue:Q3"}, name="agent_test.double")
    def double(r: float) -> float:
        return 2 * r

    agent = Agent(ScriptedModel([calls(call("revenue", {"quarter": "Q3"}, "r")), Reply("done")]),
                  tools=[revenue], rules=[double], max_steps=2)
    assert "revenue" in agent.kb.tools and agent.kb.rules == (double,)
    agent.run("Q3?")
    assert agent.kb.value("double") == 220.0


def test_agent_options_travel_together_and_keywords_keep_working() -> None:
    """Agent.__init__'s options are one value (issue 26, point 8): AgentOptions, or its
    fields as keyword arguments, checked the same way."""
    from corollary import AgentOptions, InvalidInputError, InvalidTypeError

    options = AgentOptions(max_steps=3, min_confidence=0.5, context_budget=None)
    by_value = Agent(ScriptedModel([]), options=options)
    by_keyword = Agent(ScriptedModel([]), max_steps=3, min_confidence=0.5, context_budget=None)
    assert by_value.options == by_keyword.options == options
    assert by_value.max_steps == 3 and by_value.floor == 0.5 and by_value.context_budget is None
    with pytest.raises(InvalidTypeError, match="not both"):
        Agent(ScriptedModel([]), options=options, max_steps=4)
    with pytest.raises(InvalidTypeError, match="max_stepz"):
        Agent(ScriptedModel([]), max_stepz=4)
    with pytest.raises(InvalidInputError, match="max_steps"):
        Agent(ScriptedModel([]), max_steps=0)
    with pytest.raises(InvalidInputError, match="projector"):
        AgentOptions(projector=lambda kb: "", scope="customer:7")

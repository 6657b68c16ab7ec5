"""The agent recalls instead of listing: with a context_budget, the first request shows what
kb.recall finds for the task (hits and the beliefs they rest on) within the budget, plus the
beliefs the run makes; the built-in recall tool lets the model look further.

The bar: a base of 40,000 customers' e-mail addresses (one belief each); the first request is
within context_budget tokens plus the system message and the tool schemas, shows the belief the
task names, and every request begins with the previous one unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_cases import call, calls

from corollary import (
    Agent,
    BeliefBase,
    InvalidInputError,
    ManualClock,
    ScriptedModel,
    TrustPolicy,
    tool,
)
from corollary.agent import prompts
from corollary.facade.recall import count_tokens

TASK = "What is customer 7's email?"
LINE_7 = 'customer:7:email = "customer7@example.com" [IN 0.95]'


def emails(n: int, **options: Any) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), **options)
    kb.assert_many((f"customer:{i}:email", f"customer{i}@example.com", "tool:crm")
                   for i in range(n))
    return kb


@pytest.fixture(scope="module")
def customers() -> BeliefBase:
    return emails(40_000)


def serialized(model: ScriptedModel) -> list[list[str]]:
    return [[json.dumps(m, ensure_ascii=False, sort_keys=True) for m in messages]
            for messages, _ in model.requests]


@tool(trust="high", key="status:{customer}")
def status(customer: int) -> str:
    """A customer's account status."""
    return "active"


def test_forty_thousand_beliefs_the_first_request_fits_the_budget(customers: BeliefBase) -> None:
    model = ScriptedModel([
        calls(call("recall", {"query": "customer 12 email", "k": 3}, "r")),
        calls(call("status", {"customer": 7}, "s")),
        calls(call("answer", {"value": "customer7@example.com",
                              "inputs": ["customer:7:email"]}, "a"))])
    agent = Agent(model, customers, tools=[status])
    assert agent.context_budget == 2000  # the default
    run = agent.run(TASK)
    assert run.status == "ok" and run.answer == "customer7@example.com"
    messages, tools = model.requests[0]
    # within the budget: the task and the list; beside them only the system message and schemas
    assert [m["role"] for m in messages] == ["system", "user", "user"]
    assert messages[0]["content"] == prompts.SYSTEM and messages[1]["content"] == TASK
    listed = messages[2]["content"]
    assert count_tokens(TASK) + count_tokens(listed) <= 2000
    whole = count_tokens(json.dumps(messages, ensure_ascii=False))
    fixed = count_tokens(json.dumps(messages[0], ensure_ascii=False)) + count_tokens(
        json.dumps(tools, ensure_ascii=False))
    assert whole <= 2000 + fixed + 20  # + the JSON around the two user messages
    assert len(json.dumps(messages)) < 10_000  # listing all 40,000 took over 2 million
    # it shows the belief the task names, first
    assert listed.splitlines()[1] == LINE_7
    # the conversation only grows
    requests = serialized(model)
    for before, after in zip(requests, requests[1:], strict=False):
        assert after[:len(before)] == before
    # the recall tool's message: key, value, confidence, label per belief, best first
    found = json.loads(model.requests[1][0][-1]["content"])
    assert found["beliefs"][0] == {"key": "customer:12:email", "value": "customer12@example.com",
                                   "confidence": 0.95, "label": "IN"}
    assert [b["key"] for b in found["beliefs"]] == [
        r.key for r in customers.recall("customer 12 email", 3)]
    assert [s.kind for s in run.steps] == ["recall", "tool", "answer"]
    assert run.steps[0].arguments == {"query": "customer 12 email", "k": 3}


def test_the_list_holds_the_hits_and_their_inputs_and_the_run_adds_its_own() -> None:
    kb = emails(200)
    kb.claim("customer:7:vip", True, source="model:crm", inputs=["customer:7:email"])
    model = ScriptedModel([calls(call("status", {"customer": 7}, "s")),
                           calls(call("answer", {"value": "active",
                                                 "inputs": ["status:7"]}, "a"))])
    expected = [r.key for r in kb.recall("Is customer 7 a vip?", 10, expand=True)]
    Agent(model, kb, tools=[status]).run("Is customer 7 a vip?")
    listed = model.requests[0][0][2]["content"].splitlines()
    assert listed[0] == prompts.BELIEFS.format(lines="").rstrip("\n")
    assert listed[1].startswith("customer:7:vip = true [IN ")
    assert listed[2] == LINE_7  # the hit's input follows it
    # the heading, then what recall gives for the task (its 10 best hits at most, each with its
    # inputs), each belief once
    assert [line.split(" = ")[0] for line in listed[1:]] == expected
    assert len(set(listed)) == len(listed)
    # the tool result is told in its tool message and watched: nothing repeats it
    second = model.requests[1][0]
    assert json.loads(second[-1]["content"])["key"] == "status:7"
    assert not any(m["role"] == "user" for m in second[3:])


def test_what_the_recall_tool_found_is_watched_and_its_changes_told() -> None:
    kb = emails(50)

    @tool(trust="high", key="deleted:{customer}")
    def delete(customer: int) -> bool:
        """Delete a customer's e-mail address."""
        kb.retract(f"customer:{customer}:email")
        return True

    model = ScriptedModel([
        calls(call("recall", {"query": "customer 42"}, "r")),
        calls(call("delete", {"customer": 42}, "d")),
        calls(call("answer", {"value": True, "inputs": ["deleted:42"]}, "a"))])
    Agent(model, kb, tools=[delete]).run("Tidy up the customers.")
    assert model.requests[2][0][-1] == {
        "role": "user", "content": "The beliefs shown have changed:\nno longer held (or below "
                                   'the floor):\ncustomer:42:email = "customer42@example.com": '
                                   "retracted"}


def test_the_recall_tool_never_shows_below_the_floor_and_checks_k() -> None:
    kb = emails(20, policy=TrustPolicy(min_confidence=0.5))
    kb.assert_("customer:3:phone", "secret-phone", source="tool:gossip")
    for _ in range(10):
        kb.record_outcome("tool:gossip", False)
    model = ScriptedModel([
        calls(call("recall", {"query": "customer 3 phone", "k": 5}, "r"),
              call("recall", {"query": "customer", "k": 51}, "big"),
              call("recall", {"query": "customer", "k": 0}, "none"),
              call("recall", {"query": "  "}, "blank")),
        "stop"])
    run = Agent(model, kb, max_steps=2).run("What is customer 3's phone?")
    assert "secret-phone" not in json.dumps(model.requests)
    errors = [s.error for s in run.steps if s.kind == "recall"]
    assert errors[0] is None
    assert errors[1:3] == ["recall: k must be from 1 to 50, not 51",
                           "recall: k must be from 1 to 50, not 0"]
    assert errors[3] is not None and errors[3].startswith("recall: query must hold some text")


def test_a_budget_the_task_fills_shows_no_beliefs_and_the_budget_is_validated() -> None:
    kb = emails(10)
    model = ScriptedModel(["stop"])
    Agent(model, kb, context_budget=5, max_steps=1).run(TASK)
    assert model.requests[0][0][2]["content"] == prompts.BELIEFS.format(lines=prompts.NO_BELIEFS)
    agent = Agent(ScriptedModel([]), kb)
    with pytest.raises(InvalidInputError, match="pass beliefs\\(task=...\\)"):
        agent.beliefs()
    assert agent.beliefs(task=TASK).splitlines()[0] == LINE_7
    assert Agent(ScriptedModel([]), kb, context_budget=None).beliefs().count("\n") == 9
    # a projector still overrides the list, whatever the budget
    assert Agent(ScriptedModel([]), kb, projector=lambda kb: "mine").beliefs() == "mine"


def test_self_consistency_samples_show_the_recalled_beliefs_without_the_key() -> None:
    kb = emails(30)
    model = ScriptedModel([
        calls(call("claim", {"key": "customer:7:domain", "value": "example.com",
                             "inputs": ["customer:7:email"]}, "c")),
        calls(call("claim", {"key": "customer:7:domain", "value": "example.com",
                             "inputs": []}, "s")),
        calls(call("answer", {"value": "example.com", "inputs": ["customer:7:domain"]}, "a"))])
    run = Agent(model, kb, self_consistency=2).run("What is customer 7's email domain?")
    assert run.status == "ok"
    sample = model.requests[1][0][1]["content"]
    assert sample.startswith("Beliefs held now:\n" + LINE_7 + "\n")
    assert "customer:7:domain" not in sample.split("\n\n")[0]


def test_one_long_belief_does_not_empty_the_opening_context() -> None:
    # issue 28 item 9: a 9 KB document ranked first for a common word left the opening context
    # at "(none yet)" although revenue:Q3 was held; it is skipped and the list goes on
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("doc:filing", "The revenue of the quarter. " * 330, source="document:filing")
    kb.assert_("revenue:Q3", 110.0, source="tool:ledger")
    assert kb.recall("What was the revenue in Q3?")[0].key == "doc:filing"
    agent = Agent(ScriptedModel([]), kb)
    opening = agent.messages("What was the revenue in Q3?")[2]["content"]
    assert opening == prompts.BELIEFS.format(lines="revenue:Q3 = 110.0 [IN 0.95]")

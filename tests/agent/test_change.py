"""The agent copes with change (issue 27 item 5): the customer-address scenario through the
agent with a scripted model. A support agent reads a customer's address from the CRM tool;
later an e-mail gives a new one. What the model is shown of the conflict (every belief line and
tool message marks the contested key), and how the run ends."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent_cases import call, calls

from corollary import Agent, BeliefBase, ManualClock, tool
from corollary.models import FunctionModel, Reply

KEY = "customer:42:address"
MARK = 'conflict: "Oak St" (0.95, tool:crm) vs "Pine Ave" (0.90, document:email)'


@tool(key="customer:{customer}:address")
def crm(customer: int) -> str:
    """The address the CRM holds for a customer."""
    return {42: "Oak St"}[customer]


def scripted(replies: list[Reply], before: dict[int, Callable[[], None]]
             ) -> tuple[FunctionModel, list[list[dict[str, Any]]]]:
    """A model that gives ``replies`` in order and, before its n-th reply, runs ``before[n]``
    (the world changing while the agent works); it records every request's messages."""
    seen: list[list[dict[str, Any]]] = []

    def reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen.append(json.loads(json.dumps(messages)))
        n = len(seen) - 1
        if n in before:
            before[n]()
        return replies[n]

    return FunctionModel(reply), seen


def contested_run(max_steps: int = 5) -> tuple[Any, BeliefBase, list[list[dict[str, Any]]]]:
    """The scenario on a base without a conflict policy: the CRM's address, then the e-mail's,
    then answers over the key (refused while it is contested) until the steps run out."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=None)

    def email() -> None:
        clock.advance(86400)
        kb.assert_(KEY, "Pine Ave", source="document:email")

    answer = call("answer", {"value": "Pine Ave", "inputs": [KEY]}, "a")
    replies = [calls(call("crm", {"customer": 42}, "c")), Reply("Let me check."),
               calls(call("recall", {"query": "customer 42 address"}, "r"))]
    replies += [calls(answer)] * (max_steps - 3)
    model, seen = scripted(replies, {1: email})
    run = Agent(model, kb, tools=[crm], max_steps=max_steps).run(
        "Where does customer 42 live?")
    return run, kb, seen


def test_without_a_policy_the_model_is_shown_the_conflict_and_the_status_names_it() -> None:
    run, kb, seen = contested_run()
    assert [c.key for c in kb.conflicts()] == [KEY]
    # the change message after the e-mail marks the key, on the line of each value
    change = seen[2][-1]["content"]
    assert change.startswith("The beliefs shown have changed:")
    assert f'{KEY} = "Oak St" [IN 0.95, {MARK}]' in change
    # the recall tool's message marks it
    recalled = json.loads(seen[3][-1]["content"])["beliefs"]
    assert {(b["value"], b["conflict"]) for b in recalled} == {("Oak St", MARK),
                                                               ("Pine Ave", MARK)}
    # the answer is refused while the key is contested, and the model is told why
    refused = json.loads(seen[4][-1]["content"])
    assert "open conflict" in refused["error"]
    # the run names the conflict: not a bare "no answer"
    assert run.status == "conflict" and run.answer is None
    assert run.why == f"the answer rests on an open conflict: {KEY}: {MARK}"
    assert str(run.explain()).startswith(f"answer = None [OUT] conflict: {run.why}")


def test_a_tool_message_marks_a_key_that_is_contested() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=None)
    kb.assert_(KEY, "Pine Ave", source="document:email")
    model, seen = scripted([calls(call("crm", {"customer": 42}, "c")), Reply("done")], {})
    Agent(model, kb, tools=[crm], max_steps=2).run("Where does customer 42 live?")
    assert f'{KEY} = "Pine Ave" [IN 0.90]' in seen[0][2]["content"]  # recalled for the task
    told = json.loads(seen[1][-2]["content"])
    assert told == {"key": KEY, "value": "Oak St", "confidence": 0.95, "label": "IN",
                    "conflict": MARK}
    # the value the model was shown at the start is now contested: it is told so
    assert seen[1][-1]["content"] == ("The beliefs shown have changed:\nheld now:\n"
                                      f'{KEY} = "Pine Ave" [IN 0.90, {MARK}]')

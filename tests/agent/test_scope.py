"""Agent(..., scope=...): the support agent for customer 42 is shown customer 42 and the store
only (the first request, the recall tool, the changes it is told of), and a claim whose key or
input is outside its scope goes back to the model as an error, the base unchanged."""

from __future__ import annotations

import json

import pytest
from agent_cases import call, calls
from hypothesis import given, settings
from hypothesis import strategies as st

from corollary import Agent, BeliefBase, InvalidInputError, ManualClock, Scope, ScriptedModel

TASK = "What is the address of customer 42?"


def customers() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0))
    for c in range(8):
        kb.assert_(f"customer:{c}:address", f"{c} Oak St", source="tool:crm")
    kb.assert_("customer:42:address", "42 Pine Ave", source="tool:crm")
    kb.assert_("store:address", "1 Main St", source="tool:crm")
    return kb


def test_other_customers_are_not_the_padding_of_the_prompt() -> None:
    kb = customers()
    unscoped = Agent(ScriptedModel([]), kb).messages(TASK)[2]["content"]
    assert "customer:3:address" in unscoped  # the bug: other customers as padding
    model = ScriptedModel([
        calls(call("recall", {"query": "address Oak St", "k": 20}, "r")),
        calls(call("answer", {"value": "42 Pine Ave", "inputs": ["customer:42:address"]}, "a")),
    ])
    run = Agent(model, kb, scope=("customer:42", "store")).run(TASK)
    assert run.status == "ok" and run.answer == "42 Pine Ave"
    sent = json.dumps([m for request, _ in model.requests for m in request])
    assert "customer:42:address" in sent and "store:address" in sent
    assert not any(f"customer:{c}:" in sent for c in range(8))
    assert "Oak St" not in sent.replace("address Oak St", "")  # only in the model's own query


def test_a_claim_resting_on_another_customer_is_refused_and_told() -> None:
    kb = customers()
    before = kb.beliefs()
    model = ScriptedModel([
        calls(call("claim", {"key": "customer:42:neighbour", "value": "3 Oak St",
                             "inputs": ["customer:3:address"]}, "c")),
        calls(call("claim", {"key": "customer:3:note", "value": "x",
                             "inputs": ["customer:42:address"]}, "d")),
        calls(call("answer", {"value": "42 Pine Ave", "inputs": ["customer:3:address"]}, "a")),
        "stop",
    ])
    run = Agent(model, kb, scope="customer:42", learn_from_checks=False,
                max_steps=4).run(TASK)
    errors = [s.error for s in run.steps if s.error]
    assert errors == [
        "claim: input 'customer:3:address' is outside the scope (customer:42)",
        "claim: key 'customer:3:note' is outside the scope (customer:42)",
        "answer: input 'customer:3:address' is outside the scope (customer:42)"]
    assert run.status != "ok" and kb.beliefs() == before


def test_a_scope_with_a_projector_or_a_bad_scope_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="projector"):
        Agent(ScriptedModel([]), customers(), scope="store", projector=lambda kb: "")
    with pytest.raises(InvalidInputError):
        Agent(ScriptedModel([]), customers(), scope=())


def test_without_a_budget_the_list_is_every_held_belief_in_the_scope() -> None:
    agent = Agent(ScriptedModel([]), customers(), scope="customer:42", context_budget=None)
    assert agent.beliefs() == 'customer:42:address = "42 Pine Ave" [IN 0.95]'


WHO = ["customer:1", "customer:10", "customer:2", "store"]


@settings(max_examples=30, deadline=None)
@given(facts=st.lists(st.tuples(st.sampled_from(WHO), st.sampled_from(["address", "email"]),
                                st.sampled_from(["oak", "pine"])), min_size=1, max_size=12),
       prefixes=st.lists(st.sampled_from(WHO), min_size=1, max_size=2),
       budget=st.sampled_from([None, 60, 2000]),
       queries=st.lists(st.sampled_from(["oak", "pine address", "email customer"]),
                        max_size=2))
def test_nothing_outside_the_scope_reaches_the_model(
        facts: list[tuple[str, str, str]], prefixes: list[str], budget: int | None,
        queries: list[str]) -> None:
    kb = BeliefBase(clock=ManualClock(0))
    for who, field, value in facts:
        kb.assert_(f"{who}:{field}", f"{who}={value}", source="tool:crm")
    scope = Scope.of(prefixes)
    replies = [calls(call("recall", {"query": q, "k": 20}, f"r{i}")) for i, q in
               enumerate(queries)]
    inside = sorted({f"{w}:{f}" for w, f, _ in facts if scope.contains(f"{w}:{f}")})
    for i, key in enumerate(inside):  # an explain-like read: claims on every key inside
        replies.append(calls(call("claim", {"key": f"{prefixes[0]}:note{i}", "value": i,
                                            "inputs": [key]}, f"c{i}")))
    replies.append("done")
    model = ScriptedModel(replies)
    Agent(model, kb, scope=scope, context_budget=budget, max_steps=len(replies)).run(
        "customer address email oak pine")
    sent = json.dumps([m for request, _ in model.requests for m in request])
    for who in WHO:
        if not scope.contains(f"{who}:x"):
            assert f"{who}=" not in sent and f'{who}:' not in sent.replace(
                f"{prefixes[0]}:", ""), who

"""Bad calls never crash the run nor half-change the base: each goes back to the model as a
tool message ``{"error": ...}``, and the base is exactly as it was (its whole snapshot but the
time it was taken)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_cases import revenue, state

from corollary import Agent, BeliefBase, ManualClock, ScriptedModel, ToolCall, tool
from corollary.models import Reply


@tool(trust="high", key="{name}")
def echo(name: str) -> str:
    """Echo a name back as a key."""
    return name


@tool(name="broken")
def broken(x: int) -> int:
    """Always fails."""
    raise RuntimeError(f"the backend is down for {x}")


@tool(name="opaque")
def opaque() -> Any:
    """Returns something that is not plain data."""
    return object()


def prepared() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), learn_from_checks=False)
    kb.call(revenue, None, "Q2")
    kb.call(revenue, None, "Q3")
    kb.assert_("memo", "Revenue grew 10% in Q3.", source="document:memo")
    kb.assert_("old", 1, source="human:ops")
    kb.retract("old", reason="superseded")
    kb.assert_("ceo", "Bob", source="tool:crm")
    kb.assert_("ceo", "Alice", source="human:ops")  # an open conflict: no policy
    return kb


GROWTH = {"q2": "revenue:Q2", "q3": "revenue:Q3"}
#: (what, the call, part of the error the model gets back)
BAD: list[tuple[str, ToolCall, str]] = [
    ("an unknown tool", ToolCall("x", "weather", {"city": "Paris"}),
     "there is no tool 'weather'; the tools are revenue, echo, broken, opaque, claim, answer"),
    ("arguments that are not JSON",
     ToolCall("x", "revenue", arguments_error="not JSON", raw_arguments="{quarter: Q2"),
     "the arguments could not be read (not JSON)"),
    ("a missing argument", ToolCall("x", "revenue", {}), "revenue: missing 'quarter'"),
    ("a mistyped argument", ToolCall("x", "revenue", {"quarter": 2}),
     "revenue: 'quarter' must be string, not integer 2"),
    ("an unknown argument", ToolCall("x", "revenue", {"quarter": "Q2", "year": 2024}),
     "revenue: unknown 'year' (the parameters are quarter)"),
    ("an exception inside a tool", ToolCall("x", "broken", {"x": 3}),
     "broken failed: RuntimeError: the backend is down for 3"),
    ("a tool raising on its input", ToolCall("x", "revenue", {"quarter": "Q9"}),
     "revenue failed: KeyError: 'Q9'"),
    ("a result that is not plain data", ToolCall("x", "opaque", {}),
     "opaque failed: InvalidTypeError: a value must be plain data"),
    ("a key template filled to no key", ToolCall("x", "echo", {"name": "  "}),
     "echo: a key must be a non-empty string"),
    ("a claim without inputs", ToolCall("x", "claim", {"key": "g", "value": 1}),
     "claim: missing 'inputs'"),
    ("a claim with inputs of the wrong type", ToolCall("x", "claim", {
        "key": "g", "value": 1, "inputs": "revenue:Q2"}),
     "'inputs' must be an array of string or an object of string, not string"),
    ("a claim over a key never seen", ToolCall("x", "claim", {
        "key": "g", "value": 1, "inputs": ["revenue:Q4"]}), "claim: no belief about 'revenue:Q4'"),
    ("a claim over a retracted input", ToolCall("x", "claim", {
        "key": "g", "value": 1, "inputs": ["old"]}), "input 'old' holds no value"),
    ("a claim over an open conflict", ToolCall("x", "claim", {
        "key": "g", "value": 1, "inputs": ["ceo"]}), "'ceo' is in an open conflict"),
    ("a refuted formula", ToolCall("x", "claim", {
        "key": "growth", "value": 0.2, "inputs": GROWTH, "formula": "(q3 - q2) / q2"}),
     "refused, nothing was believed: formula (q3 - q2) / q2 for growth gave 0.1"),
    ("a formula over names that are not inputs", ToolCall("x", "claim", {
        "key": "growth", "value": 0.1, "inputs": GROWTH, "formula": "(q4 - q2) / q2"}),
     "formula reads ['q4'], which are not among the inputs"),
    ("a formula outside the safe arithmetic", ToolCall("x", "claim", {
        "key": "growth", "value": 0.1, "inputs": GROWTH, "formula": "__import__('os')"}),
     "claim: not allowed in a formula: call to '__import__'"),
    ("a failed citation", ToolCall("x", "claim", {
        "key": "grew", "value": True, "inputs": ["memo"],
        "citation": {"document": "memo", "quote": "revenue fell"}}),
     "refused, nothing was believed: citation in memo for grew not found"),
    ("a citation of a document not held", ToolCall("x", "claim", {
        "key": "grew", "value": True, "inputs": ["memo"],
        "citation": {"document": "nowhere", "quote": "x"}}), "no belief about 'nowhere'"),
    ("a certainty above 1", ToolCall("x", "claim", {
        "key": "g", "value": 1, "inputs": ["memo"], "certainty": 1.5}),
     "certainty must be in [0, 1], got 1.5"),
    ("a value beyond 64 bits", ToolCall("x", "claim", {
        "key": "g", "value": 2**70, "inputs": ["memo"]}), "must fit in 64 bits"),
    ("an empty key", ToolCall("x", "claim", {"key": " ", "value": 1, "inputs": ["memo"]}),
     "a key must be a non-empty string"),
    ("an answer over inputs not held", ToolCall("x", "answer", {
        "value": "yes", "inputs": ["revenue:Q4"]}), "no belief about 'revenue:Q4'"),
    ("an answer without inputs", ToolCall("x", "answer", {"value": "yes"}),
     "answer: missing 'inputs'"),
]


@pytest.mark.parametrize(("what", "bad", "error"), BAD, ids=[c[0] for c in BAD])
def test_a_bad_call_goes_back_as_an_error_and_changes_nothing(what: str, bad: ToolCall,
                                                              error: str) -> None:
    kb = prepared()
    model = ScriptedModel([Reply(None, [bad]), "I see."])
    agent = Agent(model, kb, tools=[revenue, echo, broken, opaque], max_steps=2,
                  learn_from_checks=False)
    before = state(kb)
    run = agent.run("Go")
    assert run.status == "no answer"
    assert state(kb) == before
    step = run.steps[0]
    assert not step.ok and error in step.error
    message = model.requests[1][0][-1]  # the second turn ends with the tool message
    assert message["role"] == "tool" and message["tool_call_id"] == "x"
    told = json.loads(message["content"])
    # a call over a contested input also names the conflict, with its values' sources
    conflict = told.pop("conflict", None)
    # a key not held also names the nearest held keys (issue 39: `customer:7 email`)
    nearest = told.pop("nearest", None)
    assert nearest == ({"revenue:Q4": ["revenue:Q3", "revenue:Q2"]}
                       if "'revenue:Q4'" in error else None)
    assert told == {"error": step.error}
    assert conflict == (None if "open conflict" not in error else
                        'ceo: conflict: "Alice" (0.99, human:ops) vs "Bob" (0.95, tool:crm)')


def test_all_bad_paths_are_covered_once_each() -> None:
    assert len(BAD) == 24 and len({what for what, _, _ in BAD}) == 24


def test_a_refuted_formula_is_an_outcome_for_the_model_when_learning() -> None:
    kb = prepared()
    kb.learn_from_checks = True
    agent = Agent(ScriptedModel([Reply(None, [BAD[14][1]]), "ok"]), kb, tools=[revenue],
                  name="analyst", max_steps=2)
    before = state(kb)
    agent.run("Go")
    after = state(kb)
    outcomes = kb.ledger.outcomes("model:analyst")
    assert [(o.correct, o.reason) for o in outcomes] == [
        (False, "formula (q3 - q2) / q2 for growth gave 0.1")]
    # only the ledger learned: every belief, premise and reason is as it was
    for field in ("beliefs", "premises", "justifications", "calls"):
        assert after[field] == before[field]
    assert "growth" not in kb
    assert kb.reliability("model:analyst") == pytest.approx(9 / 11)


def test_a_good_call_after_a_bad_one_still_lands() -> None:
    kb = prepared()
    model = ScriptedModel([
        Reply(None, [ToolCall("a", "claim", {"key": "growth", "value": 0.2, "inputs": GROWTH,
                                             "formula": "(q3 - q2) / q2"})]),
        Reply(None, [ToolCall("b", "claim", {"key": "growth", "value": 0.1, "inputs": GROWTH,
                                             "formula": "(q3 - q2) / q2"})]),
        Reply(None, [ToolCall("c", "answer", {"value": 0.1, "inputs": ["growth"]})]),
    ])
    run = Agent(model, kb, tools=[revenue], learn_from_checks=False).run("Growth?")
    assert [s.ok for s in run.steps] == [False, True, True]
    assert run.status == "ok" and kb.value("growth") == 0.1

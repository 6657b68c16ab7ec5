"""Runs that end without an answer keep what they did (issue 28 item 12): a model that fails
mid-run raises with the partial run and its steps, and ``run.explain()`` answers on every
status without raising."""

from __future__ import annotations

import asyncio

import pytest
from agent_cases import call, calls, revenue

from corollary import Agent, BeliefBase, ManualClock, ScriptedModel
from corollary.foundations.errors import ModelError, ScriptExhaustedError
from corollary.tms.proof import Proof


def base() -> BeliefBase:
    return BeliefBase(clock=ManualClock(0))


def two_fetches() -> list:
    return [calls(call("revenue", {"quarter": "Q2"}, "a")),
            calls(call("revenue", {"quarter": "Q3"}, "b"))]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_script_out_of_replies_keeps_the_partial_run(asynchronous: bool) -> None:
    kb = base()
    agent = Agent(ScriptedModel(two_fetches()), kb, tools=[revenue])
    with pytest.raises(ScriptExhaustedError, match="request 3 found no reply left") as caught:
        if asynchronous:
            asyncio.run(agent.arun("Is revenue growing?"))
        else:
            agent.run("Is revenue growing?")
    run = caught.value.run
    assert run.status == "model error" and run.answer is None and run.label == "OUT"
    assert [(s.kind, s.key, s.value) for s in run.steps] == [
        ("tool", "revenue:Q2", 100.0), ("tool", "revenue:Q3", 110.0)]
    assert run.why == ("model error: ScriptExhaustedError: ScriptedModel: request 3 found no "
                       "reply left (the script held 2)")
    assert kb.value("revenue:Q3") == 110.0  # what the steps added stays
    assert str(run.explain()) == "answer = None [OUT] " + run.why


def test_a_model_that_fails_at_once_leaves_an_empty_run() -> None:
    with pytest.raises(ModelError, match="the server is down") as caught:
        Agent(ScriptedModel([ModelError("the server is down")]), base()).run("Growing?")
    run = caught.value.run
    assert run.status == "model error" and run.steps == ()
    assert str(run.explain()) == ("answer = None [OUT] model error: ModelError: the server is "
                                  "down")


def test_explain_never_raises_on_a_run_without_an_answer() -> None:
    # before: UnknownBeliefError ('answer' was never seen)
    run = Agent(ScriptedModel(["let me think", "still thinking"]), base(),
                max_steps=2).run("Growing?")
    assert run.status == "no answer"
    assert run.why == "the model used its 2 steps without calling answer"
    proof = run.explain()
    assert isinstance(proof, Proof)
    assert str(proof) == "answer = None [OUT] no answer: the model used its 2 steps without " \
                         "calling answer"
    assert proof.to_dict()["label"] == "OUT"


def test_a_failed_answer_is_named_when_the_steps_run_out() -> None:
    model = ScriptedModel([calls(call("answer", {"value": 1, "inputs": ["nowhere"]}, "a"))])
    run = Agent(model, base(), max_steps=1).run("Growing?")
    assert run.status == "no answer"
    assert run.why == ("the model used its 1 step without calling answer successfully (last "
                       "error: answer: no belief about 'nowhere')")
    assert "no belief about 'nowhere'" in str(run.explain())


def test_explain_on_a_run_whose_key_holds_a_value_explains_it() -> None:
    kb = base()
    kb.assert_("answer", "growing", source="human:ops")
    run = Agent(ScriptedModel(["hm"]), kb, max_steps=1).run("Growing?")
    assert run.status == "no answer"
    assert str(run.explain()).startswith("answer = 'growing' [IN")

"""Self-consistency: a claim without a formula is asked k − 1 more times in fresh conversations,
right after the claim, and its certainty becomes self_consistency(agreeing, k).

The sample requests are checked for exactly what they must hold (the agent's system message,
the projected beliefs without the claimed key, the question) and must not (the claim, its value
or its text, the task, the turns that led to it)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from agent_cases import call, calls

from corollary import (
    Agent,
    BeliefBase,
    ManualClock,
    ScriptedModel,
    SnapshotError,
    self_consistency,
)
from corollary.agent.builtins import builtin_schema
from corollary.agent.prompts import QUESTION
from corollary.models import Reply

SYSTEM = "You are a careful analyst."
TASK = "Tell me the trend, secret-task-words."


def setup() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), learn_from_checks=False)
    kb.assert_("growth", 0.1, source="human:cfo")       # 0.99
    kb.assert_("trend", "flat", source="tool:old_feed")  # a value the claim's key held before
    return kb


def claim_turn(value: Any = "sharply-up") -> Reply:
    return calls(call("claim", {"key": "trend", "value": value, "inputs": ["growth"]}, "c1"),
                 text="I think the trend is secret-claim-text.")


def answer_turn() -> Reply:
    return calls(call("answer", {"value": 0.1, "inputs": ["growth"]}, "a1"))  # what it cites


def run_with(samples: list[Any], value: Any = "sharply-up", k: int = 5,
             **options: Any) -> tuple[Agent, ScriptedModel, Any]:
    model = ScriptedModel([claim_turn(value), *samples, answer_turn()])
    options.setdefault("context_budget", None)  # every held belief: the samples show growth
    agent = Agent(model, setup(), system=SYSTEM, self_consistency=k, name="analyst",
                  learn_from_checks=False, **options)
    return agent, model, agent.run(TASK)


def test_the_sample_requests_hold_exactly_what_they_must() -> None:
    samples = [calls(call("claim", {"key": "trend", "value": "sharply-up", "inputs": []}, "s"))] * 4
    agent, model, run = run_with(samples)
    assert len(model.requests) == 1 + 4 + 1  # the claim's turn, 4 samples, then the next turn
    question = QUESTION.format(key="trend")
    for messages, tools in model.requests[1:5]:
        assert messages == [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": 'Beliefs held now:\ngrowth = 0.1 [IN 0.99]\n\n' + question},
        ]
        assert tools == [builtin_schema("claim")]
        text = json.dumps(messages)
        for never in ("sharply-up", "secret-claim-text", "secret-task-words", "flat", "c1"):
            assert never not in text
    # the next turn goes on with the conversation (the samples are not in it), the claim now
    # held with its certainty
    last = model.requests[5][0]
    assert last[:len(model.requests[0][0])] == model.requests[0][0]
    assert last[1]["content"] == TASK
    mark = 'conflict: "flat" (0.95, tool:old_feed) vs "sharply-up" (0.89, model:analyst)'
    assert json.loads(last[-2]["content"]) == {"key": "trend", "value": "sharply-up",
                                               "confidence": 0.891, "label": "IN",
                                               "conflict": mark}
    # the value the key held before is now one side of an open conflict: the model is told
    assert last[-1] == {"role": "user", "content": "The beliefs shown have changed:\nheld now:\n"
                                                   f'trend = "flat" [IN 0.95, {mark}]'}
    assert run.status == "ok"
    assert [s.kind for s in run.steps] == ["text", "claim", "sample", "sample", "sample", "sample",
                                          "answer"]


@pytest.mark.parametrize(("agreeing", "printed"), [(5, "1.0"), (4, "0.83"), (3, "0.67"),
                                                   (1, "0.33")])
def test_the_certainty_is_the_seed_table(agreeing: int, printed: str) -> None:
    agree = calls(call("claim", {"key": "trend", "value": "Sharply-UP ", "inputs": []}, "s"))
    disagree = Reply("sharply-down")
    samples = [agree] * (agreeing - 1) + [disagree] * (5 - agreeing)
    agent, _, run = run_with(samples)
    certainty = (agreeing + 1) / 6
    assert round(certainty, 2) == float(printed)
    assert agent.kb.confidence("trend", "sharply-up") == pytest.approx(0.9 * certainty * 0.99,
                                                                       abs=1e-12)
    assert [s.agreed for s in run.steps if s.kind == "sample"] == [True] * (agreeing - 1) + [
        False] * (5 - agreeing)
    proof = str(agent.kb.explain("trend", "sharply-up"))
    assert f"; 5 samples, {agreeing} agreed" in proof
    step = agent.kb.explain("trend", "sharply-up").to_dict()["reasons"][0]
    assert (step["samples"], step["agreed"], step["certainty"]) == (5, agreeing, certainty)


def test_numbers_agree_within_the_relative_tolerance() -> None:
    samples = [
        calls(call("claim", {"key": "trend", "value": 0.1000000001, "inputs": []}, "s")),  # yes
        Reply("0.1"),                                    # yes: a number in text
        Reply(" 0.10000009 "),                           # yes: within 1e-6
        calls(call("claim", {"key": "trend", "value": 0.1001, "inputs": []}, "s")),  # no
        Reply("about 0.1"),                              # no: not a number
        calls(call("claim", {"key": "other", "value": 0.1, "inputs": []}, "s")),  # no text: no
    ]
    agent, _, run = run_with(samples, value=0.1, k=7)
    assert [s.agreed for s in run.steps if s.kind == "sample"] == [True, True, True, False, False,
                                                                   False]
    assert [s.value for s in run.steps if s.kind == "sample"][5] is None
    assert agent.kb.confidence("trend", 0.1) == pytest.approx(0.9 * (4 + 1) / 8 * 0.99)
    loose = run_with(samples, value=0.1, k=7, tolerance=0.01)[2]
    assert [s.agreed for s in loose.steps if s.kind == "sample"] == [True, True, True, True,
                                                                     False, False]


def test_text_agrees_after_case_and_whitespace_only() -> None:
    samples = [Reply("SHARPLY-up"), Reply("  sharply-up\n"), Reply("sharply-up."),
               Reply("sharply up")]
    _, _, run = run_with(samples)
    assert [s.agreed for s in run.steps if s.kind == "sample"] == [True, True, False, False]


def test_formulas_and_answers_are_never_sampled() -> None:
    model = ScriptedModel([
        calls(call("claim", {"key": "double", "value": 0.2, "inputs": {"g": "growth"},
                             "formula": "2 * g"}, "f")),
        calls(call("answer", {"value": 0.2, "inputs": ["double"]}, "a")),
    ])
    run = Agent(model, setup(), self_consistency=5).run(TASK)
    assert len(model.requests) == 2 and run.status == "ok"
    assert "samples" not in str(run.explain())


def test_one_sample_means_no_extra_request() -> None:
    model = ScriptedModel([claim_turn(), answer_turn()])
    agent = Agent(model, setup(), learn_from_checks=False)
    agent.run(TASK)
    assert len(model.requests) == 2
    assert agent.kb.confidence("trend", "sharply-up") == pytest.approx(0.9 * 0.99)


def test_a_bad_claim_is_not_sampled() -> None:
    model = ScriptedModel([calls(call("claim", {"key": "trend", "value": "x",
                                                "inputs": ["nowhere"]}, "c")), "ok"])
    Agent(model, setup(), self_consistency=5, max_steps=2).run(TASK)
    assert len(model.requests) == 2


def test_async_runs_sample_too() -> None:
    samples = [Reply("sharply-up")] * 2 + [Reply("down")]
    model = ScriptedModel([claim_turn(), *samples, answer_turn()])
    agent = Agent(model, setup(), self_consistency=4, learn_from_checks=False)
    run = asyncio.run(agent.arun(TASK))
    assert run.status == "ok" and len(model.requests) == 5
    assert agent.kb.confidence("trend", "sharply-up") == pytest.approx(
        0.9 * self_consistency(3, 4) * 0.99)


def test_a_custom_projection_loses_the_lines_that_name_the_key() -> None:
    def projector(kb: BeliefBase) -> str:
        return "\n".join(f"{h.key}: {h.value}" for h in kb.beliefs())

    agent, model, _ = run_with([Reply("sharply-up")], k=2, projector=projector)
    sample = model.requests[1][0][1]["content"]
    assert sample.startswith("Beliefs held now:\ngrowth: 0.1\n\n")
    assert "flat" not in sample


def test_sample_counts_survive_snapshots_and_are_checked() -> None:
    agent, _, _ = run_with([Reply("sharply-up")] * 3 + [Reply("no")])
    data = agent.kb.to_dict()
    restored = BeliefBase.from_dict(copy.deepcopy(data), clock=ManualClock(0))
    assert "; 5 samples, 4 agreed" in str(restored.explain("trend", "sharply-up"))
    row = next(j for j in data["justifications"] if j[5].get("samples"))
    for edit, field in [({"agreed": 6}, "agreed"), ({"samples": 0}, "samples"),
                        ({"certainty": 0.5}, "certainty"), ({"agreed": "4"}, "agreed")]:
        crafted = copy.deepcopy(data)
        target = next(j for j in crafted["justifications"] if j[5].get("samples"))
        target[5].update(edit)
        if field == "certainty":
            target[4] = 0.5
        with pytest.raises(SnapshotError, match=field):
            BeliefBase.from_dict(crafted, clock=ManualClock(0))
    half = copy.deepcopy(data)
    next(j for j in half["justifications"] if j[5].get("samples"))[5].pop("agreed")
    with pytest.raises(SnapshotError, match="part of a self-consistency count"):
        BeliefBase.from_dict(half, clock=ManualClock(0))
    assert row[5]["samples"] == 5


@pytest.mark.parametrize("sample", [
    Reply("[" * 100_000 + "]" * 100_000),                 # nested past the JSON reader
    Reply("1" + "0" * 400),                               # a number past a float, as text
    calls(call("claim", {"key": "trend", "value": 10**400, "inputs": []}, "s")),
    Reply("9" * 5000),                                    # past Python's digit limit
])
def test_samples_that_cannot_be_compared_disagree(sample: Reply) -> None:
    _, _, run = run_with([sample, *[Reply("0.1")] * 3], value=0.1, k=5)
    assert run.status == "ok"
    assert [s.agreed for s in run.steps if s.kind == "sample"] == [False, True, True, True]


def test_a_deeply_nested_answer_disagrees_with_a_text_claim() -> None:
    # a model reply cannot carry such arguments (the reply refuses them), but agrees() is
    # public and takes any answer
    from corollary.agent.sampling import agrees
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert agrees("sharply-up", deep, 0.0) is False
    assert agrees(0.1, deep, 0.0) is False

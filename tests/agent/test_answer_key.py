"""The answer is the model's last word on the answer key (issue 20, finding 8).

A model that claimed the answer key with one value and then answered another used to leave two
values held (the run said ok, IN 0.9, and ``kb.value("answer")`` raised
``AmbiguousValueError``). The answer now replaces the model's own earlier claims of that key
(withdrawn, no outcome recorded: the model changed its mind); a value another source holds for
the key stays, and the run then ends ``"conflict"``.
"""

from __future__ import annotations

from agent_cases import call, calls

from corollary import Agent, BeliefBase, ManualClock, ScriptedModel


def base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), learn_from_checks=False)
    kb.assert_("growth", "yes", source="human:cfo")  # an answer must be what it cites
    return kb


def claim_then_answer(kb: BeliefBase, claimed: object, answered: object) -> object:
    model = ScriptedModel([
        calls(call("claim", {"key": "answer", "value": claimed, "inputs": ["growth"]}, "c1")),
        calls(call("answer", {"value": answered, "inputs": ["growth"]}, "a1")),
    ])
    return Agent(model, kb, learn_from_checks=False).run("Is revenue growing?")


def test_the_answer_replaces_the_models_own_claim_of_the_answer_key() -> None:
    kb = base()
    outcomes = kb.ledger.outcomes()
    run = claim_then_answer(kb, "no", "yes")
    assert run.status == "ok" and run.answer == "yes" and run.label == "IN"
    assert kb.value("answer") == "yes"
    assert kb.label("answer", "no") == "OUT"
    assert "unsupported" in str(kb.explain("answer", "no"))  # the claim withdrawn
    assert kb.ledger.outcomes() == outcomes  # a change of mind is not a wrong outcome
    assert run.confidence == kb.confidence("answer")


def test_the_same_value_claimed_then_answered_stays_one_value() -> None:
    kb = base()
    run = claim_then_answer(kb, "yes", "yes")
    assert run.status == "ok" and kb.value("answer") == "yes"


def test_another_sources_value_of_the_answer_key_makes_a_conflict() -> None:
    kb = base()
    kb.assert_("answer", "no", source="human:auditor")
    run = claim_then_answer(kb, "maybe", "yes")
    assert run.status == "conflict" and run.answer == "yes"
    assert kb.label("answer", "maybe") == "OUT"
    assert {c.key for c in kb.conflicts()} == {"answer"}
    assert sorted(v.value for v in kb.beliefs() if v.key == "answer") == ["no", "yes"]

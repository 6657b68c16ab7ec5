"""remember's depends_on, if_changes and forget (issue 37, item 2; docs/remember.md,
"Dependencies, replacements, forgetting"): the facts tool carries them, the keys they name
resolve as every other key does, and the base writes them as kb.depend, kb.replace_when and
kb.forget. On main before this the fields were ignored: every fact was a plain claim, a
dependent fact stayed IN when its root changed, and a fact asked to be forgotten was
remembered."""

from __future__ import annotations

from typing import Any

import pytest
from remember_cases import fact, facts

from corollary import BeliefBase, ManualClock, PreferNewer, TrustLedger
from corollary.facade.remember_request import INSTRUCTIONS, SMALL_INSTRUCTIONS
from corollary.models import ScriptedModel

TEXT = ("I have asthma. I take Ventolin for my asthma. I go running. If my condition changes, "
        "I will switch to cycling.")
CONDITION = {"subject": "Ann", "attribute": "health condition"}


def _said(**extra: Any) -> dict[str, Any]:
    return {**fact("Ann", "medication", "Ventolin", "I take Ventolin for my asthma"), **extra}


def _first(kb: BeliefBase, depends: Any = (CONDITION,), changes: Any = CONDITION) -> Any:
    model = ScriptedModel([facts(
        fact("Ann", "health condition", "asthma", "I have asthma"),
        _said(depends_on=list(depends)),
        fact("Ann", "exercise routine", "running", "I go running"),
        {**fact("Ann", "exercise routine", "cycling", "I will switch to cycling"),
         "if_changes": changes})])
    return kb.remember(TEXT, source="human:ann", model=model, at=500)


def _cured(kb: BeliefBase) -> Any:
    return kb.remember("I am cured.", source="human:ann", model=ScriptedModel([facts(
        fact("Ann", "health condition", "cured", "I am cured"))]))


def test_a_dependent_goes_out_and_a_replacement_takes_over_when_the_root_changes() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    made = _first(kb)
    assert {(r.key, r.value): (r.label, r.depends_on, r.if_changes) for r in made} == {
        ("ann:health_condition", "asthma"): ("IN", (), None),
        ("ann:medication", "Ventolin"): ("IN", ("ann:health_condition",), None),
        ("ann:exercise_routine", "running"): ("IN", (), None),
        ("ann:exercise_routine", "cycling"): ("OUT", (), "ann:health_condition")}
    assert kb.value("ann:exercise_routine") == "running"
    assert "rests on ann:health_condition = 'asthma'" in str(kb.explain("ann:medication"))
    _cured(kb)
    assert kb.value("ann:medication") is None
    assert kb.value("ann:exercise_routine") == "cycling"
    assert kb.at(700).value("ann:exercise_routine") == "running"


def test_an_existing_key_shown_is_named_by_key_and_a_later_message_may_depend_on_it() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.remember("I have asthma.", source="human:ann", at=400, model=ScriptedModel([facts(
        fact("Ann", "health condition", "asthma", "I have asthma"))]))
    kb.remember("I take Ventolin for my asthma.", source="human:ann", at=500,
                model=ScriptedModel([facts(_said(depends_on=[
                    {"key": "ann:health_condition"}]))]))
    assert kb.value("ann:medication") == "Ventolin"
    _cured(kb)
    assert kb.value("ann:medication") is None


def test_a_named_fact_resolves_as_keys_do_and_never_to_another_subject() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("ann:health_condition", "asthma", source="human:ann", valid_from=100)
    kb.assert_("bob:health_condition", "flu", source="human:bob", valid_from=100)
    made = kb.remember("I take Ventolin for my asthma.", source="human:ann", at=500,
                       model=ScriptedModel([facts(_said(depends_on=[
                           {"subject": "Ann", "attribute": "health condition"}]))]))
    assert made[0].depends_on == ("ann:health_condition",)  # Ann's, not Bob's
    refused = kb.remember("I take Ventolin for my asthma.", source="human:ann", at=600,
                          model=ScriptedModel([facts(_said(depends_on=[
                              {"subject": "Carl", "attribute": "health condition"}]))]))
    assert [(r.reason, r.counted) for r in refused.refused] == [
        ("it names a fact that holds no value", False)]


def test_a_named_key_outside_the_scope_is_not_taken() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("customer:2:plan", "gold", source="human:ann", valid_from=100)
    made = kb.remember("I get 10% off for my plan.", source="human:ann", at=500,
                       scope="customer:1", model=ScriptedModel([facts(
                           {**fact("customer 1", "discount", "10%", "I get 10% off"),
                            "depends_on": [{"key": "customer:2:plan"}]})]))
    assert list(made) == [] and [(r.reason, r.counted) for r in made.refused] == [
        ("it names a fact that holds no value", False)]
    assert "customer:1:discount" not in kb


def test_malformed_links_are_refused_and_counted() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.assert_("ann:health_condition", "asthma", source="human:ann")
    made = kb.remember("I take Ventolin for my asthma.", source="human:ann",
                       model=ScriptedModel([facts(
                           _said(depends_on=[{"subject": "Ann"}]),
                           _said(depends_on=[CONDITION], if_changes=CONDITION, certainty=0.9),
                           _said(forget="yes", certainty=0.8),
                           _said(depends_on=[{"subject": "Ann", "attribute": "medication"}],
                                 certainty=0.7))]))
    assert list(made) == []
    assert sorted((r.reason, r.counted) for r in made.refused) == [
        ("malformed: it has both depends_on and if_changes", True),
        ("malformed: it names its own key ann:medication", True),
        ("malformed: its depends_on item names no subject and attribute, nor a key", True),
        ("malformed: its forget is not true or false", True)]


def test_forget_forgets_the_fact_and_its_words() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    (partner,) = kb.remember("Hi. My partner is James. I live in Paris.", source="human:ann",
                             model=ScriptedModel([facts(
                                 fact("Ann", "partner", "James", "My partner is James"),
                                 fact("Ann", "city", "Paris", "I live in Paris"))]))[:1]
    made = kb.remember("Please remove that from your memory.", source="human:ann",
                       model=ScriptedModel([facts(
                           {"subject": "Ann", "attribute": "partner", "forget": True,
                            "quote": "Please remove that from your memory"})]))
    assert [(r.key, r.forgotten) for r in made] == [("ann:partner", True)]
    assert "ann:partner" not in kb and kb.value("ann:city") == "Paris"
    assert kb.value(partner.document) == "Hi. [redacted] I live in Paris."
    nothing = kb.remember("Forget my dog.", source="human:ann", model=ScriptedModel([facts(
        {"subject": "Ann", "attribute": "dog", "forget": True, "quote": "Forget my dog"})]))
    assert list(nothing) == [] and [(r.reason, r.counted) for r in nothing.refused] == [
        ("nothing to forget: ann:dog holds no such value", False)]


def test_the_instructions_say_when_to_use_each_field_and_small_mode_offers_none() -> None:
    for name in ("depends_on", "if_changes", "forget", "ended"):
        assert name in INSTRUCTIONS and name not in SMALL_INSTRUCTIONS
    kb = BeliefBase(clock=ManualClock(1000))
    for small in (False, True):
        model = ScriptedModel([facts()])
        kb.remember("Hello.", source="human:ann", model=model, small_model=small)
        schema = model.options[0].schema  # small-model mode: a reply schema, no tool
        parameters = (schema if small else model.requests[0][1][0]["function"]["parameters"])
        item = parameters["properties"]["facts"]["items"]
        assert ({"depends_on", "if_changes", "forget"} <= set(item["properties"])) is not small


@pytest.mark.parametrize("policy", [PreferNewer(), None])
def test_a_journaled_remember_with_links_replays_in_another_base(policy: Any) -> None:
    ledger = TrustLedger()
    kb = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000), conflict_policy=policy)
    _first(kb)
    again = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000))
    assert str(again.explain("ann:medication")) == str(kb.explain("ann:medication"))
    assert [h.operation for h in again.history()] == ["remember"]


def test_a_forget_in_a_journaled_session_is_kept_by_a_reopened_base(tmp_path: Any) -> None:
    from corollary import open_ledger

    with open_ledger(tmp_path / "l.db") as ledger:
        kb = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000))
        (partner,) = kb.remember("Hi. My partner is James.", source="human:ann",
                                 model=ScriptedModel([facts(
                                     fact("Ann", "partner", "James", "My partner is James"))]))
        kb.remember("Please forget that James is my partner.", source="human:ann",
                    model=ScriptedModel([facts(
                        {**fact("Ann", "partner", "James",
                                "Please forget that James is my partner"), "forget": True})]))
        again = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000))
        assert "ann:partner" not in again and again.value(partner.document) == "Hi. [redacted]"
        assert [h.operation for h in again.history()][-1] == "forget"
    assert b"James" not in (tmp_path / "l.db").read_bytes()

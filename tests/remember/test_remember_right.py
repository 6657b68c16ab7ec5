"""remember, right in every case (issue 35, item 5; docs/remember.md): a scoped call makes its
keys and its document inside the scope, a fact is counted once per distinct checked claim, a
text remembered again changes nothing, and the words that tell two attributes apart keep them
apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from remember_cases import fact, facts

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.facade.remembering import document_key
from corollary.foundations.errors import OutsideScopeError
from corollary.foundations.scope import Scope
from corollary.integrations.operations import Operations
from corollary.models import ScriptedModel

TEXT = "Write to ann@x.org. I live in Lyon."
EMAIL = fact("customer:42", "email", "ann@x.org", "ann@x.org")
CITY = fact("Customer 42", "home city", "Lyon", "I live in Lyon")


# -- scope -----------------------------------------------------------------------------------
def test_a_scoped_call_makes_new_keys_and_its_document_inside_the_scope() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.assert_("customer_42:email", "old@x.org", source="tool:crm")  # same words, outside
    made = kb.remember(TEXT, source="human:ann", model=ScriptedModel([facts(EMAIL, CITY)]),
                       scope="customer:42")
    assert made.refused == ()  # "outside the scope" twice on main
    assert [(r.key, r.value, r.merged_from) for r in made] == [
        ("customer:42:email", "ann@x.org", None), ("customer:42:home_city", "Lyon", None)]
    (doc,) = {r.document for r in made}
    assert doc == "customer:42:" + document_key("human:ann", 1000.0, TEXT)
    assert kb.value(doc) == TEXT and Scope.of("customer:42").contains(doc)
    assert kb.value("customer_42:email") == "old@x.org"  # a key outside is never taken


def test_a_scoped_fact_takes_the_existing_key_inside_the_scope() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.assert_("customer:42:city", "Paris", source="tool:crm")
    (r,) = kb.remember("I live in Lyon.", source="human:ann", scope="customer:42",
                       model=ScriptedModel([facts(CITY)]))
    assert (r.key, r.merged_from) == ("customer:42:city", "customer:42:home_city")


def test_a_fact_the_model_placed_in_the_scope_by_its_key_is_made_there() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    model = ScriptedModel([facts(
        fact("Ann", "email", "ann@x.org", "ann@x.org", key="customer:42:email"),
        fact("Ann", "city", "Lyon", "I live in Lyon", key="customer:42:email"))])
    made = kb.remember(TEXT, source="human:ann", model=model, scope="customer:42")
    assert [r.key for r in made] == ["customer:42:email"]
    # another attribute is not moved by the key: ann:city, outside
    assert [(r.reason, r.key) for r in made.refused] == [("outside the scope", "ann:city")]


def test_unscoped_keys_and_documents_are_spelled_as_before() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    made = kb.remember(TEXT, source="human:ann", model=ScriptedModel([facts(EMAIL)]))
    assert [(r.key, r.document) for r in made] == [
        ("customer_42:email", document_key("human:ann", 1000.0, TEXT))]


def test_a_given_document_outside_the_scope_is_refused_before_the_model_is_asked() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    model = ScriptedModel([facts(EMAIL)])
    with pytest.raises(OutsideScopeError):
        kb.remember(TEXT, source="human:ann", model=model, scope="customer:42",
                    document="chat:1")
    assert model.requests == [] and not kb.engine.keys


def test_a_scoped_agent_can_forget_its_own_conversation() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    ops = Operations(kb, model=ScriptedModel([facts(EMAIL, CITY)]), scope="customer:42")
    done = ops.remember(TEXT, "human:ann")
    assert done["refused"] == []
    (doc,) = {r["document"] for r in done["remembered"]}
    ops.retract(doc, reason="forget that conversation")  # OutsideScopeError on main
    assert kb.label("customer:42:email") == "OUT" and kb.label("customer:42:home_city") == "OUT"


# -- counting --------------------------------------------------------------------------------
def test_a_fact_repeated_in_a_reply_is_one_claim_counted_once() -> None:
    text = "I live in Paris."
    paris = fact("Alice", "city", "Paris", "I live in Paris")
    repeated, once = BeliefBase(clock=ManualClock(1000)), BeliefBase(clock=ManualClock(1000))
    made = repeated.remember(text, source="human:alice",
                             model=ScriptedModel([facts(*[paris] * 999)]))
    once.remember(text, source="human:alice", model=ScriptedModel([facts(paris)]))
    assert len(made) == 1  # 999 results on main
    assert len(repeated.ledger.outcomes("model:remember")) == 1
    assert repeated.reliability("model:remember") == once.reliability("model:remember")
    assert repeated.confidence("alice:city") == pytest.approx(once.confidence("alice:city"))


def test_a_refusal_repeated_in_a_reply_is_one_refusal_counted_once() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    dog = fact("Alice", "pet", "dog", "I have a dog")
    made = kb.remember("I live in Paris.", source="human:alice",
                       model=ScriptedModel([facts(*[dog] * 5)]))
    assert [(r.reason, r.key) for r in made.refused] == [("quote not found", "alice:pet")]
    assert [o.correct for o in kb.ledger.outcomes("model:remember")] == [False]


def test_the_same_text_remembered_again_changes_nothing(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "ledger.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    reply = facts(fact("Alice", "city", "Paris", "I live in Paris"),
                  fact("Alice", "pet", "dog", "I have a dog"))  # refused: not in the text
    model = ScriptedModel([reply, reply, reply])
    first = kb.remember("I live in Paris.", source="human:alice", model=model, at=500)
    state = (kb.reliability("model:remember"), len(kb.ledger.outcomes("model:remember")),
             len(kb.history()), kb.confidence("alice:city"))
    for _ in range(2):  # 0.909 -> 0.917 -> 0.923 on main, and an entry each time
        again = kb.remember("I live in Paris.", source="human:alice", model=model, at=500)
        assert list(again) == list(first) and again.refused == first.refused
        assert (kb.reliability("model:remember"), len(kb.ledger.outcomes("model:remember")),
                len(kb.history()), kb.confidence("alice:city")) == state
    ledger.close()


def test_a_new_fact_of_a_text_remembered_before_is_the_only_change() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    text = "I live in Paris and work at Acme."
    paris = fact("Alice", "city", "Paris", "I live in Paris")
    acme = fact("Alice", "employer", "Acme", "work at Acme")
    model = ScriptedModel([facts(paris), facts(paris, acme)])
    kb.remember(text, source="human:alice", model=model, at=500)
    made = kb.remember(text, source="human:alice", model=model, at=500)
    assert [(r.key, r.label) for r in made] == [("alice:city", "IN"), ("alice:employer", "IN")]
    assert sorted(o.key for o in kb.ledger.outcomes("model:remember")) == [
        "alice:city", "alice:employer"]


# -- key resolution --------------------------------------------------------------------------
def test_the_words_that_tell_two_attributes_apart_keep_them_apart() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.assert_("alice:pet", "dog", source="human:alice")
    kb.assert_("alice:birth_place", "Lyon", source="human:alice")
    model = ScriptedModel([facts(fact("Alice", "pet name", "Rex", "my dog Rex"),
                                 fact("Alice", "birth name", "Smith", "born Smith"))])
    made = kb.remember("I was born Smith; my dog Rex.", source="human:alice", model=model)
    assert [(r.key, r.merged_from) for r in made] == [("alice:pet_name", None),
                                                      ("alice:birth_name", None)]
    assert (kb.value("alice:pet"), kb.value("alice:birth_place")) == ("dog", "Lyon")
    assert kb.conflicts() == []  # two open conflicts on main: dog vs Rex, Lyon vs Smith

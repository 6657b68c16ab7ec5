"""kb.remember (docs/remember.md): the model extracts, the base checks the quotes, resolves the
keys and writes the documents and cited claims as one change."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from remember_cases import fact, facts

from corollary import BeliefBase, ManualClock
from corollary.facade.remembering import document_key
from corollary.foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    ModelConnectionError,
    ModelResponseError,
    UnknownSourceError,
)
from corollary.models import FunctionModel, Reply, ScriptedModel, ToolCall


@pytest.fixture
def kb() -> BeliefBase:
    return BeliefBase(clock=ManualClock(1000))


def test_a_fact_becomes_a_claim_citing_the_document(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "I live in Paris"))])
    made = kb.remember("Hi! I live in Paris now.", source="human:alice", model=model)
    assert len(model.requests) == 1 and made.requests == 1
    (r,) = made
    assert (r.key, r.value, r.quote, r.label) == ("alice:city", "Paris", "I live in Paris", "IN")
    assert r.document == document_key("human:alice", 1000.0, "Hi! I live in Paris now.")
    assert kb.value(r.document) == "Hi! I live in Paris now."
    assert r.source == "model:remember" and r.merged_from is None and r.valid_from == 1000.0
    assert r.confidence == pytest.approx(kb.confidence("alice:city"))
    proof = str(kb.explain("alice:city"))
    assert "cites " + r.document + ": 'I live in Paris' (found)" in proof
    assert "model judgement by model:remember" in proof


def test_the_request_offers_one_facts_tool_and_shows_existing_keys(kb: BeliefBase) -> None:
    kb.assert_("alice:city", "Paris", source="human:alice")
    model = ScriptedModel([facts()])
    kb.remember("Alice says she moved.", source="human:alice", model=model)
    messages, tools = model.requests[0]
    assert [t["function"]["name"] for t in tools] == ["facts"]
    item = tools[0]["function"]["parameters"]["properties"]["facts"]["items"]
    assert set(item["required"]) == {"subject", "attribute", "value", "quote"}
    assert {"key", "valid_from", "certainty"} <= set(item["properties"])
    assert "alice:city = 'Paris'" in messages[-1]["content"]
    assert "Alice says she moved." in messages[-1]["content"]


def test_a_quote_not_in_the_text_is_refused_and_counts_against_the_model(
        kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "I live in Paris"),
                                 fact("Alice", "pet", "dog", "I have a dog"))])
    made = kb.remember("I live in Paris.", source="human:alice", model=model)
    assert [r.key for r in made] == ["alice:city"]
    (refused,) = made.refused
    assert refused.reason == "quote not found" and refused.counted
    outcomes = kb.ledger.outcomes("model:remember")
    assert sorted(o.correct for o in outcomes) == [False, True]


def test_no_fact_surviving_writes_nothing_but_the_outcomes(kb: BeliefBase) -> None:
    kb.assert_("x", 1, source="tool:t")
    model = ScriptedModel([facts(fact("Alice", "pet", "dog", "I have a dog"))])
    made = kb.remember("I live in Paris.", source="human:alice", model=model)
    assert list(made) == [] and len(made.refused) == 1
    assert set(kb.engine.keys) == {"x"}
    assert [o.correct for o in kb.ledger.outcomes("model:remember")] == [False]


def test_no_outcome_without_learning_from_checks() -> None:
    kb = BeliefBase(clock=ManualClock(0), learn_from_checks=False)
    model = ScriptedModel([facts(fact("Alice", "pet", "dog", "I have a dog"),
                                 fact("Alice", "city", "Paris", "Paris"))])
    kb.remember("I live in Paris.", source="human:alice", model=model)
    assert kb.ledger.outcomes("model:remember") == []


def test_home_city_joins_the_existing_city_key_and_the_proof_says_so(kb: BeliefBase) -> None:
    kb.assert_("alice:city", "Paris", source="human:alice")
    model = ScriptedModel([facts(fact("alice", "Home City", "Lyon", "I moved to Lyon"))])
    (r,) = kb.remember("I moved to Lyon.", source="human:alice", model=model)
    assert (r.key, r.merged_from) == ("alice:city", "alice:home_city")
    assert "merged from alice:home_city" in str(kb.explain("alice:city"))
    assert "alice:home_city" not in kb.engine.keys


def test_a_merge_survives_a_snapshot(kb: BeliefBase) -> None:
    kb.assert_("alice:city", "Paris", source="human:alice")
    model = ScriptedModel([facts(fact("alice", "city of residence", "Lyon", "Lyon"))])
    kb.remember("Now Lyon.", source="human:alice", model=model)
    again = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(1000))
    assert "merged from alice:city_of_residence" in str(again.explain("alice:city"))


def test_another_subject_is_never_merged(kb: BeliefBase) -> None:
    kb.assert_("alice:city", "Paris", source="human:alice")
    model = ScriptedModel([facts(fact("Bob", "home city", "Lyon", "Bob lives in Lyon",
                                      key="alice:city"))])
    (r,) = kb.remember("Bob lives in Lyon.", source="human:alice", model=model)
    assert (r.key, r.merged_from) == ("bob:home_city", None)
    assert kb.value("alice:city") == "Paris"


def test_a_key_the_model_reuses_is_taken(kb: BeliefBase) -> None:
    kb.assert_("customer:7:email", "a@x.org", source="tool:crm")
    model = ScriptedModel([facts(fact("customer 7", "contact", "b@x.org", "b@x.org",
                                      key="customer:7:email"))])
    (r,) = kb.remember("Write to b@x.org.", source="human:ann", model=model)
    assert (r.key, r.merged_from) == ("customer:7:email", "customer_7:contact")


def test_two_wordings_in_one_call_take_one_key(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Alice", "home city", "Lyon", "Lyon"),
                                 fact("Alice", "city of residence", "Lyon, France",
                                      "in Lyon, France"))])
    made = kb.remember("I live in Lyon, France.", source="human:alice", model=model)
    assert [r.key for r in made] == ["alice:home_city", "alice:home_city"]
    assert made[1].merged_from == "alice:city_of_residence"


def test_retracting_a_document_takes_exactly_its_facts_out(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "I live in Paris")),
                           facts(fact("Alice", "employer", "Acme", "I work at Acme"))])
    (city,) = kb.remember("I live in Paris.", source="human:alice", model=model)
    (job,) = kb.remember("I work at Acme.", source="human:alice", model=model)
    kb.retract(city.document, reason="forget that conversation")
    assert kb.label("alice:city") == "OUT"
    assert kb.value("alice:employer") == "Acme"
    assert "I live in Paris" in str(kb.explain("alice:city"))


def test_the_chat_form_makes_each_message_its_document(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "I live in Paris"),
                                 fact("Bob", "pet", "cat", "my cat"))])
    made = kb.remember(messages=[
        {"speaker": "human:alice", "text": "I live in Paris.", "at": 10},
        {"speaker": "human:bob", "text": "Same here, with my cat.", "at": 20},
    ], model=model)
    city, pet = made
    assert kb.value(city.document) == "I live in Paris."
    assert kb.value(pet.document) == "Same here, with my cat."
    assert (city.valid_from, pet.valid_from) == (10.0, 20.0)
    assert "premise from human:bob" in str(kb.explain(pet.document))
    shown = model.requests[0][0][-1]["content"]
    assert "[1] human:alice (1970-01-01T00:00:10+00:00): I live in Paris." in shown


def test_a_message_no_fact_rests_on_is_not_written(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "I live in Paris"))])
    kb.remember(messages=[{"speaker": "human:alice", "text": "I live in Paris."},
                          {"speaker": "human:bob", "text": "Nice."}], model=model)
    assert sorted(k for k in kb.engine.keys if k.startswith("doc:")) == [
        document_key("human:alice", 1000.0, "I live in Paris.")]


def test_a_document_key_can_be_given(kb: BeliefBase) -> None:
    model = ScriptedModel([facts(fact("Acme", "hq", "Austin", "HQ: Austin"))])
    (r,) = kb.remember("HQ: Austin", source="document:10-K", model=model, document="10-K")
    assert r.document == "10-K" and kb.value("10-K") == "HQ: Austin"
    other = ScriptedModel([facts(fact("Acme", "hq", "Austin", "HQ: Austin"))])
    with pytest.raises(InvalidInputError, match="another text"):
        kb.remember("HQ: Dallas", source="document:10-K", model=other, document="10-K")


def test_the_model_source(kb: BeliefBase) -> None:
    reply = facts(fact("Alice", "city", "Paris", "Paris"))
    (r,) = kb.remember("Paris", source="human:alice", model=ScriptedModel([reply]),
                       model_source="model:extractor")
    assert r.source == "model:extractor"

    class Named(ScriptedModel):
        name = "qwen2.5"

    (r,) = kb.remember("Paris!", source="human:alice", model=Named([reply]))
    assert r.source == "model:qwen2.5"
    with pytest.raises(UnknownSourceError):
        kb.remember("Paris", source="human:alice", model=ScriptedModel([reply]),
                    model_source="bogus:x")


@pytest.mark.parametrize("call", [
    lambda kb, m: kb.remember("t", source="human:a", model=m, messages=[]),
    lambda kb, m: kb.remember(model=m),
    lambda kb, m: kb.remember("t", model=m),
    lambda kb, m: kb.remember("   ", source="human:a", model=m),
    lambda kb, m: kb.remember(messages=[{"speaker": "human:a", "text": "x", "mood": 1}], model=m),
    lambda kb, m: kb.remember("t", source="human:a", model=m,
                              at=datetime.datetime(2024, 1, 1)),
    lambda kb, m: kb.remember("t", source="human:a", model=m, max_facts=-1),
])
def test_bad_arguments_are_refused_before_the_model_is_asked(kb: BeliefBase, call: Any) -> None:
    model = ScriptedModel([])
    with pytest.raises((InvalidInputError, InvalidTypeError)):
        call(kb, model)
    assert model.requests == [] and not kb.engine.keys


def test_an_aware_datetime_is_a_time() -> None:
    when = datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)
    kb = BeliefBase(clock=ManualClock(when.timestamp() + 60))
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "Paris"))])
    (r,) = kb.remember("Paris", source="human:alice", model=model, at=when)
    assert r.valid_from == when.timestamp()
    assert kb.engine.find(r.document, "Paris").premises[0].valid_from == when.timestamp()
    with pytest.raises(InvalidInputError, match="after the clock's now"):
        kb.remember("Rome", source="human:alice", model=ScriptedModel([]),
                    at=when.timestamp() + 3600)


def test_a_stated_valid_from_and_certainty_are_taken() -> None:
    # said in April 2024: a valid_from the text says, not later than the message, is taken
    kb = BeliefBase(clock=ManualClock(datetime.datetime(2024, 4, 20, tzinfo=datetime.timezone.utc)
                                      .timestamp()))
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "Paris", certainty=0.5,
                                      valid_from="2024-03-01"))])
    (r,) = kb.remember("Since March 2024: Paris", source="human:alice", model=model)
    assert r.valid_from == datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc).timestamp()
    assert "certainty 0.5" in str(kb.explain("alice:city"))


@pytest.mark.parametrize("bad", [
    {"subject": "Alice", "attribute": "city", "value": "Paris"},  # no quote
    {"subject": "", "attribute": "city", "value": "Paris", "quote": "Paris"},
    {"subject": "Alice", "attribute": "city", "value": ["Paris"], "quote": "Paris"},
    {"subject": "Alice", "attribute": "city", "value": "Paris", "quote": "Paris",
     "certainty": 2},
    {"subject": "Alice", "attribute": "city", "value": "Paris", "quote": "Paris",
     "valid_from": "last spring"},
    "Alice lives in Paris",
])
def test_a_malformed_fact_is_refused_alone(kb: BeliefBase, bad: Any) -> None:
    model = ScriptedModel([facts(bad, fact("Alice", "pet", "cat", "a cat"))])
    made = kb.remember("Paris, and a cat.", source="human:alice", model=model)
    assert [r.key for r in made] == ["alice:pet"]
    assert made.refused[0].reason.startswith("malformed") and made.refused[0].counted


def test_a_reply_naming_too_many_facts_is_refused_whole(kb: BeliefBase) -> None:
    many = [fact("Alice", f"thing {i}", i, "Paris") for i in range(10_000)]
    model = ScriptedModel([facts(*many)])
    with pytest.raises(InvalidInputError, match="10000 facts, over max_facts=1000"):
        kb.remember("Paris", source="human:alice", model=model)
    assert not kb.engine.keys and kb.ledger.outcomes() == []
    model = ScriptedModel([facts(*many[:3])])
    with pytest.raises(InvalidInputError, match="over max_facts=2"):
        kb.remember("Paris", source="human:alice", model=model, max_facts=2)


def test_a_thousand_facts_are_one_change(kb: BeliefBase) -> None:
    many = [fact("Alice", f"thing {i}", "Paris", "Paris") for i in range(1000)]
    made = kb.remember("Paris", source="human:alice", model=ScriptedModel([facts(*many)]))
    assert len(made) == 1000 and kb.value("alice:thing_999") == "Paris"


@pytest.mark.parametrize("reply", [
    Reply(None, [ToolCall("c1", "facts", arguments_error="not JSON", raw_arguments="{fa")]),
    Reply(None, [ToolCall("c1", "facts", {"facts": "Alice lives in Paris"})]),
    Reply('{"facts": {"subject": "Alice"}}'),
    # issue 39: a text that holds no facts object is not "no facts" (a small model writes
    # the call as prose when the request does not require the tool)
    Reply("Nothing worth remembering."), Reply("x" * 5_000_000),
    Reply('facts(["I moved to Pine Ave last month."])'),
])
def test_a_malformed_reply_is_a_model_response_error(kb: BeliefBase, reply: Reply) -> None:
    with pytest.raises(ModelResponseError):
        kb.remember("Paris", source="human:alice", model=ScriptedModel([reply]))
    assert not kb.engine.keys and kb.ledger.outcomes() == []


@pytest.mark.parametrize("reply", [
    facts(), Reply(""), Reply('{"facts": []}'),
    Reply(None, [ToolCall("c1", "other_tool", {"facts": [fact("A", "b", 1, "Paris")]})]),
])
def test_a_reply_naming_no_fact_writes_nothing(kb: BeliefBase, reply: Reply) -> None:
    made = kb.remember("Paris", source="human:alice", model=ScriptedModel([reply]))
    assert list(made) == [] and made.refused == ()
    assert not kb.engine.keys and kb.ledger.outcomes() == []


def test_a_text_reply_holding_the_facts_as_json_is_read(kb: BeliefBase) -> None:
    text = '```json\n{"facts": [{"subject": "Alice", "attribute": "city", "value": "Paris", ' \
           '"quote": "Paris"}]}\n```'
    (r,) = kb.remember("Paris", source="human:alice", model=ScriptedModel([Reply(text)]))
    assert r.key == "alice:city"


class ConnectError(Exception):
    """Named like httpx's: a network failure by its name."""


@pytest.mark.parametrize("exc", [ConnectionRefusedError("refused"), TimeoutError("slow"),
                                 OSError("unreachable"), ConnectError("dns")])
def test_a_network_failure_is_a_model_connection_error(kb: BeliefBase, exc: Exception) -> None:
    with pytest.raises(ModelConnectionError):
        kb.remember("Paris", source="human:alice", model=ScriptedModel([exc]))
    assert not kb.engine.keys


def test_another_model_failure_passes_through(kb: BeliefBase) -> None:
    with pytest.raises(ZeroDivisionError):
        kb.remember("Paris", source="human:alice",
                    model=FunctionModel(lambda messages, tools: 1 / 0))


def test_a_long_text_is_sent_in_requests_within_the_budget(kb: BeliefBase) -> None:
    sentences = [f"Fact number {i} is here." for i in range(200)]  # ~25 chars each
    text = " ".join(sentences)
    seen: list[str] = []

    def answer(messages: Any, tools: Any) -> Reply:
        body = messages[-1]["content"].rpartition(":\n")[2]  # after the heading
        seen.append(body)
        first = body.split(".")[0] + "."
        return facts(fact("Doc", f"line {len(seen)}", int(first.split()[2]), first))

    made = kb.remember(text, source="document:notes", model=FunctionModel(answer),
                       request_tokens=300)
    assert made.requests == len(seen) == 5  # 200 x 25 chars = ~1,250 tokens, 300 each
    assert all(len(body) // 4 <= 300 for body in seen)
    assert "".join(seen).replace(" ", "") == text.replace(" ", "")
    assert len(made) == 5 and len({r.document for r in made}) == 1
    seen.clear()
    with pytest.raises(InvalidInputError, match="4 facts in 4 of 5 requests, over max_facts=3"):
        kb.remember(text + " Again.", source="document:notes", model=FunctionModel(answer),
                    request_tokens=300, max_facts=3)
    assert len(seen) == 4  # refused as soon as the count passed the bound


def test_scope_limits_the_keys_shown_and_refuses_facts_outside(kb: BeliefBase) -> None:
    kb.assert_("customer:42:city", "Oslo", source="tool:crm")
    kb.assert_("customer:7:city", "Rome", source="tool:crm")
    model = ScriptedModel([facts(fact("customer 42", "city", "Bergen", "Bergen"),
                                 fact("customer 7", "city", "Milan", "Milan"))])
    made = kb.remember("customer city: Bergen, Milan", source="human:agent", model=model,
                       scope="customer:42")
    assert [r.key for r in made] == ["customer:42:city"]
    assert made.refused[0].reason == "outside the scope" and not made.refused[0].counted
    shown = model.requests[0][0][-1]["content"]
    assert "customer:42:city" in shown and "customer:7:city" not in shown
    assert kb.value("customer:7:city") == "Rome"


def test_with_rules_a_failing_rule_undoes_the_whole_change() -> None:
    from corollary import rule
    from corollary.foundations.errors import RuleError

    @rule(inputs={"pet": "alice:pet"}, output="alice:pet_count")
    def count(pet: Any) -> Any:
        raise RuntimeError("broken rule")

    kb = BeliefBase(clock=ManualClock(0), rules=[count])
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "Paris"),
                                 fact("Alice", "pet", "cat", "cat"))])
    with pytest.raises((RuleError, RuntimeError)):
        kb.remember("Paris, cat", source="human:alice", model=model)
    assert [k for k in kb.engine.keys if kb.label(k) == "IN"] == []
    assert kb.ledger.outcomes() == []

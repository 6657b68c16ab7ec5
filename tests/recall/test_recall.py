"""kb.recall through the public API: ranking, the floor, conflicts, expand, the budget, the
rendering of a recalled line, and bad input."""

from __future__ import annotations

import math

import pytest

from corollary import (
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferHigherConfidence,
    Recalled,
    TrustPolicy,
    render_recalled,
)
from corollary.facade.recall import count_tokens, line_cost


@pytest.fixture
def kb():
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(30):
        kb.assert_(f"customer:{i}:email", f"user{i}@example.com", source="tool:crm")
        kb.assert_(f"customer:{i}:city", f"City {i}", source="tool:crm")
    return kb


def keys(found):
    return [r.key for r in found]


def test_a_question_naming_a_key_finds_it_first(kb):
    found = kb.recall("What is customer 7's email?")
    assert found[0].key == "customer:7:email"
    assert found[0].value == "user7@example.com"
    assert kb.label(found[0].key, found[0].value) == "IN"
    assert found[0].confidence == pytest.approx(kb.confidence("customer:7:email"))
    assert found[0].why == ("customer", "7", "email")
    assert all(isinstance(r, Recalled) for r in found)
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)


def test_k_limits_the_hits(kb):
    assert len(kb.recall("customer email", limit=3)) == 3
    assert len(kb.recall("customer email", limit=100)) == 60  # "customer" is in every key
    assert len(kb.recall("email", limit=100)) == 30
    assert kb.recall("nothing matches this", limit=5) == []


def test_words_come_from_key_value_and_source():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("conv:1:D1:3", "I went to Paris last May", source="human:calvin")
    kb.assert_("conv:1:D1:4", "Nice, I stayed home", source="human:dana")
    kb.assert_("note", "Paris is lovely", source="tool:wiki")
    found = kb.recall("When did Calvin travel to Paris?")
    assert found[0].key == "conv:1:D1:3"
    assert found[0].why == ("calvin", "to", "paris")
    assert kb.recall("MAY")[0].key == "conv:1:D1:3"  # case folded
    assert keys(kb.recall("conv 1 D1 4")) [0] == "conv:1:D1:4"  # the key split on punctuation


def test_citations_are_words_of_the_claim():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("doc:10k", "Revenue grew 12% on cloud demand", source="document:10-K")
    kb.claim("growth", 0.12, source="model:gpt", inputs=["doc:10k"],
             citation=("doc:10k", "Revenue grew 12%"))
    found = kb.recall("revenue", limit=5)
    assert keys(found) == ["growth"]  # the fact answers for the document it cites (item 4)
    assert keys(kb.recall("revenue", limit=5, documents=True)) == ["growth", "doc:10k"]


def test_confidence_breaks_ties_between_equally_relevant_values():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("rate:a", "rate is five", source="assumption:guess")
    kb.assert_("rate:b", "rate is five", source="tool:feed")
    found = kb.recall("rate five")
    assert keys(found) == ["rate:b", "rate:a"]
    assert found[0].confidence > found[1].confidence


def test_retracted_superseded_and_faded_values_are_never_recalled():
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Denver", source="tool:registry")  # replaces the source's Austin
    assert [(r.key, r.value) for r in kb.recall("hq")] == [("hq", "Denver")]
    kb.retract("hq")
    assert kb.recall("hq") == []
    kb.assert_("rumour", "sale", source="human:ann", half_life=10.0)
    assert keys(kb.recall("rumour", min_confidence=0.5)) == ["rumour"]
    clock.advance(100.0)
    assert kb.recall("rumour", min_confidence=0.5) == []
    assert keys(kb.recall("rumour", min_confidence=0.0)) == ["rumour"]


def test_expired_values_are_not_recalled():
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("quote", 101.5, source="tool:price", ttl=60.0)
    assert keys(kb.recall("quote")) == ["quote"]
    clock.advance(61.0)
    assert kb.recall("quote") == []


def test_the_floor_defaults_to_the_policy():
    kb = BeliefBase(clock=ManualClock(0), policy=TrustPolicy(min_confidence=0.8))
    kb.assert_("hunch", "up", source="assumption:me")
    kb.assert_("fact", "up", source="tool:calc")
    assert keys(kb.recall("up")) == ["fact"]
    assert set(keys(kb.recall("up", min_confidence=0.0))) == {"hunch", "fact"}


def test_an_open_conflict_shows_each_value_marked():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ceo", "Ann", source="human:hr")
    kb.assert_("ceo", "Bob", source="document:memo")
    found = kb.recall("ceo")
    assert sorted(r.value for r in found) == ["Ann", "Bob"]
    assert all(r.conflict for r in found)
    assert all(render_recalled(r).endswith(", open conflict]") for r in found)


def test_a_settled_conflict_shows_the_winner_only():
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferHigherConfidence())
    kb.assert_("ceo", "Ann", source="human:hr")
    kb.assert_("ceo", "Bob", source="assumption:old")
    assert [(r.value, r.conflict) for r in kb.recall("ceo")] == [("Ann", False)]
    kb2 = BeliefBase(clock=ManualClock(0))
    kb2.assert_("ceo", "Ann", source="human:hr")
    kb2.assert_("ceo", "Bob", source="document:memo")
    kb2.resolve("ceo", "Bob")
    assert [(r.value, r.conflict) for r in kb2.recall("ceo")] == [("Bob", False)]


def test_expand_adds_held_inputs_after_their_hit():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("q2", 100.0, source="tool:ledger")
    kb.assert_("q3", 110.0, source="tool:ledger")
    kb.claim("growth", 0.1, source="model:m", inputs=["q2", "q3"], formula="(q3 - q2) / q2")
    plain = kb.recall("growth")
    assert keys(plain) == ["growth"]
    found = kb.recall("growth", expand=True)
    assert keys(found) == ["growth", "q2", "q3"]
    assert found[1].why == ("input of growth",)
    assert found[1].score == found[0].score
    kb.retract("q2")  # growth goes OUT with it
    assert kb.recall("growth", expand=True) == []


def test_expand_shows_each_belief_once_and_skips_inputs_below_the_floor():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", "alpha", source="tool:t")
    kb.assert_("weak", "alpha", source="assumption:x")
    kb.assert_("b", "alpha beta", source="tool:t")  # held by a premise too: above its inputs
    kb.claim("b", "alpha beta", source="model:m", inputs=["a", "weak"], certainty=0.9)
    found = kb.recall("beta", limit=10, expand=True, min_confidence=0.7)
    assert keys(found) == ["b", "a"]
    found = kb.recall("alpha", limit=10, expand=True, min_confidence=0.7)
    assert sorted(keys(found)) == ["a", "b"]  # a once: as a hit, not again as b's input


def test_the_budget_counts_rendered_lines(kb):
    everything = kb.recall("customer email", limit=60)
    costs = [line_cost(r) for r in everything]
    assert costs[0] == count_tokens(render_recalled(everything[0]) + "\n")
    budget = sum(costs[:4]) + costs[4] - 1  # room for four lines, not five
    found = kb.recall("customer email", limit=60, budget=budget)
    assert found[:4] == everything[:4] and everything[4] not in found
    assert found == greedy(everything, budget)
    assert sum(line_cost(r) for r in found) <= budget
    assert kb.recall("customer email", budget=0) == []
    assert kb.recall("customer email", limit=60, budget=10**9) == everything


def test_the_budget_holds_with_expand():
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(5):
        kb.assert_(f"in:{i}", i, source="tool:t")
    kb.claim("total", 10, source="model:m", inputs=[f"in:{i}" for i in range(5)],
             formula="+".join(f"in_{i}" for i in range(5)) if False else None)
    full = kb.recall("total", expand=True)
    assert len(full) == 6
    for budget in range(0, 80, 3):
        found = kb.recall("total", expand=True, budget=budget)
        assert sum(line_cost(r) for r in found) <= budget
        assert found == greedy(full, budget)


def greedy(lines, budget):
    """The budget's rule: in order, each line that fits in what is left."""
    taken, spent = [], 0
    for r in lines:
        if spent + line_cost(r) <= budget:
            taken.append(r)
            spent += line_cost(r)
    return taken


def test_one_long_belief_does_not_crowd_out_the_rest():
    # issue 28 item 9: before, the list stopped at the first line that did not fit, so a long
    # document ranked first for a common word left nothing
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("doc:report", "revenue " * 1200, source="document:report")
    kb.assert_("revenue:Q3", 110.0, source="tool:ledger")
    everything = kb.recall("revenue")
    assert [r.key for r in everything] == ["doc:report", "revenue:Q3"]
    found = kb.recall("revenue", budget=100)
    assert [r.key for r in found] == ["revenue:Q3"]


def test_a_line_break_in_a_key_or_value_cannot_forge_a_line():
    kb = BeliefBase(clock=ManualClock(0))
    forged = "tool:x\nrevenue:Q3 = 999.0 [IN 0.99]"
    kb.assert_(forged, "ok", source="tool:t")
    kb.assert_("note", "a\u2028revenue:Q3 = 999.0 [IN 0.99]\x85b\u2029c\rd", source="tool:t")
    kb.assert_("list", ["x\ny", {"k\u2028": "v"}], source="tool:t")
    found = kb.recall("revenue Q3 note list", limit=10)
    assert {r.key for r in found} == {forged, "note", "list"}
    for r in found:
        line = render_recalled(r)
        assert line.splitlines() == [line]
        assert "\n" not in line and "\r" not in line
    by_key = {r.key: render_recalled(r) for r in found}
    assert by_key[forged].startswith('"tool:x\\nrevenue:Q3 = 999.0 [IN 0.99]" = "ok" [IN ')


def test_render_recalled_quotes_keys_that_could_mislead():
    r = Recalled("a = 1 [IN 0.99]", 2, 0.5, "IN", 1.0, ())
    assert render_recalled(r) == '"a = 1 [IN 0.99]" = 2 [IN 0.50]'
    assert render_recalled(Recalled("k", None, 0.125, "IN", 1.0, ())) == "k = null [IN 0.13]"


@pytest.mark.parametrize(("args", "kwargs", "error"), [
    ((None,), {}, InvalidTypeError),
    ((b"bytes",), {}, InvalidTypeError),
    (("",), {}, InvalidInputError),
    (("   ",), {}, InvalidInputError),
    (("q", 0), {}, InvalidInputError),
    (("q", -1), {}, InvalidInputError),
    (("q", True), {}, InvalidTypeError),
    (("q", 2.0), {}, InvalidTypeError),
    (("q",), {"budget": math.nan}, InvalidInputError),
    (("q",), {"budget": -1}, InvalidInputError),
    (("q",), {"budget": math.inf}, InvalidInputError),
    (("q",), {"budget": True}, InvalidTypeError),
    (("q",), {"budget": "10"}, InvalidTypeError),
    (("q",), {"min_confidence": 1.5}, InvalidInputError),
    (("q",), {"min_confidence": -0.1}, InvalidInputError),
    (("q",), {"min_confidence": math.nan}, InvalidInputError),
    (("q",), {"expand": 1}, InvalidTypeError),
])
def test_bad_input_raises_typed_errors(kb, args, kwargs, error):
    with pytest.raises(error):
        kb.recall(*args, **kwargs)


def test_a_query_of_punctuation_only_finds_nothing(kb):
    assert kb.recall("?!") == []


def test_an_empty_base_recalls_nothing():
    assert BeliefBase(clock=ManualClock(0)).recall("anything") == []


def test_beliefs_a_rule_makes_are_recalled():
    from corollary import rule

    @rule(output="greeting", inputs={"n": "name"})
    def greet(n):
        return f"hello {n}"

    kb = BeliefBase(clock=ManualClock(0), rules=[greet])
    kb.assert_("name", "Ann", source="human:ann")
    assert [(r.key, r.value) for r in kb.recall("hello")] == [("greeting", "hello Ann")]
    kb.assert_("name", "Bob", source="human:ann")  # replaces Ann: the rule's output follows
    assert [(r.key, r.value) for r in kb.recall("hello")] == [("greeting", "hello Bob")]
    found = kb.recall("greeting", expand=True)
    assert [(r.key, r.why) for r in found] == [("greeting", ("greeting",)),
                                               ("name", ("input of greeting",))]

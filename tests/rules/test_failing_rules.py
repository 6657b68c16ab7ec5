"""A rule that fails never bricks a base (issue 20, findings 1 and 2).

A rule that raises, or rules that do not settle within the firing or time budget, make the
operation that set them off fail with a typed RuleError naming the rule and its inputs; the base
and the ledger are then exactly as before the operation, and the combinations that failed are
held back until their inputs change, so later operations and queries are unaffected. Costs are
counted in firings, never timed.
"""

from __future__ import annotations

from typing import Any

import pytest

from corollary import (
    Agent,
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    ScriptedModel,
    rule,
    tool,
)
from corollary.foundations.errors import RuleError, RuleLimitError, StratificationError
from corollary.models import Reply, ToolCall

calls: dict[str, int] = {"ratio": 0, "grow": 0, "ping": 0, "pong": 0, "echo": 0}


@rule(output="ratio", inputs={"a": "a", "b": "b"}, name="tests.failing.ratio")
def ratio(a: float, b: float) -> float:
    calls["ratio"] += 1
    return a / b


@rule(output="n", inputs={"x": "n"}, name="tests.failing.grow")
def grow(x: int) -> int:  # a new value of its own key at every firing: never settles
    calls["grow"] += 1
    return x + 1


@rule(output="p", inputs={"x": "q"}, name="tests.failing.ping")
def ping(x: int) -> int:
    calls["ping"] += 1
    return x + 1


@rule(output="q", inputs={"x": "p"}, name="tests.failing.pong")
def pong(x: int) -> int:
    calls["pong"] += 1
    return x + 1


def ratio_base(**options: Any) -> BeliefBase:
    calls.update(dict.fromkeys(calls, 0))
    kb = BeliefBase(clock=ManualClock(0), rules=[ratio], **options)
    kb.assert_("a", 1.0, source="human:alice")
    kb.assert_("b", 2.0, source="tool:meter")
    assert kb.value("ratio") == 0.5
    return kb


def state(kb: BeliefBase) -> tuple[Any, Any]:
    return kb.to_dict(), kb.ledger.to_dict()


def test_a_rule_that_raises_refuses_the_assertion_and_leaves_the_base_as_it_was() -> None:
    kb = ratio_base()
    before = state(kb)
    with pytest.raises(RuleError, match=r"tests\.failing\.ratio failed on a = 1\.0, b = 0") as err:
        kb.assert_("b", 0, source="tool:meter")
    assert isinstance(err.value.__cause__, ZeroDivisionError)
    assert not isinstance(err.value, RuleLimitError)
    assert state(kb) == before
    # later operations are unaffected, the retract included
    assert kb.value("b") == 2.0 and kb.value("ratio") == 0.5
    assert len(kb.beliefs()) == 3
    kb.assert_("b", 4.0, source="tool:meter")
    assert kb.value("ratio") == 0.25
    kb.retract("b")
    assert "ratio" not in {b.key for b in kb.beliefs()}
    assert calls["ratio"] == 3  # b = 2, the failed b = 0, b = 4: nothing retried


def test_a_claim_and_a_tool_call_are_refused_the_same_way() -> None:
    kb = ratio_base()
    before = state(kb)
    with pytest.raises(RuleError, match="ZeroDivisionError"):
        kb.claim("b", 0, source="model:m")
    assert state(kb) == before

    @tool(name="meter")
    def meter() -> float:
        return 0.0

    kb.add_tool(meter)
    before = state(kb)
    with pytest.raises(RuleError):
        kb.call(meter, "b")
    assert kb.to_dict()["beliefs"] == before[0]["beliefs"] and not kb.calls()
    assert kb.value("ratio") == 0.5


def test_a_retract_that_brings_a_failing_value_in_is_refused_and_records_nothing() -> None:
    kb = ratio_base(conflict_policy=PreferHigherConfidence())
    kb.assert_("b", 0, source="tool:weak")  # loses to b = 2.0: the rule never sees it
    assert kb.value("b") == 2.0
    before = state(kb)
    with pytest.raises(RuleError):
        kb.retract("b", 2.0, fault="source")  # b = 0 would come IN
    assert state(kb) == before  # no wrong outcome for tool:meter either
    assert kb.ledger.outcomes() == [] and kb.value("b") == 2.0 and kb.value("ratio") == 0.5


def test_a_failure_found_by_a_query_is_refused_once_then_held_back() -> None:
    clock = ManualClock(0)
    calls.update(dict.fromkeys(calls, 0))
    kb = BeliefBase(clock=clock, rules=[ratio], conflict_policy=PreferHigherConfidence())
    kb.assert_("a", 1.0, source="human:alice")
    kb.assert_("b", 2.0, source="human:bob", ttl=10)
    kb.assert_("b", 0, source="tool:weak")  # loses while b = 2.0 lasts
    assert kb.value("ratio") == 0.5 and calls["ratio"] == 1
    clock.advance(11)  # b = 2.0 expires: b = 0 comes IN with no operation at all
    before = state(kb)
    with pytest.raises(RuleError, match="b = 0"):
        kb.beliefs()
    assert state(kb) == before and calls["ratio"] == 2
    assert kb.value("b") == 0 and {b.key for b in kb.beliefs()} == {"a", "b"}
    clock.advance(1)
    kb.value("a")
    assert calls["ratio"] == 2  # held back: not tried again at a new time either
    kb.assert_("b", 5.0, source="tool:weak")  # its input changes: the rule fires again
    assert kb.value("ratio") == 0.2 and calls["ratio"] == 3


@rule(output="alarm", inputs={"v": "verdict"}, name="tests.failing.echo")
def echo(v: str) -> str:  # alarm <- verdict: closes a cycle with "verdict unless alarm"
    calls["echo"] += 1
    return v


@pytest.mark.parametrize("policy", [None, PreferHigherConfidence])
def test_a_firing_into_a_cycle_through_an_unless_found_by_a_query_is_refused_once(
        policy: Any) -> None:
    """A query whose time brings an input IN, where the firing would close a cycle through an
    'unless', raises StratificationError once, leaves the base as it was, and holds that
    combination back like a rule that raised: later reads answer (they raised at every read)."""
    clock = ManualClock(0)
    calls.update(dict.fromkeys(calls, 0))
    kb = BeliefBase(clock=clock, rules=[echo],
                    conflict_policy=None if policy is None else policy())
    kb.assert_("alarm", "on", source="human:ann", ttl=10)
    kb.claim("verdict", "on", source="model:m", inputs=[], unless=["alarm"])  # OUT: alarm holds
    assert kb.label("verdict") == "OUT" and calls["echo"] == 0
    clock.advance(11)  # alarm expires: verdict comes IN with no operation, the rule is due
    before = state(kb)
    with pytest.raises(StratificationError, match="own absence"):
        kb.confidence("verdict")
    assert state(kb) == before and calls["echo"] == 1
    assert kb.confidence("verdict") == pytest.approx(0.9)  # held back: the read answers
    assert kb.label("alarm", "on") == "OUT" and kb.value("alarm") is None
    clock.advance(1)
    assert kb.value("verdict") == "on" and calls["echo"] == 1  # not tried again at a new time
    assert "holds unless alarm" in str(kb.explain("verdict"))  # the exception is absent


def test_an_agent_run_survives_a_claim_that_a_rule_cannot_take() -> None:
    kb = ratio_base()
    model = ScriptedModel([
        Reply(None, [ToolCall("c1", "claim", {"key": "b", "value": 0, "inputs": []})]),
        Reply(None, [ToolCall("a1", "answer", {"value": 0.5, "inputs": ["ratio"]})]),
    ])
    run = Agent(model, kb, learn_from_checks=False).run("What is the ratio?")
    assert run.status == "ok"
    failed = [s for s in run.steps if s.error]
    assert len(failed) == 1 and "tests.failing.ratio" in str(failed[0].error)
    assert kb.value("b") == 2.0 and kb.value("ratio") == 0.5


@pytest.mark.parametrize("shape", ["own key", "two rules"])
def test_runaway_rules_are_refused_rolled_back_and_not_fired_again(shape: str) -> None:
    calls.update(dict.fromkeys(calls, 0))
    rules = [grow] if shape == "own key" else [ping, pong]
    key = "n" if shape == "own key" else "q"
    kb = BeliefBase(clock=ManualClock(0), rules=rules, max_rule_firings=300)
    kb.assert_("other", 1, source="human:h")
    before = state(kb)
    with pytest.raises(RuleLimitError, match="300 times in one operation"):
        kb.assert_(key, 0, source="human:h")
    assert sum(calls.values()) == 300
    assert state(kb) == before and len(kb) == 1  # not the 301 values
    # later queries and operations fire nothing
    kb.beliefs()
    kb.value("other")
    kb.assert_("else", 2, source="human:h")
    assert sum(calls.values()) == 300


def test_the_time_budget_stops_runaways_the_count_would_let_run() -> None:
    calls.update(dict.fromkeys(calls, 0))
    kb = BeliefBase(clock=ManualClock(0), rules=[grow], max_rule_firings=10**9,
                    max_rule_seconds=1e-6)
    with pytest.raises(RuleLimitError, match=r"in 1e-06 s"):
        kb.assert_("n", 0, source="human:h")
    assert calls["grow"] == 32  # the clock is read every 32 firings
    assert len(kb) == 0


def test_the_time_budget_is_validated() -> None:
    from corollary.foundations.errors import InvalidInputError, InvalidTypeError
    with pytest.raises(InvalidTypeError):
        BeliefBase(max_rule_seconds="3")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        BeliefBase(max_rule_seconds=0)
    assert BeliefBase().max_rule_seconds == 2.0


def test_assert_many_is_undone_whole_when_a_rule_fails_on_a_row() -> None:
    kb = ratio_base()
    kb.assert_("a", 1.0, source="tool:second")  # a confirmation: outcomes are recorded
    before = state(kb)
    rows = [("c", 1, "human:h"), ("a", 1.0, "tool:third"), ("b", 4.0, "tool:meter"),
            ("d", 2, "human:h"), ("b", 0, "tool:meter"), ("e", 3, "human:h")]
    with pytest.raises(RuleError, match="b = 0"):
        kb.assert_many(rows)
    assert state(kb) == before  # every row undone, no confirmation recorded
    assert kb.assert_many(rows[:4]) == 4
    assert kb.value("ratio") == 0.25 and kb.value("d") == 2

"""agent.reverify: the remembered tool calls behind expired and faded premises run again, on a
ManualClock. An equal result renews the evidence in place (nothing downstream re-derived); a
changed result replaces it and the dependants follow; with key=... and budget=n, the calls go
where they raise that belief most."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_cases import call, calls, state

from corollary import (
    Agent,
    BeliefBase,
    InvalidInputError,
    ManualClock,
    Refreshed,
    ScriptedModel,
    rule,
    tool,
)

FEED: dict[str, float] = {}
RAN: list[str] = []


@tool(trust="high", key="price:{symbol}", half_life=60, name="rv_quote")
def quote(symbol: str) -> float:
    """Last trade price."""
    RAN.append(symbol)
    return FEED[symbol]


@tool(trust="high", key="rate:{pair}", ttl=60, name="rv_rate")
def rate(pair: str) -> float:
    """An exchange rate, good for a minute."""
    RAN.append(pair)
    return FEED[pair]


FIRED: list[float] = []


@rule(output="price:ACME:eur", inputs={"p": "price:ACME", "r": "rate:EURUSD"}, name="rv.to_eur")
def to_eur(p: float, r: float) -> float:
    FIRED.append(p)
    return round(p / r, 4)


@pytest.fixture(autouse=True)
def feed() -> None:
    FEED.clear()
    FEED.update({"ACME": 101.5, "INIT": 7.0, "EURUSD": 1.25})
    RAN.clear()
    FIRED.clear()


def ran_agent(clock: ManualClock, **options: Any) -> Agent:
    """An agent that fetched ACME, INIT and EURUSD, judged ACME cheap and answered."""
    kb = BeliefBase(clock=clock, learn_from_checks=False)
    model = ScriptedModel([
        calls(call("rv_quote", {"symbol": "ACME"}, "1"), call("rv_quote", {"symbol": "INIT"}, "2"),
              call("rv_rate", {"pair": "EURUSD"}, "3")),
        calls(call("claim", {"key": "cheap", "value": True, "inputs": ["price:ACME:eur"]}, "4")),
        calls(call("answer", {"value": "buy", "inputs": ["cheap", "price:INIT"]}, "5")),
    ])
    agent = Agent(model, kb, tools=[quote, rate], rules=[to_eur], **options)
    assert agent.run("Buy?").status == "ok"
    RAN.clear()
    return agent


def test_expired_premises_are_fetched_again_and_renewed_in_place() -> None:
    clock = ManualClock(0)
    agent = ran_agent(clock)
    kb = agent.kb
    clock.advance(60)
    assert [(e.key, e.sources) for e in kb.expired()] == [("rate:EURUSD", ("tool:rv_rate",))]
    assert kb.label("answer") == "OUT"
    justifications = {b.key: [(id(j), j.seq) for j in b.justs] for b in kb.engine.beliefs()}
    beliefs = {(b.key, id(b), b.seq) for b in kb.engine.beliefs()}
    fired = list(FIRED)
    refreshed = agent.reverify()
    assert refreshed == [Refreshed("rate:EURUSD", "tool:rv_rate", "rv_rate", {"pair": "EURUSD"},
                                   1.25, 1.25, 0.0, 0.99, "renewed")]
    assert RAN == ["EURUSD"] and kb.expired() == []
    # renewed in place: the same beliefs and reasons, the rule not fired again, the answer back
    assert {(b.key, id(b), b.seq) for b in kb.engine.beliefs()} == beliefs
    assert {b.key: [(id(j), j.seq) for j in b.justs] for b in kb.engine.beliefs()} == justifications
    assert FIRED == fired
    assert kb.label("answer") == "IN"
    assert kb.confidence("answer") == pytest.approx(0.9 * min(0.9 * 0.99 * 0.5, 0.99 * 0.5))


def test_faded_premises_below_the_threshold() -> None:
    clock = ManualClock(0)
    agent = ran_agent(clock)
    clock.advance(30)  # quotes at 0.99 × 2^-0.5 = 0.700
    assert agent.reverify() == []  # the floor is 0: nothing is below it
    assert agent.reverify(min_confidence=0.5) == []
    refreshed = agent.reverify(min_confidence=0.75)
    assert [(r.key, r.status, round(r.old_confidence, 3), r.new_confidence) for r in refreshed] == [
        ("price:ACME", "renewed", 0.7, 0.99), ("price:INIT", "renewed", 0.7, 0.99)]
    assert RAN == ["ACME", "INIT"] and FIRED == [101.5]


def test_a_changed_result_replaces_the_evidence_and_the_dependants_follow() -> None:
    clock = ManualClock(0)
    agent = ran_agent(clock)
    kb = agent.kb
    clock.advance(60)
    FEED["ACME"] = 90.0
    by_key = {r.key: r for r in agent.reverify(min_confidence=0.6)}
    assert sorted(by_key) == ["price:ACME", "price:INIT", "rate:EURUSD"]  # expired, then faded
    refreshed = by_key["price:ACME"]
    assert (refreshed.key, refreshed.old_value, refreshed.new_value, refreshed.status) == (
        "price:ACME", 101.5, 90.0, "replaced")
    assert refreshed.old_confidence == pytest.approx(0.495)
    assert refreshed.new_confidence == pytest.approx(0.99)
    assert kb.value("price:ACME") == 90.0
    assert kb.label("price:ACME", 101.5) == "OUT"   # kept: the rule's old firing reads it
    assert FIRED == [101.5, 90.0]                  # the rule re-derived from the new price
    assert kb.value("price:ACME:eur") == 72.0
    assert kb.label("cheap") == "OUT"              # the model judged the old figure: OUT now


def test_a_budget_goes_where_it_raises_the_belief_most() -> None:
    clock = ManualClock(0)
    agent = ran_agent(clock)
    kb = agent.kb
    clock.advance(60)  # quotes at 0.495; the rate expired
    checks = kb.what_to_check("answer", limit=None)
    assert [(c.key, c.expired) for c in checks] == [
        ("rate:EURUSD", True), ("price:ACME", False), ("price:INIT", False)]
    assert checks[0].gain == pytest.approx(0.9 * min(0.9 * 0.495, 0.495))
    refreshed = agent.reverify(key="answer", budget=1)
    assert [r.key for r in refreshed] == ["rate:EURUSD"] and RAN == ["EURUSD"]
    # the answer is now limited by both quotes: each alone gains nothing, both are needed
    refreshed = agent.reverify(key="answer", budget=2)
    assert [r.key for r in refreshed] == ["price:ACME", "price:INIT"]
    assert kb.confidence("answer") == pytest.approx(0.9 * min(0.9 * 0.99, 0.99))
    assert agent.reverify(key="answer") == []  # nothing stale is left under it


def test_a_failing_call_changes_nothing() -> None:
    clock = ManualClock(0)
    agent = ran_agent(clock)
    clock.advance(60)
    del FEED["EURUSD"]
    before = state(agent.kb)
    (failed,) = agent.reverify()
    assert (failed.status, failed.new_value, failed.new_confidence, failed.error) == (
        "failed", None, None, "KeyError: 'EURUSD'")
    assert state(agent.kb) == before


def test_only_this_agents_tools_are_run_and_budget_counts_calls() -> None:
    clock = ManualClock(0)
    agent = ran_agent(clock)
    clock.advance(90)
    other = Agent(ScriptedModel([]), agent.kb, tools=[quote])  # it cannot run the rate tool
    assert [r.key for r in other.reverify(min_confidence=0.9)] == ["price:ACME", "price:INIT"]
    assert [r.key for r in agent.reverify(budget=1)] == ["rate:EURUSD"]
    assert agent.reverify(budget=0) == []
    with pytest.raises(InvalidInputError):
        agent.reverify(min_confidence=2.0)
    with pytest.raises(InvalidInputError):
        agent.reverify(budget=-1)


def test_areverify_awaits_async_tools() -> None:
    @tool(trust="high", key="temp:{city}", ttl=10, name="rv_temp")
    async def temp(city: str) -> float:
        await asyncio.sleep(0)
        return 21.5

    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    model = ScriptedModel([calls(call("rv_temp", {"city": "Oslo"}, "t")),
                           calls(call("answer", {"value": 21.5, "inputs": ["temp:Oslo"]}, "a"))])
    agent = Agent(model, kb, tools=[temp])
    assert asyncio.run(agent.arun("Weather?")).status == "ok"
    clock.advance(10)
    assert kb.label("answer") == "OUT"
    (refreshed,) = asyncio.run(agent.areverify())
    assert refreshed.status == "renewed" and kb.label("answer") == "IN"
    clock.advance(10)
    (failed,) = agent.reverify()  # a sync re-verify cannot await it
    assert failed.status == "failed" and failed.error.startswith("AsyncToolError")

"""What the base gained for the agent: key templates on @tool, kb.call remembering the call with
its premise (kept through snapshots and sessions), kb.acall for async tools, kb.expired()."""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest
from agent_cases import call, calls, revenue, state

from corollary import (
    Agent,
    AsyncToolError,
    BeliefBase,
    Expired,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    Reply,
    ScriptedModel,
    SnapshotError,
    ToolCallRecord,
    TrustLedger,
    tool,
)


@tool(trust="high", key="price:{symbol}@{venue}", ttl=60, name="calls_quote")
def quote(symbol: str, venue: str = "NYSE") -> float:
    """Last trade price."""
    return {"ACME": 101.5, "INIT": 7.0}[symbol]


RAN: list[str] = []


@tool(name="calls_fx")
def fx(pair: str, *, when: Any = None) -> float:
    """An exchange rate."""
    RAN.append(pair)
    return 1.08


def base() -> BeliefBase:
    return BeliefBase(clock=ManualClock(0))


# -- @tool(key=...) ---------------------------------------------------------------------------
@pytest.mark.parametrize(("template", "match"), [
    ("price:{ticker}", r"reads \['ticker'\], which are not its parameters"),
    ("price:{}", "must name parameters"),
    ("price:{0}", "must name parameters"),
    ("price:{symbol.upper}", "must name parameters"),
    ("price:{symbol[0]}", "must name parameters"),
    ("price:{symbol:{venue}}", "nests a field"),
    ("price:{symbol", "malformed"),
    ("price:{rest}", r"reads \['rest'\]"),
    ("", "non-empty string"),
    (3, "non-empty string"),
])
def test_a_key_template_is_checked_at_decoration(template: Any, match: str) -> None:
    def price(symbol: str, *rest: str) -> float:
        return 1.0

    with pytest.raises(InvalidInputError, match=match):
        tool(key=template)(price)


def test_a_template_with_a_format_spec_and_conversion() -> None:
    @tool(key="px:{symbol!r}:{size:03d}", name="calls_px")
    def px(symbol: str, size: int) -> float:
        return 1.0

    kb = base()
    kb.call(px, None, "A", 7)
    assert kb.keys() == ["px:'A':007"]


# -- kb.call ----------------------------------------------------------------------------------
def test_call_names_the_result_and_remembers_the_call() -> None:
    kb = base()
    assert kb.call(quote, None, "ACME") == 101.5
    assert kb.call(fx, None, "EURUSD") == 1.08
    assert kb.call(revenue, "rev:custom", quarter="Q2") == 100.0  # an explicit key still wins
    assert kb.calls() == [
        ToolCallRecord("calls_fx(pair=\"EURUSD\", when=null)", 1.08, "tool:calls_fx", "calls_fx",
                       {"pair": "EURUSD", "when": None}),
        ToolCallRecord("price:ACME@NYSE", 101.5, "tool:calls_quote", "calls_quote",
                       {"symbol": "ACME", "venue": "NYSE"}),
        ToolCallRecord("rev:custom", 100.0, "tool:revenue", "revenue", {"quarter": "Q2"}),
    ]
    assert [r.arguments for r in kb.calls("price:ACME@NYSE")] == [{"symbol": "ACME",
                                                                   "venue": "NYSE"}]


def test_a_call_that_does_not_fit_or_fails_changes_nothing() -> None:
    kb = base()
    kb.assert_("x", 1, source="human:me")
    before = state(kb)
    runs = len(RAN)
    with pytest.raises(InvalidTypeError, match="do not fit"):
        kb.call(fx, None, "EURUSD", "extra")
    with pytest.raises(InvalidTypeError, match="do not fit"):
        kb.call(fx, None, pair="EURUSD", year=2024)
    with pytest.raises(InvalidInputError, match="non-empty string"):
        kb.call(fx, " ", "EURUSD")
    assert len(RAN) == runs  # the tool never ran
    with pytest.raises(KeyError):
        kb.call(revenue, None, "Q9")  # the tool raised
    with pytest.raises(InvalidTypeError, match="plain data"):
        kb.call(tool(name="calls_obj")(lambda: object()), None)
    # before: the tool was added to the base before it ran, so a failing call changed its
    # snapshot ("tools": [] -> ["revenue"]); now nothing changes
    assert state(kb) == before


def test_arguments_that_are_not_plain_data_are_not_remembered() -> None:
    kb = base()
    kb.call(fx, "rate", "EURUSD", when=object())
    assert kb.value("rate") == 1.08 and kb.calls() == []
    runs = len(RAN)
    with pytest.raises(InvalidInputError, match="argument 'when' is not plain data; pass a key"):
        kb.call(fx, None, "EURUSD", when=object())  # no stable name for the result
    assert len(RAN) == runs


def test_the_memory_follows_the_premise() -> None:
    kb = base()
    clock = kb.clock
    kb.call(quote, None, "ACME")
    kb.retract("price:ACME@NYSE")  # withdrawn, but the premise and its call stay
    assert [r.value for r in kb.calls()] == [101.5]
    kb.assert_("price:ACME@NYSE", 99.0, source="tool:calls_quote")  # replaced by hand
    assert kb.calls() == []
    kb.call(quote, None, "ACME")
    assert [r.value for r in kb.calls()] == [101.5]
    clock.advance(10)  # type: ignore[attr-defined]
    kb.assert_("price:ACME@NYSE", 101.5, source="tool:calls_quote")  # renewed by hand: a new
    assert kb.calls() == []                                          # premise, not the call's
    kb.call(quote, None, "ACME")
    kb.call(quote, "price:ACME@NYSE", "INIT")  # a new value from the same tool replaces it
    assert [(r.value, r.arguments["symbol"]) for r in kb.calls()] == [(7.0, "INIT")]


def test_async_tools_need_acall() -> None:
    @tool(key="async:{q}", name="calls_async")
    async def slow(q: str) -> str:
        await asyncio.sleep(0)
        return q.upper()

    kb = base()
    before = state(kb)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coroutine left unawaited would warn
        with pytest.raises(AsyncToolError, match=r"calls_async is an async tool: use await kb\.acall"):
            kb.call(slow, None, "a")
        sneaky = tool(name="calls_sneaky")(lambda q: slow(q))  # a plain function returning one
        with pytest.raises(AsyncToolError, match="returned an awaitable"):
            kb.call(sneaky, None, "a")
        gc.collect()
    assert state(kb) == before
    assert isinstance(AsyncToolError("x"), TypeError)
    assert asyncio.run(kb.acall(slow, None, "a")) == "A"
    assert asyncio.run(kb.acall(sneaky, "s", "b")) == "B"
    assert asyncio.run(kb.acall(revenue, None, "Q3")) == 110.0  # a plain tool works too
    assert [(r.key, r.value) for r in kb.calls()] == [
        ("async:a", "A"), ("revenue:Q3", 110.0), ("s", "B")]


def test_acall_runs_a_plain_tool_in_a_worker_thread() -> None:
    seen: list[int] = []

    @tool(key="where:{q}", name="calls_where")
    def where(q: str) -> str:
        seen.append(threading.get_ident())
        return q

    kb = base()
    assert asyncio.run(kb.acall(where, None, "x")) == "x"
    assert seen and seen[0] != threading.get_ident()  # the event loop's thread was not blocked
    assert kb.value("where:x") == "x" and [r.key for r in kb.calls()] == ["where:x"]


# -- snapshots and sessions -------------------------------------------------------------------
def with_calls() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), tools=[quote, revenue, fx])
    kb.call(quote, None, "ACME")
    kb.call(quote, None, "INIT", venue="LSE")
    kb.call(revenue, None, "Q2")
    kb.call(fx, None, "EURUSD", when=[2024, {"q": 3}])
    kb.assert_("hq", "Austin", source="document:10-K")
    return kb


def test_calls_survive_snapshots(tmp_path: Path) -> None:
    kb = with_calls()
    data = kb.to_dict()
    assert data["version"] == 3
    assert data["calls"] == [[0, 0, {"symbol": "ACME", "venue": "NYSE"}],
                             [1, 0, {"symbol": "INIT", "venue": "LSE"}],
                             [2, 1, {"quarter": "Q2"}],
                             [3, 2, {"pair": "EURUSD", "when": [2024, {"q": 3}]}]]
    for restored in (BeliefBase.from_dict(copy.deepcopy(data), clock=ManualClock(0)),
                     _saved(kb, tmp_path / "a.msgpack"), _saved(kb, tmp_path / "a.json")):
        assert restored.calls() == kb.calls()
        assert state(restored) == state(kb)
        restored.call(quote, None, "ACME")  # the restored memory is live: a re-call renews it
        assert restored.calls() == kb.calls()


def _saved(kb: BeliefBase, path: Path) -> BeliefBase:
    kb.save(path)
    return BeliefBase.load(path, clock=ManualClock(0))


def test_calls_survive_sessions() -> None:
    ledger = TrustLedger(clock=ManualClock(0))
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    kb.call(quote, None, "ACME")
    kb.save_session("s1")
    again = BeliefBase.load_session(ledger, "s1", clock=ManualClock(0))
    assert again.calls() == [ToolCallRecord("price:ACME@NYSE", 101.5, "tool:calls_quote",
                                            "calls_quote", {"symbol": "ACME", "venue": "NYSE"})]


@pytest.mark.parametrize("version", [1, 2])
def test_older_snapshots_without_calls_still_load(version: int) -> None:
    data = with_calls().to_dict()
    del data["calls"]
    data["version"] = version
    restored = BeliefBase.from_dict(data, clock=ManualClock(0))
    assert restored.calls() == [] and restored.value("price:ACME@NYSE") == 101.5
    data["version"] = 3
    with pytest.raises(SnapshotError, match=r"the snapshot lacks \['calls'\]"):
        BeliefBase.from_dict(data, clock=ManualClock(0))


CRAFTED: list[tuple[str, Any, str]] = [
    ("a belief out of range", [[99, 0, {}]], r"calls\[0\]\[0\] \(belief\)"),
    ("a source out of range", [[0, 9, {}]], r"calls\[0\]\[1\] \(source\)"),
    ("a source that is not a tool", [[4, 3, {}]], r"calls\[0\]\[1\] \(source\) names 'document:"),
    ("a premise the snapshot does not hold", [[0, 1, {}]], r"calls\[0\] is the call behind a "
                                                          "premise the snapshot does not hold"),
    ("arguments that are a list", [[0, 0, [1]]], r"calls\[0\]\[2\] \(arguments\) must be a map"),
    ("an empty argument name", [[0, 0, {"": 1}]], r"calls\[0\]\[2\] \(an argument's name\)"),
    ("an argument that is not plain data", [[0, 0, {"x": 2**70}]], r"calls\[0\]\[2\]\.x"),
    ("a row that is not a triple", [[0, 0]], r"calls\[0\]"),
    ("rows out of order", [[1, 0, {}], [0, 0, {}]], r"calls\[1\] must come after"),
    ("a repeated row", [[0, 0, {}], [0, 0, {}]], r"calls\[1\] must come after"),
    ("calls that are a map", {"0": 1}, "calls"),
    ("a boolean belief", [[True, 0, {}]], r"calls\[0\]\[0\]"),
]


@pytest.mark.parametrize(("what", "calls", "field"), CRAFTED, ids=[c[0] for c in CRAFTED])
def test_crafted_calls_are_refused_naming_the_field(what: str, calls: Any, field: str) -> None:
    data = with_calls().to_dict()
    assert data["strings"][:4] == ["tool:calls_quote", "tool:revenue", "tool:calls_fx",
                                   "document:10-K"]
    data["calls"] = calls
    with pytest.raises(SnapshotError, match=field):
        BeliefBase.from_dict(data, clock=ManualClock(0))


# -- kb.expired() -----------------------------------------------------------------------------
def test_expired_lists_premises_whose_ttl_has_passed() -> None:
    kb = base()
    clock = kb.clock
    kb.call(quote, None, "ACME")                                        # ttl 60
    kb.assert_("weather", "rain", source="tool:sky", ttl=30)
    kb.assert_("weather", "rain", source="human:me")                    # still held by a person
    kb.assert_("gone", 1, source="tool:sky", ttl=10)
    kb.retract("gone")                                                  # withdrawn: not listed
    kb.assert_("moved", "a", source="tool:feed", ttl=10)
    kb.assert_("moved", "b", source="tool:feed", ttl=100)               # replaced: not listed
    assert kb.expired() == []
    clock.advance(30)  # type: ignore[attr-defined]
    assert kb.expired() == [Expired("weather", "rain", ("tool:sky",), 30.0)]  # at the instant
    clock.advance(40)  # type: ignore[attr-defined]
    assert kb.expired() == [Expired("weather", "rain", ("tool:sky",), 30.0),
                            Expired("price:ACME@NYSE", 101.5, ("tool:calls_quote",), 60.0)]
    assert kb.label("price:ACME@NYSE") == "OUT" and kb.label("weather") == "IN"
    kb.call(quote, None, "ACME")  # fetched again
    assert [e.key for e in kb.expired()] == ["weather"]


def test_a_tool_that_returns_none_is_believed_as_a_held_none() -> None:
    """issue 28 item 11: docs/agent.md said such a call went back as an error while the base
    believed it; the choice (docs/agent.md, "Tool calls and what goes back"): None is a value,
    JSON null, held like any other, and ``kb.value(key, default=...)`` tells it from nothing."""
    @tool(key="customer:{customer}:phone")
    def phone(customer: int) -> str | None:
        """The customer's phone number, None when the CRM has none."""
        return None

    kb = BeliefBase(clock=ManualClock(0))
    model = ScriptedModel([calls(call("phone", {"customer": 7}, "p")), Reply("none on file")])
    run = Agent(model, kb, tools=[phone], max_steps=2).run("Customer 7's phone?")
    assert run.steps[0].ok and run.steps[0].value is None
    told = json.loads(model.requests[1][0][-1]["content"])
    assert told == {"key": "customer:7:phone", "value": None, "confidence": 0.95, "label": "IN"}
    nothing = object()
    assert kb.value("customer:7:phone", default=nothing) is None  # held: None
    assert kb.label("customer:7:phone") == "IN"
    kb.retract("customer:7:phone")
    assert kb.value("customer:7:phone", default=nothing) is nothing  # nothing held
    assert kb.value("customer:7:phone") is None


def test_nothing_held_at_a_world_time_is_told_from_a_held_none_too() -> None:
    from corollary import PreferNewer

    kb = BeliefBase(clock=ManualClock(100), conflict_policy=PreferNewer())
    kb.assert_("phone", None, source="tool:crm", valid_from=10, valid_until=50)
    nothing = object()
    assert kb.at(20).value("phone", default=nothing) is None
    assert kb.at(60).value("phone", default=nothing) is nothing

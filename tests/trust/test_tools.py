"""@tool: the wrapper keeps the function, declared trust, half-life, ttl and origin reach the base,
bad declarations are refused, and the ledger agrees with the base about a declared tool."""

from __future__ import annotations

import inspect
import math
from datetime import timedelta
from typing import Any

import pytest

from corollary import (
    BeliefBase,
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    TrustPolicy,
    tool,
)


class TestTools:
    def test_keeps_signature_and_docstring(self) -> None:
        def plain(symbol: str, *, venue: str = "NYSE") -> float:
            """Last trade price."""
            return 101.5

        wrapped = tool(trust="high", half_life=60)(plain)
        assert inspect.signature(wrapped) == inspect.signature(plain)
        assert wrapped.__doc__ == "Last trade price."
        assert wrapped.__name__ == "plain"
        assert wrapped("ACME", venue="X") == 101.5

        def bare_plain(x: int) -> int:
            """Bare."""
            return x

        bare = tool(bare_plain)
        assert inspect.signature(bare) == inspect.signature(bare_plain)
        assert bare.__doc__ == "Bare."
        assert bare.__wrapped__ is bare_plain
        assert bare.__corollary_tool__.source == "tool:bare_plain"

    def test_stacks_with_other_decorators(self) -> None:
        import functools

        def logged(fn: Any) -> Any:
            @functools.wraps(fn)
            def inner(*a: Any, **k: Any) -> Any:
                return fn(*a, **k)
            return inner

        @logged
        @tool(trust="low")
        def lookup(name: str) -> str:
            """Look it up."""
            return name

        assert list(inspect.signature(lookup).parameters) == ["name"]
        assert inspect.signature(lookup).return_annotation in (str, "str")
        assert lookup.__doc__ == "Look it up."

    @pytest.mark.parametrize(("trust", "prior"), [("high", 0.99), ("medium", 0.9), ("low", 0.7), (0.8, 0.8)])
    def test_declared_trust(self, clock: ManualClock, trust: Any, prior: float) -> None:
        @tool(trust=trust, name=f"t_{str(trust).replace('.', '_')}")
        def t() -> int:
            return 1

        kb = BeliefBase(clock=clock, tools=[t])
        kb.call(t, "k")
        assert kb.confidence("k") == pytest.approx(prior)
        assert kb.reliability(f"tool:t_{str(trust).replace('.', '_')}") == pytest.approx(prior)

    def test_undeclared_tool_is_a_direct_assertion(self, clock: ManualClock) -> None:
        kb = BeliefBase(clock=clock)
        kb.assert_("k", 1, source="tool:anything")
        assert kb.confidence("k") == pytest.approx(0.95)

    def test_half_life_and_ttl_applied(self, clock: ManualClock) -> None:
        @tool(half_life=timedelta(minutes=1), ttl=timedelta(minutes=5))
        def quote(symbol: str) -> float:
            return 101.5

        kb = BeliefBase(clock=clock, tools=[quote])
        kb.assert_("price", 101.5, source="tool:quote")  # direct assertions get it too
        clock.advance(60)
        assert kb.confidence("price") == pytest.approx(0.475)
        clock.advance(240)
        assert kb.label("price") == "OUT"
        assert kb.call(quote, "price", "ACME") == 101.5
        assert kb.confidence("price") == pytest.approx(0.95)

    def test_shared_origin_counts_once(self, clock: ManualClock) -> None:
        @tool(origin="sec_database")
        def get_revenue(quarter: str) -> float:
            return 5.0

        @tool(origin="sec_database")
        def get_filing_figure(name: str) -> float:
            return 5.0

        kb = BeliefBase(clock=clock, tools=[get_revenue, get_filing_figure])
        kb.call(get_revenue, "rev", "Q3")
        kb.call(get_filing_figure, "rev", "revenue")
        assert kb.confidence("rev") == pytest.approx(0.95)
        assert kb.ledger.outcomes() == []
        premises = kb.explain("rev").to_dict()["reasons"][0]["premises"]
        assert {p["origin"] for p in premises} == {"sec_database"}
        # an independent origin does reinforce
        kb.assert_("rev", 5.0, source="document:10-K")
        assert kb.confidence("rev") == pytest.approx(
            1 - (1 - kb.reliability("tool:get_revenue")) * (1 - kb.reliability("document:10-K")))

    def test_bad_tool_declarations(self) -> None:
        for kwargs in ({"trust": 1.5}, {"trust": -0.1}, {"trust": True}, {"half_life": 0},
                       {"half_life": -1}, {"ttl": timedelta(seconds=-5)}, {"ttl": math.inf}):
            with pytest.raises((InvalidInputError, InvalidTypeError)):
                tool(**kwargs)(lambda: 1)
        with pytest.raises(InvalidTypeError):
            BeliefBase(tools=[lambda: 1])

    def test_unknown_trust_level_is_refused_when_the_tool_is_added(self, clock: ManualClock) -> None:
        @tool(trust="extreme", name="t_extreme")
        def t() -> int:
            return 1

        with pytest.raises(InvalidInputError, match="extreme"):
            BeliefBase(clock=clock, tools=[t])
        kb = BeliefBase(clock=clock)
        with pytest.raises(InvalidInputError, match="extreme"):
            kb.call(t, "k")
        assert "k" not in kb
        assert kb.tools == {}
        # a level the policy defines is fine
        kb = BeliefBase(clock=clock, policy=TrustPolicy(tool_trust={"extreme": 0.999}), tools=[t])
        kb.call(t, "k")
        assert kb.confidence("k") == pytest.approx(0.999)


@pytest.mark.parametrize("options", [{"origin": 5}, {"origin": ""}, {"name": 5}, {"name": ""}])
def test_tool_rejects_bad_origin_and_name(options):
    with pytest.raises(CorollaryError):
        tool(**options)(lambda: 1)


@tool(trust="high", name="review_quote")
def _review_quote(symbol):
    return 1.0


def test_ledger_record_of_a_declared_tool_matches_the_base():
    kb = BeliefBase(clock=ManualClock(0), tools=[_review_quote])
    kb.record_outcome("tool:review_quote", False)
    record = kb.ledger.record_of("tool:review_quote")
    assert record.prior == pytest.approx(0.99)
    assert record.reliability == pytest.approx(kb.reliability("tool:review_quote"))

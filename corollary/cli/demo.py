"""``corollary demo``: a base on the embedded defaults that checks its own numbers.

Assertions from several sources, derivations (a re-executed formula, model judgements, a rule),
evidence that fades and expires, a conflict, a retraction with blame, and the proofs behind
them, printed the same on every run (a :class:`~corollary.ManualClock`). It exits non-zero if a
number is off.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TextIO

from .._version import __version__
from ..facade.base import BeliefBase
from ..foundations.clock import ManualClock
from ..reasons.rules import rule
from ..reasons.tools import tool
from ..tms.conflicts import PreferHigherConfidence
from ..tms.proof import format_confidence
from ..trust.ledger import TrustLedger


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"demo check failed: {what}")


def run_demo(out: TextIO | None = None) -> int:
    """Assert from several sources, derive, retract with blame, fade, resolve, print proofs.

    Returns 0; a number that is off raises ``SystemExit`` naming the check.
    """
    stream = out or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=stream)

    clock = ManualClock(1_767_225_600)  # 2026-01-01, so the demo prints the same every time
    kb, filings, quote = _demo_base(clock)
    say(f"corollary {__version__} demo: a belief base with a ManualClock at 2026-01-01")
    _agree_and_derive(kb, filings, quote, say)
    _fade(kb, clock, quote, say)
    _conflict_and_blame(kb, say)
    say("\ndemo: all checks passed")
    return 0


def _demo_base(clock: ManualClock) -> tuple[BeliefBase, Any, Any]:
    """The demo's base, with its two tools and a rule; and the tools."""
    ledger = TrustLedger(clock=clock)

    @tool(trust="high", name="filings")
    def filings(quarter: str) -> float:
        """Revenue from the filings database, in $M."""
        return {"Q2": 100.0, "Q3": 110.0}[quarter]

    @tool(half_life=timedelta(minutes=1), ttl=timedelta(minutes=5), name="quote")
    def quote(symbol: str) -> float:
        """Last trade price."""
        return 101.5

    @rule(output="signal", inputs={"growth": "growth", "price": "price:ACME"}, name="demo.signal")
    def signal(growth: float, price: float) -> str:
        return "buy" if growth > 0.05 and price < 120 else "hold"

    kb = BeliefBase(ledger=ledger, clock=clock, conflict_policy=PreferHigherConfidence(),
                    tools=[filings, quote], rules=[signal], learn_from_checks=False)
    return kb, filings, quote


def _agree_and_derive(kb: BeliefBase, filings: Any, quote: Any, say: Callable[[str], None]
                      ) -> None:
    say("\n1. Assertions from several sources; independent agreement (noisy-OR)")
    kb.call(filings, "revenue:Q2", "Q2")
    kb.call(filings, "revenue:Q3", "Q3")
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K")
    say(f"   hq = {kb.value('hq')!r} at {format_confidence(kb.confidence('hq'), 4)} "
        "(registry 0.95 and 10-K 0.9 confirm each other)")
    _check(format_confidence(kb.confidence("hq"), 4) == "0.9959", "agreement 0.9959")

    say("\n2. Derivations: a re-executed formula, model judgements, a rule")
    kb.claim("growth", 0.1, source="model:analyst", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
             formula="(q3 - q2) / q2")
    kb.claim("trend", "up", source="model:analyst", inputs=["growth"])
    kb.claim("answer", "revenue is growing", source="model:analyst", inputs=["revenue:Q3", "trend"])
    for key in ("growth", "trend", "answer"):
        say(f"   {key} = {kb.value(key)!r} [{kb.label(key)} {format_confidence(kb.confidence(key), 3)}]")
    _check(format_confidence(kb.confidence("answer"), 3) == "0.802", "chain rule 0.802")
    kb.call(quote, "price:ACME", "ACME")
    say(f"   signal = {kb.value('signal')!r} (rule over growth and a fresh quote)")
    say("\n" + str(kb.explain("answer")))


def _fade(kb: BeliefBase, clock: ManualClock, quote: Any, say: Callable[[str], None]) -> None:
    say("\n3. Evidence fades: the quote has a one-minute half-life and a five-minute ttl")
    for seconds in (30, 30, 60):
        clock.advance(seconds)
        say(f"   +{seconds:>3} s  price:ACME {format_confidence(kb.confidence('price:ACME'))}, "
            f"signal {format_confidence(kb.confidence('signal'))}")
    say(f"   faded below 0.5: {[f.key for f in kb.faded(0.5)]}")
    clock.advance(timedelta(minutes=4))
    say(f"   after the ttl: price:ACME is {kb.label('price:ACME')}, signal is {kb.label('signal')}")
    _check(kb.label("signal") == "OUT", "expired quote takes the signal OUT")
    kb.call(quote, "price:ACME", "ACME")
    say(f"   re-quoted: price:ACME {format_confidence(kb.confidence('price:ACME'))}, signal "
        f"{kb.label('signal')} again")


def _conflict_and_blame(kb: BeliefBase, say: Callable[[str], None]) -> None:
    say("\n4. A conflict: a model guess against a person")
    kb.claim("ceo", "Bob", source="model:analyst", certainty=0.8)
    kb.assert_("ceo", "Alice", source="human:ops")
    say(f"   ceo = {kb.value('ceo')!r}; the model's 'Bob' is {kb.label('ceo', 'Bob')}")
    say(str(kb.explain("ceo", "Bob")))

    say("\n5. Retraction with blame: Q3 was restated because the filing was wrong")
    before = kb.reliability("tool:filings")
    kb.retract("revenue:Q3", reason="restated in the 10-K/A", fault="source")
    say(f"   tool:filings reliability {format_confidence(before, 3)} -> "
        f"{format_confidence(kb.reliability('tool:filings'), 3)}")
    for key in ("revenue:Q3", "growth", "trend", "answer", "signal"):
        say(f"   {key}: {kb.label(key)}")
    _check(kb.label("answer") == "OUT", "retraction cascades to the answer")
    say("\n" + str(kb.explain("revenue:Q3")))


"""A user's module with tools and a rule, and a base saved from it: what docs/cli.md inspects.

Run: python examples/shop.py FOLDER   (writes FOLDER/shop.cor and FOLDER/ledger.db; without
FOLDER, a new temporary folder, never the current one)
Then: cd FOLDER && corollary beliefs shop.cor --import /path/to/examples/shop.py

A snapshot keeps rules and tools by name, so whoever reads it must import the module that
defines them (``corollary ... --import shop``). Name rules explicitly: a rule's default name is
``module.function``, and a script run as ``python shop.py`` is the module ``__main__``.
"""

import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger, rule, tool

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z


@tool(trust="high", name="shop_filings")
def filings(quarter: str) -> float:
    """Revenue from the filings database, in $M."""
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


@tool(half_life=timedelta(minutes=1), ttl=timedelta(minutes=5), name="shop_quote")
def quote(symbol: str) -> float:
    """Last trade price."""
    return 101.5


@rule(output="signal", inputs={"growth": "growth", "price": "price:ACME"}, name="shop.signal")
def signal(growth: float, price: float) -> str:
    return "buy" if growth > 0.05 and price < 120 else "hold"


def build(clock: ManualClock, ledger: TrustLedger | None = None) -> BeliefBase:
    """A base on ``clock``: filings, a quote, a formula, a rule, and an open conflict."""
    kb = BeliefBase(clock=clock, ledger=ledger, tools=[filings, quote], rules=[signal],
                    learn_from_checks=False)
    kb.call(filings, "revenue:Q2", "Q2")
    kb.call(filings, "revenue:Q3", "Q3")
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K")
    kb.claim("growth", 0.1, source="model:analyst", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
             formula="(q3 - q2) / q2")
    kb.call(quote, "price:ACME", "ACME")
    kb.claim("ceo", "Bob", source="model:analyst", certainty=0.8)
    kb.assert_("ceo", "Alice", source="human:ops")
    kb.assert_("rumour", "merger", source="document:blog")
    clock.advance(200)  # the quote is 200 s old: faded, not yet expired
    return kb


def save_all(folder: Path) -> None:
    """``shop.cor`` (a snapshot) and ``ledger.db`` (session ``shop-1`` and its outcomes)."""
    folder.mkdir(parents=True, exist_ok=True)
    build(ManualClock(START)).save(folder / "shop.cor")
    clock = ManualClock(START)
    with open_ledger(folder / "ledger.db", clock=clock) as ledger:
        kb = build(clock, ledger)
        kb.retract("rumour", reason="denied", fault="source")
        kb.record_outcome("tool:shop_filings", True, reason="audited")
        kb.save_session("shop-1", overwrite=True)


if __name__ == "__main__":
    # without a folder, a fresh temporary one: run from a clone, "." would litter the repository
    target = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="corollary-shop-"))
    save_all(target)
    print(f"wrote {target / 'shop.cor'} and {target / 'ledger.db'} (session shop-1)")

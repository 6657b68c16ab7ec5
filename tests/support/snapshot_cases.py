"""Representative snapshots and ledgers for the snapshot tests, and an exact comparison.

``build`` has decay, ttl, a confidence conflict, a human resolution, rules (one pair in a cycle),
formulas (reproduced and not), a citation, retractions and outcomes; ``rich_base`` adds an
origin, a nested value, outcomes with topics, a promise, a grouped promise, verdicts and a
calibrator, with the base's own (embedded) ledger. ``shared_base`` runs on a shared, forgetting
ledger with topics, a source preference and a custom source kind.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    TrustLedger,
    TrustPolicy,
    rule,
    tool,
)
from corollary.promises.guarantee import calibrate

T0 = 1_767_225_600.0


@tool(trust="high", name="snap_filings")
def filings(quarter: str) -> float:
    """Revenue in $M."""
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


@tool(half_life=timedelta(minutes=1), ttl=timedelta(minutes=5), name="snap_quote")
def quote(symbol: str) -> float:
    """Last trade price."""
    return 101.5


@rule(output="signal", inputs={"g": "growth", "p": "price"}, name="snapshot_cases.signal")
def signal(g: float, p: float) -> str:
    return "buy" if g > 0.05 and p < 120 else "hold"


@rule(output="b", inputs={"a": "a"}, confidence=0.9, name="snapshot_cases.to_b")
def to_b(a: int) -> int:
    return a


@rule(output="a", inputs={"b": "b"}, name="snapshot_cases.to_a")
def to_a(b: int) -> int:
    return b


def build(clock: ManualClock, ledger: TrustLedger | None = None) -> BeliefBase:
    """A base with rules, tools, conflicts, decay, expiry, retractions, outcomes and a cycle."""
    kb = BeliefBase(clock=clock, ledger=ledger, conflict_policy=PreferHigherConfidence(),
                    tools=[filings, quote], rules=[signal, to_b, to_a],
                    policy=TrustPolicy(min_confidence=0.3, source_priors={"tool:scraper": 0.8}))
    kb.call(filings, "revenue:Q2", "Q2")
    kb.call(filings, "revenue:Q3", "Q3")
    kb.claim("growth", 0.1, source="model:analyst", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
             formula="(q3 - q2) / q2")
    kb.claim("trend", "up", source="model:analyst", inputs=["growth"], certainty=0.8)
    kb.call(quote, "price", "ACME")
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K")
    kb.assert_("doc", "Revenue grew 10% in Q3.", source="document:10-K")
    kb.claim("quoted", "10%", source="model:analyst", citation=("doc", "revenue grew 10%"))
    kb.assert_("ceo", "Bob", source="tool:crm")
    kb.assert_("ceo", "Alice", source="human:ops")  # Bob loses
    kb.assert_("mood", "calm", source="assumption:default", half_life=3600)
    kb.assert_("mood", "tense", source="tool:scraper")  # 0.8 beats the fading 0.6
    kb.assert_("cfo", "Dan", source="tool:crm")
    kb.assert_("cfo", "Eve", source="document:memo")
    kb.resolve("cfo", "Eve")  # a human resolution: Dan is rejected for good
    kb.claim("ratio", 2.0, source="model:analyst", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
             formula="q3 / q2")  # wrong: 1.1 is believed
    kb.assert_("a", 1, source="tool:seed")
    kb.assert_("a", 2, source="tool:seed")  # a = 1, b = 1 are a cycle that holds nothing up
    kb.assert_("old", "x", source="tool:scraper")
    kb.retract("old", reason="superseded")
    kb.assert_("bad", "y", source="tool:scraper")
    kb.retract("bad", reason="wrong page", fault="source")
    kb.assert_("brief", "z", source="tool:scraper", ttl=30)
    kb.record_outcome("tool:crm", False, reason="audit")
    clock.advance(40)  # the quote fades, "brief" expires
    return kb


EXAMPLES = [(0.97, True)] * 40 + [(0.5, False)] * 10


def rich_base(clock: ManualClock) -> BeliefBase:
    """:func:`build`, plus everything else a snapshot can hold (its own ledger is inside)."""
    kb = build(clock)
    kb.assert_("hq", "Austin", source="human:ops", origin="desk")
    kb.assert_("nested", {"list": [1, 2.5, None, True], "text": "ünïcode"}, source="human:ops")
    kb.record_outcome("tool:registry", True, topic="places", key="hq")
    kb.guarantee("default", EXAMPLES, max_risk=0.1)
    kb.promises["by_desk"] = calibrate([0.9] * 20 + [0.1] * 5 + [0.8] * 20 + [0.2] * 5,
                                       [True] * 20 + [False] * 5 + [True] * 20 + [False] * 5,
                                       max_risk=0.1, groups=["a"] * 25 + ["b"] * 25)
    kb.fit_calibrator([(0.9, True), (0.9, True), (0.9, False), (0.2, False)] * 5)
    kb.answer("hq")
    kb.answer("ceo")
    kb.answer("nested")
    return kb


def shared_ledger(clock: ManualClock) -> TrustLedger:
    ledger = TrustLedger(clock=clock, memory_half_life=timedelta(days=30),
                         policy=TrustPolicy(priors={"sensor": 0.8}))
    ledger.record_outcome("sensor:thermo", True, topic="weather", at=clock() - 86_400)
    ledger.record_outcome("sensor:thermo", False, topic="weather", evidence="log 7",
                          confidence=0.8)
    ledger.record_outcome("tool:crm", True, reason="checked", key="ceo")
    return ledger


def shared_base(clock: ManualClock, ledger: TrustLedger) -> BeliefBase:
    """A base on a shared ledger, preferring humans, with a custom source kind."""
    kb = BeliefBase(clock=clock, ledger=ledger, conflict_policy=PreferSource(["human", "tool:crm"]),
                    policy=TrustPolicy(priors={"sensor": 0.8}), learn_from_checks=False)
    kb.assert_("temp", 21.5, source="sensor:thermo", half_life=600, ttl=3600)
    kb.assert_("temp", 22.0, source="human:ops")
    kb.assert_("ceo", "Alice", source="tool:crm")
    kb.claim("comfort", "ok", source="model:m", inputs={"t": "temp", "c": "ceo"},
             certainty=0.7)
    kb.claim("double", 44.0, source="model:m", inputs={"t": "temp"}, formula="t * 2")
    clock.advance(5)
    return kb


def state(kb: BeliefBase) -> list[tuple[str, str, str, float]]:
    """Label and confidence of every belief (held or not), in snapshot order."""
    return [(key, repr(value), kb.label(key, value), kb.confidence(key, value))
            for key, value, _seq, _withdrawn in kb.to_dict()["beliefs"]]


def exact(a: Any, b: Any) -> bool:
    """Equal as stored data: ``True`` is not ``1``, ``"1"`` is not ``1``, NaN is only NaN.

    Integers and floats of equal value are equal (a restored ledger holds ``1.0`` for ``1``).
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
            return math.isnan(b)
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(exact(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(exact(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def ledger_state(doc: Any) -> Any:
    """A ledger document with its outcomes as a sorted multiset: what a ledger keeps
    (``to_dict`` lists them by time across sources, so a changed time reorders them)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("outcomes"), list):
        return doc
    return {**doc, "outcomes": sorted(doc["outcomes"], key=repr)}


def snapshot_state(doc: Any) -> Any:
    """A snapshot document with premises naming their sources and origins, and no string
    table (an encoding detail: a restored base numbers its strings afresh)."""
    if not isinstance(doc, dict):
        return doc
    strings = doc.get("strings")
    rows = []
    for row in doc.get("premises") or []:
        i, src, origin, *rest = row
        rows.append([i, strings[src], strings[src] if origin == -1 else strings[origin], *rest])
    ledger = doc.get("ledger")
    # an older schema's rows read as the current ones: no exceptions, no nogoods
    justs = [[*row, []] if isinstance(row, list) and len(row) == 6 else row
             for row in doc.get("justifications") or []]
    return {"nogoods": [], **{k: v for k, v in doc.items() if k != "strings"}, "premises": rows,
            "justifications": justs,
            "ledger": ledger_state(ledger) if isinstance(ledger, dict) else ledger}


def as_schema(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """A copy of a current snapshot document in the shape an older schema wrote: without the
    fields schema 3 added (nogoods, exceptions on justifications)."""
    old = dict(doc, version=version)
    if version < 3:
        old.pop("nogoods", None)
        old["justifications"] = [list(row[:6]) if isinstance(row, list) else row
                                 for row in doc.get("justifications", [])]
    return old

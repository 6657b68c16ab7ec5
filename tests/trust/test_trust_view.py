"""A base's view of trust (corollary/trust/view.py) on its own: priors and tools, the reliability
cache, and the queue of changed sources that a ledger fills from any thread and the base empties
in its own (docs/ledger.md)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from corollary import ManualClock, TrustLedger, TrustPolicy, tool
from corollary.foundations.errors import InvalidInputError, UnknownSourceError
from corollary.reasons.tools import spec_of
from corollary.trust.view import TrustView

DAY = 86_400.0


def view_of(ledger: TrustLedger, policy: TrustPolicy | None = None) -> TrustView:
    return TrustView(policy or TrustPolicy(), ledger, shared=True)


def counted(monkeypatch: pytest.MonkeyPatch, ledger: TrustLedger) -> list[str]:
    """The sources the ledger is asked the reliability of, in order."""
    asked: list[str] = []
    real = ledger.reliability

    def reliability(source: str, **options: Any) -> float:
        asked.append(source)
        return real(source, **options)

    monkeypatch.setattr(ledger, "reliability", reliability)
    return asked


def test_reliability_is_cached_until_the_base_takes_the_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = TrustLedger(clock=ManualClock(0))
    view = view_of(ledger)
    asked = counted(monkeypatch, ledger)
    assert view.reliability("tool:a", 0.0) == (0.95, False)
    assert view.reliability("tool:a", 5.0) == (0.95, False)  # not time-dependent: any time
    assert asked == ["tool:a"]
    ledger.record_outcome("tool:a", False)
    assert view.pending
    assert view.reliability("tool:a", 5.0) == (0.95, False)  # until the base takes the change
    assert view.take_changed() == {"tool:a"}
    assert not view.pending and view.take_changed() == set()
    assert view.reliability("tool:a", 5.0) == (pytest.approx(9.5 / 11), False)
    assert asked == ["tool:a", "tool:a"]


def test_a_forgetting_ledger_is_asked_again_at_each_new_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = ManualClock(0)
    ledger = TrustLedger(clock=clock, memory_half_life=DAY)
    view = view_of(ledger)
    ledger.record_outcome("tool:a", False, at=0)
    view.take_changed()
    asked = counted(monkeypatch, ledger)
    assert view.reliability("tool:a", 0.0) == (pytest.approx(9.5 / 11), True)
    assert view.reliability("tool:a", 0.0)[0] == pytest.approx(9.5 / 11)
    assert view.reliability("tool:a", DAY) == (pytest.approx(9.5 / 10.5), True)  # half forgotten
    assert asked == ["tool:a", "tool:a"]
    assert view.reliability("tool:b", DAY) == (0.95, False)  # no outcomes: nothing to forget


def test_forget_drops_the_cache_and_reports_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = TrustLedger(clock=ManualClock(0))
    view = view_of(ledger)
    asked = counted(monkeypatch, ledger)
    view.reliability("tool:a", 0.0)
    view.reliability("tool:a", 0.0)
    assert asked == ["tool:a"]
    view.forget("tool:a")
    assert view.pending and view.take_changed() == {"tool:a"}
    assert view.reliability("tool:a", 0.0) == (0.95, False)
    assert asked == ["tool:a", "tool:a"]


def test_outcomes_recorded_by_other_threads_are_all_taken() -> None:
    ledger = TrustLedger(clock=ManualClock(0))
    view = view_of(ledger)
    threads, each = 8, 50
    sources = [f"tool:t{k}_{i}" for k in range(threads) for i in range(each)]
    for source in sources:
        assert view.reliability(source, 0.0) == (0.95, False)  # every one cached
    start = threading.Barrier(threads + 1)

    def record(k: int) -> None:
        start.wait()
        for i in range(each):
            ledger.record_outcome(f"tool:t{k}_{i}", False)

    workers = [threading.Thread(target=record, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    taken: list[set[str]] = []
    start.wait()
    while any(w.is_alive() for w in workers):
        taken.append(view.take_changed())  # while the others record
    for w in workers:
        w.join()
    taken.append(view.take_changed())
    seen = set().union(*taken)
    assert len(seen) == 400 and seen == set(sources)
    assert sum(len(t) for t in taken) == 400  # each source taken once
    assert not view.pending
    stale = [s for s in sources if view.reliability(s, 0.0)[0] != pytest.approx(9.5 / 11)]
    assert stale == []


def test_a_declared_tool_sets_the_prior_for_the_view_and_the_ledger() -> None:
    @tool(trust="high", name="view_quote")
    def quote() -> float:
        return 1.0

    ledger = TrustLedger(clock=ManualClock(0))
    view = view_of(ledger)
    assert view.prior("tool:view_quote") == 0.95
    assert view.reliability("tool:view_quote", 0.0) == (0.95, False)
    view.take_changed()
    view.add_tool(spec_of(quote))
    assert view.tool_of("tool:view_quote") is spec_of(quote) and view.tool_of("tool:x") is None
    assert view.prior("tool:view_quote") == 0.99
    assert view.take_changed() == {"tool:view_quote"}
    assert view.reliability("tool:view_quote", 0.0) == (0.99, False)
    assert ledger.reliability("tool:view_quote") == 0.99
    described = view.describe()
    described.clear()
    assert list(view.describe()) == ["view_quote"]


def test_an_unknown_trust_level_is_refused_and_changes_nothing() -> None:
    @tool(trust="extreme", name="view_extreme")
    def extreme() -> int:
        return 1

    ledger = TrustLedger(clock=ManualClock(0))
    view = view_of(ledger)
    with pytest.raises(InvalidInputError, match="extreme"):
        view.add_tool(spec_of(extreme))
    assert view.tools == {} and not view.pending
    assert ledger.reliability("tool:view_extreme") == 0.95
    strict = view_of(ledger, TrustPolicy(tool_trust={"extreme": 0.999}))
    strict.add_tool(spec_of(extreme))
    assert strict.reliability("tool:view_extreme", 0.0) == (0.999, False)


def test_sources_and_reasoning_steps() -> None:
    view = view_of(TrustLedger(clock=ManualClock(0)))
    assert view.kind_of("tool:a") == "tool" and view.check_source("human:h", "asserting") == "human"
    with pytest.raises(InvalidInputError, match="reasoning step, not a source \\(asserting\\)"):
        view.check_source("rule:r", "asserting")
    with pytest.raises(UnknownSourceError, match="robot"):
        view.kind_of("robot:r2")
    with pytest.raises(UnknownSourceError):
        view.prior("robot:r2")

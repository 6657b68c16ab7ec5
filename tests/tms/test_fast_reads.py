"""Reads of an up-to-date belief skip synchronisation, and every way a read could go stale
sends it down the full path.

A read (``confidence``, ``label``, ``value``) of a key with one value returns the belief's memo
when nothing is due: the memo is current, no outcome waits to be applied, no premise expires,
no rule is due, and the ledger has nothing new. Each test below changes one of those without
touching the belief itself, and checks the read sees it, against a base rebuilt from scratch.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import pytest
from support.sync_counts import CountingSync, scratch

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    TrustLedger,
    open_ledger,
    rule,
)


def test_reads_of_an_up_to_date_base_do_no_synchronisation() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(100):
        kb.assert_(f"p{i}", i, source="tool:feed")
    kb.claim("d", 1, source="model:m", inputs=["p0", "p1"])
    kb.refresh()
    counter = CountingSync(kb)
    values = [(kb.confidence(f"p{i}"), kb.label(f"p{i}"), kb.value(f"p{i}")) for i in range(100)]
    derived = (kb.confidence("d"), kb.label("d", 1), kb.value("d"), kb.confidence("d", 1))
    assert counter.calls == 0
    assert values == [(0.95, "IN", i) for i in range(100)]
    assert derived == (pytest.approx(0.9 * 0.95), "IN", 1, pytest.approx(0.9 * 0.95))
    kb.retract("p0")  # a change: the next read of d syncs its cone, once
    counter.calls = 0
    assert kb.label("d") == "OUT" and kb.confidence("d") == 0.0 and kb.value("d") is None
    assert counter.calls == 1


def test_an_outcome_from_another_base_on_the_same_ledger_is_seen() -> None:
    clock = ManualClock(0)
    ledger = TrustLedger(clock=clock)
    reader = BeliefBase(clock=clock, ledger=ledger)
    writer = BeliefBase(clock=clock, ledger=ledger)
    reader.assert_("hq", "Austin", source="tool:registry")
    reader.claim("office", "Austin", source="model:m", inputs=["hq"])
    before = (reader.confidence("hq"), reader.confidence("office"))
    assert before == (0.95, pytest.approx(0.9 * 0.95))
    writer.record_outcome("tool:registry", False)  # the clock does not move
    writer.record_outcome("model:m", False)
    after = (reader.confidence("hq"), reader.confidence("office"))
    assert after[0] == pytest.approx(9.5 / 11)
    assert after[1] == pytest.approx(9.0 / 11 * 9.5 / 11)
    fresh = scratch(reader, clock, ledger=ledger)
    assert after == (fresh.confidence("hq"), fresh.confidence("office"))


def test_an_outcome_from_another_thread_is_seen() -> None:
    import threading

    clock = ManualClock(0)
    ledger = TrustLedger(clock=clock)
    kb = BeliefBase(clock=clock, ledger=ledger)
    kb.assert_("hq", "Austin", source="tool:registry")
    assert kb.confidence("hq") == 0.95
    worker = threading.Thread(target=ledger.record_outcome, args=("tool:registry", False))
    worker.start()
    worker.join()
    assert kb.confidence("hq") == pytest.approx(9.5 / 11)


def test_an_expiry_crossing_is_seen() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("quote", 10, source="tool:feed", ttl=60)
    kb.claim("order", "buy", source="model:m", inputs=["quote"])
    reads = []
    for t in (0.0, 30.0, 59.999, 60.0, 61.0):
        clock.set(t)
        reads.append((kb.label("quote"), kb.label("order"), kb.confidence("order")))
        reads.append((kb.label("quote"), kb.label("order"), kb.confidence("order")))  # again
    held = ("IN", "IN", pytest.approx(0.9 * 0.95))
    assert reads == [held] * 6 + [("OUT", "OUT", 0.0)] * 4
    assert kb.parts.engine.find("quote", 10).why == "expired"
    fresh = scratch(kb, clock)
    assert (fresh.label("quote"), fresh.label("order")) == ("OUT", "OUT")


def test_a_clock_move_with_decay_is_seen() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("price", 100, source="tool:quote", half_life=60)
    kb.assert_("fx", 1.1, source="tool:fx")  # does not fade
    kb.claim("eur", 110, source="model:m", inputs=["price", "fx"])
    seen = []
    for t in (0.0, 0.0, 60.0, 60.0, 120.0):
        clock.set(t)
        seen.append((kb.confidence("price"), kb.confidence("fx"), kb.confidence("eur")))
    expected = [(0.95 * w, 0.95, 0.9 * 0.95 * w) for w in (1.0, 1.0, 0.5, 0.5, 0.25)]
    assert seen == [tuple(pytest.approx(v) for v in row) for row in expected]
    fresh = scratch(kb, clock)
    assert seen[-1] == (fresh.confidence("price"), fresh.confidence("fx"),
                        fresh.confidence("eur"))


@rule(output="level", inputs={"x": "x"})
def _level(x):
    return "low" if x == 2 else None


def test_a_rule_firing_at_a_new_time_is_seen() -> None:
    """The read belief is neither dirty nor time-dependent: only the rule, fired at the new
    time on a value that came IN as its rival faded, changes it."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[_level], conflict_policy=PreferHigherConfidence())
    kb.assert_("level", "low", source="assumption:guess")  # 0.6, does not fade
    kb.assert_("x", 1, source="human:ann", half_life=10)  # 0.99, fading: wins at first
    kb.assert_("x", 2, source="tool:scan")  # 0.95
    assert (kb.value("x"), kb.confidence("level")) == (1, 0.6)
    assert kb.confidence("level") == 0.6  # read twice at the same time: the memo
    clock.advance(10)  # x = 1 is worth 0.495 now: x = 2 holds, and the rule fires on it
    assert kb.confidence("level") == 0.95  # rule step 1.0 x 0.95
    assert kb.value("x") == 2
    fresh = scratch(kb, clock, rules=[_level])
    assert fresh.confidence("level") == 0.95


def _record_in_child(path: str) -> None:
    ledger = open_ledger(path)
    try:
        ledger.record_outcome("tool:registry", False, at=0.0)
    finally:
        ledger.close()


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_an_outcome_another_process_writes_to_a_shared_sqlite_ledger_is_seen(
        tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    clock = ManualClock(0)
    ledger = open_ledger(path, clock=clock)
    try:
        kb = BeliefBase(clock=clock, ledger=ledger)
        kb.assert_("hq", "Austin", source="tool:registry")
        assert kb.confidence("hq") == 0.95
        assert kb.confidence("hq") == 0.95  # the memo (after polling: nothing new)
        child = multiprocessing.get_context("fork").Process(target=_record_in_child,
                                                            args=(path,))
        child.start()
        child.join(60)
        assert child.exitcode == 0
        assert kb.confidence("hq") == pytest.approx(9.5 / 11)  # the poll found it
        assert kb.label("hq") == "IN"
    finally:
        ledger.close()


def test_a_key_with_several_values_and_bad_arguments_take_the_full_path() -> None:
    from corollary.foundations.errors import (
        AmbiguousValueError,
        InvalidTypeError,
        UnknownBeliefError,
    )

    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ceo", "Ann", source="tool:a")
    kb.assert_("ceo", "Bob", source="document:b")
    kb.refresh()
    with pytest.raises(AmbiguousValueError):
        kb.value("ceo")
    assert kb.confidence("ceo", "Bob") == 0.9 and kb.label("ceo", "Ann") == "IN"
    with pytest.raises(UnknownBeliefError):
        kb.confidence("cfo")
    with pytest.raises(UnknownBeliefError):
        kb.confidence("ceo", "Cy")
    with pytest.raises(InvalidTypeError):
        kb.confidence(["ceo"])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        kb.confidence("ceo", object())


def test_a_clock_that_returns_no_finite_time_is_refused_on_a_read() -> None:
    from corollary.foundations.errors import InvalidInputError

    times = [0.0]
    kb = BeliefBase(clock=lambda: times[-1])
    kb.assert_("a", 1, source="tool:t")
    assert kb.confidence("a") == 0.95
    for bad in (float("inf"), float("-inf"), float("nan")):
        times.append(bad)
        with pytest.raises(InvalidInputError):
            kb.confidence("a")

"""Reads of a key of several values skip synchronisation when nothing is due, as reads of a key
of one value do (tests/tms/test_fast_reads.py), now and at a world time; and every way such a
read could go stale sends it down the full path, checked against a base rebuilt from scratch.
"""

from __future__ import annotations

import pytest
from support.sync_counts import CountingSync, scratch

from corollary import (
    AmbiguousValueError,
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    PreferNewer,
)


def _pairs(kb: BeliefBase) -> None:
    for i in range(20):
        kb.assert_(f"addr{i}", "Oak St", source="tool:crm", valid_from=10)
        kb.assert_(f"addr{i}", "Pine Ave", source="document:email", valid_from=50 + i)
    kb.refresh()


def test_reads_of_a_key_of_several_values_do_no_synchronisation() -> None:
    kb = BeliefBase(clock=ManualClock(100), conflict_policy=PreferNewer())
    _pairs(kb)
    counter = CountingSync(kb)
    now = [(kb.value(f"addr{i}"), kb.label(f"addr{i}"), kb.confidence(f"addr{i}"))
           for i in range(20)]
    then = [(kb.at(20).value(f"addr{i}"), kb.at(60 + i).value(f"addr{i}")) for i in range(20)]
    assert counter.calls == 0
    assert now == [("Pine Ave", "IN", pytest.approx(kb.reliability("document:email")))] * 20
    assert then == [("Oak St", "Pine Ave")] * 20
    kb.retract("addr3", "Pine Ave")  # a change: the next read of addr3 syncs
    assert kb.value("addr3") == "Oak St" and counter.calls > 0


def test_a_read_of_several_values_sees_every_change_that_makes_it_stale() -> None:
    clock = ManualClock(100)
    kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence())
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Dallas", source="document:memo")
    kb.assert_("tz", "CST", source="tool:registry", half_life=60.0)
    kb.assert_("tz", "EST", source="document:memo", half_life=600.0)
    assert kb.value("hq") == "Austin"
    for _ in range(3):  # an outcome moves the registry's reliability below the memo's
        kb.record_outcome("tool:registry", False)
    assert kb.value("hq") == "Dallas"
    clock.advance(120)  # a fading value read at a new time
    assert kb.value("tz") == "EST"
    kb.assert_("hq", "Houston", source="human:ops")  # a new value
    assert kb.value("hq") == "Houston"
    fresh = scratch(kb, clock)
    for key in ("hq", "tz"):
        assert (kb.value(key), kb.label(key), kb.confidence(key)) == (
            fresh.value(key), fresh.label(key), pytest.approx(fresh.confidence(key)))


def test_an_open_conflict_still_raises() -> None:
    kb = BeliefBase(clock=ManualClock(100))
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Dallas", source="tool:scan")
    kb.refresh()
    with pytest.raises(AmbiguousValueError):
        kb.value("hq")
    assert kb.label("hq") == "IN"

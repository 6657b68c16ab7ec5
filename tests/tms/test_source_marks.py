"""Marking a source stale walks only what its last mark left clean (corollary.tms.source_marks).

A key heard again from a second origin records an outcome for both sources (the value was
confirmed), and a source whose reliability moves makes everything resting on it stale. The
engine remembers what the last mark of each source left dirty, so confirming keys one after
another does not walk every belief of both sources each time (that made re-asserting ``n`` keys
from a second source quadratic: about 100 a second at 50,000 keys). The property below holds the
memo to the meaning of marking: whatever sequence of confirmations, outcomes, retractions,
forgetting, reads of a part of the base and full refreshes, every belief reads as a base rebuilt
from scratch."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.operations import (
    KEYS,
    SOURCES,
    VALUES,
    apply,
    assert_op,
    claim_op,
    forget_op,
    outcome_op,
    retract_op,
    withdraw_op,
)

from corollary import BeliefBase, ManualClock


class _CountingList(list):  # type: ignore[type-arg]
    """A source's list of holders that counts the walks over all of it."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        type(self).walks += 1
        return super().__iter__()


def test_confirming_keys_one_by_one_does_not_walk_every_belief_of_their_sources() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(200):
        kb.assert_(f"k{i}", i, source="tool:a")
    engine = kb.parts.engine
    engine.by_source["tool:a"] = _CountingList(engine.by_source["tool:a"])
    kb.assert_("k0", 0, source="tool:b")  # a confirmation: the sources' reliability moves
    kb.label("k199")  # the next read marks every belief of tool:a stale
    walks = _CountingList.walks
    assert walks == 1
    for i in range(1, 100):
        kb.assert_(f"k{i}", i, source="tool:b")
    assert _CountingList.walks == walks  # each later one visits what was read since
    assert kb.confidence("k150") == pytest.approx(kb.reliability("tool:a"))
    fresh = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(0), ledger=kb.ledger)
    assert [kb.confidence(f"k{i}") for i in range(200)] == pytest.approx(
        [fresh.confidence(f"k{i}") for i in range(200)])


#: The same value of a key from another source and origin: a confirmation (two outcomes).
confirm_op = st.tuples(st.just("assert"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                       st.sampled_from(SOURCES), st.sampled_from([None, "other"]),
                       st.just(None), st.just(None))
read_op = st.tuples(st.just("read"), st.lists(st.sampled_from(KEYS), max_size=3))
refresh_op = st.tuples(st.just("refresh"))
operations = st.lists(
    st.one_of(assert_op, confirm_op, confirm_op, outcome_op, retract_op, withdraw_op, claim_op,
              forget_op, read_op, read_op, refresh_op),
    min_size=4, max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations)
def test_every_belief_reads_as_a_base_rebuilt_from_scratch(ops: list) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    for op in ops:
        if op[0] == "read":
            for key in op[1]:  # a read settles part of the base: the memo's log grows
                if key in kb:
                    kb.label(key)
        elif op[0] == "refresh":
            kb.refresh()  # the dirty set is swept whole
        else:
            apply(kb, clock, op)
    fresh = BeliefBase.from_dict(kb.to_dict(), clock=clock, ledger=kb.ledger)
    for b in kb.engine.beliefs():
        assert (kb.label(b.key, b.value), kb.confidence(b.key, b.value)) == (
            fresh.label(b.key, b.value), pytest.approx(fresh.confidence(b.key, b.value))), b

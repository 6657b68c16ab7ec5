"""Property: over random valid-time assertions (in any order, from several sources, with
retractions, ends and their retraction, ttl and fading), ``kb.at(t)`` agrees with a from-scratch evaluation at world time
``t`` for random ``t``, and the base read now agrees with ``kb.at(now)``."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.key_reads import check_key_at
from support.operations import POLICIES, apply, unless_in_time_operations, valid_operations
from support.oracle import evaluate

from corollary import BeliefBase, ManualClock
from corollary.foundations.values import is_end

TIMES = [-60.0, 0.0, 10.0, 30.0, 99.0, 120.0, 260.0, 1000.0]


def check_at(kb: BeliefBase, clock: ManualClock, t: float) -> None:
    expected = evaluate(kb, clock(), world=t)
    view = kb.at(t)
    for (key, vid), (label, conf) in expected.items():
        b = kb.engine.find(key, vid)
        assert view.label(key, b.value) == label, f"at {t}: {key}={b.value!r}"
        assert view.confidence(key, b.value) == pytest.approx(conf, abs=1e-9), (
            f"at {t}: {key}={b.value!r}")
        if len(kb.engine.values_of(key)) == 1 and is_end(b.value):
            # an end left alone (what it ended forgotten) holds nothing, read as a key: as a
            # key whose value an end ended reads (docs/model.md, "Ending a fact")
            assert (view.label(key), view.confidence(key), view.value(key)) == ("OUT", 0.0, None)
        elif len(kb.engine.values_of(key)) == 1:  # the direct read of a key with one value
            assert view.label(key) == label
            assert view.confidence(key) == pytest.approx(conf, abs=1e-9)
            held = label == "IN" and not is_end(b.value)  # an end (kb.end) holds no value
            assert view.value(key) == (b.value if held else None)
    for key in {key for key, _ in expected}:  # a key of several values, read as a key
        if len(kb.engine.values_of(key)) > 1:  # (issue 36 item 5: read from their premises)
            check_key_at(kb, view, expected, key, t)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=valid_operations, times=st.lists(st.sampled_from(TIMES), min_size=1, max_size=3))
def test_reads_at_a_time_match_the_oracle(policy: str, ops: list, times: list[float]) -> None:
    run_against_the_oracle(policy, ops, times)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=unless_in_time_operations,
       times=st.lists(st.sampled_from(TIMES), min_size=1, max_size=3))
# issue 37's minimal case: h = a from 0, m = x from 20, a document from 100, then m = y over the
# document unless h = a (and the same claim stating its own start)
@example(ops=[("assert_valid", "b", 0, "human:ann", None, None, 0.0, None),
              ("assert_valid", "a", 0, "human:ann", None, None, 20.0, None),
              ("assert_valid", "c", 1, "document:doc", None, None, 100.0, None),
              ("advance", 200.0), ("default", "a", 1, ["c"], [("b", 0)]),
              ("default_valid", "a", 2, [], [("b", 0)], 100.0)],
         times=[30.0, 120.0])
def test_claims_with_exceptions_in_time_match_the_oracle(policy: str, ops: list,
                                                         times: list[float]) -> None:
    """A claim an exception defeats supersedes nothing, now and at any time (issue 37, item 4)."""
    run_against_the_oracle(policy, ops, times)


def run_against_the_oracle(policy: str, ops: list, times: list[float]) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=POLICIES[policy]())
    for op in ops:
        apply(kb, clock, op)
        now = clock()
        expected = evaluate(kb, now)
        for (key, vid), (label, conf) in expected.items():  # now, incrementally
            value = kb.engine.find(key, vid).value
            assert kb.label(key, value) == label, f"now: {key}={value!r}"
            assert kb.confidence(key, value) == pytest.approx(conf, abs=1e-9)
        check_at(kb, clock, now)  # now equals at(now)
        for t in times:
            check_at(kb, clock, t)

"""Property (issue 35, item 1): with ends in the mix (``kb.end`` of a key or of one value, at
times before, inside and after the values' intervals, and the retraction of one source's end),
every belief's label and confidence, now and read at a time (``kb.at(t)``), agree with the
from-scratch evaluator (tests/support/oracle.py) under ``PreferNewer``, and with no policy,
where the ends alone are decided by time. The general valid-time property (test_valid_time_oracle.py) draws ends too; here
each sequence first makes the keys the ends are about, so that every example ends something."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.operations import advance_op, apply, end_op, retract_end_op, valid_op, withdraw_op
from support.oracle import evaluate
from tms.test_valid_time_oracle import TIMES, check_at

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.foundations.values import is_end

made = st.lists(valid_op, min_size=2, max_size=6)
mixed = st.lists(st.one_of(end_op, end_op, retract_end_op, valid_op, advance_op, withdraw_op),
                 min_size=2, max_size=14)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=made, then=mixed, times=st.lists(st.sampled_from(TIMES), min_size=1, max_size=3),
       margin=st.sampled_from([None, 0.2, 0.5]))
def test_ends_match_the_oracle(first: list, then: list, times: list[float],
                               margin: float | None) -> None:
    clock = ManualClock(0)  # margin None: no policy, where ends are decided by time alone
    kb = BeliefBase(clock=clock, conflict_policy=None if margin is None else PreferNewer(margin))
    for op in [*first, *then]:
        apply(kb, clock, op)
        now = clock()
        for (key, vid), (label, conf) in evaluate(kb, now).items():
            value = kb.engine.find(key, vid).value
            assert kb.label(key, value) == label, f"now: {key}={value!r}"
            assert kb.confidence(key, value) == pytest.approx(conf, abs=1e-9)
            if is_end(value) and label == "IN" and all(
                    evaluate(kb, now)[(key, b.vid)][0] == "OUT"
                    for b in kb.engine.values_of(key) if not is_end(b.value)):
                assert kb.value(key) is None  # an end that holds alone: nothing held
        check_at(kb, clock, now)
        for t in times:
            check_at(kb, clock, t)

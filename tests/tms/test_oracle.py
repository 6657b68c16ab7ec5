"""Property tests: the incremental engine agrees with the from-scratch oracle after every step."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.operations import (
    POLICIES,
    VALUES,
    apply,
    back_to_a,
    operations,
    sum_ab,
    tms_operations,
)
from support.oracle import evaluate

from corollary import BeliefBase, CorollaryError, ManualClock, PreferHigherConfidence, TrustLedger


def check(kb, clock, order_seed):
    # Rules fire lazily: the first query brings the structure up to date (an outcome or a clock
    # move may have brought a rule's inputs IN), and only then is the oracle's view comparable.
    beliefs = sorted(kb.engine.beliefs(), key=lambda b: (hash((b.key, b.seq, order_seed)) & 0xFFFF))
    if beliefs:
        kb.label(beliefs[0].key, beliefs[0].value)
    expected = evaluate(kb, clock())
    items = sorted(expected.items(), key=lambda kv: (hash((kv[0], order_seed)) & 0xFFFF))
    for (key, vid), (label, conf) in items:
        b = kb.engine.find(key, vid)
        got_label = kb.label(key, b.value)
        got_conf = kb.confidence(key, b.value)
        assert got_label == label, f"{key}={b.value!r}: engine {got_label}, oracle {label}"
        assert got_conf == pytest.approx(conf, abs=1e-9), f"{key}={b.value!r}"


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("memory", [None, 100.0])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, order_seed=st.integers(0, 3))
def test_engine_matches_oracle(policy, memory, ops, order_seed):
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, ledger=TrustLedger(memory_half_life=memory, clock=clock),
                    conflict_policy=POLICIES[policy]())
    for op in ops:
        apply(kb, clock, op)
        check(kb, clock, order_seed)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=tms_operations, order_seed=st.integers(0, 3))
def test_exceptions_nogoods_and_withdrawn_reasons_match_oracle(policy, ops, order_seed):
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=POLICIES[policy]())
    for op in ops:
        apply(kb, clock, op)
        check(kb, clock, order_seed)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, conflicts=st.booleans())
def test_rules_with_cycles_match_oracle(ops, conflicts):
    """Rules that feed each other (a, b -> d -> a) stay well-founded and agree with the oracle."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[sum_ab, back_to_a],
                    conflict_policy=PreferHigherConfidence() if conflicts else None)
    for op in ops:
        apply(kb, clock, op)
        check(kb, clock, 0)
        # every rule whose inputs are held has fired for them
        held_a = [v for v in VALUES if "a" in kb and kb.engine.find("a", v) is not None
                  and kb.label("a", v) == "IN"]
        held_b = [v for v in VALUES if "b" in kb and kb.engine.find("b", v) is not None
                  and kb.label("b", v) == "IN"]
        for x in held_a:
            for y in held_b:
                assert kb.engine.find("d", (x + y) % 3) is not None


def _answers(kb: BeliefBase) -> tuple[list[str], list[tuple[str, object, str, float]]]:
    # rules due now fire first, so that reading does not change what is read; a firing that
    # would close a cycle through an exception raises once and is not made (docs/model.md)
    refused = []
    for _ in range(3):
        try:
            kb.refresh()
            break
        except CorollaryError as exc:
            refused.append(type(exc).__name__)
    return refused, sorted((b.key, repr(b.value), kb.label(b.key, b.value),
                            round(kb.confidence(b.key, b.value), 12))
                           for b in list(kb.engine.beliefs()))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=tms_operations, pad=st.integers(1, 64))
def test_rules_exceptions_and_a_deciding_policy_do_not_depend_on_identities(ops, pad):
    """Rules feeding each other, exceptions and nogoods under a deciding policy: a twin base
    built by the same operations, with other object identities (so other set orders), gives
    the same answers after every step.

    Not compared with the oracle here: where a rule's step of 1.0 makes a derived value tie
    exactly with an older rival and an exception sits upstream, the engine's strata (local to
    the stale region) and the oracle's (global) can settle the tie differently; see
    docs/model.md, "Exceptions".
    """
    clock, twin_clock = ManualClock(0), ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[sum_ab, back_to_a], conflict_policy=PreferHigherConfidence())
    twin = BeliefBase(clock=twin_clock, rules=[sum_ab, back_to_a],
                      conflict_policy=PreferHigherConfidence())
    shift = []
    for op in ops:
        apply(kb, clock, op)
        shift.append([object() for _ in range(pad)])  # the twin's objects land elsewhere
        apply(twin, twin_clock, op)
        assert _answers(kb) == _answers(twin)

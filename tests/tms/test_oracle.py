"""Property tests: the incremental engine agrees with the from-scratch oracle after every step."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.oracle import evaluate

from corollary import (
    BeliefBase,
    CorollaryError,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    TrustLedger,
    rule,
)

KEYS = ["a", "b", "c", "d", "e"]
VALUES = [0, 1, 2]
SOURCES = ["human:ann", "tool:scan", "document:doc", "model:m", "assumption:guess"]

assert_op = st.tuples(
    st.just("assert"), st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(SOURCES),
    st.sampled_from([None, "shared"]), st.sampled_from([None, 60.0]), st.sampled_from([None, 90.0]),
)
retract_op = st.tuples(st.just("retract"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                       st.sampled_from(["none", "source"]))
claim_op = st.tuples(st.just("claim"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                     st.lists(st.sampled_from(KEYS), max_size=3, unique=True),
                     st.sampled_from([None, 0.5, 0.9]))
outcome_op = st.tuples(st.just("outcome"), st.sampled_from(SOURCES), st.booleans())
advance_op = st.tuples(st.just("advance"), st.sampled_from([1.0, 30.0, 61.0, 200.0]))
cycle_op = st.tuples(st.just("cycle"), st.sampled_from(KEYS), st.sampled_from(KEYS),
                     st.sampled_from([None, 0.8]))
resolve_op = st.tuples(st.just("resolve"), st.sampled_from(KEYS), st.sampled_from(VALUES))
item = st.one_of(st.sampled_from(KEYS), st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES)))
# a claim with exceptions ("x unless y"): refused when it would rest on its own absence
default_op = st.tuples(st.just("default"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                       st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
                       st.lists(item, min_size=1, max_size=2))
nogood_op = st.tuples(st.just("nogood"), st.lists(item, min_size=2, max_size=3))
withdraw_op = st.tuples(st.just("withdraw"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                        st.sampled_from([*SOURCES, "model:m"]), st.sampled_from(["none", "source"]))
give_up_op = st.tuples(st.just("give_up"), st.integers(0, 5))
operations = st.lists(
    st.one_of(assert_op, assert_op, assert_op, retract_op, claim_op, claim_op, claim_op,
              outcome_op, advance_op, resolve_op, cycle_op, cycle_op),
    min_size=6, max_size=40,
)
# the same, with exceptions, nogoods and withdrawn reasons mixed in
tms_operations = st.lists(
    st.one_of(assert_op, assert_op, assert_op, retract_op, claim_op, claim_op, default_op,
              default_op, nogood_op, withdraw_op, give_up_op, outcome_op, advance_op, resolve_op,
              cycle_op),
    min_size=6, max_size=40,
)


def apply(kb, clock, op):
    kind = op[0]
    try:
        if kind == "assert":
            _, key, value, source, origin, half_life, ttl = op
            kb.assert_(key, value, source=source, origin=origin, half_life=half_life, ttl=ttl)
        elif kind == "retract":
            _, key, value, fault = op
            kb.retract(key, value, fault=fault)
        elif kind == "claim":
            _, key, value, inputs, certainty = op
            kb.claim(key, value, source="model:m", inputs=inputs, certainty=certainty)
        elif kind == "outcome":
            kb.record_outcome(op[1], op[2])
        elif kind == "advance":
            clock.advance(op[1])
        elif kind == "cycle":
            # x supports y and y supports x back: a loop that must never hold itself up
            _, x, y, certainty = op
            held = kb.value(x)
            if held is not None and x != y:
                kb.claim(y, held, source="model:m", inputs=[x], certainty=certainty)
                kb.claim(x, held, source="model:m", inputs=[y], certainty=certainty)
        elif kind == "resolve":
            kb.resolve(op[1], op[2])
        elif kind == "default":
            _, key, value, inputs, unless = op
            kb.claim(key, value, source="model:m", inputs=inputs, unless=unless)
        elif kind == "nogood":
            kb.nogood(*op[1])
        elif kind == "withdraw":
            _, key, value, source, fault = op
            kb.retract(key, value, source=source, fault=fault)
        elif kind == "give_up":  # a person settles an open nogood by giving up a culprit
            open_nogoods = [c for c in kb.conflicts() if c.nogood]
            if open_nogoods:
                conflict = open_nogoods[0]
                choices = [*((c.key, c.value) for c in conflict.candidates),
                           *((c.key, c.value) for c in conflict.culprits)]
                kb.resolve(conflict, give_up=choices[op[1] % len(choices)])
    except CorollaryError:
        pass  # an operation the current state refuses (unknown input, nothing to retract...)


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


POLICIES = {
    "open": lambda: None,
    "confidence": PreferHigherConfidence,
    "source": lambda: PreferSource(["human", "document", "tool:scan"]),
}


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


@rule(output="d", inputs={"x": "a", "y": "b"})
def _sum_ab(x, y):
    return (x + y) % 3


@rule(output="a", inputs={"z": "d"})
def _back_to_a(z):
    return z


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, conflicts=st.booleans())
def test_rules_with_cycles_match_oracle(ops, conflicts):
    """Rules that feed each other (a, b -> d -> a) stay well-founded and agree with the oracle."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[_sum_ab, _back_to_a],
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
    kb = BeliefBase(clock=clock, rules=[_sum_ab, _back_to_a], conflict_policy=PreferHigherConfidence())
    twin = BeliefBase(clock=twin_clock, rules=[_sum_ab, _back_to_a],
                      conflict_policy=PreferHigherConfidence())
    shift = []
    for op in ops:
        apply(kb, clock, op)
        shift.append([object() for _ in range(pad)])  # the twin's objects land elsewhere
        apply(twin, twin_clock, op)
        assert _answers(kb) == _answers(twin)

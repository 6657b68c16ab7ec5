"""The what-if behind ``what_to_check`` is the engine itself: over random operation sequences
(claims, cycles, exceptions, nogoods, withdrawn reasons, every conflict policy, fading and
expiring premises, and two rules that feed each other),

1. the what-if "as things are" is the base's own confidence, for every belief;
2. the what-if of refreshing a stale premise is what a real refresh (the same value asserted
   again by the same source, renewing it in place) then gives;
3. ``what_to_check`` lists a stale premise only when refreshing it changes the belief, alone
   (``gain``) or with the others (``needed``), and its gain is the real refresh's;

and a what-if leaves the engine exactly as it was (premises, memos, dirty and time-dependent
sets, nogood losses, expiry heap, numbering, touched keys) and the ledger untouched.

``WHATIF_EXAMPLES`` sets the number of examples per case (3,000 pass; see docs/agent.md).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support.operations import (
    KEYS,
    POLICIES,
    SOURCES,
    VALUES,
    advance_op,
    apply,
    assert_op,
    back_to_a,
    claim_op,
    cycle_op,
    default_op,
    give_up_op,
    nogood_op,
    outcome_op,
    resolve_op,
    retract_op,
    sum_ab,
    withdraw_op,
)

from corollary import (
    BeliefBase,
    CorollaryError,
    ManualClock,
    PreferHigherConfidence,
    StratificationError,
)
from corollary.facade.sensitivity import ancestry, what_to_check, whatif_confidence
from corollary.tms import Belief, Engine, Premise

EXAMPLES = int(os.environ.get("WHATIF_EXAMPLES", 25))
fading_op = st.tuples(
    st.just("assert"), st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(SOURCES),
    st.sampled_from([None, "shared"]), st.sampled_from([60.0, 300.0]),
    st.sampled_from([None, 90.0, 400.0]),
)
# the oracle tests' operations, with more premises that fade or expire, read after a wait
stale_operations = st.lists(
    st.one_of(fading_op, fading_op, fading_op, assert_op, retract_op, claim_op, claim_op,
              default_op, default_op, nogood_op, withdraw_op, give_up_op, outcome_op, advance_op,
              resolve_op, cycle_op),
    min_size=6, max_size=40,
)
CASES = [(policy, False) for policy in sorted(POLICIES)] + [("open", True), ("confidence", True)]


def engine_state(engine: Engine) -> Any:
    """Everything a what-if may touch, with identities where a renewal would make new objects."""
    beliefs = sorted(engine.beliefs(), key=lambda b: b.seq)
    return ([(b, b.seq, id(b.evidence), b.evidence, b.withdrawn, tuple(b.justs), b.best, b.conf,
              b.as_of, b.note) for b in beliefs],
            set(engine.dirty), set(engine.timed), dict(engine.nogood_losses),
            list(engine.expiries), engine.next_expiry, engine.next_number(), engine.count,
            None if engine.touched is None else set(engine.touched),
            {source: list(holders) for source, holders in engine.by_source.items()})


def stale_premises(engine: Engine, root: Belief, now: float) -> list[tuple[Belief, Premise]]:
    return [(b, part.premise) for b in ancestry(root) if b.withdrawn is None
            for part in engine.premise_parts(b, now) if part.expired or part.freshness < 1.0]


def settle(kb: BeliefBase) -> None:
    """Bring everything up to now, rules due included (a firing that would close a cycle through
    an exception is refused once and not made: docs/model.md)."""
    for _ in range(3):
        try:
            kb.refresh()
            return
        except CorollaryError:
            continue


@pytest.mark.parametrize(("policy", "rules"), CASES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=stale_operations, wait=st.sampled_from([45.0, 100.0]),
       pick=st.integers(0, 2**16))
def test_the_whatif_is_the_engine(policy: str, rules: bool, ops: list[Any], wait: float,
                                  pick: int) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=POLICIES[policy](),
                    rules=[sum_ab, back_to_a] if rules else ())
    for op in ops:
        apply(kb, clock, op)
    clock.advance(wait)
    settle(kb)
    engine = kb.parts.engine
    now = kb.now()
    outcomes = len(kb.ledger.outcomes())
    beliefs = sorted(engine.beliefs(), key=lambda b: b.seq)
    listed: dict[Belief, list[Any]] = {}
    for b in beliefs:
        # (1) as things are
        assert whatif_confidence(engine, b, now) == pytest.approx(
            kb.confidence(b.key, b.value), abs=1e-9), (b.key, b.value)
        before = engine_state(engine)
        checks = what_to_check(engine, b, now, None)
        assert engine_state(engine) == before, (b.key, b.value)  # put back exactly
        # (3) only what changes the belief, alone or with the others
        assert all(c.gain != 0.0 or c.needed != 0.0 for c in checks)
        listed[b] = checks
    assert len(kb.ledger.outcomes()) == outcomes
    candidates = [(root, stale) for root in beliefs
                  for stale in stale_premises(engine, root, now)]
    if not candidates:
        event("no stale premise")
        return
    # (2) one real refresh per example: the what-if predicted it
    root, (b, premise) = candidates[pick % len(candidates)]
    predicted = whatif_confidence(engine, root, now, [(b, premise)])
    baseline = kb.confidence(root.key, root.value)
    item = [c for c in listed[root] if (c.key, c.value, c.source) == (b.key, b.value,
                                                                      premise.source)]
    reasons = sum(len(x.justs) for x in engine.beliefs())
    try:
        # a refresh by the same source, stating the same certainty (docs/model.md)
        kb.assert_(b.key, b.value, source=premise.source, origin=premise.origin,
                   half_life=premise.half_life, ttl=premise.ttl, certainty=premise.certainty)
    except StratificationError:
        # a rule firing anew on the refreshed value would close a cycle through an 'unless':
        # the base refuses the whole refresh (a what-if fires no rules, docs/agent.md)
        assert rules
        assert kb.confidence(root.key, root.value) == pytest.approx(baseline, abs=1e-9)
        event("the refresh made a rule fire anew, and the base refused it")
        return
    settle(kb)
    if rules and sum(len(x.justs) for x in engine.beliefs()) != reasons:
        event("the refresh made a rule fire anew")
        return  # which a what-if does not count (docs/agent.md)
    assert engine.find(root.key, root.vid) is root
    real = kb.confidence(root.key, root.value)
    assert predicted == pytest.approx(real, abs=1e-9), (root.key, root.value, b.key, b.value)
    event("the refresh changes the belief" if real != baseline else "it changes nothing")
    if item:
        (check,) = item
        event(f"listed, gain {'+' if check.gain > 0 else '-' if check.gain < 0 else '0'}")
        assert check.gain == pytest.approx(real - baseline, abs=1e-9)
    else:  # not listed: this refresh alone changes nothing
        assert real == pytest.approx(baseline, abs=1e-9)


def test_a_what_if_under_a_rule_watch_keeps_the_touched_keys() -> None:
    """The rule engine's set of touched keys is the same object, with the same keys, after a
    what-if that marks keys (the trial marks into a set of its own)."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence(), rules=[sum_ab, back_to_a])
    kb.assert_("a", 1, source="tool:scan", half_life=60)
    kb.assert_("b", 2, source="tool:scan", ttl=90)
    clock.advance(100)
    kb.refresh()
    engine = kb.parts.engine
    touched = engine.touched
    assert touched is not None
    d = engine.find("d", 0)
    assert d is not None
    before = engine_state(engine)
    checks = what_to_check(engine, d, kb.now(), None)
    assert [(c.key, c.expired) for c in checks] == [("b", True), ("a", False)]
    assert engine.touched is touched and engine_state(engine) == before

"""Recall is never stale: after every step of a random sequence of operations (assertions,
retractions, claims, exceptions, nogoods, withdrawn reasons, conflicts settled by every policy,
fading and expiry as the clock moves), recall returns only values held now at or above the
floor, as the from-scratch oracle computes them, and finds every held value of a key it names."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.embedders import trigrams
from support.operations import KEYS, POLICIES, apply, tms_operations
from support.oracle import evaluate

from corollary import BeliefBase, ManualClock, TrustPolicy
from corollary.foundations.values import canon


def check_recall(kb, clock, floor, k):
    kb.refresh()  # rules and outcomes due now first, so the oracle sees what recall sees
    expected = evaluate(kb, clock())
    held = {(key, vid): conf for (key, vid), (label, conf) in expected.items()
            if label == "IN" and conf >= floor - 1e-12}
    for query in [*KEYS, " ".join(KEYS), "human tool model"]:
        got = kb.recall(query, limit=k, min_confidence=floor)
        assert len(got) <= k
        for r in got:
            ident = (r.key, canon(r.value))
            assert ident in held, f"{query!r} recalled {r.key}={r.value!r}, not held at {floor}"
            assert kb.label(r.key, r.value) == "IN"
            assert r.confidence == pytest.approx(held[ident], abs=1e-9)
            assert r.confidence >= floor
            # an open conflict: another value of the key held (at any confidence)
            others = [v for (key, v), (label, _) in expected.items()
                      if key == r.key and v != canon(r.value) and label == "IN"]
            assert r.conflict == bool(others)
        if query in KEYS and k >= 10:  # a query naming a key finds all its held values
            named = {ident for ident in held if ident[0] == query}
            assert named <= {(r.key, canon(r.value)) for r in got}


@pytest.mark.parametrize("embedder", [None, trigrams], ids=["lexical", "fused"])
@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=tms_operations, floor=st.sampled_from([0.0, 0.5, 0.8]),
       k=st.sampled_from([1, 3, 20]), first=st.integers(0, 6))
def test_recall_returns_only_what_is_held_now(policy, embedder, ops, floor, k, first):
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=POLICIES[policy](),
                    policy=TrustPolicy(min_confidence=floor), embedder=embedder)
    for i, op in enumerate(ops):
        apply(kb, clock, op)
        if i >= first:  # the index is made on the first recall, then kept current
            check_recall(kb, clock, floor, k)

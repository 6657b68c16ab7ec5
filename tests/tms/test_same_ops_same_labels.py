"""Property: a base's labels are a function of its operations. The same random sequence
(assertions in time, dependencies, declared replacements, exceptions, nogoods, ends and their
retraction, retractions and forgetting) built three times in one process, all alive, reads
the same label, value and confidence for every value of every key, now and at past times, under
every conflict policy: nothing may go by the objects' identities (a set's order, ``id()``, a
sort without a total key). Before, forgetting took exceptions out in a set's order, and two
replacements left the same reason kept whichever came first (tests/base/test_forget_order.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.operations import (
    KEYS,
    POLICIES,
    advance_op,
    claim_op,
    default_op,
    depend_end_op,
    depend_op,
    end_op,
    forget_op,
    give_up_op,
    nogood_op,
    replace_op,
    retract_end_op,
    retract_op,
    valid_op,
    withdraw_op,
)
from tms.test_read_order import _build

from corollary import AmbiguousValueError, BeliefBase

#: Times read besides now (the roots' starts fall before, between and after them).
PAST = (-10.0, 50.0)

# over fewer keys and values than support.operations' (roots a, b; dependents c, d; values
# 0, 1), so that a key gets two reasons that differ only in what is later forgotten often
few_root_op = st.tuples(st.just("assert_valid"), st.sampled_from(["a", "b"]),
                        st.sampled_from([0, 1]), st.just("human:ann"), st.just(None),
                        st.just(None), st.sampled_from([None, 0.0, 20.0, 100.0]), st.just(None))
few_replace_op = st.tuples(st.just("replace_when"), st.sampled_from(["c", "d"]),
                           st.sampled_from([0, 1]), st.sampled_from(["a", "b"]),
                           st.sampled_from([None, None, 20.0, 100.0]))
few_forget_op = st.tuples(st.just("forget"), st.sampled_from(["a", "b", "c"]),
                          st.sampled_from([None, None, 0, 1]))
mixed_operations = st.lists(
    st.one_of(few_root_op, few_root_op, valid_op, depend_op, few_replace_op, few_replace_op,
              replace_op, claim_op, default_op, nogood_op, give_up_op, retract_op, withdraw_op,
              few_forget_op, forget_op, end_op, depend_end_op, retract_end_op, advance_op),
    min_size=6, max_size=25,
)


def _reads(kb: BeliefBase) -> list[Any]:
    """Every value's label and confidence, each key's value, now and at :data:`PAST` times."""
    found: list[Any] = []
    for reader in (kb, *(kb.at(t) for t in PAST)):
        for key in KEYS:
            values = sorted(kb.engine.values_of(key), key=lambda b: repr(b.value))
            found.extend((key, repr(b.value), reader.label(key, b.value),
                          pytest.approx(reader.confidence(key, b.value), abs=1e-9))
                         for b in values)
            if values:
                try:
                    found.append((key, repr(reader.value(key))))
                except AmbiguousValueError:
                    found.append((key, "open conflict"))
    return found


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=mixed_operations)
# two replacements of c left the same reason by forgetting a (tests/base/test_forget_order.py)
@example(ops=[("assert_valid", "a", 1, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("replace_when", "c", 0, "a", None),
              ("assert_valid", "a", 0, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("forget", "a", None)])
def test_the_same_operations_read_the_same(policy: str, ops: list) -> None:
    first, *others = [_build(policy, ops) for _ in range(3)]  # all alive: other addresses
    for other in others:
        assert _reads(other) == _reads(first)
        assert [str(c) for c in other.conflicts()] == [str(c) for c in first.conflicts()]

"""Property: reads do not depend on the order they come in. Over random operation sequences
with ends (``kb.end``) and forgetting (``kb.forget``), dependencies and declared replacements,
the base read now (``kb.label``, ``kb.value``, ``kb.confidence``) and read at now
(``kb.at(kb.now())``) agree for every key, whichever is read first (docs/model.md, "Ending a
fact": an end left alone holds no value; "Incremental evaluation": the fast read of a key
says what the full one says)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from support.operations import KEYS, POLICIES, apply, depend_operations

from corollary import AmbiguousValueError, BeliefBase, ManualClock

_UNSET = object()


def _build(policy: str, ops: list) -> BeliefBase:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=POLICIES[policy]())
    for op in ops:
        apply(kb, clock, op)
    return kb


def _read(reader: Any, key: str) -> tuple[Any, ...]:
    """The label, value and confidence of ``key`` ("open conflict" where a read raises so)."""
    found: list[Any] = [reader.label(key)]
    for read in (lambda: reader.value(key, _UNSET),
                 lambda: pytest.approx(reader.confidence(key), abs=1e-9)):
        try:
            found.append(read())
        except AmbiguousValueError:
            found.append("open conflict")
    return tuple(found)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=depend_operations)
# an end left alone by forgetting the value it ended (tests/base/test_depend.py)
@example(ops=[("assert_valid", "c", 1, "human:ann", None, None, None, None),
              ("end", "c", None, "human:ann", -50.0), ("forget", "c", 1)])
# two replacements of c left the same reason by forgetting a: the one kept (and so c's label)
# went by identity (tests/base/test_forget_order.py)
@example(ops=[("assert_valid", "a", 1, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("replace_when", "c", 0, "a", None),
              ("assert_valid", "a", 0, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("forget", "a", None)])
def test_reads_now_and_at_now_agree_in_either_order(policy: str, ops: list) -> None:
    now_first, at_first = _build(policy, ops), _build(policy, ops)
    known = [key for key in KEYS if now_first.engine.values_of(key)]
    for key in known:
        a = _read(now_first, key)
        b = _read(now_first.at(now_first.now()), key)
        d = _read(at_first.at(at_first.now()), key)
        c = _read(at_first, key)
        assert a == b == c == d, key

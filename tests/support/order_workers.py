"""Helpers of tests/base/test_forget_order.py, importable by name in spawned children: a base
built from one fixed sequence of operations, and what it reads, built several times."""

from __future__ import annotations

import os
from typing import Any

from corollary import BeliefBase, ManualClock


def replaced_twice_then_forgotten() -> BeliefBase:
    """``c = 0`` declared to replace ``c`` once ``a`` changes, twice while ``a`` holds 1 and once
    more after Ann corrects ``a`` to 0; then ``a`` is forgotten (docs/model.md, "Dependencies
    and declared replacements": the two replacements left are then one, the first declared)."""
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="human:ann")
    kb.replace_when("c", 0, "a", source="model:m")
    kb.replace_when("c", 0, "a", source="model:m")
    kb.assert_("a", 0, source="human:ann")  # Ann corrects herself: a = 1 goes
    kb.replace_when("c", 0, "a", source="model:m")
    kb.forget("a")
    return kb


def reading(kb: BeliefBase) -> tuple[Any, ...]:
    """``c``'s label, value and confidence now and at now, and its timeline."""
    at_now = kb.at(kb.now())
    return (kb.label("c"), kb.value("c"), round(kb.confidence("c"), 9), at_now.label("c"),
            [(t.value, t.valid_from, t.valid_until) for t in kb.timeline("c")])


def readings(times: int) -> tuple[int, list[tuple[Any, ...]]]:
    """This process's id, and what :func:`replaced_twice_then_forgotten` reads, built
    ``times`` times (each base kept alive meanwhile, so none reuses another's memory)."""
    built = [replaced_twice_then_forgotten() for _ in range(times)]
    return os.getpid(), [reading(kb) for kb in built]

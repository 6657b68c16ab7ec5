"""ManualClock: it never goes backwards, never overflows, and takes numbers and timedeltas only."""

from __future__ import annotations

import pytest
from support.hostile import HUGE, raises_typed

from corollary import CorollaryError, InvalidInputError, ManualClock


def test_clock_cannot_go_backwards() -> None:
    clock = ManualClock(10)
    with pytest.raises(InvalidInputError):
        clock.set(5)
    with pytest.raises(InvalidInputError):
        clock.advance(-1)
    assert clock() == 10


@pytest.mark.parametrize("start", ["abc", None, [1]])
def test_manual_clock_rejects_non_numbers_with_a_typed_error(start):
    with pytest.raises(CorollaryError):
        ManualClock(start)
    clock = ManualClock(5)
    with pytest.raises(CorollaryError):
        clock.set(start)
    assert clock() == 5


@pytest.mark.parametrize("call", ["set", "start"])
def test_manual_clock_huge_int_is_typed_error(call: str) -> None:
    if call == "start":
        raises_typed(ManualClock, HUGE)
        return
    clock = ManualClock(0)
    raises_typed(clock.set, HUGE)
    assert clock() == 0.0


def test_manual_clock_advance_none_is_typed_error() -> None:
    clock = ManualClock(0)
    raises_typed(clock.advance, None)
    assert clock() == 0.0


def test_manual_clock_cannot_overflow_to_inf() -> None:
    clock = ManualClock(0)
    clock.advance(1e308)
    raises_typed(clock.advance, 1e308)
    assert clock() == 1e308

"""Clocks: any zero-argument callable returning POSIX seconds is a clock.

The engine never reads the wall clock itself; it asks the clock it was given, so tests and
simulations can move time by hand with :class:`ManualClock`.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from datetime import timedelta

Clock = Callable[[], float]
Duration = float | int | timedelta


#: The wall clock, in POSIX seconds: ``time.time`` itself, as every query reads the clock (a
#: Python function around it would double what that read costs).
system_clock: Clock = time.time


def to_seconds(duration: Duration | None, name: str = "duration") -> float | None:
    """Turn a ``timedelta`` or a number of seconds into seconds, validating it.

    >>> to_seconds(timedelta(minutes=1))
    60.0
    >>> to_seconds(None) is None
    True
    """
    from .errors import InvalidInputError, InvalidTypeError

    if duration is None:
        return None
    if isinstance(duration, timedelta):
        seconds = duration.total_seconds()
    elif isinstance(duration, (int, float)) and not isinstance(duration, bool):
        try:
            seconds = float(duration)
        except OverflowError:
            raise InvalidInputError(f"{name} is too large to be seconds") from None
    else:
        raise InvalidTypeError(f"{name} must be a timedelta or seconds, not {type(duration).__name__}")
    if not math.isfinite(seconds) or seconds < 0:
        raise InvalidInputError(f"{name} must be finite and non-negative, got {duration!r}")
    return seconds


def _seconds(value: object, name: str) -> float:
    """A finite number of POSIX seconds, or a typed error."""
    from .errors import InvalidInputError, InvalidTypeError

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"{name} must be POSIX seconds, not {type(value).__name__}")
    try:
        seconds = float(value)
    except OverflowError:
        raise InvalidInputError(f"{name} is too large to be seconds") from None
    if not math.isfinite(seconds):
        raise InvalidInputError(f"{name} must be finite, got {value!r}")
    return seconds


class ManualClock:
    """A clock that only moves when told to.

    Parameters
    ----------
    start : float
        The time it starts at, in POSIX seconds.

    Examples
    --------
    >>> clock = ManualClock(0)
    >>> clock.advance(timedelta(seconds=30))
    30.0
    >>> clock()
    30.0
    """

    __slots__ = ("_now",)

    def __init__(self, start: float = 0.0) -> None:
        self._now = _seconds(start, "start")

    def __call__(self) -> float:
        return self._now

    def advance(self, duration: Duration) -> float:
        """Move forward by ``duration`` (seconds or ``timedelta``); return the new time."""
        from .errors import InvalidInputError, InvalidTypeError

        if duration is None:
            raise InvalidTypeError("advance() needs seconds or a timedelta, not None")
        seconds = to_seconds(duration, "duration")
        assert seconds is not None
        now = self._now + seconds
        if not math.isfinite(now):
            raise InvalidInputError(f"advancing {self._now} by {seconds} leaves finite time")
        self._now = now
        return now

    def set(self, now: float) -> float:
        """Jump to ``now``; time may not go backwards."""
        from .errors import InvalidInputError

        now = _seconds(now, "now")
        if now < self._now:
            raise InvalidInputError(f"cannot move the clock from {self._now} back to {now}")
        self._now = now
        return now

    def __repr__(self) -> str:
        return f"ManualClock({self._now!r})"

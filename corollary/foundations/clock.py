"""Clocks: any zero-argument callable returning POSIX seconds is a clock.

The engine never reads the wall clock itself; it asks the clock it was given, so tests and
simulations can move time by hand with :class:`ManualClock`.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

Clock = Callable[[], float]
Duration = float | int | timedelta
#: A point in time: POSIX seconds or a timezone-aware ``datetime``.
Instant = float | int | datetime


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


def to_instant(value: object, name: str = "time") -> float | None:
    """A point in time as POSIX seconds: a number of seconds or a timezone-aware ``datetime``
    (``None`` stays ``None``). The one parser of valid times (``valid_from``, ``kb.at(t)``);
    surfaces that read text convert it with :func:`parse_instant` first.

    >>> to_instant(datetime(2024, 1, 2, tzinfo=timezone.utc))
    1704153600.0
    >>> to_instant(86400)
    86400.0
    """
    if value is None:
        return None
    if type(value) is float and value - value == 0.0:  # finite seconds: most times given
        return value
    from .errors import InvalidInputError, InvalidTypeError

    if isinstance(value, datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            raise InvalidInputError(f"{name} is a naive datetime ({value.isoformat()}): give it "
                                    "a timezone, e.g. tzinfo=timezone.utc")
        return value.timestamp()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"{name} must be POSIX seconds or a timezone-aware datetime, not "
                               f"{type(value).__name__}")
    return _seconds(value, name)


def parse_instant(value: object, name: str = "time") -> float | None:
    """:func:`to_instant`, also reading an ISO 8601 string (what the CLI and MCP take).

    A string with a time needs an offset (``2024-01-02T09:00:00+01:00``, ``...Z``); a bare
    date (``2024-01-02``) or year (``2024``) is midnight UTC of its first day.

    >>> parse_instant("2024-01-02")
    1704153600.0
    >>> parse_instant("2024-01-02T01:00:00+01:00")
    1704153600.0
    """
    from .errors import InvalidInputError

    if not isinstance(value, str):
        return to_instant(value, name)
    text = value.strip()
    try:
        if len(text) == 4 and text.isdigit():
            return datetime(int(text), 1, 1, tzinfo=timezone.utc).timestamp()
        if len(text) == 10:
            parsed = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
        else:
            parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z"))
                                            else text)
    except ValueError:
        raise InvalidInputError(f"{name} must be ISO 8601 (2024-01-02, 2024-01-02T09:00:00Z), "
                                f"not {value!r:.60}") from None
    return to_instant(parsed, name)


def format_instant(seconds: float) -> str:
    """A time as proofs print it: the UTC date, with the time of day when it has one.

    >>> format_instant(1704153600.0), format_instant(1704157200.0)
    ('2024-01-02', '2024-01-02T01:00:00Z')
    """
    try:
        moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return repr(seconds)
    if moment.hour == moment.minute == moment.second == moment.microsecond == 0:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


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

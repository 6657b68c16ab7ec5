"""Times on the command line: the ``type=`` of every ``--at``, ``--as-of`` and ``--since``
(ISO 8601 or POSIX seconds), read by the one parser of times."""

from __future__ import annotations

import argparse
import math

__all__ = ["instant_arg", "seconds_arg"]


def seconds_arg(text: str) -> float:
    """POSIX seconds on the command line: a finite number."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number of seconds: {text!r}")
    return value


def instant_arg(text: str) -> float:
    """A time on the command line: ISO 8601 (``2025-03-02``, ``2025-03-02T09:00:00Z``) or
    POSIX seconds, read by the one parser of times (``parse_instant``)."""
    from ..foundations.clock import parse_instant
    from ..foundations.errors import CorollaryError

    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        return seconds_arg(text)  # seconds, as before (nan and inf refused the same way)
    try:
        value = parse_instant(text)
    except CorollaryError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"not a time (ISO 8601 such as 2025-03-02, or POSIX "
                                         f"seconds): {text!r}")
    return value

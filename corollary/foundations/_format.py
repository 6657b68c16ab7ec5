"""How numbers and durations are printed for people (proofs, the CLI, pictures)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

#: From here up, numbers print in scientific notation (see format_confidence).
_HUGE = 1e15


def format_confidence(value: float, places: int = 2) -> str:
    """A confidence rounded half-up on its decimal form, as people round.

    Binary floats store 0.475 a hair below it, so ``f"{0.475:.2f}"`` prints 0.47; this prints
    0.48.

    Numbers from 10**15 up (a half-life of 1e30 seconds is finite and accepted) have more
    digits than a fixed number of places can say, and print in scientific notation to four
    significant digits; infinities and NaN print as Python writes them.

    >>> format_confidence(0.475), format_confidence(0.8019), format_confidence(0.99587, 4)
    ('0.48', '0.80', '0.9959')
    >>> format_confidence(1e30), format_confidence(-1.7976931348623157e308), format_confidence(float("inf"))
    ('1e+30', '-1.798e+308', 'inf')
    """
    value = float(value)
    if not math.isfinite(value) or abs(value) >= _HUGE:
        # quantizing 1e30 to two places needs 33 digits, past decimal's default 28: it raised
        # InvalidOperation, which failed every proof through such a premise
        return f"{value:.4g}"
    quantum = Decimal(1).scaleb(-places)
    return str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))


def format_number(value: float) -> str:
    """A number to three places, without trailing zeros.

    >>> format_number(0.8910), format_number(1.0), format_number(0.0455), format_number(1.5e20)
    ('0.891', '1', '0.046', '1.5e+20')
    """
    text = format_confidence(value, 3)
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def format_age(seconds: float) -> str:
    """A duration for people.

    >>> format_age(30), format_age(90), format_age(7200), format_age(86400 * 3), format_age(1e30)
    ('30 s', '1.5 min', '2 h', '3 d', '1.157e+25 d')
    """
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{format_number(seconds / size)} {unit}"
    return f"{format_number(seconds)} s"

"""How numbers and durations are printed for people (proofs, the CLI, pictures)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def format_confidence(value: float, places: int = 2) -> str:
    """A confidence rounded half-up on its decimal form, as people round.

    Binary floats store 0.475 a hair below it, so ``f"{0.475:.2f}"`` prints 0.47; this prints
    0.48.

    >>> format_confidence(0.475), format_confidence(0.8019), format_confidence(0.99587, 4)
    ('0.48', '0.80', '0.9959')
    """
    quantum = Decimal(1).scaleb(-places)
    return str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))


def format_number(value: float) -> str:
    """A number to three places, without trailing zeros.

    >>> format_number(0.8910), format_number(1.0), format_number(0.0455)
    ('0.891', '1', '0.046')
    """
    text = format_confidence(value, 3)
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_age(seconds: float) -> str:
    """A duration for people.

    >>> format_age(30), format_age(90), format_age(7200), format_age(86400 * 3)
    ('30 s', '1.5 min', '2 h', '3 d')
    """
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{format_number(seconds / size)} {unit}"
    return f"{format_number(seconds)} s"

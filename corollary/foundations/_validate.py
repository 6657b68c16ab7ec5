"""Validators shared by every module: numbers that are not booleans, bounded integers, flags,
and strings read as plain ``str``.

Each raises :class:`~corollary.foundations.errors.InvalidTypeError` for the wrong type and
:class:`~corollary.foundations.errors.InvalidInputError` for a value out of range, naming the argument.

>>> check_unit(0.5, "certainty")
0.5
>>> check_int(3, "k", low=1)
3
>>> check_unit(True, "certainty")
Traceback (most recent call last):
...
corollary.foundations.errors.InvalidTypeError: certainty must be a number, not bool
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import InvalidInputError, InvalidTypeError


def is_number(value: object) -> bool:
    """Whether ``value`` is a real number and not a bool (numpy numbers count)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and type(
        value).__name__ != "bool_"


def check_number(value: Any, name: str, *, finite: bool = True, low: float | None = None,
                 high: float | None = None) -> float:
    """``value`` as a float: a real number (not a bool), finite unless ``finite=False``, and
    within ``[low, high]`` when given."""
    if not is_number(value):
        raise InvalidTypeError(f"{name} must be a number, not {type(value).__name__}")
    try:
        result = float(value)
    except OverflowError:
        raise InvalidInputError(f"{name} is too large for a float") from None
    if math.isnan(result) or (finite and math.isinf(result)):
        raise InvalidInputError(f"{name} must be finite, got {value!r}")
    if (low is not None and result < low) or (high is not None and result > high):
        span = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
        raise InvalidInputError(f"{name} must be in {span}, got {value!r}")
    return result


def check_unit(value: Any, name: str) -> float:
    """A number in [0, 1] (not NaN, not a bool), as a float."""
    return check_number(value, name, low=0.0, high=1.0)


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool; numpy integers count) within ``[low, high]`` when given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(f"{name} must be an integer, not {type(value).__name__}")
    result = int(value)
    if (low is not None and result < low) or (high is not None and result > high):
        lo = "" if low is None else f">= {low}"
        hi = "" if high is None else f"<= {high:,}"
        raise InvalidInputError(f"{name} must be {' and '.join(x for x in (lo, hi) if x)}, "
                                f"got {value!r}")
    return result


def check_bool(value: Any, name: str) -> bool:
    """Exactly ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be True or False, not {value!r}")
    return value


def exact_str(text: str) -> str:
    """A ``str`` subclass instance as a plain ``str`` (its own hash and eq are not trusted)."""
    return text if type(text) is str else str.__str__(text)


def plain_text(text: Any) -> Any:
    """``text`` as a plain ``str`` if it is any string; anything else unchanged (for callers
    that validate the type themselves)."""
    return str.__str__(text) if isinstance(text, str) and type(text) is not str else text


def options_given(cls: Any, options: Any, keywords: Any, where: str) -> Any:
    """``options`` (an instance of the attrs class ``cls``), or one made of ``keywords``
    (its fields by name; the others by default): what a function taking ``options=`` or its
    fields as keyword arguments was given. Both, another type, or an unknown name are an
    :class:`InvalidTypeError` naming ``where``.

    >>> import attrs
    >>> @attrs.frozen
    ... class Opts:
    ...     steps: int = 1
    >>> options_given(Opts, None, {"steps": 3}, "run()")
    Opts(steps=3)
    """
    import attrs

    if options is not None:
        if keywords:
            raise InvalidTypeError(f"{where} takes options= or keyword options, not both")
        if not isinstance(options, cls):
            raise InvalidTypeError(f"options must be a{'n' if cls.__name__[0] in 'AEIOU' else ''} "
                                   f"{cls.__name__}")
        return options
    unknown = sorted(set(keywords) - set(attrs.fields_dict(cls)))
    if unknown:
        raise InvalidTypeError(f"{where} got unknown options {unknown}")
    return cls(**keywords)

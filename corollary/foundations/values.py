"""What a belief's key and value may be, and how values are compared.

Keys are non-empty strings. Values are plain data that survive a snapshot: ``None``, booleans,
finite numbers (integers within 64 bits), strings, and lists / tuples / dicts (string keys) of
those. Two values are the same belief when they are equal as plain data (``1 == 1.0``; a list
equals the tuple with the same items; ``True`` is not ``1``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from ._validate import exact_str
from .errors import InvalidInputError, InvalidTypeError

_MAX_DEPTH = 32
INT_MIN = -(2**63)  # the integers a value may be: what a msgpack snapshot can hold
INT_MAX = 2**64 - 1

#: A belief's value, as the API types it: plain data (what :func:`canon` accepts; lists and
#: tuples are its sequences, dicts with string keys its mappings).
Value: TypeAlias = None | bool | int | float | str | Sequence["Value"] | Mapping[str, "Value"]

#: Kinds that name reasoning steps, never premises or ledger entries.
STEP_KINDS = frozenset({"rule"})


#: The one key of an *end*'s value: ``{"$ended": reason}`` is the value a ``kb.end`` premise
#: gives its key, "no value from here on" (docs/model.md, "Ending a fact"). Sources cannot assert
#: it: a dict value with this key is refused where values come in (:func:`refuse_end`).
END_TAG = "$ended"


def end_value(reason: str | None) -> dict[str, Any]:
    """The value an end gives its key: ``{"$ended": reason}`` (``reason`` may be ``None``).

    >>> end_value("I no longer work at Acme"), is_end(end_value(None)), is_end({"a": 1})
    ({'$ended': 'I no longer work at Acme'}, True, False)
    """
    return {END_TAG: reason}


def is_end(value: Any) -> bool:
    """Whether ``value`` is an end's value (what reads show as "nothing held")."""
    return type(value) is dict and END_TAG in value and len(value) == 1


def end_reason(value: Any) -> str | None:
    """The reason an end's value carries (``None`` when none was given, or not an end)."""
    return value.get(END_TAG) if is_end(value) else None


def shown_value(value: Any) -> str:
    """A value as listings show it to a person: ``repr``, and an end as what it says.

    >>> shown_value("Acme"), shown_value(end_value("left")), shown_value(end_value(None))
    ("'Acme'", "ended ('left')", 'ended')
    """
    if not is_end(value):
        return repr(value)
    reason = end_reason(value)
    return "ended" if reason is None else f"ended ({reason!r})"


def refuse_end(value: Any) -> None:
    """Refuse a value that would read as an end: ``kb.end`` says that, not an assertion."""
    if type(value) is dict and END_TAG in value:
        raise InvalidInputError(f"{END_TAG!r} is reserved for ends (kb.end) and cannot be a "
                                "key of a dict value")


def check_key(key: object) -> str:
    """Validate a key: a non-empty string."""
    if type(key) is not str:
        if not isinstance(key, str):
            raise InvalidTypeError(f"a key must be a string, not {type(key).__name__}")
        key = exact_str(key)
    if not key or key.isspace():
        raise InvalidInputError("a key must be a non-empty string")
    if not key.isascii():
        check_text(key, "a key")
    return key


def check_text(text: str, what: str) -> str:
    """Refuse strings that cannot be written as UTF-8 (lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(f"{what} holds characters that cannot be saved (lone surrogates)") from None
    return text


def canon(value: Any, _depth: int = 0) -> Any:
    """A hashable identity for ``value``, validating it on the way.

    >>> canon([1, "a"]) == canon((1.0, "a"))
    True
    >>> canon(True) == canon(1)
    False
    """
    t = type(value)
    if t is str:
        if not value.isascii():
            check_text(value, "a value")
        return value
    if value is None:
        return value
    if t is bool:
        return ("__bool__", value)
    if t is int:
        if not INT_MIN <= value <= INT_MAX:
            raise InvalidInputError(f"an integer value must fit in 64 bits (snapshots), got {value!r}")
        return value
    if t is float:
        if not math.isfinite(value):
            raise InvalidInputError(f"a value must be finite, got {value!r}")
        return value
    if _depth > _MAX_DEPTH:
        raise InvalidInputError("a value is nested too deeply")
    # A member that is an ASCII string, a 64-bit integer or None is its own identity: taken
    # inline, without a call, for checking the values of a checkpoint's beliefs (opening a
    # session of small JSON memories) spent most of its time in these calls
    if isinstance(value, (list, tuple)):
        members = []
        for v in value:
            tv = type(v)
            if not ((tv is str and v.isascii()) or (tv is int and INT_MIN <= v <= INT_MAX)
                    or v is None):
                v = canon(v, _depth + 1)
            members.append(v)
        return ("__list__", tuple(members))
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if type(k) is not str or not k.isascii() or k == "$float":
                k = _dict_key(k)
            tv = type(v)
            if not ((tv is str and v.isascii()) or (tv is int and INT_MIN <= v <= INT_MAX)
                    or v is None):
                v = canon(v, _depth + 1)
            items.append((k, v))
        return ("__dict__", tuple(sorted(items)))
    if isinstance(value, bool):
        return ("__bool__", bool(value))
    if isinstance(value, int):
        return canon(int(value), _depth)
    if isinstance(value, float):
        return canon(float(value), _depth)
    if isinstance(value, str):
        return str(value)
    raise InvalidTypeError(
        f"a value must be plain data (None, bool, number, str, list, dict), not {t.__name__}"
    )


def _dict_key(k: object) -> str:
    """A dict value's key checked (a plain string, not the reserved tag, writable as UTF-8)."""
    if not isinstance(k, str):
        raise InvalidTypeError(f"dict values need string keys, got {type(k).__name__}")
    k = exact_str(k)
    if k == "$float":  # the tag JSON snapshots use for infinities
        raise InvalidInputError("'$float' is reserved and cannot be a dict key in a value")
    return check_text(k, "a dict key")


def plain(value: Any) -> Any:
    """``value`` as snapshot-safe plain data (tuples become lists, subclasses their base)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return {k: plain(v) for k, v in value.items()}

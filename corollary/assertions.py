"""What an assertion's arguments must be: one premise's, or rows of them for the bulk path.

Checked against the trust view alone (a source's kind; a tool's declared origin, half-life and
ttl): nothing here changes a belief, so a bad row found anywhere in a batch leaves the base as it
was. ``BeliefBase.assert_`` and ``BeliefBase.assert_many`` call these before anything changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._validate import plain_text
from .clock import Duration, to_seconds
from .errors import CorollaryError, InvalidInputError, InvalidTypeError, UnknownSourceError
from .policy import STEP_KINDS
from .trust import TrustView
from .values import INT_MAX, INT_MIN, canon, check_key, check_text

#: The fields of a row of ``BeliefBase.assert_many``, in order.
ROW_FIELDS = ("key", "value", "source", "origin", "half_life", "ttl")

#: A checked assertion: ``(key, value, vid, source, origin, half_life, ttl)``.
CheckedRow = tuple[str, Any, Any, str, str, "float | None", "float | None"]


def check_rows(trust: TrustView, rows: Iterable[Any]) -> tuple[list[tuple[Any, ...]], bool]:
    """Each row checked as ``BeliefBase.assert_`` checks its arguments, in order; the first bad
    row raises, naming its index. A checked row is ``(key, value, vid, source, origin,
    half_life, ttl)``, or the row itself when it is ``(key, value, source)`` with a value
    that is its own identity and no tool behind the source. Also returns whether every row is
    of the second form (the engine then adds new keys a run at a time)."""
    rows = rows if type(rows) is list else list(rows)
    start = 0
    if not trust.tools:
        start = _plain_prefix(trust, rows)
        if start == len(rows):
            return rows, True
    checked: list[tuple[Any, ...]] = rows[:start]
    append = checked.append
    for i in range(start, len(rows)):
        row = rows[i]
        try:
            if isinstance(row, Mapping):
                unknown = set(row) - set(ROW_FIELDS)
                if unknown:
                    raise InvalidInputError(f"unknown fields {sorted(map(str, unknown))}")
                missing = [f for f in ROW_FIELDS[:3] if f not in row]
                if missing:
                    raise InvalidInputError(f"missing fields {missing}")
                append(check_assertion(trust, *(row.get(f) for f in ROW_FIELDS)))
            elif isinstance(row, (tuple, list)):
                if not 3 <= len(row) <= len(ROW_FIELDS):
                    raise InvalidInputError(f"a row holds 3 to {len(ROW_FIELDS)} fields "
                                            f"({', '.join(ROW_FIELDS)}), not {len(row)}")
                append(check_assertion(trust, *row, *(None,) * (len(ROW_FIELDS) - len(row))))
            else:
                raise InvalidTypeError(f"a row is a tuple or a dict, not {type(row).__name__}")
        except (InvalidInputError, InvalidTypeError, UnknownSourceError) as exc:
            raise type(exc)(f"row {i}: {exc}") from exc
    return checked, False


def _plain_prefix(trust: TrustView, rows: list[Any]) -> int:
    """How many rows from the first are ``(key, value, source)`` tuples that need nothing
    but the check: an ascii key, a value that is its own identity (an ascii string, a finite
    float, an integer in range) and a known source that is no reasoning step. Checked inline,
    as most rows of a bulk load are such rows; the first other row is left to the full check,
    which says what is wrong with it."""
    plain: dict[Any, bool] = {}  # the sources seen here that may assert
    start = 0
    try:
        for start, row in enumerate(rows):  # noqa: B007 (start is read after the loop)
            if type(row) is not tuple:
                return start
            key, value, source = row  # ValueError: not three fields
            if type(source) is not str:  # (before the lookup: a str subclass or another
                return start             # object may hash and compare like a known source)
            if plain.get(source) is None:
                kind = trust.kinds.get(source)
                if kind is None:  # a source met for the first time
                    try:
                        kind = trust.kind_of(source)
                    except CorollaryError:
                        return start
                if kind in STEP_KINDS:
                    return start
                plain[source] = True
            if type(key) is not str or not key.isascii() or not key or key.isspace():
                return start
            t = type(value)
            if t is int:
                if not INT_MIN <= value <= INT_MAX:
                    return start
            elif t is str:
                if not value.isascii():
                    return start
            elif t is not float or value - value != 0.0:
                return start
    except ValueError:  # a tuple of other than three fields
        return start
    return len(rows)


def check_assertion(trust: TrustView, key: Any, value: Any, source: Any, origin: Any,
                half_life: Any, ttl: Any) -> CheckedRow:
    """``BeliefBase.assert_``'s arguments checked: ``(key, value, vid, source, origin, half_life,
    ttl)``, with the tool's declared defaults applied."""
    if type(key) is not str or not key or key.isspace() or not key.isascii():
        key = check_key(key)
    vid = value if type(value) is str and value.isascii() else canon(value)
    kind = trust.kinds.get(source) if type(source) is str else None
    if kind is None:  # a source not seen yet (or not a plain string)
        source = plain_text(source)
        trust.check_source(source, "rules derive, they don't assert")
    elif kind in STEP_KINDS:
        raise InvalidInputError(f"{source!r} is a reasoning step: rules derive, they don't assert")
    spec = trust.tool_of(source) if trust.tools else None
    if origin is None:
        origin = spec.origin if spec is not None and spec.origin else source
    elif not isinstance(origin, str) or not origin:
        raise InvalidInputError(f"origin must be a non-empty string, got {origin!r}")
    else:
        origin = check_text(plain_text(origin), "origin")
    hl = None if half_life is None else positive_seconds(half_life, "half_life")
    tl = None if ttl is None else positive_seconds(ttl, "ttl")
    if spec is not None:
        hl = spec.half_life if hl is None else hl
        tl = spec.ttl if tl is None else tl
    return key, value, vid, source, origin, hl, tl


def positive_seconds(value: Duration | None, name: str) -> float | None:
    """A duration in seconds that must be > 0 (``None`` stays ``None``)."""
    seconds = to_seconds(value, name)
    if seconds is not None and seconds <= 0:
        raise InvalidInputError(f"{name} must be > 0, got {value!r}")
    return seconds

"""Reading saved documents field by field (snapshots, ledger files, what they hold).

A :class:`Fields` reader checks one value against what the writer produces (its type, range,
finiteness) and raises :class:`~corollary.foundations.errors.SnapshotError` naming the file and the field
(``beliefs[3][1]``, ``ledger.outcomes[0].confidence``) on the first thing that is not. Readers
build nothing and change nothing: callers validate a whole document first, then build from it.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, NoReturn

from .errors import CorollaryError, SnapshotError
from .values import STEP_KINDS, canon, check_key, check_text

if TYPE_CHECKING:  # pragma: no cover
    from ..trust.policy import TrustPolicy

#: Bounds of integers a document may hold (counts, sequence numbers): what JSON readers
#: elsewhere hold exactly, and far beyond anything a base reaches.
MAX_INT = 2**53
_PLAIN_DEPTH = 32


# Fast tests of the common, valid field. A reader of many rows (a checkpoint's reasons: one a
# declared replacement) tests a field inline and calls its Fields check, which names the field
# in its error and so costs the name's formatting, only when the test says no. Each test
# accepts only what that check accepts unchanged.

def plain_key(value: Any) -> bool:
    """Whether :meth:`Fields.key` certainly accepts ``value`` as it is.

    >>> plain_key("user:1:routine"), plain_key(" "), plain_key(3)
    (True, False, False)
    """
    return type(value) is str and value.isascii() and value != "" and not value.isspace()


def plain_value(value: Any) -> bool:
    """Whether ``value`` is its own identity and :meth:`Fields.value` accepts it (ASCII text,
    a finite float).

    >>> plain_value("old"), plain_value(1.5), plain_value(float("nan")), plain_value([1])
    (True, True, False, False)
    """
    t = type(value)
    return (t is str and value.isascii()) or (t is float and math.isfinite(value))


def plain_unit(value: Any) -> bool:
    """Whether :meth:`Fields.unit` certainly accepts ``value`` as it is (a float in [0, 1]).

    >>> plain_unit(0.9), plain_unit(1), plain_unit(float("nan"))
    (True, False, False)
    """
    return type(value) is float and 0.0 <= value <= 1.0


def _kind(value: object) -> str:
    return type(value).__name__


class Fields:
    """Checks the fields of one document; ``where`` names it (a path) and ``what`` is its kind."""

    __slots__ = ("where", "what")

    def __init__(self, where: object, what: str) -> None:
        self.where = where
        self.what = what

    def fail(self, field: str, problem: str) -> NoReturn:
        raise SnapshotError(f"malformed {self.what}: {field} {problem}", self.where)

    # -- containers ----------------------------------------------------------------------
    def mapping(self, value: Any, field: str, required: Collection[str],
                optional: Collection[str] = ()) -> dict[str, Any]:
        """A dict with exactly the ``required`` keys, and any of the ``optional`` ones."""
        if not isinstance(value, dict):
            self.fail(field, f"must be a map, not {_kind(value)}")
        missing = [k for k in required if k not in value]
        if missing:
            self.fail(field, f"lacks {missing}")
        if len(value) != len(required):
            extra = [k for k in value if k not in required and k not in optional]
            if extra:
                self.fail(field, f"has unknown fields {', '.join(sorted(map(repr, extra)))}")
        return value

    def table(self, value: Any, field: str) -> dict[str, Any]:
        """A dict with string keys (any keys the caller checks itself)."""
        if not isinstance(value, dict):
            self.fail(field, f"must be a map, not {_kind(value)}")
        for k in value:
            if type(k) is not str:
                self.fail(field, f"has a key that is not a string: {k!r}")
        return value

    def items(self, value: Any, field: str, size: int | None = None) -> list[Any] | tuple[Any, ...]:
        """A list (a tuple too, from a caller's own data), of ``size`` items if given."""
        if type(value) is not list and not isinstance(value, (list, tuple)):
            self.fail(field, f"must be a list, not {_kind(value)}")
        if size is not None and len(value) != size:
            self.fail(field, f"must have {size} items, not {len(value)}")
        return value

    # -- scalars -------------------------------------------------------------------------
    def boolean(self, value: Any, field: str) -> bool:
        if type(value) is not bool:
            self.fail(field, f"must be true or false, not {value!r}")
        return value

    def integer(self, value: Any, field: str, lo: int = 0, hi: int = MAX_INT) -> int:
        if type(value) is not int:
            self.fail(field, f"must be an integer, not {_kind(value)}")
        if not lo <= value <= hi:
            self.fail(field, f"must be in [{lo}, {hi}], got {value!r}")
        return value

    def number(self, value: Any, field: str, *, lo: float = -math.inf, hi: float = math.inf,
               above: float | None = None, finite: bool = True) -> float:
        """A real number (an integer is taken as its float) in ``[lo, hi]``, ``> above``."""
        if type(value) is not float:
            if type(value) is not int:
                self.fail(field, f"must be a number, not {_kind(value)}")
            if not -MAX_INT <= value <= MAX_INT:  # beyond this a float would not hold it exactly
                self.fail(field, f"is an integer too large to be read exactly ({value!r:.40})")
            value = float(value)
        if value != value:
            self.fail(field, "must be a number, not NaN")
        if finite and not math.isfinite(value):
            self.fail(field, f"must be finite, got {value!r}")
        if not lo <= value <= hi or (above is not None and not value > above):
            bound = f"> {above}" if above is not None else f"in [{lo}, {hi}]"
            self.fail(field, f"must be {bound}, got {value!r}")
        return value

    def maybe_number(self, value: Any, field: str, **bounds: Any) -> float | None:
        return None if value is None else self.number(value, field, **bounds)

    def unit(self, value: Any, field: str) -> float:
        return self.number(value, field, lo=0.0, hi=1.0)

    def maybe_unit(self, value: Any, field: str) -> float | None:
        return None if value is None else self.unit(value, field)

    def duration(self, value: Any, field: str) -> float | None:
        """``None`` or a finite number of seconds > 0 (a half-life, a ttl)."""
        return None if value is None else self.number(value, field, above=0.0)

    def text(self, value: Any, field: str, *, empty: bool = False) -> str:
        if type(value) is not str:
            self.fail(field, f"must be a string, not {_kind(value)}")
        if not empty and not value:
            self.fail(field, "must be a non-empty string")
        if not value.isascii():
            self._wrap(check_text, value, field, field)
        return value

    def maybe_text(self, value: Any, field: str, *, empty: bool = False) -> str | None:
        return None if value is None else self.text(value, field, empty=empty)

    def key(self, value: Any, field: str) -> str:
        if type(value) is not str:
            self.fail(field, f"must be a key (a string), not {_kind(value)}")
        return self._wrap(check_key, value, field)  # type: ignore[no-any-return]

    def value(self, value: Any, field: str) -> Any:
        """Plain data (what a belief may hold); returns its identity (:func:`canon`)."""
        return self._wrap(canon, value, field)

    def source(self, value: Any, field: str, policy: TrustPolicy | None = None) -> str:
        """``kind:name``, not a reasoning step; with ``policy``, a kind it knows."""
        text = self.text(value, field)
        kind, sep, name = text.partition(":")
        if not sep or not kind or not name:
            self.fail(field, f"must be a source 'kind:name', got {text!r}")
        if kind in STEP_KINDS:
            self.fail(field, f"names a reasoning step ({text!r}), not a source")
        if policy is not None and kind not in policy.priors:
            self.fail(field, f"has a source kind the policy does not know ({text!r}; known: "
                             f"{', '.join(sorted(policy.priors))})")
        return text

    def data(self, value: Any, field: str, depth: int = 0) -> Any:
        """JSON-like data of any float (reports): None, bool, int, float, str, lists, maps."""
        t = type(value)
        if value is None or t is bool or t is float:
            return value
        if t is int:
            return self.integer(value, field, -(2**63), 2**64 - 1)
        if t is str:
            return self.text(value, field, empty=True)
        if depth >= _PLAIN_DEPTH:
            self.fail(field, "is nested too deeply")
        if t is list or t is tuple:
            for i, v in enumerate(value):
                self.data(v, f"{field}[{i}]", depth + 1)
            return value
        if t is dict:
            for k, v in self.table(value, field).items():
                self.text(k, f"{field} key", empty=True)
                self.data(v, f"{field}.{k}", depth + 1)
            return value
        self.fail(field, f"must be plain data, not {_kind(value)}")

    def _wrap(self, check: Any, value: Any, field: str, *args: Any) -> Any:
        try:
            return check(value, *args)
        except CorollaryError as exc:
            self.fail(field, f"is not valid: {exc}")

"""Hostile values and hypothesis strategies for fuzzing the public API, and the checks shared
by the hostile-argument tests.

The rule (docs/api.md, "Errors are typed"): a bad argument raises a
:class:`corollary.foundations.errors.CorollaryError` subclass and changes *nothing*. ``base_state`` is what
must not change (``kb.to_dict()`` minus ``taken_at``, and the ledger's outcomes);
``raises_typed`` checks the error's type. The fuzzers are ``tests/base/test_bad_input.py``
(a base), ``tests/trust/test_ledger.py`` (a ledger) and ``tests/promises/test_guarantee.py``
(calibrate()).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from corollary import BeliefBase, ManualClock
from corollary.foundations.errors import CorollaryError

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Raiser:
    """An object whose comparison and hash both blow up."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("broken __eq__")

    def __hash__(self) -> int:
        raise RuntimeError("broken __hash__")

    def __repr__(self) -> str:
        return "Raiser()"


class Liar:
    """An object equal to everything, with a constant hash."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "Liar()"


class BadStr(str):
    """A str subclass whose hash and comparison blow up."""

    def __hash__(self) -> int:
        raise RuntimeError("broken __hash__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("broken __eq__")


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


HUGE = 10**400
DEEP = _deep(1000)

# Hostile objects, for every position: the defects they found are fixed (tests below).
HOSTILE_ANY = [
    None, float("nan"), float("inf"), float("-inf"), -1, -1e300, 0, "", "   ", "\x00",
    "a\x00b", "é漢🙂\u200b", 3, (1, 2), ("a",), b"a", b"tool:x", [1], ["a"], {"a": 1}, {1: 2},
    {1, 2}, frozenset(), DEEP, Liar(), True, False, np.float64("nan"), np.float64(0.5),
    np.bool_(True), np.int64(1), timedelta(seconds=-1), timedelta(0), object(), 1j,
]
hostile = st.one_of(st.sampled_from(HOSTILE_ANY), st.just(HUGE),
                    st.builds(BadStr, st.sampled_from(["a", "tool:x", "t"])))
# st.builds: hypothesis hashes st.just / sampled_from values to label strategies
hostile_or_raiser = st.one_of(hostile, st.builds(Raiser))
# keys, sources and free text are never converted to numbers: HUGE is safe there
hostile_text = st.one_of(hostile_or_raiser, st.just(HUGE))

KEYS = ["a", "b", "c", "doc", "g"]
SOURCES = ["tool:x", "tool:y", "human:alice", "document:d", "model:m", "model:n", "assumption:z"]
BAD_SOURCES = ["tool", "alien:x", "rule:r", ":x", "tool:", "rule:", "TOOL:x", " tool:x", "human"]

keys = st.one_of(st.sampled_from(KEYS), st.sampled_from(KEYS), hostile_text,
                 st.text(max_size=4))
sources = st.one_of(st.sampled_from(SOURCES), st.sampled_from(SOURCES),
                    st.sampled_from(BAD_SOURCES), hostile_text)

# Values: plain data, with lone surrogates and the reserved "$float" dict key mixed in (both
# refused with a typed error).
safe_text = st.text(max_size=6)  # lone surrogates included: refused with a typed error
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([0, 1, 2, 3, 4, 2**64, -(2**63) - 1]),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["Austin", "hello world", ""]),
    safe_text,
)
plain_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(safe_text, st.just("$float")), inner, max_size=3),
    ),
    max_leaves=6,
)
values = st.one_of(plain_values, plain_values, hostile_text, st.just(_deep(40)))

durations = st.one_of(
    st.none(), st.sampled_from([1, 0.5, 60.0, 3600, timedelta(minutes=1), timedelta(days=2)]),
    st.floats(min_value=1e-300, max_value=1e9), hostile,
)
units = st.one_of(st.none(), st.floats(0, 1), st.sampled_from([0, 1, 1.0, 2, -0.5]), hostile)
reasons = st.one_of(st.none(), st.sampled_from(["stale", "wrong", ""]), hostile_text)


def formulas(names: list[str]) -> st.SearchStrategy[str]:
    """A small grammar of valid arithmetic over ``names``, plus a list of invalid formulas."""
    atoms = st.one_of(st.sampled_from(names or ["1"]),
                      st.sampled_from(["0", "1", "2", "0.5", "1e308", "10**30", "pi", "e"]))

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binop = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), inner)
        return st.one_of(
            binop.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda x: f"-{x}"),
            st.tuples(st.sampled_from(["abs", "sqrt", "log", "log10", "exp", "floor", "ceil"]),
                      inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(
                lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            st.tuples(inner, st.sampled_from([-5, 0, 5, -10**9, 10**9])).map(
                lambda t: f"round({t[0]}, {t[1]})"),
        )

    valid = st.recursive(atoms, grow, max_leaves=6)
    invalid = st.sampled_from([
        "", "   ", "a +", "a.real", "a[0]", "__import__('os')", "lambda: 1", "a if a else b",
        "[a]", "(a, b)", "a < b", "a and b", "not a", "~a", "a @ b", "a << 2", "'x'", "True",
        "1j", "a; a", "x := 1", "f'{a}'", "2 ** 1000", "9 ** 9 ** 9", "1 / 0", "log(0)",
        "sqrt(-1)", "abs()", "round(a, 1.5)", "max()", "exp(1000)", "unknown", "a\x00",
        "(" * 60 + "a" + ")" * 60, "-" * 300 + "1", "+".join(["a"] * 300), "a" * 2000,
        "min(a, b, key=a)", "round(a, b, c)", "é", "open('x')", "a.__class__",
    ])
    return st.one_of(valid, valid, invalid)


def base_state(kb: BeliefBase) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What a failed call must leave as it was: the snapshot minus ``taken_at``, and the
    ledger's outcomes."""
    data = kb.to_dict()
    data.pop("taken_at")
    return data, [o.to_dict() for o in kb.ledger.outcomes()]


def new_base(conflict_policy: Any = None) -> tuple[BeliefBase, ManualClock]:
    clock = ManualClock(1_000.0)
    kb = BeliefBase(clock=clock, conflict_policy=conflict_policy)
    kb.assert_("a", 2, source="tool:x")
    kb.assert_("b", 3.5, source="document:d")
    kb.assert_("doc", "hello world, revenue grew", source="document:d")
    return kb, clock


def raises_typed(call: Any, *args: Any, **kwargs: Any) -> None:
    """``call`` raises a :class:`CorollaryError` (a typed error)."""
    with pytest.raises(CorollaryError):
        call(*args, **kwargs)

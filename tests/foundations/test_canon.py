"""``canon`` takes a container's plain members (ASCII strings, 64-bit integers, None) inline:
it must accept and refuse exactly what the one-call-a-member definition does, with the same
identity and the same error (docs/model.md, "Values")."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.hostile import plain_values

from corollary.foundations.errors import InvalidInputError, InvalidTypeError
from corollary.foundations.values import INT_MAX, INT_MIN, canon


def reference(value: Any, depth: int = 0) -> Any:
    """The definition, one call a member (what canon computed before its inline members)."""
    t = type(value)
    if t is str:
        if not value.isascii():
            value.encode("utf-8")  # a lone surrogate raises (mapped below)
        return value
    if value is None:
        return value
    if t is bool:
        return ("__bool__", value)
    if t is int:
        if not INT_MIN <= value <= INT_MAX:
            raise InvalidInputError("64 bits")
        return value
    if t is float:
        if not math.isfinite(value):
            raise InvalidInputError("finite")
        return value
    if depth > 32:
        raise InvalidInputError("deep")
    if isinstance(value, (list, tuple)):
        return ("__list__", tuple(reference(v, depth + 1) for v in value))
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidTypeError("keys")
            k = str.__str__(k)
            if k == "$float":
                raise InvalidInputError("$float")
            k.encode("utf-8")
            items.append((k, reference(v, depth + 1)))
        return ("__dict__", tuple(sorted(items)))
    if isinstance(value, bool):
        return ("__bool__", bool(value))
    if isinstance(value, int):
        return reference(int(value), depth)
    if isinstance(value, float):
        return reference(float(value), depth)
    if isinstance(value, str):
        return str(value)
    raise InvalidTypeError("plain data")


def outcome(f: Any, value: Any) -> tuple[str, Any]:
    try:
        return "ok", f(value)
    except UnicodeEncodeError:
        return "refused", InvalidInputError
    except (InvalidInputError, InvalidTypeError) as exc:
        return "refused", type(exc)


class Text(str):
    pass


class Number(int):
    pass


def nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


MEMBERS = ["a", "é", "\ud800", Text("a"), 1, 2**64 - 1, 2**64, -(2**63) - 1, Number(3), True,
           None, 1.5, math.inf, math.nan, [], {}, (1, "x"), object()]


@pytest.mark.parametrize("member", MEMBERS, ids=repr)
@pytest.mark.parametrize("box", ["list", "tuple", "dict value", "dict key"])
def test_each_kind_of_member_inline_or_not_as_the_definition(member: Any, box: str) -> None:
    if box == "list":
        value: Any = [member, "b"]
    elif box == "tuple":
        value = ("b", member)
    elif box == "dict value":
        value = {"k": member, "j": 0}
    else:
        try:
            value = {member: 1, "z": None}
        except TypeError:  # unhashable: not a key
            return
    assert outcome(canon, value) == outcome(reference, value)


def test_the_reserved_key_and_the_depth_bound_are_refused_inline_too() -> None:
    for value in ({"$float": "inf"}, {Text("$float"): 1}, [{"a": {"$float": 1}}],
                  nested(33, 1), nested(33, "a"), nested(34, None), OrderedDict(b=1, a=2)):
        assert outcome(canon, value) == outcome(reference, value)
    assert outcome(canon, nested(33, 1))[0] == "ok"  # members past the bound are not containers
    assert outcome(canon, nested(34, 1))[0] == "refused"


@settings(max_examples=400, deadline=None)
@given(plain_values)
def test_any_plain_value_has_the_definitions_identity_or_error(value: Any) -> None:
    assert outcome(canon, value) == outcome(reference, value)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.one_of(st.sampled_from(MEMBERS[:13]), st.integers()),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.tuples(inner, inner),
                                            st.dictionaries(st.sampled_from(["a", "b", "é",
                                                                             "$float"]),
                                                            inner, max_size=3)),
                    max_leaves=12))
def test_members_of_every_kind_mixed(value: Any) -> None:
    assert outcome(canon, value) == outcome(reference, value)

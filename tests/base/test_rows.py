"""Rows of assert_many are parsed into one typed row, whatever their shape: a plain triple, a
longer tuple, a dict (corollary.facade.assertions)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from corollary import BeliefBase, ManualClock
from corollary.facade.assertions import (
    ROW_FIELDS,
    Row,
    check_assertion,
    check_rows,
    check_valid_time,
)

keys = st.sampled_from(["a", "b", "c", "é"])
values = st.one_of(st.integers(-5, 5), st.sampled_from(["x", "ÿ", 1.5]), st.booleans())
sources = st.sampled_from(["tool:a", "document:d", "human:h"])
extra = st.tuples(st.sampled_from([None, "origin:o"]), st.sampled_from([None, 30.0]),
                  st.sampled_from([None, 60.0]), st.sampled_from([None, 10.0]),
                  st.sampled_from([None, 20.0]))


@st.composite
def rows(draw: Any) -> Any:
    key, value, source = draw(keys), draw(values), draw(sources)
    shape = draw(st.sampled_from(["triple", "tuple", "dict"]))
    if shape == "triple":
        return (key, value, source)
    fields = (key, value, source, *draw(extra))
    if shape == "tuple":
        return fields[: draw(st.integers(4, 8))]
    return dict(zip(ROW_FIELDS, fields, strict=True))


@settings(max_examples=200, deadline=None)
@given(batch=st.lists(rows(), max_size=12))
def test_every_checked_row_is_the_row_assert_would_check(batch: list[Any]) -> None:
    trust = BeliefBase(clock=ManualClock(0)).parts.trust
    checked = check_rows(trust, batch)
    assert len(checked) == len(batch)
    assert checked.uniform == (checked.plain == len(batch))
    for i, given_row in enumerate(batch):
        args = ([given_row.get(f) for f in ROW_FIELDS] if isinstance(given_row, dict)
                else [*given_row, *(None,) * (len(ROW_FIELDS) - len(given_row))])
        row = checked.row(i)
        assert isinstance(row, Row)
        assert row == (*check_assertion(trust, *args[:6]), *check_valid_time(*args[6:]))
        # the plain prefix is kept as given (no copy), every later row is a Row already
        assert (checked.rows[i] is given_row) if i < checked.plain else (checked.rows[i] is row)
    assert list(checked) == [checked.row(i) for i in range(len(batch))]

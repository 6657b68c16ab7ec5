"""A checkpoint's reasons are checked inline for the common, valid row (docs/journal.md: a
checkpoint is a snapshot); the inline tests accept only what the field checks accept, so a
declared replacement round-trips as before and a malformed one is refused naming its field."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer, SnapshotError
from corollary.foundations._fields import Fields, plain_key, plain_unit, plain_value

SAMPLES: list[Any] = ["k", "user:1:routine", "", " ", "\t", "é", "\ud800", 0, 1, True, None,
                      0.0, 0.5, 1.0, 1.5, -0.1, math.nan, math.inf, -math.inf, [1], ("a",),
                      {"a": 1}, 2**70]


def accepts(check: Any, value: Any) -> Any:
    try:
        return (True, check(value, "field"))
    except SnapshotError:
        return (False, None)


@pytest.mark.parametrize("value", SAMPLES, ids=repr)
def test_an_inline_test_says_yes_only_where_the_check_accepts_the_value_as_it_is(value):
    f = Fields("here", "snapshot")
    for fast, check in ((plain_key, f.key), (plain_value, f.value), (plain_unit, f.unit)):
        if fast(value):
            assert accepts(check, value) == (True, value)


def replacing() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000_000.0), conflict_policy=PreferNewer())
    for i in range(3):
        kb.assert_(f"user:{i}:condition", "asthma", source="human:ann")
        kb.assert_(f"user:{i}:routine", "running", source="human:ann")
    kb.clock.advance(1)
    for i in range(3):
        kb.replace_when(f"user:{i}:routine", "cycling", f"user:{i}:condition", source="model:m")
    kb.assert_("user:1:condition", "knee injury", source="human:ann")
    return kb


def test_declared_replacements_load_as_they_were_saved():
    kb = replacing()
    back = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(1_000_001.0),
                                conflict_policy=PreferNewer())
    assert back.to_dict() == kb.to_dict()
    assert [back.value(f"user:{i}:routine") for i in range(3)] == ["running", "cycling",
                                                                    "running"]


def _replacement(doc: dict[str, Any]) -> tuple[int, list[Any]]:
    return next((j, row) for j, row in enumerate(doc["justifications"]) if "since" in row[5])


@pytest.mark.parametrize("what,edit,field", [
    ("a blank since", lambda row: row[5].update(since=" "), "[5].since"),
    ("a since that is a number", lambda row: row[5].update(since=3), "[5].since"),
    ("a replaced value that is NaN", lambda row: row[5].update(replaces=math.nan),
     "[5].replaces"),
    ("an infinite valid_from", lambda row: row[5].update(valid_from=math.inf),
     "[5].valid_from"),
    ("names that are text", lambda row: row[5].update(names="m"), "[5].names"),
    ("an exception holding NaN", lambda row: row[6].__setitem__(0, [row[6][0][0], math.nan]),
     "[6] (unless)[0][1]"),
    ("an exception of a blank key", lambda row: row[6].__setitem__(0, ["", "asthma"]),
     "[6] (unless)[0][0]"),
    ("a certainty of 2", lambda row: row[5].update(certainty=2.0), "[5].certainty"),
    ("a step confidence that is true", lambda row: row.__setitem__(4, True), "[4]"),
    ("an output that is a float", lambda row: row.__setitem__(2, 1.0), "[2]"),
    ("a row of six fields", lambda row: row.pop(), ""),
])
def test_a_malformed_replacement_row_is_refused_naming_its_field(what, edit, field):
    doc = copy.deepcopy(replacing().to_dict())
    j, row = _replacement(doc)
    edit(row)
    with pytest.raises(SnapshotError, match="malformed snapshot") as info:
        BeliefBase.from_dict(doc, clock=ManualClock(1_000_002.0), conflict_policy=PreferNewer())
    assert f"justifications[{j}]{field}" in str(info.value)

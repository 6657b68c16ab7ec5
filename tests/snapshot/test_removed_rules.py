"""A snapshot keeps the names of the rules its base removed and did not add again
(``removed_rules``, docs/journal.md "What a replay assumes"): ``rules=`` given to its load do
not bring them back, a rule it never had joins, and a snapshot without the field (every one
written before it, and every base that never removed a rule) loads as before."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, rule
from corollary.foundations.errors import SnapshotError


@rule(name="double_a", inputs={"a": "a"}, output="b")
def double_a(a: int) -> int:
    return a * 2


@rule(name="triple_a", inputs={"a": "a"}, output="c")
def triple_a(a: int) -> int:
    return a * 3


def _base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(10), rules=[double_a])
    kb.assert_("a", 2, source="tool:x")
    return kb


def test_a_removed_rule_is_kept_out_of_a_load_and_one_never_had_joins() -> None:
    kb = _base()
    kb.remove_rule(double_a)
    data = kb.to_dict()
    assert data["removed_rules"] == ["double_a"]
    back = BeliefBase.from_dict(data, rules=[double_a, triple_a])
    assert [r.name for r in back.rules] == ["triple_a"]
    assert back.value("b") is None and back.value("c") == 6
    assert back.to_dict()["removed_rules"] == ["double_a"]  # the next snapshot keeps it
    back.add_rule(double_a)
    assert back.value("b") == 4
    assert "removed_rules" not in back.to_dict()


def test_a_snapshot_without_the_field_loads_as_before() -> None:
    data = _base().to_dict()
    assert "removed_rules" not in data  # a base that never removed a rule writes what it did
    data["rules"], data["fired"] = [], {}
    data["justifications"] = []
    back = BeliefBase.from_dict(data, rules=[double_a])
    assert [r.name for r in back.rules] == ["double_a"] and back.value("b") == 4


def test_a_removed_rule_the_snapshot_uses_is_refused() -> None:
    data = _base().to_dict()
    data["removed_rules"] = ["double_a"]
    with pytest.raises(SnapshotError, match="removed_rules names a rule the snapshot uses"):
        BeliefBase.from_dict(data, rules=[double_a])
    data["removed_rules"] = "double_a"
    with pytest.raises(SnapshotError, match="removed_rules"):
        BeliefBase.from_dict(data, rules=[double_a])

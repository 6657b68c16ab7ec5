"""A new conflict policy is one class in one file (this one): defined as a ConflictPolicy
subclass with its own to_dict/from_dict, it decides conflicts in the sweep, is saved in a
snapshot under its class name, and comes back from ``kb.save``/``BeliefBase.load`` with its
settings; no corollary module names it (corollary/tms/conflicts.py registers every subclass)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from corollary import BeliefBase, ManualClock
from corollary.foundations._fields import Fields
from corollary.foundations.errors import InvalidInputError, SnapshotError
from corollary.tms.conflicts import POLICIES, ConflictPolicy, policy_from_dict, rivals_in


@attrs.frozen(slots=True)
class PreferNewest(ConflictPolicy):
    """The value with the most recent valid premise wins; values within ``grace`` seconds of it
    are left to the confidence sweep."""

    grace: float = 0.0
    mode = "newest"
    decides = True

    def before_sweep(self, engine: Any, region: set[Any], now: float) -> None:
        for standing in rivals_in(engine, region):
            newest = {r: max((p.at for p in r.premises if not p.expired(now)), default=-math.inf)
                      for r in standing}
            leader = max(standing, key=lambda r: (newest[r], -r.seq))
            for r in standing:
                if newest[r] < newest[leader] - self.grace:
                    r.defeated_by = leader

    def to_dict(self) -> dict[str, Any]:
        return {"policy": "PreferNewest", "grace": self.grace}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], f: Fields | None = None,
                  field: str = "conflicts", **unsaved: Any) -> ConflictPolicy | None:
        f = f or Fields(None, "conflict policy")
        f.mapping(data, field, ("policy", "grace"))
        return cls(f.number(data["grace"], f"{field}.grace", lo=0.0))


def newest_wins(clock: ManualClock) -> BeliefBase:
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewest(grace=5.0))
    kb.assert_("ceo", "Alice", source="human:board")  # the more trusted source, but older
    clock.advance(100)
    kb.assert_("ceo", "Bob", source="tool:crm")
    return kb


def test_the_new_policy_is_registered_under_its_class_name() -> None:
    assert POLICIES["PreferNewest"] is PreferNewest
    policy = PreferNewest(grace=5.0)
    assert policy.to_dict() == {"policy": "PreferNewest", "grace": 5.0}
    assert policy_from_dict(policy.to_dict()) == policy


def test_the_new_policy_decides_in_the_sweep() -> None:
    kb = newest_wins(ManualClock(0))
    assert kb.value("ceo") == "Bob"
    assert kb.conflicts() == []  # decided, not left open
    alice = kb.confidence("ceo", "Alice")
    assert alice == 0.0


def test_the_new_policy_survives_save_and_load(tmp_path: Path) -> None:
    clock = ManualClock(0)
    kb = newest_wins(clock)
    assert kb.to_dict()["conflicts"] == {"policy": "PreferNewest", "grace": 5.0}
    path = tmp_path / "kb.json"
    kb.save(path)
    loaded = BeliefBase.load(path, clock=clock)
    assert loaded.conflict_policy == PreferNewest(grace=5.0)
    assert loaded.value("ceo") == "Bob"
    assert loaded.confidence("ceo") == kb.confidence("ceo")
    clock.advance(100)
    loaded.assert_("ceo", "Carol", source="tool:crm")  # the restored policy keeps deciding
    assert loaded.value("ceo") == "Carol"
    assert BeliefBase.from_dict(loaded.to_dict(), clock=clock).value("ceo") == "Carol"


def test_a_malformed_saved_policy_names_its_field() -> None:
    clock = ManualClock(0)
    data = newest_wins(clock).to_dict()
    data["conflicts"]["grace"] = -1
    with pytest.raises(SnapshotError, match=r"conflicts\.grace must be in \[0\.0"):
        BeliefBase.from_dict(data, clock=clock)
    del data["conflicts"]["grace"]
    with pytest.raises(SnapshotError, match=r"conflicts lacks \['grace'\]"):
        BeliefBase.from_dict(data, clock=clock)


def test_a_second_policy_by_the_same_name_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="saved by its class name"):
        class PreferNewest(ConflictPolicy):  # another class, the same saved name
            pass
    assert POLICIES["PreferNewest"].__module__ == __name__
    assert POLICIES["PreferNewest"].__qualname__ == "PreferNewest"

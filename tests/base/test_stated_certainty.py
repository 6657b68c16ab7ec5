"""A certainty stated with an assertion (docs/model.md, "A stated certainty"): checked, kept per
premise, renewed with it, saved and restored by snapshots, refused when malformed there."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from corollary import BeliefBase, InvalidInputError, InvalidTypeError, ManualClock, SnapshotError


def _base() -> tuple[BeliefBase, ManualClock]:
    clock = ManualClock(0.0)
    return BeliefBase(clock=clock), clock


@pytest.mark.parametrize(("bad", "error"), [
    (0, InvalidInputError), (-0.1, InvalidInputError), (1.5, InvalidInputError),
    (math.nan, InvalidInputError), (math.inf, InvalidInputError),
    ("0.8", InvalidTypeError), (True, InvalidTypeError), ([0.8], InvalidTypeError),
])
def test_a_certainty_outside_zero_one_is_refused_and_nothing_changes(bad, error) -> None:
    kb, _ = _base()
    with pytest.raises(error, match="certainty"):
        kb.assert_("k", 1, source="tool:a", certainty=bad)
    assert "k" not in kb


def test_a_source_restating_replaces_its_certainty_and_one_of_one_is_no_certainty() -> None:
    kb, _ = _base()
    kb.assert_("k", 1, source="tool:a", certainty=0.5)
    assert kb.confidence("k") == pytest.approx(0.95 * 0.5)
    kb.assert_("k", 1, source="tool:a")  # asserted again without one: the plain premise
    assert kb.confidence("k") == pytest.approx(0.95)
    kb.assert_("k", 1, source="tool:a", certainty=1.0)
    assert kb.confidence("k") == pytest.approx(0.95)
    assert kb.engine.find("k", 1).premises[0].record[3] is None  # 1 is not kept


def test_the_best_premise_per_origin_counts_with_its_certainty() -> None:
    kb, _ = _base()
    kb.assert_("k", 1, source="tool:a", origin="feed", certainty=0.4)
    kb.assert_("k", 1, source="tool:b", origin="feed", certainty=0.6)
    assert kb.confidence("k") == pytest.approx(0.95 * 0.6)


@pytest.mark.parametrize("suffix", [".json", ".msgpack"])
def test_snapshots_keep_the_certainty(tmp_path: Path, suffix: str) -> None:
    kb, clock = _base()
    kb.assert_("a", 1, source="model:m", certainty=0.83, half_life=60)
    kb.assert_("b", 2, source="tool:t", certainty=0.25)
    kb.assert_("c", 3, source="tool:t")
    clock.advance(30)
    before = {k: kb.confidence(k) for k in "abc"}
    path = tmp_path / f"kb{suffix}"
    kb.save(path)
    back = BeliefBase.load(path, clock=ManualClock(30.0))
    assert {k: back.confidence(k) for k in "abc"} == before
    assert back.engine.find("b", 2).premises[0].certainty == 0.25
    assert back.engine.find("c", 3).premises[0].certainty == 1.0
    assert back.to_dict()["premises"] == kb.to_dict()["premises"]


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, "x", None])
def test_a_snapshot_with_a_malformed_certainty_is_refused(bad) -> None:
    kb, _ = _base()
    kb.assert_("b", 2, source="tool:t", certainty=0.25)
    doc = kb.to_dict()
    row = next(r for r in doc["premises"] if len(r) == 7)
    row[6] = bad
    with pytest.raises(SnapshotError, match="certainty"):
        BeliefBase.from_dict(json.loads(json.dumps(doc)))

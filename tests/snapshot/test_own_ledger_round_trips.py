"""A base that carries its own ledger keeps it inside its snapshots, however many times it is
saved and loaded (it used to be marked shared after the first load and dropped at the second)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_the_learned_reliability_survives_five_round_trips(tmp_path: Path, fmt: str) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    for i in range(20):
        kb.record_outcome("tool:t", i % 4 != 0)
    kb.assert_("x", 1, source="tool:t")
    learned = kb.reliability("tool:t")
    assert round(learned, 4) == 0.8167  # (10·0.95 + 15) / (10 + 20), not the prior 0.95
    for i in range(5):
        path = tmp_path / f"round{i}.{'json' if fmt == 'json' else 'cor'}"
        kb.save(path)
        kb = BeliefBase.load(path, clock=clock)
        assert not kb.shared_ledger
        assert kb.reliability("tool:t") == learned
        assert kb.confidence("x") == learned
        assert kb.to_dict()["ledger"] is not None

"""Adversarial review of journaled sessions (issue 19): a fresh open must reach the state of the
live base that wrote the journal. Here it does not when a change picks "the held value" of a key
(retract without a value, a claim's inputs, answer's verdict) and later outcomes in the ledger
change which value that is: the replay decides again with the ledger as it stands now."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.journal_workers import state

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, open_ledger


@pytest.fixture
def path(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "ledger.db"


def _open(path: Path, clock: ManualClock) -> BeliefBase:
    return BeliefBase.open_session(open_ledger(path), "s", clock=clock,
                                   conflict_policy=PreferHigherConfidence())


def _flip(kb: BeliefBase) -> None:
    """Outcomes that make document:b more reliable than tool:a (journaled changes too)."""
    for _ in range(30):
        kb.record_outcome("tool:a", False)
        kb.record_outcome("document:b", True)


def test_review_retract_without_a_value_replays_to_the_value_retracted_live(path: Path) -> None:
    clock = ManualClock(1000)
    kb = _open(path, clock)
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("hq", "Dallas", source="document:b")
    assert kb.value("hq") == "Austin"  # tool:a is the more confident
    kb.retract("hq")  # withdraws Austin
    _flip(kb)
    assert kb.value("hq") == "Dallas"
    fresh = _open(path, clock)
    # the replayed retract targets the value held *now* (Dallas) and withdraws it instead
    assert fresh.value("hq") == kb.value("hq")
    assert state(fresh) == state(kb)


def test_review_a_claim_replays_over_the_input_value_it_was_made_from(path: Path) -> None:
    clock = ManualClock(1000)
    kb = _open(path, clock)
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("hq", "Dallas", source="document:b")
    kb.claim("c", "x", source="model:m", inputs=["hq"], certainty=0.9)  # rests on Austin
    _flip(kb)
    assert kb.label("c") == "OUT"  # Austin lost, and c with it
    fresh = _open(path, clock)
    # the replayed claim rests on Dallas (held when replayed): IN in a fresh open
    assert fresh.label("c") == kb.label("c")
    assert state(fresh) == state(kb)


def test_review_an_answers_verdict_replays_as_it_was_given(path: Path) -> None:
    rng = np.random.default_rng(0)
    s = rng.random(2000)
    examples = list(zip(s.tolist(), (rng.random(2000) < s).tolist(), strict=True))
    clock = ManualClock(1000)
    kb = _open(path, clock)
    kb.guarantee("g", examples, max_error=0.1)
    kb.assert_("k", 1, source="tool:z")
    assert kb.answer("k", "g").status == "ok"
    for _ in range(30):
        kb.record_outcome("tool:z", False)
    fresh = _open(path, clock)
    # the replayed answer is recomputed with later outcomes: an abstention in the fresh open
    assert fresh.verdicts == kb.verdicts


def test_review_two_processes_agree_on_a_retract_made_before_outcomes(tmp_path: Path) -> None:
    """The same, across two ledger objects: B syncs after A's outcomes and disagrees with A."""
    path = tmp_path / "ledger.db"
    clock = ManualClock(1000)
    a = _open(path, clock)
    b = _open(path, clock)
    a.assert_("hq", "Austin", source="tool:a")
    a.assert_("hq", "Dallas", source="document:b")
    a.retract("hq")
    other = open_ledger(path)  # a third party's outcomes, straight into the shared ledger
    for _ in range(30):
        other.record_outcome("tool:a", False, at=1000.0)
        other.record_outcome("document:b", True, at=1000.0)
    b.sync()
    a.sync()
    assert state(b) == state(a)

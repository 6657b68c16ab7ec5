"""Valid time is saved with snapshots and journal entries; files and journals written before it
existed still open (docs/model.md, "Time and change")."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer, SnapshotError, open_ledger

DATA = Path(__file__).parent.parent / "data"
OAK = datetime(2024, 1, 2, tzinfo=timezone.utc)
PINE = datetime(2025, 3, 2, tzinfo=timezone.utc)
THEN = datetime(2024, 6, 1, tzinfo=timezone.utc)
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp()


def moved(kb: BeliefBase) -> BeliefBase:
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE, certainty=0.9)
    kb.assert_("lease", "A-7", source="tool:crm", valid_from=OAK, valid_until=PINE)
    return kb


@pytest.mark.parametrize("suffix", [".snap", ".json"])
def test_valid_time_survives_a_snapshot(tmp_path: Path, suffix: str) -> None:
    kb = moved(BeliefBase(clock=ManualClock(NOW), conflict_policy=PreferNewer(0.25)))
    path = tmp_path / f"base{suffix}"
    kb.save(path)
    back = BeliefBase.load(path, clock=ManualClock(NOW))
    assert back.conflict_policy == PreferNewer(0.25)
    for view in (back, back.at(THEN)):
        assert view.value("addr") == kb.at(view.t).value("addr") if view is not back else True
    assert back.value("addr") == "Pine Ave"
    assert back.at(THEN).value("addr") == "Oak St"
    assert back.label("lease") == "OUT" and back.at(THEN).value("lease") == "A-7"
    assert back.timeline("addr") == kb.timeline("addr")
    assert str(back.explain("addr")) == str(kb.explain("addr"))
    assert back.to_dict() == kb.to_dict()


def test_a_snapshot_written_before_valid_time_loads() -> None:
    # written by corollary before valid time (schema 3, premises of 6 and 7 columns)
    kb = BeliefBase.load(DATA / "snapshot_before_valid_time.json", clock=ManualClock(1000))
    assert kb.confidence("addr") == pytest.approx(0.987603305785124)
    assert kb.confidence("quote") == pytest.approx(0.95)
    assert kb.at(1000).value("addr") == "Oak St"
    assert kb.at(999).value("addr") is None  # it holds from when it was observed


def test_a_damaged_valid_time_is_refused(tmp_path: Path) -> None:
    kb = moved(BeliefBase(clock=ManualClock(NOW)))
    doc = kb.to_dict()
    rows = doc["premises"]
    row = next(r for r in rows if len(r) == 9)
    row[8] = row[7] - 1  # ends before it starts
    with pytest.raises(SnapshotError, match="valid until"):
        BeliefBase.from_dict(doc)


def test_a_journaled_session_replays_valid_time(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    clock = ManualClock(NOW)
    kb = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    clock.advance(1)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    kb.assert_many([("addr", "Elm Rd", "tool:geo", None, None, None, NOW + 10)])
    clock.advance(5)
    again = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
    assert again.value("addr") == "Pine Ave"
    assert again.at(THEN).value("addr") == "Oak St"
    assert again.at(NOW + 20).value("addr") == "Elm Rd"
    assert again.timeline("addr") == kb.timeline("addr")
    # what was believed at recording time t1 about world time t2
    history = kb.history("addr")
    assert [(h.valid_from, h.valid_until) for h in history] == [
        (OAK.timestamp(), None), (PINE.timestamp(), None), (NOW + 10, None)]
    first = history[0].time
    assert kb.as_of(first).at(THEN).value("addr") == "Oak St"
    assert kb.as_of(first).value("addr") == "Oak St"  # Pine Ave was not known yet
    assert kb.as_of(first + 1).value("addr") == "Pine Ave"
    ledger.close()

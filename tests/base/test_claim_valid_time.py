"""A claim's own valid time: ``kb.claim(..., valid_from=, valid_until=)`` (docs/model.md,
"Claims in time"). Outside its interval the claim does not count, inside it counts as any
claim; under ``PreferNewer`` a claim with a stated start competes in time as a premise does.
The worked numbers are docs/model.md's."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from corollary import (
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferNewer,
    SnapshotError,
    open_ledger,
)


def moved(email_source: str = "human:alice", margin: float = 0.2) -> BeliefBase:
    """docs/model.md's example: the CRM's old address, and a model reading a newer e-mail."""
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer(margin))
    kb.assert_("addr", "Oak St", "tool:crm", valid_from=100)
    kb.assert_("email", "I moved to Pine Ave", email_source, valid_from=300)
    kb.claim("addr", "Pine Ave", "model:m", inputs=["email"], certainty=0.9, valid_from=400)
    return kb


def test_a_claim_counts_inside_its_valid_time_only() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.claim("k", 1, "model:m", certainty=0.9, valid_from=200, valid_until=600)
    assert kb.label("k") == "OUT"  # it ended at 600, before now
    assert kb.at(100).label("k") == "OUT"  # not begun
    assert kb.at(200).confidence("k") == pytest.approx(0.81)  # 0.9 × 0.9, from its start
    assert kb.at(599).confidence("k") == pytest.approx(0.81)
    assert kb.at(600).label("k") == "OUT"  # the end is excluded, as a premise's


def test_a_claim_that_starts_later_begins_to_count_as_the_clock_reaches_it() -> None:
    clock = ManualClock(1000)
    kb = BeliefBase(clock=clock)
    kb.claim("k", 1, "model:m", certainty=0.9, valid_from=2000)
    assert kb.label("k") == "OUT"
    clock.advance(1000)
    assert (kb.label("k"), kb.confidence("k")) == ("IN", pytest.approx(0.81))


def test_a_claim_whose_end_comes_goes_out_by_itself_and_its_proof_says_why() -> None:
    clock = ManualClock(1000)
    kb = BeliefBase(clock=clock)
    kb.claim("k", 1, "model:m", certainty=0.9, valid_from=200, valid_until=1500)
    assert (kb.label("k"), kb.confidence("k")) == ("IN", pytest.approx(0.81))
    clock.advance(600)
    assert kb.label("k") == "OUT"
    assert str(kb.explain("k")).splitlines()[1] == (
        "└─ model judgement by model:m: step 0.81 = reliability 0.9 × certainty 0.9; valid "
        "1970-01-01T00:03:20Z → 1970-01-01T00:25:00Z (not valid now)")
    assert kb.at(1400).confidence("k") == pytest.approx(0.81)


def test_a_datetime_is_taken_and_a_naive_one_or_a_bad_interval_refused() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.claim("k", 1, "model:m", valid_from=datetime(1970, 1, 1, 0, 1, tzinfo=timezone.utc))
    assert kb.timeline("k")[0].valid_from == 60.0
    with pytest.raises(InvalidInputError, match="naive"):
        kb.claim("j", 1, "model:m", valid_from=datetime(1970, 1, 1))  # noqa: DTZ001
    with pytest.raises(InvalidInputError, match="must come after"):
        kb.claim("j", 1, "model:m", valid_from=500, valid_until=500)
    with pytest.raises(InvalidTypeError):
        kb.claim("j", 1, "model:m", valid_from="soon")
    assert "j" not in kb.keys()  # nothing half-made


def test_a_newer_claim_supersedes_an_older_premise() -> None:
    kb = moved()
    # strength 0.9 × 0.9 × 0.99 = 0.8019 >= 0.95 - 0.2: the newer claim holds
    assert (kb.value("addr"), kb.confidence("addr")) == ("Pine Ave", pytest.approx(0.8019))
    assert kb.label("addr", "Oak St") == "OUT"
    assert kb.at(350).value("addr") == "Oak St" and kb.at(450).value("addr") == "Pine Ave"
    assert [(t.value, t.valid_from, t.valid_until, t.status, t.superseded_by)
            for t in kb.timeline("addr")] == [
        ("Oak St", 100.0, 400.0, "superseded", "Pine Ave"), ("Pine Ave", 400.0, None, "held", None)]
    proof = str(kb.explain("addr"))
    assert "supersedes 'Oak St' (valid 1970-01-01T00:01:40Z → 1970-01-01T00:06:40Z)" in proof
    assert "valid 1970-01-01T00:06:40Z → now" in proof  # the claim's own interval
    assert kb.ledger.outcomes() == []  # supersession blames nobody


def test_a_weak_newer_claim_stays_an_open_conflict() -> None:
    # the e-mail from document:email (0.9): 0.9 × 0.9 × 0.9 = 0.729 < 0.95 - 0.2 = 0.75
    kb = moved("document:email")
    (conflict,) = kb.conflicts()
    assert sorted((c.value, round(c.confidence, 4)) for c in conflict.candidates) == [
        ("Oak St", 0.95), ("Pine Ave", 0.729)]
    # a wider margin lets it through: 0.729 >= 0.95 - 0.3
    assert moved("document:email", 0.3).value("addr") == "Pine Ave"


def test_an_older_claim_arriving_later_is_superseded_at_once() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("addr", "Pine Ave", "tool:crm", valid_from=500)
    kb.claim("addr", "Oak St", "model:m", certainty=0.9, valid_from=100)
    assert kb.value("addr") == "Pine Ave" and kb.label("addr", "Oak St") == "OUT"
    assert kb.at(300).value("addr") == "Oak St"  # true in its own time


def test_a_claim_with_no_stated_start_is_dated_through_its_inputs() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", "tool:crm", valid_from=100)
    kb.assert_("email", "I moved to Pine Ave", "human:alice", valid_from=300)
    kb.claim("addr", "Pine Ave", "model:m", inputs=["email"], certainty=0.9, valid_until=5000)
    assert kb.value("addr") == "Pine Ave"  # began with the e-mail, at 300
    assert [(t.value, t.valid_until) for t in kb.timeline("addr")] == [
        ("Oak St", 300.0), ("Pine Ave", None)]


@pytest.mark.parametrize("suffix", [".snap", ".json"])
def test_a_claims_valid_time_survives_a_snapshot(tmp_path: Path, suffix: str) -> None:
    kb = moved()
    path = tmp_path / f"base{suffix}"
    kb.save(path)
    back = BeliefBase.load(path, clock=ManualClock(1000))
    assert back.value("addr") == "Pine Ave" and back.at(350).value("addr") == "Oak St"
    assert back.timeline("addr") == kb.timeline("addr")
    assert str(back.explain("addr")) == str(kb.explain("addr"))
    assert back.to_dict() == kb.to_dict()


def test_a_snapshot_of_claims_without_valid_time_loads_as_before() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("email", "I moved to Pine Ave", "human:alice")
    kb.claim("addr", "Pine Ave", "model:m", inputs=["email"], certainty=0.9)
    doc = kb.to_dict()
    (row,) = doc["justifications"]
    assert "valid_from" not in row[5]  # a claim's info as files before claims took a valid time
    back = BeliefBase.from_dict(doc, clock=ManualClock(1000))
    assert back.confidence("addr") == pytest.approx(0.9 * 0.9 * 0.99)


def test_a_damaged_claim_valid_time_is_refused() -> None:
    doc = moved().to_dict()
    row = next(r for r in doc["justifications"] if "valid_from" in r[5])
    row[5]["valid_until"] = row[5]["valid_from"]
    with pytest.raises(SnapshotError, match="valid_until"):
        BeliefBase.from_dict(doc)
    row[5]["valid_until"] = "later"
    with pytest.raises(SnapshotError, match="valid_until"):
        BeliefBase.from_dict(doc)


def test_a_journaled_session_replays_a_claims_valid_time(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000),
                                 conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", "tool:crm", valid_from=100)
    kb.assert_("email", "I moved to Pine Ave", "human:alice", valid_from=300)
    kb.claim("addr", "Pine Ave", "model:m", inputs=["email"], certainty=0.9,
             valid_from=datetime(1970, 1, 1, 0, 6, 40, tzinfo=timezone.utc))
    again = BeliefBase.open_session(open_ledger(tmp_path / "l.db"), "s",
                                    clock=ManualClock(1000), conflict_policy=PreferNewer())
    assert again.value("addr") == "Pine Ave" and again.at(350).value("addr") == "Oak St"
    assert again.timeline("addr") == kb.timeline("addr")
    (row,) = [h for h in again.history("addr") if h.operation == "claim"]
    assert (row.value, row.valid_from, row.valid_until) == ("Pine Ave", 400.0, None)

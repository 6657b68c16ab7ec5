"""Issue 35, item 1: ending a fact (``kb.end``), distinct from retracting it and from replacing
it. The worked numbers of docs/model.md, "Ending a fact", each a test here. Before: no way for
a fact to simply stop holding (``kb.end`` did not exist), and retracting the newest value
brought the older one back."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    PreferNewer,
    PreferSource,
    open_ledger,
    rule,
)
from corollary.foundations.errors import (
    AmbiguousValueError,
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
    UnknownSourceError,
)

ROOT = Path(__file__).resolve().parents[2]
QUOTE = "I no longer work at Acme"


def day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=timezone.utc).timestamp()


def ann(margin: float = 0.2) -> BeliefBase:
    """A human (0.99) said Ann works at Acme from 2024-01-02; it is 2026-06-01 now."""
    kb = BeliefBase(clock=ManualClock(day(2026, 6, 1)), conflict_policy=PreferNewer(margin))
    kb.assert_("ann:employer", "Acme", source="human:ann", valid_from=day(2024, 1, 2))
    return kb


def test_an_end_leaves_nothing_held_from_its_time_on_and_the_past_reads_as_it_was() -> None:
    kb = ann()
    kb.end("ann:employer", "Acme", source="human:ann", at=day(2026, 3, 1), reason=QUOTE)
    assert kb.value("ann:employer") is None
    assert kb.value("ann:employer", "none") == "none"
    assert (kb.label("ann:employer"), kb.confidence("ann:employer")) == ("OUT", 0.0)
    assert (kb.label("ann:employer", "Acme"), kb.confidence("ann:employer", "Acme")) == ("OUT", 0.0)
    before = kb.at(day(2026, 2, 1))
    assert (before.value("ann:employer"), before.confidence("ann:employer")) == ("Acme", 0.99)
    assert kb.at(day(2026, 3, 1)).value("ann:employer") is None  # the instant itself is ended
    assert kb.beliefs() == [] and kb.project() == {}
    assert kb.recall("where does ann work employer Acme") == []


def test_the_proof_says_ended_at_when_by_whom_and_why() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=datetime(2026, 3, 1, tzinfo=timezone.utc),
           reason=QUOTE)
    held = str(kb.explain("ann:employer")).splitlines()
    assert held[0] == ("ann:employer ended at 2026-03-01 by human:ann "
                       "('I no longer work at Acme') [IN 0.99]")
    assert held[1] == "ends 'Acme' (valid 2024-01-02 → 2026-03-01)"
    old = str(kb.explain("ann:employer", "Acme")).splitlines()[0]
    assert old == ("ann:employer = 'Acme' [OUT] ended at 2026-03-01 by human:ann "
                   "('I no longer work at Acme') (valid 2024-01-02 → 2026-03-01)")


def test_the_timeline_shows_the_end_and_bounds_the_value() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1), reason=QUOTE)
    acme, end = kb.timeline("ann:employer")
    assert (acme.value, acme.valid_from, acme.valid_until, acme.status) == (
        "Acme", day(2024, 1, 2), day(2026, 3, 1), "superseded")
    assert (end.valid_from, end.valid_until, end.status, end.confidence, end.sources) == (
        day(2026, 3, 1), None, "ended", 0.99, ("human:ann",))
    assert acme.superseded_by == end.value == {"$ended": QUOTE}


def test_retracting_the_end_brings_back_what_it_ended() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))
    kb.retract("ann:employer", source="human:ann")  # the end holds: retracting the key takes it
    assert (kb.value("ann:employer"), kb.confidence("ann:employer")) == ("Acme", 0.99)
    assert [e.status for e in kb.timeline("ann:employer")] == ["held", "out"]


def test_a_new_value_after_the_end_holds_and_the_gap_holds_nothing() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))
    kb.assert_("ann:employer", "Globex", source="human:ann", valid_from=day(2026, 4, 1))
    assert kb.value("ann:employer") == "Globex"
    assert kb.at(day(2026, 3, 15)).value("ann:employer") is None
    assert kb.at(day(2025, 3, 15)).value("ann:employer") == "Acme"
    assert [(e.status, e.valid_until) for e in kb.timeline("ann:employer")] == [
        ("superseded", day(2026, 3, 1)), ("superseded", day(2026, 4, 1)), ("held", None)]


def test_an_end_told_late_for_a_time_before_a_newer_value_ends_only_the_older_one() -> None:
    kb = ann()
    kb.assert_("ann:employer", "Globex", source="human:ann", valid_from=day(2026, 4, 1))
    kb.end("ann:employer", "Acme", source="human:ann", at=day(2026, 3, 1))
    assert kb.value("ann:employer") == "Globex"
    assert kb.at(day(2026, 3, 15)).value("ann:employer") is None


def test_the_margin_a_far_less_trusted_end_stays_an_open_conflict() -> None:
    kb = ann()
    kb.end("ann:employer", source="assumption:guess", at=day(2026, 3, 1))  # 0.6 < 0.99 - 0.2
    with pytest.raises(AmbiguousValueError):
        kb.value("ann:employer")
    (conflict,) = kb.conflicts()
    assert [c.confidence for c in conflict.candidates] == [0.99, 0.6]
    assert "open conflict with ended at 2026-03-01 by assumption:guess (0.60)" in str(
        kb.explain("ann:employer", "Acme"))
    wide = ann(margin=0.4)  # 0.6 >= 0.99 - 0.4: it ends
    wide.end("ann:employer", source="assumption:guess", at=day(2026, 3, 1))
    assert wide.value("ann:employer") is None and wide.conflicts() == []


def test_a_document_ends_a_tool_s_value_at_its_own_confidence() -> None:
    kb = BeliefBase(clock=ManualClock(day(2026, 6, 1)), conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=day(2024, 1, 2))
    kb.end("addr", source="document:email", at=day(2025, 3, 2))  # 0.9 >= 0.95 - 0.2
    assert kb.value("addr") is None
    assert [e.confidence for e in kb.timeline("addr")] == [0.0, 0.9]


def test_an_end_at_a_time_before_the_value_began_changes_nothing_now() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2023, 1, 1))
    assert kb.value("ann:employer") == "Acme"
    assert kb.at(day(2023, 6, 1)).value("ann:employer") is None


def test_a_certainty_and_a_default_time_of_now() -> None:
    kb = ann()
    kb.end("ann:employer", source="model:reader", certainty=0.9)  # 0.9 x 0.9 = 0.81 >= 0.79
    (_, end) = kb.timeline("ann:employer")
    assert (end.valid_from, round(end.confidence, 4)) == (day(2026, 6, 1), 0.81)
    assert kb.value("ann:employer") is None


def test_history_names_the_end_operation() -> None:
    kb = BeliefBase.open_session(open_ledger(":memory:"), "s", clock=ManualClock(day(2026, 6, 1)),
                                 conflict_policy=PreferNewer())
    kb.assert_("ann:employer", "Acme", source="human:ann", valid_from=day(2024, 1, 2))
    kb.end("ann:employer", "Acme", source="human:ann", at=day(2026, 3, 1), reason=QUOTE)
    row = kb.history("ann:employer")[-1]
    assert (row.operation, row.key, row.value, row.source) == (
        "end", "ann:employer", "Acme", "human:ann")


def test_a_rule_does_not_fire_on_an_end_and_its_conclusion_goes_out() -> None:
    @rule(inputs={"employer": "ann:employer"}, output="ann:has_job", name="end_test_has_job")
    def has_job(employer: Any) -> bool:
        assert not isinstance(employer, dict), employer  # an end is no value
        return True

    kb = ann()
    kb.add_rule(has_job)
    assert kb.value("ann:has_job") is True
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))
    assert kb.label("ann:has_job") == "OUT"


def test_an_exception_on_any_value_of_a_key_is_not_held_by_an_end() -> None:
    kb = ann()
    kb.assert_("doc:mail", "Ann is looking for work", source="document:mail")
    kb.claim("ann:looking", True, "model:reader", inputs=["doc:mail"], unless=["ann:employer"])
    assert kb.label("ann:looking") == "OUT"
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))
    assert kb.value("ann:looking") is True


def test_a_claim_cannot_read_an_ended_key() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))
    with pytest.raises(UnknownBeliefError, match="holds no value"):
        kb.claim("ann:sector", "chemicals", "model:reader", inputs=["ann:employer"])


@pytest.mark.parametrize("call, error", [
    (lambda kb: kb.end("bob:employer", source="human:ann"), UnknownBeliefError),
    (lambda kb: kb.end("ann:employer", "Globex", source="human:ann"), UnknownBeliefError),
    (lambda kb: kb.end("ann:employer", source="human:ann", at=math.nan), InvalidInputError),
    (lambda kb: kb.end("ann:employer", source="human:ann", at=math.inf), InvalidInputError),
    (lambda kb: kb.end("ann:employer", source="human:ann", at=datetime(2026, 3, 1)),
     InvalidInputError),
    (lambda kb: kb.end("ann:employer", source="human:ann", at=True), InvalidTypeError),
    (lambda kb: kb.end("ann:employer", source="human:ann", at="2026-03-01"), InvalidTypeError),
    (lambda kb: kb.end("ann:employer", source="human:ann", reason=3), InvalidTypeError),
    (lambda kb: kb.end("ann:employer", source="human:ann", certainty=2), InvalidInputError),
    (lambda kb: kb.end("ann:employer", source="wizard:merlin"), UnknownSourceError),
    (lambda kb: kb.end("ann:employer", source="rule:r"), InvalidInputError),
    (lambda kb: kb.end("ann:employer", "Acme", source="human:ann", at=day(2023, 1, 1)),
     InvalidInputError),  # Acme did not hold then: nothing of it to end
    (lambda kb: kb.assert_("ann:employer", {"$ended": None}, source="human:ann"),
     InvalidInputError),
    (lambda kb: kb.assert_many([("ann:employer", {"$ended": "x"}, "human:ann")]),
     InvalidInputError),
    (lambda kb: kb.claim("k", {"$ended": None}, "model:m"), InvalidInputError),
])
def test_bad_input_is_refused_and_changes_nothing(call: Any, error: type[Exception]) -> None:
    kb = ann()
    before = kb.to_dict()
    with pytest.raises(error):
        call(kb)
    assert kb.to_dict() == before


@pytest.mark.parametrize("policy", [PreferHigherConfidence(), PreferSource(["human"])])
def test_a_policy_that_decides_by_something_else_refuses_an_end(policy: Any) -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=policy)
    kb.assert_("k", 1, source="human:ann")
    before = kb.to_dict()
    with pytest.raises(InvalidInputError, match="PreferNewer"):
        kb.end("k", source="human:ann")
    assert kb.to_dict() == before


def no_policy() -> BeliefBase:
    """Acme from 2024-01-02, said by Ann (0.99) and a CRM tool (0.95); no conflict policy."""
    kb = BeliefBase(clock=ManualClock(day(2026, 6, 1)))
    kb.assert_("ann:employer", "Acme", source="human:ann", valid_from=day(2024, 1, 2))
    kb.assert_("ann:employer", "Acme", source="tool:crm", valid_from=day(2024, 1, 2))
    return kb


def test_with_no_policy_an_end_bounds_what_it_ends_and_keeps_it() -> None:
    kb = no_policy()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1), reason=QUOTE)
    assert (kb.value("ann:employer"), kb.label("ann:employer", "Acme")) == (None, "OUT")
    assert kb.at(day(2026, 2, 1)).value("ann:employer") == "Acme"  # Ann's premise was kept
    assert [(e.status, e.valid_until) for e in kb.timeline("ann:employer")] == [
        ("superseded", day(2026, 3, 1)), ("ended", None)]
    assert str(kb.explain("ann:employer", "Acme")).splitlines()[0].startswith(
        "ann:employer = 'Acme' [OUT] ended at 2026-03-01 by human:ann")
    kb.assert_("ann:employer", "Globex", source="human:ann", valid_from=day(2026, 4, 1))
    assert kb.value("ann:employer") == "Globex"  # the end is kept: Acme does not come back
    assert kb.at(day(2026, 3, 15)).value("ann:employer") is None
    kb.retract("ann:employer", "Globex")
    kb.retract("ann:employer", {"$ended": QUOTE})
    assert kb.value("ann:employer") == "Acme"


def test_with_no_policy_other_values_stay_independent_and_a_weak_end_is_open() -> None:
    kb = no_policy()
    kb.assert_("ann:employer", "Initech", source="document:cv", valid_from=day(2025, 1, 1))
    with pytest.raises(AmbiguousValueError):  # no policy: Acme and Initech stand together
        kb.value("ann:employer")
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))  # ends both
    assert kb.value("ann:employer") is None
    weak = no_policy()
    weak.end("ann:employer", source="assumption:guess", at=day(2026, 3, 1))  # 0.6 < 0.9995-0.2
    assert sorted(map(repr, weak.conflicts()[0].values)) == ["'Acme'", "{'$ended': None}"]


def test_an_end_survives_snapshots(tmp_path: Path) -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1), reason=QUOTE)
    for path in (tmp_path / "kb.msgpack", tmp_path / "kb.json"):
        kb.save(path)
        back = BeliefBase.load(path, clock=ManualClock(day(2026, 6, 1)))
        assert back.value("ann:employer") is None
        assert back.at(day(2026, 2, 1)).value("ann:employer") == "Acme"
        assert str(back.explain("ann:employer")) == str(kb.explain("ann:employer"))
        back.retract("ann:employer", source="human:ann")
        assert back.value("ann:employer") == "Acme"
    again = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(day(2026, 6, 1)))
    assert again.value("ann:employer") is None


def test_a_journaled_end_is_one_entry_replayed_in_another_process(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    now = day(2026, 6, 1)
    with open_ledger(path) as ledger:
        clock = ManualClock(now - 60)
        kb = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
        kb.assert_("ann:employer", "Acme", source="human:ann", valid_from=day(2024, 1, 2))
        clock.advance(60)
        kb.end("ann:employer", source="human:ann",
               at=datetime(2026, 3, 1, tzinfo=timezone.utc), reason=QUOTE)
        assert [h.operation for h in kb.history()] == ["assert_", "end"]
        assert kb.as_of(now - 1).value("ann:employer") == "Acme"  # before the end was told
    script = textwrap.dedent(f"""
        from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger
        with open_ledger({str(path)!r}) as ledger:
            kb = BeliefBase.open_session(ledger, "s", clock=ManualClock({now!r}),
                                         conflict_policy=PreferNewer())
            print(kb.value("ann:employer", "nothing"), kb.at({day(2026, 2, 1)!r}).value(
                "ann:employer"), kb.journal_seq)
            print(str(kb.explain("ann:employer")).splitlines()[0])
    """)
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    lines = ran.stdout.splitlines()
    assert lines[0].split() == ["nothing", "Acme", "2"], ran.stderr
    assert lines[1] == ("ann:employer ended at 2026-03-01 by human:ann "
                        "('I no longer work at Acme') [IN 0.99]")


def test_an_end_at_the_source_s_own_start_is_a_retraction_and_is_refused() -> None:
    kb = ann()
    before = kb.to_dict()
    with pytest.raises(InvalidInputError, match="retract it instead"):
        kb.end("ann:employer", source="human:ann", at=day(2024, 1, 2))
    assert kb.to_dict() == before
    kb.end("ann:employer", source="tool:hr", at=day(2024, 1, 2))  # another source: an end,
    with pytest.raises(AmbiguousValueError):  # which began with Acme: not ordered in time
        kb.value("ann:employer")


def test_two_sources_ending_for_one_reason_agree_and_confirm_each_other() -> None:
    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1))
    kb.end("ann:employer", source="tool:hr", at=day(2026, 3, 1))
    (_, end) = kb.timeline("ann:employer")
    assert end.sources == ("human:ann", "tool:hr")
    # a right outcome each (10.9/11 and 10.5/11), then noisy-OR: 1 - (1/110)(1/22)
    assert end.confidence == pytest.approx(1 - 1 / 110 / 22)
    assert sorted((o.source, o.correct) for o in kb.ledger.outcomes()) == [
        ("human:ann", True), ("tool:hr", True)]
    kb.retract("ann:employer", end.value)  # the end's value, from the timeline: both go
    assert kb.value("ann:employer") == "Acme"


def test_an_end_from_a_tool_with_a_ttl_expires_and_the_value_is_back() -> None:
    from corollary import tool

    @tool(ttl=60, name="end_test_hr")
    def hr() -> None:
        return None

    kb = ann()
    kb.add_tool(hr)
    kb.end("ann:employer", source="tool:end_test_hr", at=day(2026, 3, 1))
    assert kb.value("ann:employer") is None
    kb.clock.advance(60)  # type: ignore[attr-defined]
    assert kb.value("ann:employer") == "Acme"


def test_the_agent_s_mark_of_an_ended_value_says_ended() -> None:
    from corollary.agent.marks import superseded_mark

    kb = ann()
    kb.end("ann:employer", source="human:ann", at=day(2026, 3, 1), reason=QUOTE)
    assert superseded_mark(kb.timeline("ann:employer")[0]) == (
        'ended ("I no longer work at Acme") (valid 2024-01-02 → 2026-03-01)')

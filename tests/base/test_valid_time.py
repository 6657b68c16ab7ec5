"""Valid time and supersession through the public API: every worked number of docs/model.md,
"Time and change", is a test here."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from corollary import (
    AmbiguousValueError,
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferNewer,
    TrustLedger,
    rule,
    tool,
)
from corollary.foundations.clock import parse_instant, to_instant


def day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=timezone.utc).timestamp()


NOW = day(2026, 1, 1)
OAK, PINE = day(2024, 1, 2), day(2025, 3, 2)


def base(**kw: object) -> BeliefBase:
    kw.setdefault("conflict_policy", PreferNewer())
    return BeliefBase(clock=ManualClock(NOW), **kw)  # type: ignore[arg-type]


def moved() -> BeliefBase:
    kb = base()
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    return kb


def outcomes(kb: BeliefBase) -> int:
    return len(kb.ledger.outcomes())


# -- the address that changed ------------------------------------------------------------------
def test_the_newer_value_holds_now_and_the_older_at_its_time() -> None:
    kb = moved()
    assert kb.value("addr") == "Pine Ave"
    assert kb.confidence("addr") == pytest.approx(0.90)
    assert kb.label("addr", "Oak St") == "OUT"
    then = kb.at(day(2024, 6, 1))
    assert then.value("addr") == "Oak St"
    assert then.confidence("addr") == pytest.approx(0.95)
    assert then.label("addr", "Pine Ave") == "OUT"
    assert kb.value("addr") == "Pine Ave"  # the view left the base as it was
    assert kb.conflicts() == []


def test_the_proof_names_what_a_value_supersedes() -> None:
    kb = moved()
    text = str(kb.explain("addr")).splitlines()
    assert text[0] == "addr = 'Pine Ave' [IN 0.90]"
    assert text[1] == "supersedes 'Oak St' (valid 2024-01-02 → 2025-03-02)"
    old = str(kb.explain("addr", "Oak St")).splitlines()[0]
    assert old == ("addr = 'Oak St' [OUT] superseded by 'Pine Ave' "
                   "(valid 2024-01-02 → 2025-03-02)")
    tree = kb.explain("addr").to_dict()
    assert tree["supersedes"] == [{"value": "Oak St", "valid_from": OAK, "valid_until": PINE}]


def test_supersession_records_no_outcome() -> None:
    kb = base()
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    before = outcomes(kb)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    kb.refresh()
    assert outcomes(kb) == before
    assert kb.reliability("tool:crm") == pytest.approx(0.95)


def test_nothing_holds_before_any_value_began() -> None:
    kb = moved()
    early = kb.at(day(2023, 1, 1))
    assert early.value("addr") is None
    assert early.label("addr") == "OUT"
    assert early.confidence("addr") == 0.0
    assert early.keys() == []
    assert early.beliefs() == []
    assert "outside its valid time" in str(early.explain("addr"))


def test_a_fact_without_valid_from_holds_from_when_it_was_observed() -> None:
    clock = ManualClock(100)
    kb = BeliefBase(clock=clock)
    kb.assert_("ceo", "Ann", source="human:hr")
    assert kb.at(100).value("ceo") == "Ann"
    assert kb.at(99).value("ceo") is None
    assert kb.at(1e9).value("ceo") == "Ann"


def test_a_fact_that_ended_is_out_now_and_in_inside_its_interval() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("ceo", "Ann", source="human:hr", valid_from=0, valid_until=50)
    assert kb.value("ceo") == "Ann"
    clock.advance(50)  # the end is an event: the base sees it by itself
    assert kb.label("ceo") == "OUT"
    assert "outside its valid time" in str(kb.explain("ceo"))
    assert kb.at(49).value("ceo") == "Ann"
    assert kb.at(50).value("ceo") is None


def test_a_fact_that_starts_later_holds_once_its_time_comes() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("ceo", "Bob", source="human:hr", valid_from=30)
    assert kb.label("ceo") == "OUT"
    clock.advance(30)
    assert kb.value("ceo") == "Bob"


# -- the margin ----------------------------------------------------------------------------------
def test_a_far_less_trusted_newer_value_does_not_replace_a_strong_one() -> None:
    kb = base()
    kb.assert_("addr", "Oak St", source="human:ann", valid_from=OAK)          # 0.99
    kb.assert_("addr", "Pine Ave", source="assumption:guess", valid_from=PINE)  # 0.60 < 0.79
    assert [c.values for c in kb.conflicts()] == [("Oak St", "Pine Ave")]
    with pytest.raises(AmbiguousValueError):
        kb.value("addr")
    head = str(kb.explain("addr")).splitlines()[0]
    assert "open conflict with 'Pine Ave' (0.60)" in head
    assert [e.status for e in kb.timeline("addr")] == ["contested", "contested"]


def test_a_newer_value_within_the_margin_supersedes() -> None:
    kb = base()
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)        # 0.95
    kb.assert_("addr", "Pine Ave", source="model:reader", valid_from=PINE)  # 0.90 >= 0.75
    assert kb.value("addr") == "Pine Ave"


@tool(trust="low")
def scraper() -> str:
    return "x"


def test_the_margin_is_a_parameter() -> None:
    for margin, expected in ((0.2, 2), (0.3, 0)):
        kb = base(conflict_policy=PreferNewer(margin=margin), tools=[scraper])
        kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)      # 0.95
        kb.assert_("addr", "Pine Ave", source="tool:scraper", valid_from=PINE)  # 0.70
        held = [e.value for e in kb.timeline("addr") if e.label == "IN"]
        assert len(held) == (2 if expected else 1)
        if not expected:
            assert held == ["Pine Ave"]


def test_margin_is_checked() -> None:
    with pytest.raises(InvalidInputError):
        PreferNewer(margin=1.5)
    with pytest.raises(InvalidTypeError):
        PreferNewer(margin="big")  # type: ignore[arg-type]


def test_two_values_starting_at_the_same_time_are_an_open_conflict() -> None:
    kb = base()
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=PINE)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    assert len(kb.conflicts()) == 1
    assert kb.at(day(2025, 6, 1)).label("addr", "Oak St") == "IN"


# -- order, retraction, one source -------------------------------------------------------------
def test_out_of_order_arrival_gives_the_same_answer() -> None:
    kb = base()
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)  # older, told later
    assert kb.value("addr") == "Pine Ave"
    assert kb.at(day(2024, 6, 1)).value("addr") == "Oak St"
    assert [e.status for e in kb.timeline("addr")] == ["superseded", "held"]


def test_retracting_a_superseded_value_changes_nothing_now() -> None:
    kb = moved()
    before = outcomes(kb)
    kb.retract("addr", "Oak St")
    assert kb.value("addr") == "Pine Ave"
    assert kb.at(day(2024, 6, 1)).value("addr") is None
    assert outcomes(kb) == before


def test_retracting_the_newer_value_brings_the_older_back() -> None:
    kb = moved()
    kb.retract("addr", "Pine Ave")
    assert kb.value("addr") == "Oak St"
    assert kb.confidence("addr") == pytest.approx(0.95)


def test_one_source_giving_a_new_value_keeps_the_old_one_readable() -> None:
    kb = base()
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    kb.assert_("addr", "Pine Ave", source="tool:crm", valid_from=PINE)
    assert kb.value("addr") == "Pine Ave"
    assert kb.at(day(2024, 6, 1)).value("addr") == "Oak St"
    entries = kb.timeline("addr")
    assert [(e.value, e.status, e.superseded_by) for e in entries] == [
        ("Oak St", "superseded", "Pine Ave"), ("Pine Ave", "held", None)]
    assert (entries[0].valid_from, entries[0].valid_until) == (OAK, PINE)


def test_one_source_without_valid_time_and_no_policy_still_replaces() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("price", 1, source="tool:feed")
    kb.assert_("price", 2, source="tool:feed")
    assert len(kb.timeline("price")) == 1


def test_a_renewal_keeps_the_start() -> None:
    clock = ManualClock(10)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", source="tool:crm")
    clock.advance(10)
    kb.assert_("addr", "Pine Ave", source="document:email")
    clock.advance(10)
    kb.assert_("addr", "Oak St", source="tool:crm")  # a stale re-read does not look newer
    assert kb.value("addr") == "Pine Ave"
    assert kb.at(15).value("addr") == "Oak St"


# -- evidence age and world time --------------------------------------------------------------
def test_evidence_ages_by_the_clock_at_every_world_time() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("quote", 10, source="tool:quote", half_life=60, valid_from=-3600)
    clock.advance(30)
    assert kb.confidence("quote") == pytest.approx(0.95 * 2 ** -0.5)
    assert kb.at(-1800).confidence("quote") == pytest.approx(0.67, abs=0.005)
    assert kb.at(-7200).confidence("quote") == 0.0  # before it held


def test_an_expired_premise_counts_at_no_world_time() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("quote", 10, source="tool:quote", ttl=60, valid_from=-3600)
    clock.advance(60)
    assert kb.label("quote") == "OUT"
    assert kb.at(-1800).label("quote") == "OUT"


# -- reading at a time ---------------------------------------------------------------------------
def test_reads_at_a_time_follow_derivations() -> None:
    kb = moved()
    kb.assert_("zip:Oak St", "10001", source="tool:geo")
    kb.assert_("zip:Pine Ave", "94110", source="tool:geo")
    kb.claim("city", "Springfield", source="model:m", inputs=["addr"])
    assert kb.at(day(2024, 6, 1)).label("city") == "OUT"  # its input then was another value
    assert kb.label("city") == "IN"


def test_recall_never_returns_a_superseded_value() -> None:
    kb = moved()
    assert [r.value for r in kb.recall("addr")] == ["Pine Ave"]
    assert [r.value for r in kb.at(day(2024, 6, 1)).recall("addr")] == ["Oak St"]
    assert kb.at(day(2023, 1, 1)).recall("addr") == []


def test_recall_marks_an_open_conflict_with_both_values() -> None:
    kb = base()
    kb.assert_("addr", "Oak St", source="human:ann", valid_from=OAK)
    kb.assert_("addr", "Pine Ave", source="assumption:guess", valid_from=PINE)
    hits = kb.recall("addr")
    assert sorted(r.value for r in hits) == ["Oak St", "Pine Ave"]
    assert all(r.conflict for r in hits)


def test_views_compose_and_take_datetimes() -> None:
    kb = moved()
    when = datetime(2024, 6, 1, tzinfo=timezone.utc)
    assert kb.at(when).value("addr") == "Oak St"
    assert kb.at(day(2025, 6, 1)).at(when).value("addr") == "Oak St"


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kw", "error"), [
    ({"valid_from": datetime(2024, 1, 1)}, InvalidInputError),  # naive
    ({"valid_from": "2024-01-01"}, InvalidTypeError),  # text is for the surfaces
    ({"valid_from": 10, "valid_until": 10}, InvalidInputError),
    ({"valid_until": float("nan")}, InvalidInputError),
    ({"valid_from": True}, InvalidTypeError),
    ({"valid_until": PINE}, InvalidInputError),  # before it is observed, with no start
])
def test_a_bad_valid_time_is_refused_and_changes_nothing(kw: dict[str, object],
                                                         error: type[Exception]) -> None:
    kb = moved()
    before = kb.to_dict()
    with pytest.raises(error):
        kb.assert_("addr", "Elm Rd", source="tool:crm", **kw)  # type: ignore[arg-type]
    assert kb.to_dict() == before
    with pytest.raises(InvalidInputError):
        kb.at(datetime(2024, 1, 1))


def test_the_parser_reads_iso_text() -> None:
    assert parse_instant("2024-01-02") == OAK
    assert parse_instant("2024-01-02T00:00:00Z") == OAK
    assert parse_instant("2024") == day(2024, 1, 1)
    assert to_instant(datetime(2024, 1, 2, 1, tzinfo=timezone(timedelta(hours=1)))) == OAK
    with pytest.raises(InvalidInputError):
        parse_instant("2024-01-02T09:00:00")  # no offset
    with pytest.raises(InvalidInputError):
        parse_instant("yesterday")


def test_assert_many_rows_take_valid_time() -> None:
    kb = base()
    n = kb.assert_many([("addr", "Oak St", "tool:crm", None, None, None, OAK),
                        {"key": "addr", "value": "Pine Ave", "source": "document:email",
                         "valid_from": PINE},
                        ("other", 1, "tool:crm", None, None, None, OAK, PINE)])
    assert n == 3
    assert kb.value("addr") == "Pine Ave"
    assert kb.at(day(2024, 6, 1)).value("addr") == "Oak St"
    assert kb.label("other") == "OUT"
    assert kb.at(OAK).value("other") == 1
    before = kb.to_dict()
    with pytest.raises(InvalidInputError, match="row 1: valid_until"):
        kb.assert_many([("new", 1, "tool:crm"), ("addr", "Elm", "tool:crm", None, None, None,
                                                 None, PINE)])
    assert kb.to_dict() == before


def test_a_shared_ledger_hears_nothing_of_supersession() -> None:
    ledger = TrustLedger()
    kb = BeliefBase(clock=ManualClock(NOW), ledger=ledger, conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    kb.refresh()
    assert ledger.outcomes() == []
    kb.assert_("addr", "Pine Ave", source="tool:geo", valid_from=PINE)  # a confirmation is one
    assert len(ledger.outcomes()) == 2


def test_a_value_held_twice_by_one_source_keeps_both_intervals() -> None:
    kb = base()
    kb.assert_("coach", "Mancini", source="tool:registry", valid_from=day(2004, 7, 1),
               valid_until=day(2008, 6, 1))
    kb.assert_("coach", "Ranieri", source="tool:registry", valid_from=day(2011, 8, 1),
               valid_until=day(2012, 3, 1))
    kb.assert_("coach", "Mancini", source="tool:registry", valid_from=day(2014, 11, 1),
               valid_until=day(2016, 9, 1))
    assert kb.at(day(2005, 1, 1)).value("coach") == "Mancini"
    assert kb.at(day(2010, 1, 1)).value("coach") is None  # between the two spells
    assert kb.at(day(2011, 9, 1)).value("coach") == "Ranieri"
    assert kb.at(day(2015, 1, 1)).value("coach") == "Mancini"
    kb.assert_("coach", "Mancini", source="tool:registry", valid_from=day(2014, 11, 1),
               valid_until=day(2016, 9, 1))  # the same interval again: a renewal
    assert kb.at(day(2005, 1, 1)).value("coach") == "Mancini"
    restored = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(NOW))
    assert restored.at(day(2005, 1, 1)).value("coach") == "Mancini"
    assert restored.at(day(2010, 1, 1)).value("coach") is None


@rule(output="zone", inputs={"a": "addr"})
def zone_of(a: str) -> str:
    return "north" if a.startswith("O") else "south"


def test_reading_at_a_time_changes_nothing_with_rules_active() -> None:
    kb = base(rules=[zone_of])
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=OAK)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=PINE)
    before = kb.to_dict()
    assert kb.value("zone") == "south"
    then = kb.at(day(2024, 6, 1))
    # the rule fired on the value held when it was asserted, Oak St, before Pine Ave came
    assert then.value("zone") == "north"
    assert then.value("addr") == "Oak St"
    assert kb.to_dict() == before
    assert kb.value("zone") == "south"


def test_a_read_at_a_time_settles_only_what_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    kb = moved()
    kb.assert_many([(f"other:{i}", i, "tool:feed") for i in range(2000)])
    kb.assert_("zip", "10001", source="tool:geo", valid_from=OAK)
    kb.claim("mail", "ok", source="model:m", inputs=["addr", "zip"])  # over Pine Ave
    kb.refresh()
    swept: list[int] = []
    original = kb.parts.engine._evaluate

    def spy(region: set, now: float) -> None:  # type: ignore[type-arg]
        swept.append(len(region))
        original(region, now)

    monkeypatch.setattr(kb.parts.engine, "_evaluate", spy)
    assert kb.at(day(2025, 6, 1)).label("mail") == "IN"
    assert 0 < sum(swept) <= 4  # mail, zip and the two values of addr: no copy of the base
    assert kb.at(day(2024, 6, 1)).label("mail") == "OUT"  # it rests on Pine Ave, not yet then


def test_prefer_source_ranks_only_values_that_hold_then() -> None:
    from corollary import PreferSource

    kb = base(conflict_policy=PreferSource(["human", "tool"]))
    kb.assert_("ceo", "Ann", source="human:hr", valid_from=OAK, valid_until=PINE)
    kb.assert_("ceo", "Bob", source="tool:registry", valid_from=OAK)
    assert kb.value("ceo") == "Bob"  # Ann's term ended: the better-ranked source says nothing now
    assert kb.at(day(2024, 6, 1)).value("ceo") == "Ann"


def test_a_derived_value_is_ordered_through_its_inputs() -> None:
    kb = base()
    kb.assert_("mail:monday", "I live in Paris", source="document:mail", valid_from=OAK)
    kb.assert_("mail:friday", "I moved to Lyon", source="document:mail2", valid_from=PINE)
    kb.claim("city", "Paris", source="model:reader", inputs=["mail:monday"])  # 0.9 x 0.9
    kb.claim("city", "Lyon", source="model:reader", inputs=["mail:friday"])
    assert kb.value("city") == "Lyon"
    assert kb.confidence("city") == pytest.approx(0.81)
    assert kb.at(day(2024, 6, 1)).value("city") == "Paris"
    assert [(e.value, e.status, e.valid_from, e.valid_until) for e in kb.timeline("city")] == [
        ("Paris", "superseded", OAK, PINE), ("Lyon", "held", PINE, None)]
    assert "supersedes 'Paris' (valid 2024-01-02 → 2025-03-02)" in str(kb.explain("city"))


def test_dating_through_a_deep_diamond_of_reasons_walks_each_value_once() -> None:
    # forty levels of diamonds: walked once per path, dating the top would take 2^40 steps
    kb = base()
    kb.assert_("root", 0, source="human:ops", valid_from=OAK)
    below = ["root"]
    for level in range(40):
        left, right = f"l{level}", f"r{level}"
        kb.claim(left, level, source="model:m", inputs=below)
        kb.claim(right, level, source="model:m", inputs=below)
        below = [left, right]
    kb.claim("top", "old", source="model:m", inputs=below)
    kb.assert_("news", 1, source="human:ops", valid_from=PINE)
    kb.claim("top", "new", source="model:m", inputs=["news"])
    assert kb.value("top") == "new"  # began at PINE, after everything under "old"


def test_a_key_read_before_any_of_its_values_began_holds_nothing() -> None:
    # found by tests/tms/test_depend_oracle.py: kb.at(t).value raised AttributeError when
    # the premises of a key's several values said nothing held at t
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferNewer())
    kb.assert_("a", 0, source="human:ann", valid_from=-50)
    kb.assert_("a", 1, source="human:ann")
    assert kb.at(-60).value("a", "none") == "none" and kb.at(-60).label("a") == "OUT"
    assert kb.at(-10).value("a") == 0 and kb.value("a") == 1


@pytest.mark.parametrize(("t", "error"), [
    (float("nan"), InvalidInputError), (float("inf"), InvalidInputError),
    (-float("inf"), InvalidInputError), ("not a time", InvalidTypeError),
    (None, InvalidInputError)])
def test_a_read_at_anything_but_a_finite_time_is_refused(t: object, error: type) -> None:
    # kb.at(t) checks a float by two comparisons (corollary/facade/world.py): NaN and the
    # infinities fail them, and anything else goes to the full conversion
    kb = BeliefBase(clock=ManualClock(100.0))
    kb.assert_("a", 1, source="tool:a", valid_from=10.0)
    with pytest.raises(error):
        kb.at(t).value("a")  # type: ignore[arg-type]
    assert kb.at(10.0).value("a") == 1 and kb.at(9.5).value("a") is None


@pytest.mark.parametrize("read", ["confidence", "value"])
@pytest.mark.parametrize("change", ["outcome elsewhere", "expiry", "fading", "outcome here",
                                    "integer clock"])
def test_a_read_at_a_time_catches_up_as_a_plain_read_does(change: str, read: str) -> None:
    # kb.at(t).confidence and .value of a key of one value write out the checks of the plain
    # read's lookup.current (world.py): each thing that makes a plain read catch up makes the
    # read at a time catch up too; t inside the valid time, so both count the same evidence now
    ledger = TrustLedger()
    clock = ManualClock(0)
    kb = BeliefBase(clock=(lambda: 5) if change == "integer clock" else clock, ledger=ledger)
    other = BeliefBase(clock=clock, ledger=ledger)
    kw = {"expiry": {"ttl": 60}, "fading": {"half_life": 60}}.get(change, {})
    kb.assert_("quote", 10, source="tool:a", valid_from=-3600, **kw)  # type: ignore[arg-type]
    before = kb.at(-1800).confidence("quote")
    assert before == kb.confidence("quote") > 0.0
    assert kb.at(-1800).value("quote") == 10
    if change == "outcome elsewhere":
        other.record_outcome("tool:a", False, reason="audit")  # on the ledger kb shares
    elif change == "outcome here":
        kb.record_outcome("tool:a", False, reason="audit")
    elif change != "integer clock":
        clock.advance(60)
    if read == "value":  # first, before a plain read brings the memo up
        assert kb.at(-1800).value("quote") == (None if change == "expiry" else 10)
        return
    at = kb.at(-1800).confidence("quote")
    assert at == kb.confidence("quote")
    assert at < before if change != "integer clock" else at == before

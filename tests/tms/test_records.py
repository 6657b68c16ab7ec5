"""The records of the TMS (corollary/tms/records.py): a premise's expiry, a belief's premises by
source, and the inputs a justification waits for."""

from __future__ import annotations

import gc

from corollary import BeliefBase, ManualClock
from corollary.tms import OUT, PREMISES, RULE, Belief, Justification, Premise
from corollary.tms.records import (
    lone_held_at,
    plain_source,
    record_at,
    record_certainty,
    record_changes,
    record_earlier,
    record_expires_at,
    record_half_life,
    record_intervals,
    record_is_timed,
    record_schedule,
    record_span,
    record_stated_span,
    record_strength,
    record_ttl,
    record_valid_at,
    renewed,
)


def test_a_premise_expires_at_the_end_of_its_ttl() -> None:
    lasting = Premise("tool:a", "db", 100.0, 60.0, None)
    short = Premise("tool:a", "db", 100.0, None, 30.0)
    assert (lasting.expires_at, short.expires_at) == (None, 130.0)
    assert [short.expired(t) for t in (100.0, 129.9, 130.0, 1e9)] == [False, False, True, True]
    assert lasting.expired(1e18) is False
    assert repr(short) == "<Premise tool:a at 100.0>"


def test_a_new_belief_is_out_and_finds_its_premises_by_source() -> None:
    b = Belief("hq", "Austin", "Austin", 4)
    assert (b.label, b.conf, b.best, b.withdrawn, b.why, b.as_of) == (
        OUT, 0.0, None, None, "unsupported", None)
    assert b.premises == () and b.justs == ()
    tool = Premise("tool:registry", "tool:registry", 0.0, None, None)
    doc = Premise("document:10-K", "document:10-K", 0.0, None, None)
    b.evidence = [tool.record, doc.record]  # premises are kept as records; Premise views them
    assert b.premises == (tool, doc)
    assert b.premise_from("document:10-K") == doc and b.premise_from("human:h") is None
    assert repr(b) == "<Belief hq='Austin' OUT 0>"


def test_a_justification_waits_for_each_input_once_in_order() -> None:
    a, b = Belief("a", 1, 1, 1), Belief("b", 2, 2, 2)
    out = Belief("out", 3, 3, 3)
    j = Justification(RULE, "sum", out, (b, a, b), 0.9)
    assert j.distinct == (b, a) and j.inputs == (b, a, b)
    assert (j.info, j.seq, j.live) == ({}, 0, False)
    plain = Justification(RULE, "sum", out, (a, b), 0.9, {"names": ["a", "b"]})
    assert plain.distinct is plain.inputs
    assert repr(j) == "<Justification rule:sum -> out>"


def _every_shape(base: BeliefBase) -> None:
    """A premise of each shape its record takes (docs/model.md, "Time and change")."""
    base.assert_("plain", 1, source="tool:a")
    base.assert_("fading", 1, source="tool:a", half_life=60, ttl=600)
    base.assert_("stated", 1, source="tool:a", certainty=0.7)
    base.assert_("dated", 1, source="tool:a", valid_from=10.0, valid_until=50.0)
    base.assert_("twice", 1, source="tool:a", valid_from=10.0, valid_until=20.0)
    base.assert_("twice", 1, source="tool:a", valid_from=30.0)


def test_a_premise_record_of_every_shape_leaves_the_garbage_collector() -> None:
    # what the record is a plain tuple for: after a collection the collector no longer tracks
    # it, so a large base costs the collector one object a belief (a class, or a named tuple,
    # would stay tracked)
    kb = BeliefBase(clock=ManualClock(100.0))
    _every_shape(kb)
    records = [r for key in ("plain", "fading", "stated", "dated", "twice")
               for b in kb.engine.values_of(key) for r in b.records()]
    assert len(records) == 5
    assert type(records[0]) is tuple
    assert record_earlier(records[4]) == ((10.0, 20.0),)
    gc.collect()
    gc.collect()
    assert [gc.is_tracked(r) for r in records[:4]] == [False] * 4
    # a value held twice nests its earlier intervals two levels deeper (intervals in a tuple
    # in the record): a collection untracks one level, so its record leaves later
    gc.collect()
    gc.collect()
    assert gc.is_tracked(records[4]) is False


def test_the_accessors_read_each_shape() -> None:
    kb = BeliefBase(clock=ManualClock(100.0))
    _every_shape(kb)
    plain, fading, stated, dated, twice = (
        kb.engine.values_of(key)[0].records()[0]
        for key in ("plain", "fading", "stated", "dated", "twice"))
    assert [record_is_timed(r) for r in (plain, fading, stated, dated, twice)] == [
        False, False, False, True, True]
    assert [record_span(r) for r in (plain, dated, twice)] == [
        (100.0, None), (10.0, 50.0), (30.0, None)]
    assert record_stated_span(plain) == (None, None)
    assert [record_certainty(r) for r in (plain, stated, dated)] == [1.0, 0.7, 1.0]
    assert (record_half_life(fading), record_ttl(fading), record_expires_at(fading)) == (
        60.0, 600.0, 700.0)
    assert record_intervals(twice) == ((10.0, 20.0), (30.0, None))
    assert [record_valid_at(twice, t) for t in (5.0, 15.0, 25.0, 35.0)] == [
        False, True, False, True]
    assert (plain_source(plain), plain_source(fading)) == ("tool:a", None)
    assert record_strength(stated, 0.9, 100.0) == (0.9 * 0.7, False)
    assert record_strength(fading, 1.0, 160.0) == (0.5, True)
    assert [record_schedule(r) for r in (plain, fading, dated, twice)] == [
        ("tool:a", None, False), ("tool:a", 700.0, False), ("tool:a", None, True),
        ("tool:a", None, True)]
    assert record_changes(dated) == [(50.0, 1)]  # its start, 10, had passed when asserted
    assert record_changes(twice) == [(20.0, 1)]
    late = renewed(dated, 5.0)  # asserted at 5: its start comes later
    assert record_changes(late) == [(10.0, 0), (50.0, 1)]
    again = renewed(twice, 200.0)
    assert (record_at(again), record_intervals(again)) == (200.0, record_intervals(twice))
    assert record_span(renewed(plain, 200.0, start=100.0)) == (100.0, None)


def test_a_lone_premise_at_a_world_time_is_held_not_held_or_left_to_compute() -> None:
    # what kb.at(t) reads of a key with one value, in one call (docs/model.md, "Time and
    # change"), against record_valid_at over every record shape and every state of its belief:
    # withdrawn or outside its valid time, not held; valid and held now, held; valid but OUT
    # now, computed at t, unless no valid time was stated (OUT now is OUT at any later time);
    # a reason or several premises, computed
    kb = BeliefBase(clock=ManualClock(100.0))
    _every_shape(kb)
    records = [kb.engine.values_of(key)[0].records()[0]
               for key in ("plain", "fading", "stated", "dated", "twice")]
    times = (5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 49.0, 50.0, 99.0, 100.0, 1e9)
    for timed, record in zip((False, False, False, True, True), records, strict=True):
        for held_now in (True, False):
            b = Belief("k", 1, 1, 0, record, best=PREMISES if held_now else None)
            want = [False if not record_valid_at(record, t) else True if held_now
                    else (None if timed else False) for t in times]
            assert [lone_held_at(b, t) for t in times] == want, (record, held_now)
            # withdrawn: OUT now whatever its premise (a withdrawal marks the belief, so an
            # up-to-date withdrawn belief has no best support), and OUT at every time
            b.withdrawn, best = "retracted", b.best
            b.best = None
            assert {lone_held_at(b, t) for t in times} == {False}
            b.withdrawn, b.best = None, best
            b.evidence = [record, record]
            assert {lone_held_at(b, t) for t in times} == {None}
            b.evidence = record
            b.justs = (Justification(RULE, "r", b, (Belief("a", 1, 1, 1),), 1.0),)
            assert {lone_held_at(b, t) for t in times} == {None}
    assert [lone_held_at(Belief("k", 1, 1, 0, records[3], best=PREMISES), t)
            for t in (5.0, 10.0, 49.0, 50.0)] == [False, True, True, False]

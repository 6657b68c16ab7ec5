"""The bulk path's runs: ``assert_many`` adds rows of new keys a run at a time.

A run is made whole and cut at its first known key (a key the base has, or one the run itself
made a row before); runs grow while they succeed and give way to row-by-row adding once one is
cut. Whatever the cuts, the result is the one-by-one result (snapshots compared whole, creation
numbers included), and a run interrupted half-made is undone with the rest of the batch.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from corollary import BeliefBase, ManualClock, TrustLedger
from corollary.tms import loading

KEYS = st.sampled_from(["a", "b", "c", "d"]) | st.integers(0, 10**6).map(lambda i: f"n{i}")
ROWS = st.lists(st.tuples(KEYS, st.sampled_from([1, 2, "x", 2.5]),
                          st.sampled_from(["tool:feed", "tool:other", "human:ops"])),
                max_size=60)


def _twins() -> tuple[BeliefBase, BeliefBase]:
    clock = ManualClock(100)
    twins = BeliefBase(clock=clock), BeliefBase(clock=clock)
    for kb in twins:
        kb.assert_("a", 1, "tool:feed")
        kb.assert_("b", "x", "human:ops")
        kb.claim("c", 2, source="model:m", inputs=["a", "b"])
        kb.retract("b")
    return twins


def _snapshot(kb: BeliefBase) -> dict[str, Any]:
    data = kb.to_dict()
    data.pop("ledger")  # outcome event ids name the operation: one batch vs one per row
    return data


@settings(max_examples=int(os.environ.get("RUNS_EXAMPLES", 150)), deadline=None)
@given(ROWS)
def test_runs_cut_anywhere_give_the_one_by_one_result(rows: list[tuple[Any, ...]]) -> None:
    bulk, single = _twins()
    with mock.patch.object(loading, "RUN_FIRST", 2), \
            mock.patch.object(loading, "RUN_MOST", 8):
        assert bulk.assert_many(rows) == len(rows)
    for row in rows:
        single.assert_(*row)
    assert _snapshot(bulk) == _snapshot(single)
    assert [(o.key, o.source, o.correct) for o in bulk.ledger.outcomes()] == \
        [(o.key, o.source, o.correct) for o in single.ledger.outcomes()]
    # (how many beliefs a refresh recomputes may differ: one by one, a confirmation reads a
    # confidence mid-way, and that read settles part of the base early)
    bulk.refresh(), single.refresh()
    assert [(h.key, h.value, h.confidence) for h in bulk.beliefs()] == \
        [(h.key, h.value, h.confidence) for h in single.beliefs()]


def test_a_load_of_new_keys_goes_a_run_at_a_time_and_numbers_as_one_by_one() -> None:
    rows = [(f"k{i}", i, f"tool:feed{i % 3}") for i in range(3_000)]
    rows[1_000] = ("a", 1, "tool:feed0")  # known: cuts a run
    rows[2_000] = ("k5", 5, "tool:feed9")  # made by the batch itself: cuts another
    bulk, single = _twins()
    runs: list[int] = []
    add_run = loading.add_run

    def counting(engine: Any, rows: Any, start: int, stop: int, now: float, batch: Any) -> int:
        runs.append(stop - start)
        return add_run(engine, rows, start, stop, now, batch)

    with mock.patch.object(loading, "add_run", counting):
        bulk.assert_many(rows)
    for row in rows:
        single.assert_(*row)
    assert _snapshot(bulk) == _snapshot(single)
    # 256 rows row by row, then runs of 256 and 512 (cut at row 1,000), again from row 1,001
    # (cut at row 2,000), again from row 2,001 to the end
    assert runs == [256, 512, 256, 512, 256, 487]
    assert {p.source for p in bulk.engine.find("k5", 5).premises} == {"tool:feed2", "tool:feed9"}


def test_a_run_interrupted_half_made_is_undone_with_its_batch() -> None:
    bulk, single = _twins()
    before = _snapshot(bulk)
    rows = [(f"k{i}", i, "tool:feed" if i < 1_000 else "tool:late") for i in range(2_000)]
    reliability = bulk.engine.reliability

    def interrupting(source: str, now: float) -> tuple[float, bool]:
        if source == "tool:late":  # first asked inside a run, midway through making it
            raise KeyboardInterrupt
        return reliability(source, now)

    bulk.parts.engine.reliability = interrupting
    try:
        bulk.assert_many(rows)
    except KeyboardInterrupt:
        pass
    else:  # pragma: no cover
        raise AssertionError("the run was not interrupted")
    bulk.parts.engine.reliability = reliability
    assert _snapshot(bulk) == before and len(bulk) == len(single) == 3
    assert "k0" not in bulk and "k1999" not in bulk
    # numbering resumes where it was: the same rows now give what one by one gives
    bulk.assert_many(rows)
    for row in rows:
        single.assert_(*row)
    assert _snapshot(bulk) == _snapshot(single)


def _interrupted(kb: BeliefBase, rows: list[tuple[Any, ...]], at: int) -> bool:
    """Run ``kb.assert_many(rows)``, raising KeyboardInterrupt at the ``at``-th line it runs in
    the base, the engine and the checks (not inside the rollback: an interrupt there is past
    help; not in ``begin_batch`` and the ``next_number`` it asks, where one only costs a
    number). Whether it was raised."""
    files = tuple(str(Path(loading.__file__).parent.parent / f)
                  for f in ("tms/engine.py", "tms/batch.py", "tms/loading.py", "facade/base.py",
                            "facade/assertions.py"))
    # a path that names no file would quietly leave its lines untried
    assert all(Path(f).is_file() for f in files), files
    state = {"lines": 0, "rollback": 0}

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "return" and frame.f_code.co_name == "rollback":
            state["rollback"] -= 1
        elif event == "line" and not state["rollback"]:
            state["lines"] += 1
            if state["lines"] == at:
                raise KeyboardInterrupt
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        name = frame.f_code.co_name
        if frame.f_code.co_filename not in files or name in ("begin_batch", "next_number"):
            return None
        if name == "rollback":
            state["rollback"] += 1
        return None if state["rollback"] and name != "rollback" else local

    sys.settrace(calls)
    try:
        kb.assert_many(rows)
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def test_an_interrupt_at_any_line_leaves_the_base_as_it_was_or_fully_loaded() -> None:
    rows: list[tuple[Any, ...]] = [(f"n{i}", i, "tool:feed") for i in range(12)]
    rows[5] = ("a", 1, "human:ops")  # a confirmation: the ledger is written
    rows[9] = ("n2", 2, "tool:other")  # a key the batch made
    mixed = [*rows[:6], ("t", 1.5, "tool:feed", None, None, 30), *rows[6:]]
    for load in (rows, mixed):
        single = _twins()[0]
        for row in load:
            single.assert_(*row)
        loaded = _snapshot(single)
        interrupted = 0
        at = 1
        with mock.patch.object(loading, "RUN_FIRST", 2), \
                mock.patch.object(loading, "RUN_MOST", 4):
            while True:
                kb = _twins()[0]
                before = _snapshot(kb)
                if not _interrupted(kb, load, at):
                    break
                interrupted += 1
                now = _snapshot(kb)
                assert now in (before, loaded), f"interrupted at line {at}"
                if now == before:  # numbering resumes: the same load again is the full one
                    kb.assert_many(load)
                    assert _snapshot(kb) == loaded, f"resumed after line {at}"
                at += 1
        assert interrupted > 100  # every line of the path was tried


def test_a_load_of_plain_new_keys_is_settled_as_it_is_made() -> None:
    rows = [(f"k{i}", i, f"tool:feed{i % 3}") for i in range(2_000)]
    bulk, single = _twins()
    bulk.refresh()  # what the setup left stale
    bulk.assert_many(rows)
    current = bulk.parts.lookup.current
    assert all(current(f"k{i}") is not None for i in range(2_000))  # read with no sync
    assert bulk.refresh() == 0  # nothing was left to evaluate
    more = [("h", 1, "human:ops"), ("k7", 7, "document:d")]  # a known key: confirms k7
    bulk.assert_many(more)
    for row in rows + more:
        single.assert_(*row)
    assert current("h") is None  # the confirmation's outcome is waiting to be applied
    assert _snapshot(bulk) == _snapshot(single)
    assert [(h.key, h.value, h.confidence) for h in bulk.beliefs()] == \
        [(h.key, h.value, h.confidence) for h in single.beliefs()]


def test_a_source_whose_reliability_moves_with_time_stamps_what_it_settles() -> None:
    clock = ManualClock(0)
    twins = []
    for _ in range(2):
        ledger = TrustLedger(memory_half_life=3_600, clock=clock)
        ledger.record_outcome("tool:feed", False, at=0)
        twins.append(BeliefBase(clock=clock, ledger=ledger))
    bulk, single = twins
    rows = [(f"k{i}", i, "tool:feed" if i % 2 else "tool:steady") for i in range(600)]
    bulk.assert_many(rows)
    for row in rows:
        single.assert_(*row)
    engine = bulk.engine
    assert {b.key for b in engine.timed} == {f"k{i}" for i in range(1, 600, 2)}
    assert {b.as_of for b in engine.timed} == {0.0}
    assert bulk.refresh() == 0 and single.refresh() == 600
    clock.advance(7_200)  # the wrong outcome fades: feed's reliability rises
    for kb in (bulk, single):
        assert kb.refresh() == 300
    assert bulk.confidence("k1") == single.confidence("k1") > 0.0
    assert [(h.key, h.confidence) for h in bulk.beliefs()] == \
        [(h.key, h.confidence) for h in single.beliefs()]


def test_with_a_nogood_new_keys_are_left_to_the_sweep() -> None:
    bulk, single = _twins()
    for kb in (bulk, single):
        kb.assert_("k5", 99, "tool:feed")
        kb.nogood(("k5", 5), "a")  # k5 = 5 is no value yet
    rows = [(f"k{i}", i, "human:ops") for i in range(600)]
    bulk.assert_many(rows)
    for row in rows:
        single.assert_(*row)
    assert _snapshot(bulk) == _snapshot(single)
    assert bulk.refresh() == single.refresh() > 0
    assert [(h.key, h.confidence) for h in bulk.beliefs()] == \
        [(h.key, h.confidence) for h in single.beliefs()]

"""The bulk path's runs: ``assert_many`` adds rows of new keys a run at a time.

A run is made whole and cut at its first known key (a key the base has, or one the run itself
made a row before); runs grow while they succeed and give way to row-by-row adding once one is
cut. Whatever the cuts, the result is the one-by-one result (snapshots compared whole, creation
numbers included), and a run interrupted half-made is undone with the rest of the batch.
"""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from corollary import BeliefBase, ManualClock
from corollary.tms import engine as engine_module

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
    with mock.patch.object(engine_module, "_RUN_FIRST", 2), \
            mock.patch.object(engine_module, "_RUN_MOST", 8):
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
    add_run = engine_module.Engine._add_run

    def counting(self: Any, rows: Any, start: int, stop: int, now: float, batch: Any) -> int:
        runs.append(stop - start)
        return add_run(self, rows, start, stop, now, batch)

    with mock.patch.object(engine_module.Engine, "_add_run", counting):
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
    rows = [(f"k{i}", i, "tool:feed") for i in range(2_000)]

    class Interrupting(set):  # type: ignore[type-arg]
        def update(self, *others: Any) -> None:
            raise KeyboardInterrupt

    bulk.engine.dirty = Interrupting(bulk.engine.dirty)
    try:
        bulk.assert_many(rows)
    except KeyboardInterrupt:
        pass
    else:  # pragma: no cover
        raise AssertionError("the run was not interrupted")
    bulk.engine.dirty = set(bulk.engine.dirty)
    assert _snapshot(bulk) == before and len(bulk) == len(single) == 3
    assert "k0" not in bulk and "k1999" not in bulk
    # numbering resumes where it was: the same rows now give what one by one gives
    bulk.assert_many(rows)
    for row in rows:
        single.assert_(*row)
    assert _snapshot(bulk) == _snapshot(single)

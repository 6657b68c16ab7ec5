"""What the inspector's pages are made of (corollary.ui.views and corollary.ui.table), read from
bases made here: the table follows the base, the graph draws OUT dashed, a conflict's page
shows both values, and the history comes from the journal when there is one."""

from __future__ import annotations

import json
import math

import pytest

from corollary import BeliefBase, ManualClock, TrustLedger
from corollary.foundations.errors import InvalidInputError, UnknownBeliefError
from corollary.ui.views import TABLE_FOR, Inspector


def small(clock: ManualClock) -> BeliefBase:
    kb = BeliefBase(clock=clock)
    kb.assert_("rev:Q2", 100.0, source="tool:filings")
    kb.assert_("rev:Q3", 110.0, source="tool:filings")
    kb.claim("growth", 0.1, source="model:m", inputs={"a": "rev:Q2", "b": "rev:Q3"},
             formula="(b - a) / a")
    kb.claim("trend", "up", source="model:m", inputs=["growth"])
    return kb


def test_the_table_follows_the_base_and_the_clock() -> None:
    clock = ManualClock(0)
    kb = small(clock)
    ins = Inspector(kb)
    assert ins.beliefs()["total"] == 4
    kb.assert_("hq", "Austin", source="tool:registry")
    assert ins.beliefs()["total"] == 5  # another count of beliefs: read again
    first = ins.table()
    clock.advance(TABLE_FOR / 2)
    assert ins.table() is first
    clock.advance(TABLE_FOR)
    assert ins.table() is not first
    ins.dirty = True  # what a change seen by watch sets
    again = ins.table()
    assert again is not first and ins.table() is again


def test_sorting_and_filtering() -> None:
    clock = ManualClock(0)
    kb = small(clock)
    clock.advance(10)
    kb.assert_("hq", "Austin", source="tool:registry")
    ins = Inspector(kb)
    by_age = [r["key"] for r in ins.beliefs(sort="age")["rows"]]
    assert by_age[:3] == ["hq", "rev:Q2", "rev:Q3"]  # the newest premise first
    assert set(by_age[3:]) == {"growth", "trend"}  # no premise: last
    assert [r["age"] for r in ins.beliefs(sort="age")["rows"]][:2] == [0.0, 10.0]
    weak = ins.beliefs(max_confidence=0.9)["rows"]
    assert [r["key"] for r in weak] == ["trend"]
    assert ins.beliefs(kind="formula")["rows"][0]["source"] == "model:m"
    assert ins.beliefs(source="nobody")["total"] == 0
    page = ins.beliefs(sort="key", descending=True, offset=1, limit=2)
    assert [r["key"] for r in page["rows"]] == ["rev:Q3", "rev:Q2"] and page["total"] == 5
    with pytest.raises(InvalidInputError):
        ins.beliefs(limit=0)
    with pytest.raises(InvalidInputError):
        ins.beliefs(label="MAYBE")


def test_the_graph_draws_out_dashed_above_and_below() -> None:
    kb = small(ManualClock(0))
    kb.retract("rev:Q3", reason="restated")
    graph = Inspector(kb).belief("growth")["graph"]
    nodes = {n["label"].split(" ")[0] if n["kind"] == "belief" else n["id"]: n
             for n in graph["nodes"]}
    assert nodes["growth"]["root"] and nodes["growth"]["dashed"]  # OUT now
    assert nodes["rev:Q3"]["dashed"] and not nodes["rev:Q2"]["dashed"]
    assert nodes["rev:Q2"]["level"] < 0 < nodes["trend"]["level"]
    ids = {n["id"]: n for n in graph["nodes"]}
    q2, q3 = (next(i for i, n in ids.items() if n.get("key") == k) for k in ("rev:Q2", "rev:Q3"))
    dashed = {(e["from"], e["dashed"]) for e in graph["edges"]}
    assert (q3, True) in dashed and (q2, False) in dashed


def test_a_conflict_shows_both_values_and_every_source() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ceo", "Ann", source="document:press")
    kb.assert_("ceo", "Bob", source="document:blog")
    ins = Inspector(kb)
    page = ins.belief("ceo")
    assert {v["value"] for v in page["values"]} == {"Ann", "Bob"}
    assert page["sources"] == ["document:blog", "document:press"]
    assert sum(1 for n in page["graph"]["nodes"] if n.get("root")) == 2
    assert page["what_to_check"] is None  # what_to_check ranks one held value
    assert ins.summary()["contested"] == 1
    # a plain base keeps no journal: the header says so (every base has history() to call)
    assert (ins.summary()["journal"], ins.summary()["live"]) == (False, False)
    assert [c["key"] for c in ins.problems()["conflicts"]] == ["ceo"]
    with pytest.raises(UnknownBeliefError):
        ins.belief("cfo")


def test_a_key_keeping_a_retracted_value_is_not_counted_contested() -> None:
    # issue 28 item 8: the summary counted every key with two values, held or not
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("addr", "12 Oak St", source="tool:a")
    kb.assert_("addr", "Pine Ave", source="tool:b")
    assert Inspector(kb).summary()["contested"] == 1
    kb.retract("addr", "12 Oak St", reason="moved")
    assert Inspector(kb).summary()["contested"] == 0


def test_a_source_with_no_outcomes_plots_nothing_and_a_step_is_no_source() -> None:
    kb = small(ManualClock(0))
    ins = Inspector(kb)
    filings = ins.source("tool:filings")
    assert filings["series"] == [] and filings["tier"] == "declared"
    names = [s["source"] for s in ins.sources()["sources"]]
    assert names == ["model:m", "tool:filings"]  # the formula step is no source
    assert json.dumps(ins.promises()) == '{"at": 0.0, "promises": [], "unguarded": []}'


def test_history_comes_from_the_journal() -> None:
    kb = small(ManualClock(0))
    assert Inspector(kb).history("growth") is None  # no journal
    if not hasattr(BeliefBase, "open_session"):
        pytest.skip("the journal API is absent (BeliefBase.open_session)")
    journaled = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(5))
    journaled.assert_("hq", "Austin", source="tool:registry")
    journaled.retract("hq", reason="moved")
    ins = Inspector(journaled)
    history = ins.history("hq")
    assert history is not None
    assert [(h["operation"], h["label"]) for h in history] == [("retract", "OUT"),
                                                              ("assert_", "IN")]
    assert history[1]["source"] == "tool:registry" and history[0]["reason"] == "moved"
    assert ins.summary()["live"] and ins.belief("hq")["history"] == history


def test_the_api_sends_json_a_browser_parses() -> None:
    pytest.importorskip("starlette", reason="the ui extra is not installed")
    from corollary.ui.app import _safe

    assert json.dumps(_safe({"t": math.inf, "n": math.nan, "v": (1, "x"), 2: object}),
                      allow_nan=False).startswith('{"t": null, "n": null, "v": [1, "x"], "2": ')

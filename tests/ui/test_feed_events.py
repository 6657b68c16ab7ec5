"""The inspector's live events come from the engine's change feed (issue 26, point 4): a base
that is not journaled, served in-process (the MCP server and the inspector over one base), tells
its watchers of each change made through it; before, ``ServedBase.watch`` gave ``None`` there
and the page heard of nothing until it was reloaded."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, CorollaryError, ManualClock, TrustLedger
from corollary.serving.served import Changed, ServedBase, Unsaved


def test_a_plain_served_base_tells_its_watchers_what_changed() -> None:
    served = ServedBase(BeliefBase(clock=ManualClock(0)))
    every: list[str] = []
    only: list[str] = []
    handle = served.watch(lambda e: every.append(e.key))
    served.watch(lambda e: only.append(e.key), keys=["ceo"])
    served.change(lambda kb: kb.assert_many([("hq", "Austin", "tool:t"), ("ceo", "Ada", "tool:t")]))
    assert every == ["ceo", "hq"] and only == ["ceo"]
    handle.stop()
    served.change(lambda kb: kb.retract("hq", "Austin"))
    assert every == ["ceo", "hq"] and only == ["ceo"]


def test_the_watch_follows_the_base_a_dropped_change_puts_back() -> None:
    ledger = TrustLedger()
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    kb.save_session("s")
    served = ServedBase(kb, session="s")
    heard: list[Changed] = []
    served.watch(heard.append)
    with pytest.raises(Unsaved):
        served.drop(CorollaryError("boom"), "a test")
    assert served.kb is not kb
    served.change(lambda base: base.assert_("hq", "Austin", source="tool:t"))
    assert heard == [Changed("hq")]

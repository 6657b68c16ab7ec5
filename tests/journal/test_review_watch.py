"""Adversarial review of journaled sessions (issue 19): ``kb.watch``.

A change applies the entries other writers appended before it runs; when the change itself is
then refused (an unknown belief, a failing rule), the watch events of those other entries are
dropped: they were applied here, so no later ``sync()`` reports them either."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, UnknownBeliefError, open_ledger


def test_review_a_refused_change_does_not_swallow_other_writers_watch_events(
        tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    kb = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000))
    other = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000))
    heard: list[tuple[str, Any, str | None, str | None]] = []
    kb.watch(lambda e: heard.append((e.key, e.value, e.before, e.after)), keys=["hq"])
    kb.assert_("hq", "Austin", source="tool:a")
    other.sync()
    other.retract("hq")  # another writer's change, not applied in kb yet
    with pytest.raises(UnknownBeliefError):
        kb.retract("nothing")  # applies other's retraction first, then is refused
    assert kb.value("hq") is None  # the retraction was applied here...
    kb.sync()
    # ...but the watcher never hears of it
    assert heard == [("hq", "Austin", None, "IN"), ("hq", "Austin", "IN", "OUT")]

"""Answers the inspector pages instead of sending whole (issue 28 item 5): a key's history
(``kb.history(key, limit=, before=)``, read from the journal's end) and the sources, and an
event stream that does not read is dropped, not queued for without bound (item 7). The pages
are compared with the whole answer they cut."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.ui.app import _DROPPED, QUEUE_MOST, _Live
from corollary.ui.views import Inspector


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[BeliefBase]:
    """A session of 260 entries: 'hot' changed every third entry, 'k<i>' the others."""
    with open_ledger(tmp_path / "l.db") as ledger:
        base = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
        for i in range(260):
            key = "hot" if i % 3 == 0 else f"k{i}"
            base.assert_(key, i, source=f"tool:s{i % 7}")
        yield base


@pytest.mark.parametrize("key", [None, "hot", "k1", "nothing"])
@pytest.mark.parametrize("limit", [1, 7, 64, 100, 1000])
def test_history_pages_cut_the_whole_history(kb: BeliefBase, key: str | None, limit: int
                                             ) -> None:
    whole = kb.history(key)  # type: ignore[attr-defined]
    assert kb.history(key, limit=limit) == whole[-limit:]  # type: ignore[attr-defined]
    pages, before = [], None
    while True:  # the inspector's "Older entries", newest page first
        page = kb.history(key, limit=limit, before=before)  # type: ignore[attr-defined]
        if not page:
            break
        pages[:0] = page
        before = page[0].seq
    assert pages == whole


def test_the_belief_page_sends_one_page_of_history_and_says_more_remain(kb: BeliefBase
                                                                        ) -> None:
    ins = Inspector(kb)
    page = ins.belief("hot")
    whole = kb.history("hot")  # type: ignore[attr-defined]
    assert len(whole) == 87 and len(page["history"]) == 87 and page["history_more"] is False
    first = ins.history_page(None)
    assert [r["seq"] for r in first["history"]] == list(range(260, 160, -1))
    assert first["more"] is True and first["next"] == 161
    rest = ins.history_page(None, before=first["next"], limit=1000)
    assert [r["seq"] for r in rest["history"]] == list(range(160, 0, -1)) and not rest["more"]


def test_sources_come_in_pages(kb: BeliefBase) -> None:
    ins = Inspector(kb)
    whole = ins.sources(limit=1000)
    assert whole["total"] == 7 and len(whole["sources"]) == 7
    pages = [ins.sources(offset=o, limit=3) for o in (0, 3, 6)]
    assert [p["total"] for p in pages] == [7, 7, 7]
    assert [r for p in pages for r in p["sources"]] == whole["sources"]


def test_an_event_stream_that_does_not_read_is_dropped() -> None:
    live = _Live.__new__(_Live)
    live.queues = set()
    slow: asyncio.Queue[dict[str, object]] = asyncio.Queue(QUEUE_MOST)
    reading: asyncio.Queue[dict[str, object]] = asyncio.Queue(QUEUE_MOST)
    live.queues.update({slow, reading})
    for i in range(QUEUE_MOST):
        live.send({"changes": i})
        reading.get_nowait()  # this client keeps up
    assert live.queues == {slow, reading} and slow.qsize() == QUEUE_MOST
    live.send({"changes": QUEUE_MOST})  # one more than the slow client can hold
    assert live.queues == {reading} and reading.qsize() == 1
    assert slow.qsize() == 1 and slow.get_nowait() is _DROPPED  # its stream ends

"""A second retriever is one file (issue 26, point 3): a toy retriever written here, against the
documented protocol (corollary.retrieval.retriever, docs/recall.md), plugged in with
``kb.add_retriever``, without editing corollary/. It follows the engine through its change feed,
and recall keeps its guarantees for what it ranks: only held values, in scope, above the floor."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from corollary import BeliefBase, InvalidTypeError, ManualClock
from corollary.retrieval.retriever import Held, Retriever
from corollary.tms import Belief, Engine
from corollary.tms.feed import Changes


class ByValueLength:
    """Ranks beliefs by the length of their value's text, longest first (whatever the query):
    a signal the lexical index has not, so fusion must bring its candidates in."""

    def __init__(self) -> None:
        self.known: dict[Belief, None] = {}
        self.heard = 0

    def attach(self, engine: Engine) -> None:
        self.engine = engine
        self.known = dict.fromkeys(engine.beliefs())
        engine.feed.subscribe(self._hear, labels=False)

    def _hear(self, changes: Changes) -> None:
        self.heard += 1
        for b in changes.added(self.engine):
            self.known[b] = None

    def rank(self, query: str, n: int, held: Held) -> Sequence[Belief]:
        ranked = sorted(self.known, key=lambda b: (-len(str(b.value)), b.seq))
        return [b for b in ranked if held(b)][:n]


def _kb() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("team:motto", "a very long motto that no query names", source="human:ann")
    return kb


def test_a_retriever_in_a_test_file_is_fused_with_the_lexical_index() -> None:
    kb = _kb()
    retriever = ByValueLength()
    assert isinstance(retriever, Retriever)
    assert [r.key for r in kb.recall("where is the office")] == []  # no word matches
    kb.add_retriever(retriever)
    kb.assert_("office", "Austin", source="human:ann")  # after attach: told by the feed
    kb.assert_("team:size", "12", source="human:ann")
    keys = [r.key for r in kb.recall("where is the office")]
    assert retriever.heard >= 1  # the feed published before the retrievers ranked
    assert keys[0] == "office"  # in both lists: first
    assert set(keys) == {"office", "team:motto", "team:size"}


def test_what_a_retriever_ranks_is_still_checked_held_and_in_scope() -> None:
    kb = _kb()
    kb.add_retriever(ByValueLength())
    kb.assert_("office", "Austin", source="human:ann")
    kb.retract("team:motto", "a very long motto that no query names")
    assert "team:motto" not in [r.key for r in kb.recall("office")]
    assert [r.key for r in kb.recall("office", scope="team")] == []
    kb.add_retriever(kb.parts.recaller.retrievers[0])  # type: ignore[union-attr]  # again: nothing
    assert len(kb.parts.recaller.retrievers) == 1  # type: ignore[union-attr]


def test_a_retriever_without_the_protocol_is_refused() -> None:
    with pytest.raises(InvalidTypeError, match="attach"):
        BeliefBase().add_retriever(object())  # type: ignore[arg-type]


def test_recalled_label_is_deprecated_and_the_constructor_still_takes_it() -> None:
    import warnings

    from corollary import Recalled, render_recalled

    kb = _kb()
    (r,) = kb.recall("motto")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert r.label == "IN"
        line = render_recalled(Recalled("k", 1, 0.5, "IN", 1.0, ()))
    assert [w.category for w in seen] == [DeprecationWarning]  # the read, not the rendering
    assert line == "k = 1 [IN 0.50]" and "label" not in repr(r)

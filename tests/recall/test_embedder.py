"""Recall by meaning: BeliefBase(embedder=...) fuses lexical and vector ranks, keeps vectors
for held beliefs only, embeds in batches, and checks what the embedder returns. The embedder
here is a small deterministic one (hashed character trigrams): nothing downloads a model."""

from __future__ import annotations

import numpy as np
import pytest
from support.embedders import trigrams

from corollary import BeliefBase, InvalidInputError, InvalidTypeError, ManualClock
from corollary.retrieval.vectors import BATCH


class Counting:
    def __init__(self):
        self.calls = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return trigrams(texts)


def test_a_value_no_word_matches_is_found_by_its_vector():
    kb = BeliefBase(clock=ManualClock(0), embedder=trigrams)
    kb.assert_("paint", "the wall colour is teal", source="human:ann")
    kb.assert_("ride", "a fast bike", source="human:bob")
    plain = BeliefBase(clock=ManualClock(0))
    plain.assert_("paint", "the wall colour is teal", source="human:ann")
    plain.assert_("ride", "a fast bike", source="human:bob")
    assert plain.recall("colors") == []
    found = kb.recall("colors", limit=1)
    assert [r.key for r in found] == ["paint"]
    assert found[0].why == ()  # found by meaning alone: no word matched


def test_lexical_and_vector_ranks_agree_on_an_exact_question():
    kb = BeliefBase(clock=ManualClock(0), embedder=trigrams)
    for i in range(50):
        kb.assert_(f"customer:{i}:email", f"user{i}@example.com", source="tool:crm")
        kb.assert_(f"customer:{i}:city", f"City {i}", source="tool:crm")
    assert kb.recall("What is customer 7's email?", limit=1)[0].key == "customer:7:email"


def test_vectors_are_kept_for_held_beliefs_only_and_made_in_batches():
    embedder = Counting()
    kb = BeliefBase(clock=ManualClock(0), embedder=embedder)
    kb.assert_many([(f"note:{i}", f"note number {i}", "tool:t") for i in range(600)])
    kb.assert_("gone", "note to forget", source="tool:t")
    kb.retract("gone")
    kb.recall("note")
    texts = [t for call in embedder.calls for t in call]
    assert all(len(call) <= BATCH for call in embedder.calls)
    assert "gone: note to forget" not in texts
    assert sum(t.startswith("note:") for t in texts) == 600
    before = len(texts)
    kb.assert_("gone", "note to forget", source="tool:u")  # held again: embedded now
    kb.recall("forget")
    texts = [t for call in embedder.calls[1:] for t in call]
    assert "gone: note to forget" in texts
    assert len([t for call in embedder.calls for t in call]) == before + 2  # it and the query


def test_a_retracted_value_is_not_recalled_by_its_vector():
    kb = BeliefBase(clock=ManualClock(0), embedder=trigrams)
    kb.assert_("paint", "the wall colour is teal", source="human:ann")
    assert [r.key for r in kb.recall("colors")] == ["paint"]
    kb.retract("paint")
    assert kb.recall("colors") == []
    kb.assert_("paint", "the wall colour is teal", source="human:bob")
    assert [r.key for r in kb.recall("colors")] == ["paint"]


@pytest.mark.parametrize("bad", [
    lambda texts: np.zeros(len(texts)),  # 1-D
    lambda texts: np.zeros((len(texts) + 1, 3)),  # a row too many
    lambda texts: np.full((len(texts), 3), np.nan),
    lambda texts: [["a"] * 3 for _ in texts],
])
def test_an_embedder_returning_something_else_raises(bad):
    kb = BeliefBase(clock=ManualClock(0), embedder=bad)
    kb.assert_("k", "v", source="tool:t")
    with pytest.raises(InvalidInputError):
        kb.recall("v")


def test_the_embedder_must_be_callable():
    with pytest.raises(InvalidTypeError):
        BeliefBase(embedder="model")


def test_snapshots_do_not_carry_the_embedder_and_accept_it_on_load(tmp_path):
    kb = BeliefBase(clock=ManualClock(0), embedder=trigrams)
    kb.assert_("paint", "the wall colour is teal", source="human:ann")
    plain = BeliefBase(clock=ManualClock(0))
    plain.assert_("paint", "the wall colour is teal", source="human:ann")
    data = kb.to_dict()
    assert data.keys() == plain.to_dict().keys()
    again = BeliefBase.from_dict(data, clock=ManualClock(0), embedder=trigrams)
    assert [r.key for r in again.recall("colors")] == ["paint"]
    kb.save(tmp_path / "kb.msgpack")
    loaded = BeliefBase.load(tmp_path / "kb.msgpack", clock=ManualClock(0), embedder=trigrams)
    assert [r.key for r in loaded.recall("colors")] == ["paint"]
    assert BeliefBase.load(tmp_path / "kb.msgpack", clock=ManualClock(0)).recall("colors") == []


def test_a_value_made_just_before_the_index_is_rebuilt_gets_its_vector():
    """The lexical index is rebuilt when a quarter of it is gone, numbering its beliefs
    afresh: the vectors follow the new numbering, so a value made since the last recall (its
    words matching no query word) is still found by its vector."""
    kb = BeliefBase(clock=ManualClock(0), embedder=trigrams)
    kb.assert_many([(f"note:{i}", f"text {i}", "tool:t") for i in range(100)])
    kb.recall("text")
    before_rebuild = []
    for i in range(60):  # each replaced value is met, gone, by the next recall
        kb.assert_(f"note:{i}", f"changed {i}", source="tool:t")
        kb.assert_(f"made:{i}", f"zebracrossing{i}", source="tool:t")
        docs = kb.parts.recaller.index.docs
        kb.recall("text changed", limit=100)
        if kb.parts.recaller.index.docs is not docs:  # rebuilt
            before_rebuild.append(f"made:{i}")
    assert before_rebuild
    found = kb.recall("zebra crossing", limit=100)
    assert all(r.why == () for r in found)  # no word matched: found by their vectors
    assert set(before_rebuild) <= {r.key for r in found}
    assert {r.key for r in found} >= {f"made:{i}" for i in range(60)}

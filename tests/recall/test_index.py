"""The recall index follows the base: whatever happens between two recalls (assertions one by
one or in bulk, claims, new sources on a value, replaced and forgotten values, restores), the
next recall sees it, as a base built afresh with the same beliefs would."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corollary import BeliefBase, ManualClock
from corollary.retrieval.lexical import _hash_texts, belief_words, tokenize, word_hash


def found(kb, query, k=50):
    return {(r.key, r.value) for r in kb.recall(query, limit=k)}


def test_new_beliefs_after_a_recall_are_found():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a:1", "apple", source="tool:t")
    assert found(kb, "banana") == set()
    kb.assert_("a:2", "banana", source="tool:t")
    assert found(kb, "banana") == {("a:2", "banana")}
    kb.assert_many([(f"bulk:{i}", f"banana {i}", "tool:t") for i in range(3000)])
    assert len(kb.recall("banana", limit=5000)) == 3001
    assert found(kb, "bulk 2999") >= {("bulk:2999", "banana 2999")}


def test_a_new_source_on_a_known_value_adds_its_words():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("trip", "Paris in May", source="tool:calendar")
    assert kb.recall("calvin") == []
    kb.assert_("trip", "Paris in May", source="human:calvin")
    assert [r.key for r in kb.recall("calvin")] == ["trip"]


def test_a_replaced_value_is_found_by_its_new_words_only():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin office", source="tool:registry")
    assert found(kb, "austin") == {("hq", "Austin office")}
    for city in ["Denver", "Boston", "Miami"]:  # each replaces the last (the old is forgotten)
        kb.assert_("hq", f"{city} office", source="tool:registry")
        assert found(kb, "office") == {("hq", f"{city} office")}
    assert found(kb, "austin denver boston") == set()


def test_a_value_made_by_a_claim_on_a_known_key_is_found():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("q2", 100.0, source="tool:ledger")
    kb.assert_("growth", "flat", source="human:ann")
    assert found(kb, "growth") == {("growth", "flat")}
    kb.claim("growth", "strong rebound", source="model:m", inputs=["q2"])
    assert found(kb, "growth") == {("growth", "flat"), ("growth", "strong rebound")}
    assert ("growth", "strong rebound") in found(kb, "rebound")
    assert all(r.conflict for r in kb.recall("growth"))


def test_a_restored_base_recalls_what_the_original_did():
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(200):
        kb.assert_(f"customer:{i}:email", f"user{i}@example.com", source="tool:crm")
    kb.claim("vip", "customer 7", source="model:m", inputs=["customer:7:email"])
    before = kb.recall("customer 7 email", limit=20)
    again = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(0))
    assert again.recall("customer 7 email", limit=20) == before


def test_segments_stay_few_as_beliefs_arrive_one_by_one():
    kb = BeliefBase(clock=ManualClock(0))
    for i in range(300):
        kb.assert_(f"note:{i}", f"word{i % 7}", source="tool:t")
        kb.recall("word3")
    index = kb.parts.recaller.index
    assert len(index.segments) <= 10
    assert len(kb.recall("word3", limit=1000)) == len([i for i in range(300) if i % 7 == 3])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=0, max_size=12), max_size=8))
def test_vectorised_hashing_matches_the_words(texts):
    hashes, owners = _hash_texts(texts)
    expected = [(word_hash(w), i) for i, t in enumerate(texts) for w in tokenize(t)]
    assert list(zip(hashes.tolist(), owners.tolist(), strict=True)) == expected


def test_words_of_a_belief():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("Customer:7:E-mail", "A@B.c", source="human:Calvin")
    b = kb.engine.find("Customer:7:E-mail", "A@B.c")
    assert belief_words(b) == ["customer", "7", "e", "mail"] * 2 + ["a", "b", "c", "human",
                                                                     "calvin"]


@pytest.mark.parametrize("n", [1, 5000])
def test_index_memory_is_reported(n):
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_many([(f"k:{i}", f"v {i}", "tool:t") for i in range(n)])
    kb.recall("v")
    index = kb.parts.recaller.index
    assert index.nbytes > 0
    assert np.all(np.diff(index._ids.astype(np.float64)) > 0) or len(index._ids) == 0


def test_words_beyond_the_basic_plane():
    texts = ["𝔘𝔫𝔦 code 𐐀𐐁 x😀y", "ﬁne Straße"]
    hashes, owners = _hash_texts(texts)
    expected = [(word_hash(w), i) for i, t in enumerate(texts) for w in tokenize(t)]
    assert list(zip(hashes.tolist(), owners.tolist(), strict=True)) == expected


WORDS = ["alpha", "beta", "gamma", "delta"]
KEYS = ["a:1", "a:2", "b:1", "c"]
row = st.tuples(st.sampled_from(KEYS), st.sampled_from(WORDS), st.sampled_from(
    ["tool:x", "human:ann", "model:m"]))
step = st.one_of(
    st.tuples(st.just("assert"), row),
    st.tuples(st.just("many"), st.lists(row, min_size=1, max_size=4)),
    st.tuples(st.just("retract"), st.sampled_from(KEYS)),
    st.tuples(st.just("claim"), st.sampled_from(KEYS), st.sampled_from(WORDS),
              st.sampled_from(KEYS)),
    st.tuples(st.just("recall"), st.sampled_from(WORDS)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=25))
def test_the_index_kept_current_finds_what_a_fresh_one_finds(steps):
    from corollary import CorollaryError

    kb = BeliefBase(clock=ManualClock(0))
    for s in steps:
        try:
            if s[0] == "assert":
                kb.assert_(s[1][0], s[1][1], source=s[1][2])
            elif s[0] == "many":
                kb.assert_many(s[1])
            elif s[0] == "retract":
                kb.retract(s[1])
            elif s[0] == "claim":
                kb.claim(s[1], s[2], source="model:m", inputs=[s[3]])
            else:
                kb.recall(s[1])
        except CorollaryError:
            pass
        fresh = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(0))
        for query in [*WORDS, "a 1 2 b c", "ann model tool"]:
            assert found(kb, query, k=100) == found(fresh, query, k=100), query


def test_a_query_reads_only_the_sources_whose_name_holds_its_words(monkeypatch):
    """A base with a source per belief (a document each): a query's words are looked up in
    the sources that name them, not in every source (which made recall linear in the number
    of sources), and a source's new beliefs are seen after it was read once."""
    from corollary.retrieval import lexical as recall_index

    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_many([(f"fact:{i}", f"value {i}", f"document:report-{i}.pdf") for i in range(500)])
    kb.assert_("fact:memo", "value memo", source="document:memo")
    assert [r.key for r in kb.recall("memo", limit=5)] == ["fact:memo"]  # the index is built
    read = []
    docs_of = recall_index._SourceDocs.docs_of
    monkeypatch.setattr(recall_index._SourceDocs, "docs_of",
                        lambda self, h: read.append(self) or docs_of(self, h))
    assert [r.key for r in kb.recall("report 7", limit=1)] == ["fact:7"]
    assert len(read) == 501  # every source named "report", and the one named "7"
    assert {r.key for r in kb.recall("pdf", limit=600)} == {f"fact:{i}" for i in range(500)}
    read.clear()
    assert {r.key for r in kb.recall("pdf", limit=600)} == {f"fact:{i}" for i in range(500)}
    assert read == []  # what the sources named "pdf" gave is kept between queries
    kb.assert_("fact:memo", "value memo", source="document:second.pdf")
    assert "fact:memo" in {r.key for r in kb.recall("pdf", limit=600)}
    assert kb.parts.recaller.index._sources["document:second.pdf"] in read
    read.clear()
    assert [r.key for r in kb.recall("memo", limit=5)] == ["fact:memo"]
    assert read == []  # "document:memo" gave nothing new: its beliefs are kept
    kb.retract("fact:memo", source="document:memo")
    kb.retract("fact:memo", source="document:second.pdf")
    assert kb.recall("memo second", limit=5) == []


def test_a_gone_value_a_query_keeps_meeting_counts_once_towards_a_rebuild(monkeypatch):
    """A value replaced again and again, recalled after each change: each old value is gone
    once, however many queries meet it, so the index is not rebuilt until a quarter of it is
    gone (counting each meeting rebuilt the whole index every few changes)."""
    from corollary.retrieval import lexical as recall_index

    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_many([(f"customer:{i}:email", f"user{i}@example.com", "tool:crm")
                    for i in range(400)])
    kb.recall("email")
    builds = []
    build = recall_index.LexicalIndex._build
    monkeypatch.setattr(recall_index.LexicalIndex, "_build",
                        lambda self: builds.append(1) or build(self))
    for i in range(60):  # 60 gone values: under a quarter of 400
        kb.assert_("customer:0:email", f"v{i}@example.com", source="tool:crm")
        for _ in range(3):
            got = kb.recall("customer 0 email", limit=3)
            assert (got[0].key, got[0].value) == ("customer:0:email", f"v{i}@example.com")
    assert builds == []
    for i in range(120):  # past a quarter gone: the index starts over, and still finds them
        kb.assert_("customer:0:email", f"w{i}@example.com", source="tool:crm")
        kb.recall("customer 0 email", limit=3)
    assert builds
    assert [r.value for r in kb.recall("w119", limit=3)] == ["w119@example.com"]


@pytest.mark.parametrize(("written", "asked"), [
    ("Caf\u00e9 Zo\u00eb", "cafe\u0301"),  # composed text, decomposed query
    ("Cafe\u0301 Zoe\u0308", "CAF\u00c9"),  # decomposed text, composed query
    ("\ufb01sh and chips", "fish"),  # a ligature
    ("order \uff17\uff10\uff17", "707"),  # full-width digits
    ("Stra\u00dfe 7", "STRASSE"),
])
def test_a_word_is_found_however_its_letters_are_encoded(written, asked):
    """Unicode normalization (NFKC) before case folding: the same word typed with a composed
    letter or a letter and its combining accent (as macOS and PDFs write them), a ligature or
    full-width digits is one word, in the text and in the query alike."""
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("note:1", written, source="tool:t")
    kb.assert_many([(f"note:{i}", f"other {i}", "tool:t") for i in range(2, 40)])
    assert [r.key for r in kb.recall(asked)] == ["note:1"]
    texts = [written, asked, "x\u0301", "\u0301y", "\u00df\ufb01\u0130", "e", "\u0301"]
    hashes, owners = _hash_texts(texts)  # the vectorised path folds as tokenize does
    expected = [(word_hash(w), i) for i, t in enumerate(texts) for w in tokenize(t)]
    assert list(zip(hashes.tolist(), owners.tolist(), strict=True)) == expected


def test_a_citation_on_a_belief_indexed_before_is_found_by_its_words():
    """A second claim of a value already indexed, citing a document: the kept index finds the
    value by the quote's words, as a fresh one does (the citation was read only when a belief
    was first indexed)."""
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="tool:t")
    kb.assert_("doc:annual", "In 2024 revenue grew ten percent", source="document:annual")
    kb.claim("growth", 0.1, source="model:m", inputs=["a"])
    assert found(kb, "grew") == {("doc:annual", "In 2024 revenue grew ten percent")}
    kb.claim("growth", 0.1, source="model:n", inputs=["a"],
             citation={"document": "doc:annual", "quote": "revenue grew ten percent"})
    kept = kb.recall("grew revenue", limit=5)
    fresh = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(0)).recall("grew revenue", limit=5)
    # the same beliefs for the same words (the order may differ a little: a fresh index counts
    # the citation in the belief's length)
    assert {(r.key, r.why) for r in kept} == {(r.key, r.why) for r in fresh}
    assert ("growth", ("grew", "revenue")) in [(r.key, r.why) for r in kept]
    kb.claim("growth", 0.1, source="model:n", inputs=["a"],  # the same reason again: no change
             citation={"document": "doc:annual", "quote": "revenue grew ten percent"})
    assert kb.recall("grew revenue", limit=5) == kept

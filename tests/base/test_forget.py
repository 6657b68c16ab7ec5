"""Issue 35, item 2: ``kb.forget`` erases a document, a key, a source or a scope; what rested only
on it goes with it, what has other support stays IN with its proof (docs/model.md,
"Forgetting"). Before: ``kb.retract(doc)`` left the text in ``kb.explain``, ``to_dict`` and
recall, and there was no ``kb.forget``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.embedders import trigrams

from corollary import BeliefBase, Forgotten, ManualClock, open_ledger, rule
from corollary.foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
)
from corollary.models import Reply, ScriptedModel, ToolCall
from corollary.ui.views import Inspector

PIN_TEXT = "Hi, my PIN is 73914682 and I live in Paris."


def facts_model(*facts: dict[str, Any]) -> ScriptedModel:
    return ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": list(facts)})])])


def remember_pin(kb: BeliefBase) -> str:
    """Remember the conversation with the PIN; return its document key."""
    made = kb.remember(PIN_TEXT, source="human:ann", model=facts_model(
        {"subject": "Ann", "attribute": "pin", "value": "73914682", "quote": "my PIN is 73914682"},
        {"subject": "Ann", "attribute": "city", "value": "Paris", "quote": "I live in Paris"}))
    assert [(r.key, r.label) for r in made] == [("ann:pin", "IN"), ("ann:city", "IN")]
    return made[0].document


def everything_readable(kb: BeliefBase) -> str:
    """Every public read of the base, as one text (what a test searches for forgotten words)."""
    parts: list[Any] = [kb.to_dict(), kb.keys(), [(h.key, h.value) for h in kb.beliefs()]]
    for key in kb.keys():
        parts += [str(kb.explain(key)), kb.timeline(key)]
    parts.append(kb.recall("PIN 73914682 Paris Ann", limit=50))
    world = kb.at(kb.now())
    parts += [world.keys(), [(h.key, h.value) for h in world.beliefs()]]
    inspector = Inspector(kb)
    parts += [inspector.beliefs(), inspector.summary(), inspector.sources()]
    return json.dumps(parts, default=repr)


def test_forgetting_a_remembered_conversation_erases_it_and_what_rested_only_on_it() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    doc = remember_pin(kb)
    kb.assert_("ann:city", "Paris", source="tool:crm")  # the city has other support
    assert "73914682" in everything_readable(kb)
    outcomes = len(kb.ledger.outcomes())

    done = kb.forget(doc, by="human:dpo", reason="asked by the user")

    assert isinstance(done, Forgotten)
    assert (done.beliefs, done.kept) == (2, 1)  # the document and the PIN; the city stays
    assert doc not in kb and "ann:pin" not in kb
    assert kb.value("ann:city") == "Paris" and kb.label("ann:city") == "IN"
    proof = str(kb.explain("ann:city"))
    assert "tool:crm" in proof and "doc:" not in proof and "model:" not in proof
    readable = everything_readable(kb)
    for word in ("73914682", "PIN", doc):
        assert word not in readable
    assert len(kb.ledger.outcomes()) == outcomes  # not blame: no outcome recorded
    # the counts stay; what named the forgotten does not
    assert all(o.key is None and o.reason is None for o in kb.ledger.outcomes())


def test_forgetting_a_key_erases_every_value_and_its_consequences() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ann:pin", "73914682", source="human:ann")
    kb.assert_("ann:pin", "73914682", source="tool:bank")
    kb.claim("ann:pin_length", 4, source="model:m", inputs={"p": "ann:pin"})
    kb.assert_("bob:pin", "1111", source="human:bob")
    done = kb.forget("ann:pin")
    assert (done.beliefs, done.reasons) == (2, 3) and "ann:pin" not in kb and "ann:pin_length" not in kb
    assert kb.keys() == ["bob:pin"]


def test_forgetting_one_value_leaves_the_others() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ann:city", "Lyon", source="human:ann")
    kb.assert_("ann:city", "Paris", source="tool:crm")
    assert kb.conflicts()
    kb.forget("ann:city", "Lyon")
    assert kb.value("ann:city") == "Paris" and not kb.conflicts()
    assert "Lyon" not in json.dumps(kb.to_dict())


def test_forgetting_a_source_erases_what_it_alone_said() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ann:city", "Paris", source="human:ann")
    kb.assert_("ann:city", "Paris", source="tool:crm")
    kb.assert_("ann:pin", "73914682", source="human:ann")
    kb.claim("ann:pin_hint", "ends in 1", source="human:ann")
    done = kb.forget(source="human:ann")
    assert (done.beliefs, done.kept) == (2, 1)
    assert kb.keys() == ["ann:city"] and kb.value("ann:city") == "Paris"
    assert "human:ann" not in str(kb.explain("ann:city"))
    assert "human:ann" not in json.dumps(kb.to_dict()["premises"])
    assert kb.forget(source="human:ann") == Forgotten()  # asked twice: done


def test_forgetting_a_scope_erases_every_key_in_it_and_nothing_else() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    for key in ("customer:42", "customer:42:email", "customer:42:address:city"):
        kb.assert_(key, f"v-{key}", source="tool:crm")
    kb.assert_("customer:420:email", "other@x", source="tool:crm")
    kb.assert_("store:hours", "9-5", source="tool:crm")
    done = kb.forget(scope="customer:42", reason="right to erasure")
    assert done.beliefs == 3
    assert kb.keys() == ["customer:420:email", "store:hours"]
    assert "customer:42:" not in json.dumps(kb.to_dict())
    assert kb.forget(scope="customer:42") == Forgotten()


def test_what_rests_on_the_forgotten_through_a_rule_goes_and_comes_back_with_new_evidence(
) -> None:
    @rule(inputs={"c": "ann:city"}, output="ann:country")
    def country(c: str) -> str:
        return "FR" if c == "Paris" else "?"

    kb = BeliefBase(clock=ManualClock(0), rules=[country])
    kb.assert_("ann:city", "Paris", source="human:ann")
    assert kb.value("ann:country") == "FR"
    kb.forget("ann:city")
    assert "ann:country" not in kb
    kb.assert_("ann:city", "Paris", source="tool:crm")
    assert kb.value("ann:country") == "FR"


def test_an_exception_naming_a_forgotten_key_is_dropped_and_the_label_stays() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ann:vip", True, source="tool:crm")
    kb.assert_("ann:banned", True, source="human:ann")
    kb.claim("ann:discount", 10, source="model:m", inputs=["ann:vip"], unless=["ann:banned"])
    assert kb.label("ann:discount") == "OUT"
    kb.forget("ann:banned")
    assert kb.label("ann:discount") == "IN"
    assert "ann:banned" not in json.dumps(kb.to_dict())


def test_recall_and_vectors_drop_the_forgotten() -> None:
    kb = BeliefBase(clock=ManualClock(0), embedder=trigrams)
    kb.assert_("ann:pin", "73914682", source="human:ann")
    kb.assert_("ann:city", "Paris", source="human:ann")
    assert [r.key for r in kb.recall("pin 73914682")][:1] == ["ann:pin"]
    kb.forget("ann:pin")
    assert all(r.key != "ann:pin" for r in kb.recall("pin 73914682", limit=10))
    recaller = kb.parts.recaller
    assert recaller is not None and recaller.vectors is not None
    assert all(b is None or b.key != "ann:pin" for b in recaller.vectors.rows)


def test_saved_files_and_a_json_ledger_hold_none_of_it(tmp_path: Path) -> None:
    ledger = open_ledger(str(tmp_path / "ledger.json"))
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    doc = remember_pin(kb)
    assert doc.encode() in (tmp_path / "ledger.json").read_bytes()  # an outcome's reason
    done = kb.forget(doc)
    assert done.outcomes == 2
    kb.save(tmp_path / "base.json")
    for name in ("base.json", "ledger.json"):
        raw = (tmp_path / name).read_bytes()
        assert b"73914682" not in raw and doc.encode() not in raw and b"ann:pin" not in raw
    assert len(ledger.outcomes()) == 2  # the counts stay


@pytest.mark.parametrize("call, error", [
    (lambda kb: kb.forget(), InvalidInputError),
    (lambda kb: kb.forget("nope:key"), UnknownBeliefError),
    (lambda kb: kb.forget("ann:city", "Rome"), UnknownBeliefError),
    (lambda kb: kb.forget("ann:city", source="human:ann"), InvalidInputError),
    (lambda kb: kb.forget(scope=""), InvalidInputError),
    (lambda kb: kb.forget(scope="customer:"), InvalidInputError),
    (lambda kb: kb.forget(scope=42), InvalidTypeError),
    (lambda kb: kb.forget(value="Paris"), InvalidInputError),
    (lambda kb: kb.forget("ann:city", reason=3), InvalidTypeError),
    (lambda kb: kb.forget("ann:city", by=""), InvalidInputError),
    (lambda kb: kb.forget(source=7), InvalidTypeError),
])
def test_bad_input_is_refused_and_nothing_changes(call: Any, error: type[Exception]) -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("ann:city", "Paris", source="human:ann")
    before = kb.to_dict()
    with pytest.raises(error):
        call(kb)
    assert kb.to_dict() == before


# -- the property: forgetting equals never having said it (as read through the public API) -----
KEYS = ["a:x", "a:y", "b:x", "b:y"]
SOURCES = ["tool:one", "tool:two", "human:ann"]
ops = st.lists(st.tuples(st.sampled_from(KEYS), st.integers(0, 2), st.sampled_from(SOURCES)),
               max_size=12)


def _read(kb: BeliefBase) -> dict[str, list[tuple[str, str]]]:
    engine = kb.engine
    out = {}
    for key in kb.keys():
        out[key] = sorted((repr(b.value), kb.label(key, b.value)) for b in engine.values_of(key))
    return out


def _build(rows: list[tuple[str, int, str]], kb: BeliefBase) -> None:
    for key, value, source in rows:
        kb.assert_(key, value, source=source)


@settings(max_examples=60, deadline=None)
@given(before=ops, after=ops, what=st.sampled_from(
    [("source", s) for s in SOURCES] + [("key", k) for k in KEYS] + [("scope", "a")]))
def test_forgetting_reads_as_never_having_said_it(before: list[tuple[str, int, str]],
                                                  after: list[tuple[str, int, str]],
                                                  what: tuple[str, str]) -> None:
    kind, name = what

    def said(row: tuple[str, int, str]) -> bool:
        key, _, source = row
        return {"source": source == name, "key": key == name,
                "scope": key.startswith(name + ":")}[kind]

    forgot = BeliefBase(clock=ManualClock(0))
    _build(before, forgot)
    if kind == "key" and name not in forgot:
        with pytest.raises(UnknownBeliefError):
            forgot.forget(name)
    else:
        forgot.forget(**{kind: name})
    _build(after, forgot)
    never = BeliefBase(clock=ManualClock(0))
    _build([r for r in before if not said(r)] + after, never)
    assert _read(forgot) == _read(never)


# -- issue 37, item 3: forgetting a fact forgets its words -----------------------------------
TWO_SENTENCES = "Hi, this is Ann. My PIN is 73914682. I live in Paris."


def remember_two(kb: BeliefBase) -> str:
    made = kb.remember(TWO_SENTENCES, source="human:ann", model=facts_model(
        {"subject": "Ann", "attribute": "pin", "value": "73914682", "quote": "My PIN is 73914682"},
        {"subject": "Ann", "attribute": "city", "value": "Paris", "quote": "I live in Paris"}))
    return made[0].document


def test_forgetting_a_fact_redacts_its_sentence_from_a_document_that_said_more() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    doc = remember_two(kb)
    kb.forget("ann:pin")
    assert "ann:pin" not in kb
    assert kb.value(doc) == "Hi, this is Ann. [redacted] I live in Paris."
    assert kb.label(doc) == "IN" and kb.label("ann:city") == "IN"  # the rest still holds
    proof = str(kb.explain("ann:city"))
    assert "'I live in Paris' (found)" in proof and "[redacted]" in proof
    readable = everything_readable(kb)
    assert "73914682" not in readable and "PIN" not in readable


def test_forgetting_a_source_keeps_the_words_others_said() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    doc = remember_two(kb)
    kb.forget(source="model:remember")  # the model's claims go; Ann's words are hers
    assert kb.keys() == [doc] and kb.value(doc) == TWO_SENTENCES


def test_a_ledger_that_fails_leaves_the_base_as_it_was(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from corollary.foundations.errors import StoreError

    ledger = open_ledger(str(tmp_path / "ledger.db"))
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    doc = remember_pin(kb)
    before = kb.to_dict()

    def fails(*args: Any, **kwargs: Any) -> int:
        raise StoreError("the disk is full; nothing was written")

    monkeypatch.setattr(ledger.store, "redact_outcomes", fails)
    with pytest.raises(StoreError):
        kb.forget(doc)
    assert kb.to_dict() == before
    monkeypatch.undo()
    assert kb.forget(doc).outcomes == 2
    assert all(o.key is None for o in ledger.outcomes())
    ledger.close()


def test_a_retracted_conversation_can_still_be_forgotten() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    doc = remember_pin(kb)
    kb.retract(doc, reason="forget that conversation")
    assert "73914682" in str(kb.explain(doc))  # retracting keeps the text
    kb.forget(doc)
    assert doc not in kb and "73914682" not in everything_readable(kb)


def test_forget_drops_remember_s_key_index() -> None:
    # the index remember resolves names with holds every key's words: a forgotten key's must
    # not stay in it (it is built again from what the engine holds when remember next asks)
    fact = {"subject": "Alice", "attribute": "city", "value": "Paris", "quote": "I live in Paris"}
    model = ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": [fact]})])])
    kb = BeliefBase(clock=ManualClock(0))
    kb.remember("I live in Paris.", source="human:alice", model=model)
    assert kb.parts.key_index is not None
    kb.forget("alice:city")
    assert kb.parts.key_index is None

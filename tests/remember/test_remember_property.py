"""Property: random remember calls (quotes found or not, wordings of a few attributes, several
subjects, documents forgotten) keep remember's promises: every fact held rests on a document
whose text holds its quote, no key ever names a subject other than its fact's, a call that
keeps nothing writes nothing, a claim named twice in a call is made once, and a fresh open of
the journal (no model) reaches the live state."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.journal_workers import state

from corollary import BeliefBase, ManualClock, TrustLedger
from corollary.facade.key_resolution import split_key, words
from corollary.models import FunctionModel, Reply, ToolCall

SUBJECTS = ["Alice", "Bob", "customer 7"]
ATTRIBUTES = ["city", "home city", "city of residence", "birth city", "employer", "pet"]
VALUES = ["Paris", "Lyon", "Acme", "cat"]

fact = st.tuples(st.sampled_from(SUBJECTS), st.sampled_from(ATTRIBUTES),
                 st.sampled_from(VALUES), st.booleans())  # (.., quote in the text?)
ops = st.one_of(
    st.tuples(st.just("remember"), st.lists(fact, max_size=4), st.integers(0, 50)),
    st.tuples(st.just("forget"), st.integers(0, 10), st.none()),
)


def model_for(items: list[tuple[str, str, str, bool]]) -> FunctionModel:
    facts = [{"subject": s, "attribute": a, "value": v,
              "quote": v if found else f"not said {v}"} for s, a, v, found in items]
    return FunctionModel(lambda messages, tools: Reply(None, [ToolCall("c", "facts",
                                                                       {"facts": facts})]))


@settings(max_examples=int(os.environ.get("REMEMBER_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, max_size=12))
def test_remember_keeps_its_promises_and_replays(script: list[tuple[Any, ...]]) -> None:
    ledger = TrustLedger()
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "p", clock=clock)
    documents: list[str] = []
    for i, (kind, a, b) in enumerate(script):
        if kind == "remember":
            text = f"Message {i}: " + ", ".join(v for _, _, v, _ in a)
            seq = kb.journal_seq
            made = kb.remember(text, source="human:alice", model=model_for(a), at=b)
            if not made:
                assert kb.journal_seq == seq  # nothing kept: nothing written
            found = [f for f in a if f[3]]
            assert len(made) <= len(found)  # a claim named twice is made once
            assert len({(r.key, r.value) for r in made}) == len(made)
            for r in made:
                parts = split_key(r.key)
                assert parts is not None and any(  # never another subject
                    parts[0] == words(s) and v == r.value for s, _, v, _ in found)
                assert r.quote in kb.engine.find(r.document, text).value
            documents.extend(dict.fromkeys(r.document for r in made))
        elif documents:
            doc = documents[a % len(documents)]
            if kb.label(doc) == "IN":
                kb.retract(doc)
        clock.advance(10)
    for key in kb.keys():  # every held fact rests on a held document holding its quote
        for b in kb.engine.values_of(key):
            cited = [j for j in b.justs if "quote" in j.info]
            if not cited or kb.label(key, b.value) != "IN":
                continue
            assert any(kb.label(j.info["document"]) == "IN"
                       and j.info["quote"] in kb.value(j.info["document"]) for j in cited)
    fresh = BeliefBase.open_session(ledger, "p", clock=clock)
    assert state(fresh) == state(kb)

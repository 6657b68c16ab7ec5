"""Helpers of the forget tests (tests/journal/test_forget_journal.py, tests/stores/): a session's
readable state, and processes (importable by spawned children) that follow or reopen it."""

from __future__ import annotations

import json
from typing import Any

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.models import Reply, ScriptedModel, ToolCall

PIN_TEXT = "Hi, my PIN is 73914682 and I live in Paris."
#: what no read, no file and no row may hold once the conversation is forgotten
FORGOTTEN = ("my PIN is 73914682", "73914682", "PIN is")


def facts_model(*facts: dict[str, Any]) -> ScriptedModel:
    return ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": list(facts)})])])


def remember_pin(kb: BeliefBase) -> str:
    """Remember the conversation with the PIN (a scripted model); return its document key."""
    made = kb.remember(PIN_TEXT, source="human:ann", model=facts_model(
        {"subject": "Ann", "attribute": "pin", "value": "73914682", "quote": "my PIN is 73914682"},
        {"subject": "Ann", "attribute": "city", "value": "Paris", "quote": "I live in Paris"}))
    return made[0].document


def open_session(url: str, options: dict[str, Any], session: str = "s", **kw: Any) -> Any:
    return BeliefBase.open_session(open_ledger(url, **options), session,
                                   clock=ManualClock(1000.0), **kw)


def state(kb: Any) -> dict[str, Any]:
    """What a reader sees: each key's values with labels and proofs, and the history."""
    engine = kb.engine
    beliefs = {key: sorted((repr(b.value), kb.label(key, b.value) if len(engine.values_of(key)) == 1
                            else "-", str(kb.explain(key, b.value)))
                           for b in engine.values_of(key)) for key in kb.keys()}
    history = [(h.seq, h.operation, h.key, repr(h.value), h.source, h.reason)
               for h in kb.history()]
    return {"beliefs": beliefs, "history": history}


def readable(kb: Any) -> str:
    """Every read of a session as text: state, snapshots, timelines, recall, the past."""
    parts: list[Any] = [state(kb), kb.to_dict()]
    parts += [kb.timeline(k) for k in kb.keys()]
    parts.append(kb.recall("PIN 73914682 Paris", limit=50))
    for h in kb.history():
        past = kb.as_of(h.time)
        parts += [past.keys(), [str(past.explain(k)) for k in past.keys()]]
    return json.dumps(parts, default=repr)


def follow(url: str, options: dict[str, Any], opened: Any, go: Any, out: Any) -> None:
    """A process that opened the session before the forget: it syncs when told, and reports."""
    kb = open_session(url, options)
    opened.put(sorted(kb.keys()))
    go.get(timeout=120)
    kb.sync()
    out.put((state(kb), readable(kb)))
    kb.ledger.close()


def reopen(url: str, options: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A process that opens the session afresh."""
    kb = open_session(url, options)
    try:
        return state(kb), readable(kb)
    finally:
        kb.ledger.close()

"""Workers of tests/serving/test_replicas_share_no_lock.py: two replicas, each in a process of
its own, on one PostgreSQL ledger (importable by spawned children)."""

from __future__ import annotations

from typing import Any

from corollary import BeliefBase, open_ledger
from corollary.trust.outcomes import Outcome


def hold_a_session(url: str, options: dict[str, Any], session_id: str, holding: Any,
                   other_done: Any, patience: float) -> bool:
    """Hold ``session_id``'s journal transaction open, with an outcome recorded in it (so the
    session's head row and whatever an outcome takes are held), until ``other_done`` is set or
    ``patience`` seconds pass; then commit. Returns whether the other replica finished while
    this one held everything."""
    ledger = open_ledger(url, **options)
    try:
        kb = BeliefBase.open_session(ledger, session_id)
        kb.assert_("before", 1, source="tool:replica-a")
        store = ledger.store
        with store.journal(session_id):
            store.add([Outcome(source="tool:replica-a", correct=True, at=1.0, recorded_at=1.0,
                               event_id=f"held:{session_id}")])
            holding.set()
            return bool(other_done.wait(patience))
    finally:
        ledger.close()


def write_meanwhile(url: str, options: dict[str, Any], sessions: list[str], holding: Any,
                    done: Any, patience: float) -> int:
    """Once the other replica holds its session, write to ``sessions`` through a sharded
    store (a new session among them) and read each back; set ``done``. Returns the writes
    acknowledged."""
    from corollary.integrations.langgraph import CorollaryStore

    ledger = open_ledger(url, **options)
    try:
        store = CorollaryStore.sharded(ledger)
        if not holding.wait(patience):
            return -1
        made = 0
        for n, session_id in enumerate(sessions):
            namespace = tuple(session_id.split(":"))
            store.put(namespace, "note", {"n": n})
            store.put(namespace, "note", {"n": n + 1})  # a second change on the open session
            assert store.get(namespace, "note").value == {"n": n + 1}
            made += 2
        done.set()
        return made
    finally:
        ledger.close()

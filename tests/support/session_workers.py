"""Worker processes of tests/journal/test_session_keeps_its_policy.py (importable by spawned
children): a writer of a session under ``PreferNewer``, as ``corollary mcp`` opens one, and a
plain reader that opens it with no options."""

from __future__ import annotations

from typing import Any

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger

KEY = "customer:42:address"


def write_moves(path: str, session: str) -> None:
    """Oak St (a CRM tool, from 100), then Pine Ave (an e-mail, from 200), under PreferNewer."""
    ledger = open_ledger(path)
    kb = BeliefBase.open_session(ledger, session, conflict_policy=PreferNewer(),
                                 clock=ManualClock(1_000.0))
    kb.assert_(KEY, "Oak St", source="tool:crm", valid_from=100.0)
    kb.assert_(KEY, "Pine Ave", source="document:email", valid_from=200.0)
    ledger.close()


def write_store_moves(path: str, session: str) -> None:
    """The same moves through LangGraph stores over the session (a CRM's, then an e-mail's)."""
    from corollary.integrations.langgraph import CorollaryStore

    ledger = open_ledger(path)
    kb = BeliefBase.open_session(ledger, session, conflict_policy=PreferNewer(),
                                 clock=ManualClock(1_000.0))
    CorollaryStore(kb, source="tool:crm").put(("customer", "42"), "address", {"street": "Oak"})
    kb.clock.inner.advance(100.0)  # type: ignore[attr-defined]
    CorollaryStore(kb, source="document:email").put(("customer", "42"), "address",
                                                     {"street": "Pine"})
    ledger.close()


def read_plainly(path: str, session: str) -> Any:
    """What ``BeliefBase.open_session(ledger, session)`` reads, with no options."""
    ledger = open_ledger(path)
    try:
        return BeliefBase.open_session(ledger, session, clock=ManualClock(1_000.0)).value(KEY)
    except Exception as exc:  # the parent compares the error's type
        return type(exc).__name__
    finally:
        ledger.close()

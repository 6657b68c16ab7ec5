"""Child-process entry points for the SQL store and session tests (spawned by name).

They live in a module of their own, importable in a spawned child, and hold no tests.
"""

from __future__ import annotations

import os
import time
from typing import Any


def _until(start_at: float | None) -> None:
    if start_at is not None:
        time.sleep(max(start_at - time.time(), 0.0))


def warm() -> None:
    """Import what the workers need (``support.pools`` runs it in each worker first)."""
    import corollary.facade.base
    import corollary.storage.sqlite  # noqa: F401


def session_rounds(target: str, options: dict[str, Any], me: int, rounds: int,
                   barrier: Any, results: Any) -> None:
    """Load, change and save one session ``rounds`` times, in step with another process.

    Each round both processes load the session, each asserts a key of its own, and both save
    at once; the loser (ConcurrentWriteError) reloads, reapplies its change and saves again.
    Reports ``(round, "won" | "lost", version)`` per round.
    """
    from corollary import open_ledger

    ledger = open_ledger(target, **options)
    try:
        rounds_on(ledger, me, rounds, barrier, results)
    finally:
        ledger.close()


def rounds_on(ledger: Any, me: int, rounds: int, barrier: Any, results: Any) -> None:
    """:func:`session_rounds` on a ledger already open (threads sharing one store)."""
    from corollary import BeliefBase
    from corollary.foundations.errors import ConcurrentWriteError

    for r in range(rounds):
        barrier.wait(60)
        kb = BeliefBase.load_session(ledger, "shared")
        kb.assert_(f"p{me}-r{r}", r, source="human:ops")
        barrier.wait(60)  # both have loaded the same version: now both save
        try:
            version = kb.save_session("shared")
            results.put((me, r, "won", version))
        except ConcurrentWriteError as exc:
            assert "shared" in str(exc) and "reload" in str(exc).lower()
            kb = BeliefBase.load_session(ledger, "shared")
            kb.assert_(f"p{me}-r{r}", r, source="human:ops")
            results.put((me, r, "lost", kb.save_session("shared")))
        barrier.wait(60)  # the round is over for both


def open_new(target: str, start_at: float) -> tuple[int, int]:
    """Open (creating) a SQLite ledger at ``start_at``; write one outcome; report
    ``(schema version, outcomes seen)``."""
    from corollary import open_ledger

    _until(start_at)
    ledger = open_ledger(target)
    try:
        ledger.record_outcome("tool:racer", True, at=0.0, event_id=f"racer-{os.getpid()}")
        return int(ledger.store.schema_version), int(ledger.store.count())
    finally:
        ledger.close()

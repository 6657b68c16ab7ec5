"""Child-process entry points for the ledger store tests (run under multiprocessing spawn).

They live in a module of their own, importable by name in a spawned child, and hold no tests.
"""

from __future__ import annotations

import time
from typing import Any


def _open(target: str, options: dict[str, Any]) -> Any:
    from corollary import open_ledger

    return open_ledger(target, **options)


def warm() -> None:
    """Import what the workers need (``support.pools`` runs it in each worker first)."""
    import corollary.storage.sqlite  # noqa: F401


def _until(start_at: float | None) -> None:
    if start_at is not None:
        time.sleep(max(start_at - time.time(), 0.0))


def write_outcomes(target: str, options: dict[str, Any], tag: str, n: int,
                   start_at: float | None = None) -> int:
    """Record ``n`` outcomes of ``tool:shared`` one transaction each, all processes starting
    together at ``start_at``; return how many were new."""
    ledger = _open(target, options)
    _until(start_at)
    added = 0
    try:
        for i in range(n):
            outcome = ledger.record_outcome("tool:shared", i % 4 != 0, at=1_000.0 + i,
                                            event_id=f"{tag}-{i}", topic="t" if i % 2 else None)
            added += outcome is not None
    finally:
        ledger.close()
    return added


def write_forever(target: str, options: dict[str, Any], ready: Any, batch: int) -> None:
    """Record batches of ``batch`` outcomes until killed; set ``ready`` after the first one."""
    ledger = _open(target, options)
    i = 0
    while True:
        ledger.record_many([{"source": "tool:victim", "correct": bool(j % 2), "at": 0.0,
                             "event_id": f"victim-{time.time_ns()}-{i}-{j}"}
                            for j in range(batch)])
        i += 1
        ready.set()


def open_and_report(target: str, options: dict[str, Any], start_at: float) -> int:
    """Open the ledger (upgrading it) at ``start_at``; return its schema version."""
    _until(start_at)
    ledger = _open(target, options)
    try:
        return int(ledger.store.schema_version)
    finally:
        ledger.close()


def record_one(target: str, options: dict[str, Any]) -> None:
    """Record one wrong outcome of ``tool:remote``."""
    ledger = _open(target, options)
    try:
        ledger.record_outcome("tool:remote", False, at=0.0, event_id="remote-1")
    finally:
        ledger.close()

"""Child-process entry points and helpers for the file and thread tests.

They live in a module of their own, importable by name in a spawned child or a fresh
interpreter, and hold no tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_json(path: str, tag: str, n: int, ready: Any = None, batch: int = 1) -> int:
    """Record ``n`` outcomes of ``tool:shared`` in the JSON ledger at ``path``, ``batch`` per
    write; set ``ready`` after the first write."""
    from corollary import open_ledger

    ledger = open_ledger(path)
    added = 0
    for start in range(0, n, batch):
        added += ledger.record_many([
            {"source": "tool:shared", "correct": i % 3 != 0, "at": float(i), "topic": f"t{i % 2}",
             "event_id": f"{tag}-{i}"} for i in range(start, min(start + batch, n))])
        if ready is not None:
            ready.set()
    return added


def race_session(path: str, session_id: str, rounds: int, start: Any, done: Any,
                 tag: str, results: Any) -> None:
    """Load, change and save one session ``rounds`` times, in lock-step with a rival process.

    Each round both processes read the session (same version), wait for each other, then
    both try to save on that version; each reports ``(round, "won"|"lost")``.
    """
    from corollary.foundations.errors import ConcurrentWriteError
    from corollary.storage.jsonfile import JSONFileStore

    store = JSONFileStore(path)
    for r in range(rounds):
        data, version = store.read_session(session_id)
        start.wait(60)  # both hold the same version now
        try:
            store.save_session(session_id, data + tag.encode(), expected_version=version)
            results.put((r, tag, "won"))
        except ConcurrentWriteError:
            results.put((r, tag, "lost"))
        done.wait(60)  # the round is over for both before either reads again


def refold(doc: dict[str, Any]) -> list[list[Any]]:
    """The totals rows of a ledger file, folded again from its outcome rows, in file order."""
    from corollary.trust.ledger import Totals, fold_totals

    half_life = doc["memory_half_life"]
    totals: dict[tuple[str, str | None], Totals] = {}
    for o in doc["outcomes"]:
        fold_totals(totals, o["source"], o["topic"], o["correct"], o["at"], half_life)
    rows = []
    for (source, topic), t in sorted(totals.items(), key=lambda kv: (
            kv[0][0], kv[0][1] is not None, kv[0][1] or "")):
        rows.append([source, topic, t.right, t.total, t.anchor, t.weighted_right,
                     t.weighted_total])
    return rows


def described(exc: BaseException) -> dict[str, Any]:
    """What a test checks of an error, in a form a child can send back."""
    from corollary.foundations.errors import SnapshotError, StoreError

    return {"type": type(exc).__name__, "message": str(exc),
            "store_error": isinstance(exc, StoreError),
            "snapshot_error": isinstance(exc, SnapshotError),
            "path": str(getattr(exc, "path", None))}


FAILED_ATTEMPTS = 3


def fail_then_retry(path: str, limit_writes: Callable[[], None],
                     lift_limit: Callable[[], None]) -> dict[str, Any]:
    """Record 20 outcomes, make writes fail with ``limit_writes``, try three late outcomes
    ``FAILED_ATTEMPTS`` times, lift the limit and retry them; report what happened."""
    from corollary import open_ledger

    ledger = open_ledger(path)
    for i in range(20):
        ledger.record_outcome("tool:x", i % 2 == 0, at=0, event_id=f"ok-{i}", reason="r" * 50)
    before = ledger.to_dict()
    on_disk = Path(path).read_bytes()
    limit_writes()
    errors = []
    for _ in range(FAILED_ATTEMPTS):
        for write in (
            lambda: ledger.record_outcome("tool:x", False, at=0, event_id="late-1",
                                          reason="r" * 50),
            lambda: ledger.record_many([
                {"source": "tool:y", "correct": True, "at": 0, "event_id": "late-2"},
                {"source": "tool:x", "correct": True, "at": 0, "event_id": "late-3"}]),
        ):
            try:
                write()
                errors.append(None)
            except Exception as exc:
                errors.append(described(exc))
    unchanged = ledger.to_dict() == before
    file_unchanged = Path(path).read_bytes() == on_disk
    lift_limit()
    ledger.record_outcome("tool:x", False, at=0, event_id="late-1", reason="r" * 50)
    retried = ledger.record_many([
        {"source": "tool:y", "correct": True, "at": 0, "event_id": "late-2"},
        {"source": "tool:x", "correct": True, "at": 0, "event_id": "late-3"}])
    return {"errors": errors, "unchanged": unchanged, "file_unchanged": file_unchanged,
            "retried": retried}

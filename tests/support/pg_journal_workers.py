"""Child-process entry points for the PostgreSQL journal tests (spawned or forked).

They live in a module of their own, importable by name in a spawned child, and hold no tests.
"""

from __future__ import annotations

import time
from typing import Any


def append_entries(url: str, namespace: str, session_id: str, tag: str, n: int,
                   start_at: float) -> list[int]:
    """Append ``n`` entries ``tag-i``, one transaction each, each after reading what it had not
    seen; record one outcome per entry in the same transaction. Return the numbers given."""
    from corollary.trust.outcomes import Outcome
    from corollary.trust.stores.postgres import PostgresStore

    store = PostgresStore(url, namespace=namespace, timeout=60)
    time.sleep(max(start_at - time.time(), 0.0))
    seen = 0
    numbers = []
    try:
        for i in range(n):
            with store.journal(session_id) as w:
                new = w.entries(seen)
                assert [s for s, _ in new] == list(range(seen + 1, w.head + 1)), (seen, new)
                store.add([Outcome(source="tool:w", correct=i % 2 == 0, at=float(i), recorded_at=1.0,
                                   event_id=f"{tag}-{i}")])
                seq = w.append(f"{tag}-{i}".encode(), at=time.time())
            seen = seq
            numbers.append(seq)
    finally:
        store.close()
    return numbers


def run_in(queue: Any, function: Any, *args: Any) -> None:
    """Run ``function(*args)`` and put ``("ok", result)`` or ``("error", text)`` on ``queue``."""
    import traceback

    try:
        queue.put(("ok", function(*args)))
    except BaseException:
        queue.put(("error", traceback.format_exc()))

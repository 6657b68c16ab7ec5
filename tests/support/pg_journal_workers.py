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
    from corollary.storage.postgres import PostgresStore
    from corollary.trust.outcomes import Outcome

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


def restart_writer(url: str, me: int, acks: Any, stop_file: str) -> dict[str, int]:
    """Change the journaled session ``s`` of the ledger at ``url`` until ``stop_file`` exists
    (a short store timeout, so a stopped server is a quick typed error); send each acknowledged
    change ``(seq, tag, time)`` on ``acks``. Return how many changes were refused, by error."""
    import os

    from corollary import BeliefBase, ManualClock, open_ledger
    from corollary.foundations.errors import StoreError

    from .journal_workers import journal_total

    ledger = open_ledger(url, timeout=1.0)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000.0 + me),
                                 rules=[journal_total])
    refused = {"StoreError": 0, "last_refused_at": 0}
    i = 0
    while not os.path.exists(stop_file):
        tag = f"w{me}-{i}"
        i += 1
        try:
            if i % 3:
                kb.assert_(f"k:{me}:{i % 7}", tag, source=f"tool:w{me}")
            else:
                kb.record_outcome(f"tool:w{me}", i % 2 == 0, reason=tag)
        except StoreError:
            refused["StoreError"] += 1
            refused["last_refused_at"] = int(time.time() * 1000)
            time.sleep(0.05)
            continue
        acks.put((kb.journal_seq, tag, time.time()))
        time.sleep(0.01)
    ledger.close()
    return refused

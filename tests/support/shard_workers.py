"""Workers of tests/serving/test_shards.py: another replica, in a process of its own, writing
to sessions of the same ledger (importable by spawned children)."""

from __future__ import annotations

from typing import Any

from corollary import BeliefBase, open_ledger


def write_elsewhere(url: str, options: dict[str, Any], session_id: str, key: str,
                    value: str) -> int:
    """Assert ``key = value`` in ``session_id`` through a ledger of this process's own; return
    the entry's seq (acknowledged: committed before this returns)."""
    ledger = open_ledger(url, **options)
    try:
        kb = BeliefBase.open_session(ledger, session_id)
        kb.assert_(key, value, source="tool:replica")
        return int(kb.journal_seq)
    finally:
        ledger.close()


def put_elsewhere(url: str, options: dict[str, Any], namespace: tuple[str, ...], key: str,
                  value: dict[str, Any]) -> None:
    """``put`` an item through a sharded store of this process's own (another replica)."""
    from corollary.integrations.langgraph import CorollaryStore

    ledger = open_ledger(url, **options)
    try:
        CorollaryStore.sharded(ledger).put(namespace, key, value)
    finally:
        ledger.close()


def record_elsewhere(url: str, options: dict[str, Any], source: str, wrong: int) -> int:
    """Record ``wrong`` outcomes against ``source`` through a ledger of this process's own (an
    agent elsewhere learning that the source was wrong); return how many the ledger holds
    (acknowledged: committed before this returns)."""
    ledger = open_ledger(url, **options)
    try:
        for _ in range(wrong):
            ledger.record_outcome(source, False)
        return len(ledger.store.outcomes(source))
    finally:
        ledger.close()


def changes_then_killed(url: str, options: dict[str, Any], session_id: str, n: int) -> None:
    """Make ``n`` changes to ``session_id`` through a cache, holding the session throughout so
    that no checkpoint they make due can be written, then die by SIGKILL (nothing flushed, no
    handler run)."""
    import os
    import signal

    from corollary.serving.shards import SessionCache

    ledger = open_ledger(url, **options)
    cache = SessionCache(ledger)
    with cache.session(session_id) as kb:
        for i in range(n):
            with cache.session(session_id, sync=False) as same:  # a use inside the held one
                same.assert_(f"k{i % 7}", {"n": i}, source="tool:app")
        assert kb.journal_seq == n
        os.kill(os.getpid(), signal.SIGKILL)

"""The PostgreSQL journal with its server stopped and restarted under writers (no mocks).

The server is the one ``.ci/postgres.sh`` started (stopped and started again with its
``stop-server`` / ``start-server``; skipped when ``$COROLLARY_PG_DIR/url`` does not name the
server under test). What must hold: every append reported done is in the journal exactly once;
nothing appears twice; the numbers stay gap-free; a writer gets a typed
:class:`~corollary.foundations.errors.StoreError` while the server is down and succeeds again
once it is back, and a follower waiting meanwhile wakes on the next append.
"""

from __future__ import annotations

import threading
import time

import pytest
from stores.test_postgres_faults import (  # noqa: F401 - the fixture is used by name
    PG_URL,
    _why_not_controllable,
    namespace,
    server,
)

from corollary.foundations.errors import StoreError

pytestmark = [pytest.mark.postgres, pytest.mark.skipif(
    _why_not_controllable() is not None, reason=str(_why_not_controllable()))]


def test_writers_across_a_server_restart_lose_nothing_and_repeat_nothing(
        namespace: str) -> None:  # noqa: F811 - the imported fixture
    from corollary.storage.postgres import PostgresStore
    from corollary.trust.outcomes import Outcome

    PostgresStore(PG_URL, namespace=namespace).close()  # the schema, made while the server is up
    done: dict[str, list[str]] = {}
    failed: dict[str, list[tuple[str, float]]] = {}
    stop = threading.Event()
    errors: list[str] = []

    def write(name: str) -> None:
        store = PostgresStore(PG_URL, namespace=namespace, timeout=1.0)
        done[name], failed[name] = [], []
        i = 0
        try:
            while not stop.is_set():
                payload = f"{name}-{i}"
                i += 1
                try:
                    with store.journal("s") as w:
                        store.add([Outcome(source="tool:w", correct=True, at=1.0,
                                           recorded_at=1.0, event_id=payload)])
                        w.append(payload.encode(), at=time.time())
                except StoreError as exc:
                    errors.append(str(exc))
                    failed[name].append((payload, time.time()))
                    time.sleep(0.05)
                    continue
                done[name].append(payload)
                time.sleep(0.005)
        finally:
            store.close()

    follower = PostgresStore(PG_URL, namespace=namespace, timeout=1.0)
    threads = [threading.Thread(target=write, args=(f"w{k}",)) for k in range(3)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        server("stop-server")
        down_at = time.time()
        time.sleep(3.0)
        server("start-server")
        up_at = time.time()
        time.sleep(2.0)
        head_before = follower.journal_head("s")
        waited = follower.wait_journal("s", after=head_before, timeout=30)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    try:
        assert waited > head_before  # the follower woke after the restart
        entries = follower.journal_entries("s")
        payloads = [e.decode() for _, e in entries]
        assert [s for s, _ in entries] == list(range(1, len(entries) + 1))  # no gap
        assert len(payloads) == len(set(payloads))  # nothing twice
        acknowledged = {p for name in done for p in done[name]}
        assert acknowledged <= set(payloads)  # nothing acknowledged lost
        refused = {p for name in failed for p, _ in failed[name]}
        assert set(payloads) <= acknowledged | refused  # nothing from nowhere
        # an outcome for each entry, committed with it, once
        assert sorted(o.event_id for o in follower.outcomes()) == sorted(payloads)
        for name in done:  # each writer was refused while the server was down, then wrote
            assert any(down_at <= at for _, at in failed[name]), name
            after = [p for p in done[name] if int(p.split("-")[1]) > max(
                int(q.split("-")[1]) for q, _ in failed[name])]
            assert after, (f"{name} never wrote after the restart (up at {up_at}): "
                           f"{[(p, round(t - up_at, 2)) for p, t in failed[name][-5:]]} {errors[-3:]}")
    finally:
        follower.close()

"""The PostgreSQL store never waits for the database while it holds its totals cache's lock.

A journal transaction holds a pooled connection while the change reads the ledger's trust
totals (the cache's lock); a reader outside a transaction that took that lock and then waited
for a pooled connection (or for the ledger's advisory lock) waited for the other forever, until
the pool's timeout: two locks taken in two orders. Here more threads than the pool has
connections write outcomes inside journal transactions and read totals outside them at once;
every change commits and every outcome is counted.

Needs ``COROLLARY_TEST_PG_URL``; skipped without it.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from support.ledger_targets import drop_namespace

from corollary.trust.outcomes import Outcome

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture
def store() -> Iterator[Any]:
    from corollary.storage.postgres import PostgresStore

    ns = f"plo_{uuid.uuid4().hex[:12]}"
    # a pool of two, and a timeout short enough that a wait for each other fails the test
    s = PostgresStore(PG_URL, namespace=ns, max_size=2, timeout=5)
    yield s
    s.close()
    drop_namespace(ns)


def test_writers_and_readers_beyond_the_pool_never_wait_for_each_other(store: Any) -> None:
    rounds, writers, readers = 15, 3, 2
    failures: list[BaseException] = []
    start = threading.Barrier(writers + readers)

    def write(me: int) -> None:
        try:
            start.wait()
            for n in range(rounds):
                with store.journal(f"s{me}") as w:
                    store.add([Outcome(source="tool:a", correct=n % 2 == 0, at=float(n),
                                       recorded_at=float(n), event_id=f"{me}-{n}")])
                    store.totals("tool:a")  # the cache's lock, the transaction's connection held
                    w.append(b"entry", float(n))
        except BaseException as exc:  # noqa: BLE001 - counted below
            failures.append(exc)

    def read() -> None:
        try:
            start.wait()
            for _ in range(rounds * 3):
                store.changed_sources()  # the cache's lock, then a pooled connection
                store.totals("tool:a")
        except BaseException as exc:  # noqa: BLE001 - counted below
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(me,)) for me in range(writers)]
    threads += [threading.Thread(target=read) for _ in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert failures == []
    assert store.sync() is not None
    assert store.totals("tool:a").total == rounds * writers
    assert [store.journal_head(f"s{me}") for me in range(writers)] == [rounds] * writers

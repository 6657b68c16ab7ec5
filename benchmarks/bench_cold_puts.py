"""A put to a user whose session is not open (issue 38's open+put), visit after visit.

``--users`` users of ``--beliefs`` memories, each loaded by one ``assert_many`` entry (as
``bench_many_users.py`` loads them), into a fresh PostgreSQL database, and the same items into
LangGraph's ``PostgresStore``. Then ``--visits`` times: a new sharded store (a new cache, as a
process that starts or has evicted them) puts one memory to every user in a random order,
each put opening the user's session first, and ``PostgresStore`` puts the same memory just
after it (the baseline, interleaved). Per visit: the open+put's p50 (wall) and its client
CPU (the thread's), the ratio of the p50 to ``PostgresStore``'s put, the entries the opens
replayed, and the checkpoints the cache wrote (docs/many-users.md, "Checkpoints").

Usage::

    COROLLARY_TEST_PG_URL=postgresql://... python benchmarks/bench_cold_puts.py \\
        [--users 300] [--beliefs 50] [--visits 3]

``PYTHONPATH`` picks the tree measured. Needs the ``postgres`` and ``langgraph`` extras and
``langgraph-checkpoint-postgres``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bench_many_users import NS, load_postgres_store, load_sharded, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=300)
    parser.add_argument("--beliefs", type=int, default=50)
    parser.add_argument("--visits", type=int, default=3)
    parser.add_argument("--url", default=os.environ.get("COROLLARY_TEST_PG_URL"))
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("give --url or COROLLARY_TEST_PG_URL (a PostgreSQL server)")
    import psycopg
    from langgraph.store.postgres import PostgresStore

    from corollary import open_ledger
    from corollary.integrations.langgraph import CorollaryStore

    name = f"bench_cold_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(args.url)._replace(path=f"/{name}"))
    try:
        load_sharded(url, args.users, args.beliefs)  # one assert_many entry a user
        load_postgres_store(url, args.users, args.beliefs)
        ledger = open_ledger(url, namespace="bench")
        store: Any = ledger.store
        with PostgresStore.from_conn_string(url) as pg:
            print(f"cold puts: {args.users} users x {args.beliefs} memories (one assert_many "
                  f"entry each) on PostgreSQL; load average {os.getloadavg()[0]:.1f}")
            rng = random.Random(38)
            for visit in range(1, args.visits + 1):
                sharded = CorollaryStore.sharded(ledger, max_sessions=20)
                before = {u: store.read_checkpoint(f"{NS}:u{u}")[0] for u in range(args.users)}
                users = list(range(args.users))
                rng.shuffle(users)
                ours, cpu, theirs, replayed = [], [], [], 0
                for u in users:
                    sid, key = f"{NS}:u{u}", f"m{(u + visit) % args.beliefs}"
                    t, c = time.perf_counter(), time.thread_time()
                    sharded.put((NS, f"u{u}"), key, value(u, 0, visit))
                    ours.append(time.perf_counter() - t)
                    cpu.append(time.thread_time() - c)
                    with sharded.cache.session(sid, sync=False) as kb:  # open: count its replay
                        replayed += kb.journal.seen - 1 - before[u]
                    t = time.perf_counter()
                    pg.put((NS, f"u{u}"), key, value(u, 0, visit))
                    theirs.append(time.perf_counter() - t)
                sharded.cache.wait_checkpoints(120)
                written = sum(store.read_checkpoint(f"{NS}:u{u}")[0] != before[u]
                              for u in range(args.users))
                a, b = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
                print(f"visit {visit}: open+put p50 {a:.2f} ms, client CPU p50 "
                      f"{statistics.median(cpu) * 1e3:.3f} ms; PostgresStore put p50 {b:.2f} ms "
                      f"-> {a / b:.1f}x; entries replayed by the opens {replayed} "
                      f"({replayed / args.users:.2f} a user); checkpoints written {written}; "
                      f"load average {os.getloadavg()[0]:.1f}")
        ledger.close()
    finally:
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()

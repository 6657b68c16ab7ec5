"""Puts that make a checkpoint due, beside the others (issue 38: checkpoints off the request
path), through ``CorollaryStore.sharded`` on PostgreSQL.

``--users`` sessions of ``--beliefs`` memories each (one ``assert_many`` entry), then ``--puts``
puts to them in a random order, with ``checkpoint_every=--every``: a put whose entry makes a
checkpoint due (a multiple of ``--every``, or a power of two from 16 on) is timed apart from
the others. Prints each group's p50 and mean, their ratio at p50 (the puts that made no
checkpoint due are the baseline, in the same run), the p99 of every put, and the load
average. Run it on main and on a branch to compare (``PYTHONPATH`` picks the code).

Usage::

    COROLLARY_TEST_PG_URL=postgresql://... PYTHONPATH=. python benchmarks/bench_put_checkpoints.py \\
        [--users 20] [--beliefs 500] [--puts 2000] [--every 50]

Needs the ``postgres`` and ``langgraph`` extras.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
import uuid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--beliefs", type=int, default=500)
    parser.add_argument("--puts", type=int, default=2000)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--url", default=os.environ.get("COROLLARY_TEST_PG_URL"))
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("give --url or COROLLARY_TEST_PG_URL (a PostgreSQL server)")
    import psycopg

    from corollary import open_ledger
    from corollary.integrations.langgraph import SOURCE, CorollaryStore

    namespace = f"bench_cp_{uuid.uuid4().hex[:8]}"
    ledger = open_ledger(args.url, namespace=namespace)
    try:
        store = CorollaryStore.sharded(ledger, checkpoint_every=args.every)
        for u in range(args.users):
            with store.cache.session(f"memories:u{u}") as kb:
                kb.assert_many([(f"memories:u{u}:m{i}", {"text": f"memory {i} of {u}"}, SOURCE)
                                for i in range(args.beliefs)])
        rng = random.Random(38)
        due: list[float] = []
        other: list[float] = []
        for n in range(args.puts):
            u = rng.randrange(args.users)
            with store.cache.session(f"memories:u{u}", sync=False) as kb:
                seq = kb.journal_seq + 1  # the entry this put appends
            start = time.perf_counter()
            store.put(("memories", f"u{u}"), f"m{rng.randrange(args.beliefs)}", {"v": n})
            took = time.perf_counter() - start
            doubled = seq >= 16 and seq & (seq - 1) == 0
            (due if seq % args.every == 0 or doubled else other).append(took)
        wait = getattr(store.cache, "wait_checkpoints", None)  # not on code before it
        if wait is not None:
            wait(120)
        every = sorted(due + other)
        d50, o50 = statistics.median(due) * 1e3, statistics.median(other) * 1e3
        print(f"{args.users} sessions of {args.beliefs} memories, {args.puts} puts, a "
              f"checkpoint every {args.every} entries: puts that made one due (n={len(due)}) "
              f"p50 {d50:.2f} ms mean {statistics.mean(due) * 1e3:.2f} ms; the others p50 "
              f"{o50:.2f} ms mean {statistics.mean(other) * 1e3:.2f} ms -> {d50 / o50:.1f}x at "
              f"p50; every put p99 {every[int(0.99 * len(every))] * 1e3:.2f} ms; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    finally:
        ledger.close()
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {namespace} CASCADE")


if __name__ == "__main__":
    main()

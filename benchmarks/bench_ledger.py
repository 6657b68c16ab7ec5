"""Trust-ledger storage benchmark: write throughput and reliability-query latency per backend.

For each backend (memory, SQLite, PostgreSQL, JSON file) it measures

* single writes: ``record_outcome`` one at a time (one transaction each on SQL stores);
* batched writes: ``record_many`` in batches, up to ``--outcomes`` outcomes (1M by default;
  the JSON file rewrites itself on every write, so it gets ``--json-outcomes``);
* query latency at that size: a warm ``reliability`` (the in-process cache, the engine's hot
  path), a cold first query of a source from a freshly opened ledger, and a ``poll`` with
  nothing new;
* SQLite with 8 processes writing batches at once (every outcome must be kept).

Every figure is also printed as a ratio to the in-memory store measured in the same run.
PostgreSQL runs when ``--pg-url`` or ``COROLLARY_TEST_PG_URL`` is set (``.ci/postgres.sh``).

Usage::

    python benchmarks/bench_ledger.py [--outcomes 1000000] [--pg-url URL] [--write PATH]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from corollary import open_ledger
from corollary.foundations.clock import ManualClock
from corollary.trust.ledger import TrustLedger

SOURCES = 1000
BATCH = 10_000
NOW = 1_000_000.0


def outcome(i: int, tag: str) -> dict[str, Any]:
    return {"source": f"tool:s{i % SOURCES}", "correct": (i * 7919) % 10 < 8,
            "at": NOW - (i % 86_400), "topic": "t" if i % 3 == 0 else None,
            "event_id": f"{tag}-{i}"}


def fill(ledger: TrustLedger, n: int, tag: str, batch: int = BATCH) -> float:
    """Record n outcomes in batches; seconds taken."""
    start = time.perf_counter()
    for lo in range(0, n, batch):
        ledger.record_many([outcome(i, tag) for i in range(lo, min(lo + batch, n))])
    return time.perf_counter() - start


def singles(ledger: TrustLedger, n: int, tag: str) -> float:
    start = time.perf_counter()
    for i in range(n):
        ledger.record_outcome(**outcome(i, tag))
    return time.perf_counter() - start


def query_latency(ledger: TrustLedger, rounds: int = 20_000) -> float:
    """Median-of-5 mean seconds per warm reliability() over many sources."""
    names = [f"tool:s{i}" for i in range(SOURCES)]
    for name in names:  # warm the cache
        ledger.reliability(name, at=NOW, prior=0.9)
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for k in range(rounds):
            ledger.reliability(names[k % SOURCES], at=NOW, prior=0.9)
        samples.append((time.perf_counter() - start) / rounds)
    return statistics.median(samples)


def cold_latency(open_fn: Any, n: int = 20) -> float:
    """Mean seconds of a first query of a source on a freshly opened ledger."""
    ledger = open_fn()
    start = time.perf_counter()
    for i in range(n):
        ledger.reliability(f"tool:s{i * 37 % SOURCES}", at=NOW, prior=0.9)
    took = (time.perf_counter() - start) / n
    ledger.close()
    return took


def poll_latency(ledger: TrustLedger, n: int = 2000) -> float:
    ledger.poll()
    start = time.perf_counter()
    for _ in range(n):
        ledger.poll()
    return (time.perf_counter() - start) / n


def bench_backend(name: str, open_fn: Any, n: int, n_single: int) -> dict[str, Any]:
    ledger = open_fn()
    t_single = singles(ledger, n_single, f"single-{uuid.uuid4().hex[:6]}")
    t_batch = fill(ledger, n, "batch")
    row = {
        "backend": name,
        "outcomes": n,
        "single_per_s": n_single / t_single,
        "batched_per_s": n / t_batch,
        "warm_query_s": query_latency(ledger),
        "poll_s": poll_latency(ledger),
    }
    ledger.close()
    row["cold_query_s"] = cold_latency(open_fn)
    return row


def _writer(target: str, tag: str, n: int, batch: int, start: Any) -> None:
    ledger = open_ledger(target, clock=ManualClock(NOW))
    start.wait(60)
    fill(ledger, n, tag, batch)
    ledger.close()


def bench_sqlite_fleet(path: str, procs: int, per: int, batch: int) -> dict[str, Any]:
    open_ledger(path).close()
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    workers = [ctx.Process(target=_writer, args=(path, f"w{k}", per, batch, start))
               for k in range(procs)]
    for w in workers:
        w.start()
    time.sleep(1.0)  # let every child import and open before the starting gun
    t0 = time.perf_counter()
    start.set()
    for w in workers:
        w.join()
    took = time.perf_counter() - t0
    conn = sqlite3.connect(path)
    kept = conn.execute("SELECT count(*) FROM outcomes").fetchone()[0]
    conn.close()
    return {"processes": procs, "outcomes": procs * per, "kept": kept,
            "per_s": procs * per / took, "seconds": took}


def fmt_rate(x: float) -> str:
    return f"{x:,.0f}/s"


def fmt_time(s: float) -> str:
    return f"{s * 1e6:,.1f} µs" if s < 1e-3 else f"{s * 1e3:,.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outcomes", type=int, default=1_000_000)
    parser.add_argument("--json-outcomes", type=int, default=20_000)
    parser.add_argument("--single", type=int, default=5_000)
    parser.add_argument("--pg-url", default=os.environ.get("COROLLARY_TEST_PG_URL"))
    parser.add_argument("--write", default=None, help="write a markdown report here")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-ledger-"))
    clock = ManualClock(NOW)
    rows = []
    try:
        print(f"memory: {args.outcomes:,} outcomes ...", flush=True)
        rows.append(bench_backend("memory", lambda: TrustLedger(clock=clock), args.outcomes,
                                  args.single))
        # a shared store's cold query must load from the file: reopen the same target
        sqlite_path = str(tmp / "ledger.db")
        print(f"sqlite: {args.outcomes:,} outcomes ...", flush=True)
        rows.append(bench_backend("sqlite", lambda: open_ledger(sqlite_path, clock=clock),
                                  args.outcomes, args.single))
        if args.pg_url:
            ns = f"bench_{uuid.uuid4().hex[:10]}"
            print(f"postgres: {args.outcomes:,} outcomes ...", flush=True)
            try:
                rows.append(bench_backend(
                    "postgres", lambda: open_ledger(args.pg_url, clock=clock, namespace=ns),
                    args.outcomes, min(args.single, 2_000)))
            finally:
                import psycopg

                with psycopg.connect(args.pg_url, autocommit=True) as conn:
                    conn.execute(f"DROP SCHEMA IF EXISTS {ns} CASCADE")
        json_path = str(tmp / "ledger.json")
        print(f"json: {args.json_outcomes:,} outcomes ...", flush=True)
        rows.append(bench_backend("json", lambda: open_ledger(json_path, clock=clock),
                                  args.json_outcomes, 200))
        print("sqlite, 8 processes at once ...", flush=True)
        fleet = bench_sqlite_fleet(str(tmp / "fleet.db"), 8, 25_000, 1_000)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = rows[0]
    lines = [
        "| backend | outcomes | single writes | batched writes | warm reliability() | "
        "cold first query | poll (nothing new) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['outcomes']:,} "
            f"| {fmt_rate(r['single_per_s'])} ({r['single_per_s'] / base['single_per_s']:.3f}×) "
            f"| {fmt_rate(r['batched_per_s'])} "
            f"({r['batched_per_s'] / base['batched_per_s']:.3f}×) "
            f"| {fmt_time(r['warm_query_s'])} ({r['warm_query_s'] / base['warm_query_s']:.2f}×) "
            f"| {fmt_time(r['cold_query_s'])} ({r['cold_query_s'] / base['cold_query_s']:.0f}×) "
            f"| {fmt_time(r['poll_s'])} |")
    sqlite_row = next(r for r in rows if r["backend"] == "sqlite")
    lines += [
        "",
        "Ratios (×) are against the in-memory store in the same run (for throughput, higher is "
        "faster; for latency, lower is faster).",
        "",
        f"SQLite, {fleet['processes']} processes writing batches of 1,000 at once: "
        f"{fleet['outcomes']:,} outcomes in {fleet['seconds']:.2f} s = "
        f"{fmt_rate(fleet['per_s'])}, {fleet['kept']:,} kept "
        f"({'all' if fleet['kept'] == fleet['outcomes'] else 'LOST SOME'}).",
        "",
        f"Bar: SQLite batched ≥ 20,000 outcomes/s: single process "
        f"{fmt_rate(sqlite_row['batched_per_s'])}, 8 processes {fmt_rate(fleet['per_s'])} → "
        f"{'met' if min(sqlite_row['batched_per_s'], fleet['per_s']) >= 20_000 else 'NOT met'}.",
    ]
    report = "\n".join(lines)
    print()
    print(report)
    if args.write:
        header = [
            "# Trust-ledger storage benchmark",
            "",
            "Command (PostgreSQL from `bash .ci/postgres.sh start`):",
            "",
            "```",
            "COROLLARY_TEST_PG_URL=$(cat /tmp/corollary-pg/url) "
            "python benchmarks/bench_ledger.py " + " ".join(sys.argv[1:]),
            "```",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, SQLite {sqlite3.sqlite_version}.",
            "",
        ]
        Path(args.write).write_text("\n".join(header) + "\n" + report + "\n")


if __name__ == "__main__":
    main()

"""Journaled sessions benchmark (issue 19): one durable change against a whole-session save.

For each base size (1k, 10k, 100k premises by default) on a SQLite ledger it measures

* one durable change: ``kb.assert_`` of one new premise on a journaled session
  (``BeliefBase.open_session``): the lock, the entry, the commit; median and p90 of
  ``--changes`` changes;
* the whole-session save of the same base in the same run (``kb.save_session``, what a
  snapshot session pays per change), median of ``--saves``; printed as a ratio;
* reopening the session (``BeliefBase.open_session`` in a new ledger: the newest checkpoint plus
  the tail of entries after it), median of 3;
* one checkpoint (``kb.checkpoint()``): what the change that falls due for one (every 1,000
  entries by default) pays on top.

Bars: one change <= 2 ms at 100k and >= 50x faster than the whole save; reopening 100k <= 3 s.
``--postgres URL`` runs the same on a PostgreSQL ledger (when its store keeps journals).
``--profile`` prints a cProfile of 200 changes at the largest size.

``--watch`` measures instead one durable change with a watch of every key (``kb.watch(cb)``,
what ``corollary ui`` sets): median of ``--changes`` changes, next to the same change with
the watch comparing every key before and after (the reference a test checks it against,
tests/support/journal_workers.py ``look_at_every_key``) and with no watch. Bar: a watch of every key adds <= 1 ms at 100k.

Usage::

    python benchmarks/bench_journal.py [--sizes 1000,10000,100000] [--postgres URL]
    python benchmarks/bench_journal.py --watch --sizes 1000,100000 --changes 50
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from corollary import BeliefBase, JournalUnsupportedError, ManualClock, open_ledger
from corollary.trust.ledger import TrustLedger

NOW = 1_000_000.0


def build(ledger: TrustLedger, session: str, n: int) -> Any:
    """A journaled session of ``n`` premises (one ``assert_many`` entry and a checkpoint)."""
    kb = BeliefBase.open_session(ledger, session, clock=ManualClock(NOW))
    kb.assert_many([(f"k{i}", i, f"tool:s{i % 100}") for i in range(n)])
    kb.checkpoint()
    return kb


def changes(kb: Any, count: int, tag: str) -> list[float]:
    """Seconds of each of ``count`` durable changes (one new premise each)."""
    times = []
    for i in range(count):
        start = time.perf_counter()
        kb.assert_(f"{tag}{i}", i, source="tool:bench")
        times.append(time.perf_counter() - start)
    return times


def run(target: str, sizes: list[int], count: int, saves: int, profile: bool) -> list[str]:
    lines = []
    for n in sizes:
        session = f"bench-{n}-{uuid.uuid4().hex[:6]}"
        ledger = open_ledger(target)
        started = time.perf_counter()
        kb = build(ledger, session, n)
        built = time.perf_counter() - started
        changes(kb, 20, "warm")
        one = changes(kb, count, "c")
        median = statistics.median(one)
        p90 = sorted(one)[int(0.9 * len(one))]
        whole = []
        for _ in range(saves):
            start = time.perf_counter()
            kb.save_session(f"{session}-whole", overwrite=True)
            whole.append(time.perf_counter() - start)
        save = statistics.median(whole)
        start = time.perf_counter()
        kb.checkpoint()  # what the change that falls due for one pays on top (every 1,000)
        checkpoint = time.perf_counter() - start
        reopen = []
        for _ in range(3):
            other = open_ledger(target)
            start = time.perf_counter()
            again = BeliefBase.open_session(other, session, clock=ManualClock(NOW))
            reopen.append(time.perf_counter() - start)
            assert len(again) == len(kb)
            other.close()
        opened = statistics.median(reopen)
        line = (f"{n:>7,} beliefs: one durable change median {median * 1e3:.3f} ms "
                f"(p90 {p90 * 1e3:.3f} ms, max {max(one) * 1e3:.1f} ms); whole-session save "
                f"{save * 1e3:.1f} ms -> {save / median:,.0f}x; reopen {opened:.3f} s (tail "
                f"{kb.journal_seq - 1} entries); a checkpoint {checkpoint * 1e3:.0f} ms  "
                f"[build {built:.1f} s]")
        print(line, flush=True)
        lines.append(line)
        if profile and n == sizes[-1]:
            profiler = cProfile.Profile()
            profiler.enable()
            changes(kb, 200, "profiled")
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        ledger.close()
    return lines


def watched(target: str, sizes: list[int], count: int) -> list[str]:
    """One durable change with a watch of every key, the look at every key, and no watch."""
    lines = []
    for n in sizes:
        ledger = open_ledger(target)
        kb = build(ledger, f"watch-{n}-{uuid.uuid4().hex[:6]}", n)
        heard: list[Any] = []
        changes(kb, 20, "warm")
        bare = statistics.median(changes(kb, count, "bare"))
        watch = kb.watch(heard.append)
        feed = statistics.median(changes(kb, count, "feed"))
        assert len(heard) == count  # one event per change: its new key's value, IN
        journal = kb.journal
        journal.before = lambda op, j=journal: j.capture()  # type: ignore[method-assign]  # every key
        every = statistics.median(changes(kb, max(count // 10, 3), "every"))
        del journal.before  # the label feed again
        watch.stop()
        line = (f"{n:>7,} beliefs: one change with a watch of every key median "
                f"{feed * 1e3:.3f} ms; comparing every key {every * 1e3:.1f} ms; no watch "
                f"{bare * 1e3:.3f} ms")
        print(line, flush=True)
        lines.append(line)
        ledger.close()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--changes", type=int, default=300)
    parser.add_argument("--saves", type=int, default=5)
    parser.add_argument("--postgres", metavar="URL", help="also run on this PostgreSQL ledger")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--watch", action="store_true",
                        help="one change with a watch of every key (see the docstring)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"corollary journal benchmark; Python {platform.python_version()}, "
          f"{platform.machine()}")
    if args.watch:
        with tempfile.TemporaryDirectory() as tmp:
            print("SQLite (WAL, synchronous=NORMAL):")
            watched(str(Path(tmp) / "ledger.db"), sizes, args.changes)
        return
    with tempfile.TemporaryDirectory() as tmp:
        print("SQLite (WAL, synchronous=NORMAL):")
        run(str(Path(tmp) / "ledger.db"), sizes, args.changes, args.saves, args.profile)
    if args.postgres:
        print("PostgreSQL:")
        try:
            run(args.postgres, sizes, args.changes, args.saves, args.profile)
        except JournalUnsupportedError as exc:
            print(f"  skipped: {exc}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

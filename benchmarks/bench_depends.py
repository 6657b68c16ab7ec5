"""Dependencies and declared replacements (issue 37, "Measured": the costs), each against a
plain baseline measured in the same run.

* **ripple**: on a base of ``--size`` beliefs (100k by default) under ``PreferNewer``, ``k``
  dependents rest on one root (``kb.depend``) and ``k`` replacements wait on it
  (``kb.replace_when``); the root changes (a newer value) and ``kb.refresh()`` settles what
  went stale. The time per dependent (of the ``2k`` the change reaches) is printed as a ratio
  to a plain assertion of a new key on the same base, settled the same way (median of
  ``--repeats``; a garbage collection before each timing, so that one of the base's 100k
  objects does not land in a timing of microseconds).
* **reopen**: a journaled SQLite session of ``--replacements`` users (10,000 by default), each
  with a condition and a routine (one ``assert_many``), and a declared replacement per user (one
  entry each); the same session without the replacements is the baseline. Each is opened in a
  fresh process (``BeliefBase.open_session``, then one read), timed inside that process; the
  ratio is with / without (median of ``--repeats`` processes each).

Usage::

    python benchmarks/bench_depends.py [--size 100000] [--k 10,100,1000] [--replacements 10000]
        [--repeats 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 10_000


def _filled(size: int) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000_000), conflict_policy=PreferNewer())
    for start in range(0, size, CHUNK):
        kb.assert_many([(f"fact:{i}", i, "tool:feed") for i in range(start, min(start + CHUNK,
                                                                              size))])
    kb.refresh()
    return kb


def ripple(size: int, k: int, repeats: int) -> tuple[float, float]:
    """(seconds per dependent of a ripple, seconds of a plain assertion), medians."""
    per, plain = [], []
    for r in range(repeats):
        kb = _filled(size)
        kb.assert_("user:condition", "asthma", source="human:ann", valid_from=100)
        for i in range(k):
            kb.assert_(f"user:routine:{i}", "running", source="human:ann", valid_from=101)
            kb.depend(f"user:medication:{i}", f"m{i}", on=["user:condition"], source="model:m")
            kb.replace_when(f"user:routine:{i}", "cycling", "user:condition", source="model:m")
        kb.refresh()
        gc.collect()  # a collection of the 100k base's objects is not the ripple's cost
        t0 = time.perf_counter()
        kb.assert_("user:condition", "none", source="human:ann", valid_from=500 + r)
        kb.refresh()
        per.append((time.perf_counter() - t0) / (2 * k))
        assert kb.value("user:medication:0") is None and kb.value("user:routine:0") == "cycling"
        gc.collect()
        t0 = time.perf_counter()
        kb.assert_(f"plain:{r}", 1, source="tool:feed")
        kb.refresh()
        plain.append(time.perf_counter() - t0)
    return statistics.median(per), statistics.median(plain)


def write_session(path: str, users: int, replacements: bool) -> None:
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1_000_000),
                                     conflict_policy=PreferNewer())
        rows = []
        for i in range(users):
            rows.append((f"user:{i}:condition", "asthma", "human:ann", None, None, None, 100))
            rows.append((f"user:{i}:routine", "running", "human:ann", None, None, None, 101))
        kb.assert_many(rows)
        if replacements:
            for i in range(users):
                kb.replace_when(f"user:{i}:routine", "cycling", f"user:{i}:condition",
                                source="model:m")


OPEN = """
import json, sys, time
t0 = time.perf_counter()
from corollary import BeliefBase, ManualClock, open_ledger
with open_ledger(sys.argv[1]) as ledger:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1_000_000))
    kb.value("user:0:routine")
    print(json.dumps(time.perf_counter() - t0))
"""


def reopen(path: str) -> float:
    done = subprocess.run([sys.executable, "-c", OPEN, path], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=3600)
    return float(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--k", default="10,100,1000")
    parser.add_argument("--replacements", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"# python {platform.python_version()}, load {os.getloadavg()[0]:.1f}")
    print(f"ripple at {args.size} beliefs: per dependent vs a plain assertion (+ refresh)")
    print(f"{'k':>6} {'per dependent us':>17} {'plain assert us':>16} {'ratio':>7}")
    for k in (int(x) for x in args.k.split(",")):
        per, plain = ripple(args.size, k, args.repeats)
        print(f"{k:>6} {per * 1e6:>17.1f} {plain * 1e6:>16.1f} {per / plain:>6.2f}x")
    with tempfile.TemporaryDirectory() as where:
        with_path, without_path = f"{where}/with.db", f"{where}/without.db"
        t0 = time.perf_counter()
        write_session(with_path, args.replacements, True)
        written = time.perf_counter() - t0
        write_session(without_path, args.replacements, False)
        opened_with = statistics.median(reopen(with_path) for _ in range(args.repeats))
        opened_without = statistics.median(reopen(without_path) for _ in range(args.repeats))
    print(f"reopen in a fresh process, {args.replacements} users (written with replacements "
          f"in {written:.1f} s)")
    print(f"  with {args.replacements} replacements {opened_with:.2f} s, without "
          f"{opened_without:.2f} s: {opened_with / opened_without:.2f}x")


if __name__ == "__main__":
    main()

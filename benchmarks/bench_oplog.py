"""The operation-log hook's cost on a plain base (issue 26, point 2).

Every changing method of a base is declared once with ``@operation``
(corollary/facade/operations.py); on a plain base, which has no log, a declared change pays one
``is None`` check and one call more than the method itself. This times ``kb.assert_`` of new
keys one by one through the declared method and through the undecorated one (its
``__wrapped__``), alternately in one process, best of ``--repeat`` runs of ``--n`` assertions
each: two trees measured in two processes on a shared machine differ by more than the hook.

Usage::

    python benchmarks/bench_oplog.py [--n 100000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import time

from corollary import BeliefBase, ManualClock


def per_assert(n: int, declared: bool) -> float:
    """Microseconds per ``assert_`` of a new key, through the declared method or not."""
    # the method itself (the class of a plain base holds it undecorated since issue 36)
    plain = getattr(BeliefBase.assert_, "__wrapped__", BeliefBase.assert_)
    keys = [f"k{i}" for i in range(n)]
    sources = [f"tool:feed{i}" for i in range(16)]
    kb = BeliefBase(clock=ManualClock(0))
    t = time.perf_counter()
    if declared:
        for i in range(n):
            kb.assert_(keys[i], i, source=sources[i % 16])
    else:
        for i in range(n):
            plain(kb, keys[i], i, source=sources[i % 16])
    return (time.perf_counter() - t) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    best = {False: float("inf"), True: float("inf")}
    for _ in range(args.repeat):
        for declared in (False, True):
            best[declared] = min(best[declared], per_assert(args.n, declared))
    extra = best[True] - best[False]
    print(f"assert_ one by one, {args.n:,} new keys (best of {args.repeat}): undecorated "
          f"{best[False]:.3f} us, declared {best[True]:.3f} us -> {extra:+.3f} us "
          f"({best[True] / best[False] - 1:+.1%})")


if __name__ == "__main__":
    main()

"""Forgetting a key that declared replacements wait on (docs/model.md, "Forgetting": the
exceptions naming it are taken out of the reasons that list them, in the order the reasons were
made). ``--k`` replacements wait on one key; ``kb.forget`` of that key is timed and printed as a
ratio to declaring them (``kb.replace_when`` ``k`` times), measured in the same run (median of
``--repeats`` fresh bases).

Usage::

    python benchmarks/bench_forget_order.py [--k 1000,5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from corollary import BeliefBase, ManualClock


def once(k: int) -> tuple[float, float]:
    """(seconds to declare ``k`` replacements, seconds to forget the key they wait on)."""
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("root", 1, source="human:ann")
    t = time.perf_counter()
    for i in range(k):
        kb.replace_when(f"k{i}", 0, "root", source="model:m")
    declared = time.perf_counter() - t
    t = time.perf_counter()
    kb.forget("root")
    forgot = time.perf_counter() - t
    assert kb.label("k0") == "IN"  # the replacement took effect
    return declared, forgot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", default="1000,5000")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("k       declare ms  forget ms  ratio")
    for k in (int(x) for x in args.k.split(",")):
        runs = [once(k) for _ in range(args.repeats)]
        declared = statistics.median(d for d, _ in runs)
        forgot = statistics.median(f for _, f in runs)
        print(f"{k:<7} {1000 * declared:10.1f} {1000 * forgot:10.1f} {forgot / declared:6.2f}x")


if __name__ == "__main__":
    main()

"""What the premise record's plain tuple is for (issue 36 item 5): the garbage collector's load.

Run:  PYTHONPATH=. python benchmarks/bench_records.py [--n 100000]

For each shape a premise record takes (plain; a half-life and ttl; a stated certainty; a valid
time; a value held over two intervals), ``n`` beliefs each held by one premise of that shape
are asserted one by one. Printed per shape: the share of the records the collector still
tracks after one full collection and after three (a collection untracks a tuple of untracked
items, one level of nesting a pass), the bytes a record takes (its tuple, the tuples it nests
and the floats it owns; the strings are shared), the memory the base grew by per belief
(tracemalloc), and the objects the collector tracks per belief once the base is built. Run it on two trees (each on
its own ``PYTHONPATH``) to compare them.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from typing import Any

from corollary import BeliefBase, ManualClock

SHAPES = ("plain", "half-life+ttl", "certainty", "valid time", "two intervals")


def _assert(kb: BeliefBase, shape: str, key: str, i: int) -> None:
    source = f"tool:feed{i % 16}"
    if shape == "plain":
        kb.assert_(key, i, source=source)
    elif shape == "half-life+ttl":
        kb.assert_(key, i, source=source, half_life=3600, ttl=86400)
    elif shape == "certainty":
        kb.assert_(key, i, source=source, certainty=0.8)
    elif shape == "valid time":
        kb.assert_(key, i, source=source, valid_from=1e8 + i)
    else:
        kb.assert_(key, i, source=source, valid_from=1e8, valid_until=2e8)
        kb.assert_(key, i, source=source, valid_from=3e8 + i)


def _own_bytes(x: Any) -> int:
    """The bytes of ``x`` and of the tuples and floats it holds (strings are shared)."""
    if type(x) is tuple:
        return sys.getsizeof(x) + sum(_own_bytes(item) for item in x)
    return sys.getsizeof(x) if type(x) is float else 0


def measure(shape: str, n: int) -> dict[str, float]:
    keys = [f"k{i}" for i in range(n)]
    gc.collect()
    objects = len(gc.get_objects())
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kb = BeliefBase(clock=ManualClock(1e9))
    for i, key in enumerate(keys):
        _assert(kb, shape, key, i)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    records = [kb.engine.values_of(key)[0].records()[0] for key in keys]
    gc.collect()
    after_one = sum(map(gc.is_tracked, records)) / n
    gc.collect()
    gc.collect()
    after_three = sum(map(gc.is_tracked, records)) / n
    per_belief = (len(gc.get_objects()) - objects) / n
    return {"tracked_1": after_one, "tracked_3": after_three,
            "record_bytes": sum(map(_own_bytes, records)) / n, "belief_bytes": grown / n,
            "objects": per_belief}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    print(f"premise records, {args.n:,} beliefs a shape")
    print(f"{'shape':14} {'tracked after 1 / 3 collections':>32} {'B/record':>9} "
          f"{'B/belief':>9} {'tracked objects/belief':>23}")
    for shape in SHAPES:
        m = measure(shape, args.n)
        print(f"{shape:14} {m['tracked_1']:>15.1%} / {m['tracked_3']:<14.1%} "
              f"{m['record_bytes']:9.0f} {m['belief_bytes']:9.0f} {m['objects']:23.2f}")


if __name__ == "__main__":
    main()

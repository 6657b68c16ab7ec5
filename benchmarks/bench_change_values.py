"""What making a change value on the hot path would cost (issue 36, items 1 and 2).

Plain ``kb.assert_`` is the baseline (bar: >= 300k/s, and no slower than 0.95x before). Each
round, interleaved in this one process so that the machine's load falls on every variant
alike, asserts ``n`` new keys:

- ``assert_``: the method as it is (validation, then the engine);
- ``value + assert_``: an :class:`~corollary.changes.Assert` value (frozen, slotted attrs) built
  per call before the method, as "validation, then the value, then apply" would build it;
- ``apply(value)``: :func:`corollary.changes.apply` of that value (the path surfaces take).

It also times building the value alone. Prints each variant's rate (best of the rounds) and its
ratio to the baseline.

    PYTHONPATH=. python benchmarks/bench_change_values.py --n 100000 --rounds 5
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable

from corollary import BeliefBase, ManualClock
from corollary.changes import Assert, apply


def _plain(keys: list[str], sources: list[str]) -> float:
    kb = BeliefBase(clock=ManualClock(0))
    t = time.perf_counter()
    for i, key in enumerate(keys):
        kb.assert_(key, i, source=sources[i & 15])
    return time.perf_counter() - t


def _valued(keys: list[str], sources: list[str]) -> float:
    kb = BeliefBase(clock=ManualClock(0))
    t = time.perf_counter()
    for i, key in enumerate(keys):
        change = Assert(key, i, sources[i & 15])
        kb.assert_(change.key, change.value, source=change.source)
    return time.perf_counter() - t


def _applied(keys: list[str], sources: list[str]) -> float:
    kb = BeliefBase(clock=ManualClock(0))
    t = time.perf_counter()
    for i, key in enumerate(keys):
        apply(kb, Assert(key, i, sources[i & 15]))
    return time.perf_counter() - t


def _value_alone(keys: list[str], sources: list[str]) -> float:
    t = time.perf_counter()
    for i, key in enumerate(keys):
        Assert(key, i, sources[i & 15])
    return time.perf_counter() - t


VARIANTS: dict[str, Callable[[list[str], list[str]], float]] = {
    "assert_": _plain, "value + assert_": _valued, "apply(value)": _applied,
    "the value alone": _value_alone}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    keys = [f"k{i}" for i in range(args.n)]
    sources = [f"tool:feed{i}" for i in range(16)]
    best = dict.fromkeys(VARIANTS, float("inf"))
    for _ in range(args.rounds):
        for name, run in VARIANTS.items():
            gc.collect()
            best[name] = min(best[name], run(keys, sources))
    base = args.n / best["assert_"]
    print(f"n = {args.n:,}, best of {args.rounds} interleaved rounds")
    for name, seconds in best.items():
        rate = args.n / seconds
        extra = (f" ({seconds / args.n * 1e9:.0f} ns each)" if name == "the value alone"
                 else f" -> {rate / base:.2f}x assert_")
        print(f"{name:>16}: {rate:>12,.0f}/s{extra}")


if __name__ == "__main__":
    main()

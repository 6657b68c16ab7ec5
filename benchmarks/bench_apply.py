"""What ``apply`` adds to a change (issue 36 item 1: every surface changes the base through it).

The surfaces (MCP's tools, the toolsets, the agent's built-ins, the LangGraph store) build a
change value and hand it to :func:`corollary.changes.apply` instead of calling the base's method.
This times the same assertion both ways, alternately one by one in one process (a shared
machine's noise falls on both alike): ``kb.assert_(key, value, source, valid_from=now)`` (the
baseline) and ``apply(kb, Assert(key, value, source, valid_from=now))``, each a new value of one
of 50 keys as a LangGraph put makes it; on a plain base, a SQLite session and, with ``--url``
(default ``COROLLARY_TEST_PG_URL``), a PostgreSQL session. p50 of each, and their ratio; then
``CorollaryStore.put`` p50 on the same kind of base, for scale.

Usage::

    python benchmarks/bench_apply.py [--n 2000] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corollary import BeliefBase, PreferNewer, open_ledger
from corollary.changes import Assert, apply
from corollary.integrations.langgraph import CorollaryStore


def bases(url: str | None, folder: Path) -> dict[str, Callable[[], BeliefBase]]:
    """Makers of each kind of base measured."""
    made: dict[str, Callable[[], BeliefBase]] = {
        "plain": lambda: BeliefBase(conflict_policy=PreferNewer()),
        "sqlite session": lambda: BeliefBase.open_session(
            open_ledger(str(folder / f"{uuid.uuid4().hex}.db")), "u",
            conflict_policy=PreferNewer())}
    if url:
        made["postgres session"] = lambda: BeliefBase.open_session(
            open_ledger(url, namespace=f"bench_{uuid.uuid4().hex[:12]}"), "u",
            conflict_policy=PreferNewer())
    return made


def both_ways(kb: BeliefBase, n: int) -> tuple[list[float], list[float]]:
    """Seconds of each assertion through the method and through ``apply``, alternately."""
    method: list[float] = []
    applied: list[float] = []
    for i in range(n):
        for through_apply in ((False, True) if i % 2 == 0 else (True, False)):
            key = f"{'a' if through_apply else 'm'}:k{i % 50}"
            value: dict[str, Any] = {"text": f"v{i}"}
            now = kb.now()
            t = time.perf_counter()
            if through_apply:
                apply(kb, Assert(key, value, "tool:store", valid_from=now))
                applied.append(time.perf_counter() - t)
            else:
                kb.assert_(key, value, "tool:store", valid_from=now)
                method.append(time.perf_counter() - t)
    return method, applied


def puts(kb: BeliefBase, n: int) -> list[float]:
    store = CorollaryStore(kb)
    took = []
    for i in range(n):
        t = time.perf_counter()
        store.put(("memories", "u1"), f"k{i % 50}", {"text": f"v{i}"})
        took.append(time.perf_counter() - t)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--url", default=os.environ.get("COROLLARY_TEST_PG_URL"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, make in bases(args.url, Path(folder)).items():
            n = args.n if name == "plain" else max(args.n // 10, 50)
            method, applied = both_ways(make(), n)
            m, a = statistics.median(method), statistics.median(applied)
            put = statistics.median(puts(make(), n))
            print(f"{name} ({n:,} each): kb.assert_ p50 {m * 1e6:.1f} us, apply(kb, Assert) "
                  f"p50 {a * 1e6:.1f} us -> {a / m:.3f}x ({(a - m) * 1e6:+.1f} us); "
                  f"CorollaryStore.put p50 {put * 1e6:.1f} us")


if __name__ == "__main__":
    main()

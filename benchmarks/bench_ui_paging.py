"""The inspector's history, whole or paged (issue 28 item 5).

A journaled SQLite session of ``--entries`` changes to one key (alternating values from two
sources) is read, in this process, the way ``/api/belief`` read it before (every entry of the
key: ``kb.history(key)``, turned into the page's rows and JSON) and the way it reads it now (the
newest page of 100: ``Inspector.history_page(key)``, read from the journal's end). Printed: the
median time of each over ``--repeat`` runs, the ratio, and the size of each answer's JSON.

Usage::

    python benchmarks/bench_ui_paging.py [--entries 10000] [--repeat 5] [--folder DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corollary import BeliefBase, ManualClock, open_ledger  # noqa: E402
from corollary.ui.views import Inspector, _data  # noqa: E402


def build(path: Path, entries: int) -> None:
    clock = ManualClock(1_700_000_000)
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=clock)
        for i in range(entries):
            clock.advance(1)
            kb.assert_("addr", f"{i % 2} Oak St", source=f"tool:s{i % 2}")


def timed(fn: object, repeat: int) -> tuple[float, object]:
    found, times = None, []
    for _ in range(repeat):
        start = time.perf_counter()
        found = fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--folder", default=None, help="where the ledger goes (default: a "
                                                       "temporary folder)")
    args = parser.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="bench-ui-paging-"))
    path = folder / "ledger.db"
    if not path.exists():
        start = time.perf_counter()
        build(path, args.entries)
        print(f"built {args.entries:,} entries in {time.perf_counter() - start:.1f} s")
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s")
        ins = Inspector(kb)

        def whole() -> str:  # what /api/belief answered before: every entry of the key
            rows = [_data(e) for e in reversed(kb.history("addr"))]  # type: ignore[attr-defined]
            return json.dumps(rows)

        def page() -> str:
            return json.dumps(ins.history_page("addr"))

        t_whole, big = timed(whole, args.repeat)
        t_page, small = timed(page, args.repeat)
    print(f"load {os.getloadavg()[0]:.2f}; {args.entries:,} entries of one key")
    print(f"  whole history: {t_whole * 1000:9.1f} ms, {len(str(big)) / 1e6:6.2f} MB of JSON")
    print(f"  one page (100): {t_page * 1000:8.1f} ms, {len(str(small)) / 1e3:6.1f} kB of JSON"
          f"  -> {t_whole / t_page:,.0f}x faster")


if __name__ == "__main__":
    main()

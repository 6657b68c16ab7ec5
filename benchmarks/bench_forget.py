"""``kb.forget`` benchmark (issue 35, item 2): the cost of erasing, as a ratio to writing what it
erased, measured in the same run.

On a base of ``--size`` beliefs (100k by default), plain (in memory) and journaled on a SQLite
ledger (``BeliefBase.open_session``), it writes

* a user: ``--user`` beliefs under ``user:7`` in one ``assert_many`` (a CRM import), timed;
* a document: one conversation remembered (``kb.remember`` with a scripted model: the text and
  five facts citing it), timed;

then times ``kb.forget(document)`` and ``kb.forget(scope="user:7")`` and prints each as a
ratio to the write. A journaled forget rewrites the journal's past (the entries naming what
went, every checkpoint holding it) and writes the base's whole state in its entry
(docs/journal.md, "Forgetting"): its cost grows with the base, the write's does not. Median of
``--repeats`` fresh bases.

Usage::

    python benchmarks/bench_forget.py [--size 100000] [--user 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.models import Reply, ScriptedModel, ToolCall

NOW = 1_000_000.0
CHUNK = 10_000
TEXT = ("Hi, this is Ann. My PIN is 4321, I live in Paris, I work at Acme, my dog is Rex and "
        "my phone is 555-0100.")
FACTS = [("pin", "4321", "My PIN is 4321"), ("city", "Paris", "I live in Paris"),
         ("employer", "Acme", "I work at Acme"), ("dog", "Rex", "my dog is Rex"),
         ("phone", "555-0100", "my phone is 555-0100")]


def model() -> ScriptedModel:
    facts = [{"subject": "Ann", "attribute": a, "value": v, "quote": q} for a, v, q in FACTS]
    return ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": facts})])])


def build(kb: Any, size: int, user: int) -> dict[str, float]:
    """Fill ``kb`` to ``size`` beliefs; return the seconds of writing the user and the doc."""
    filler = size - user - len(FACTS) - 1
    for start in range(0, filler, CHUNK):
        kb.assert_many([(f"k{i}", i, f"tool:s{i % 100}")
                        for i in range(start, min(filler, start + CHUNK))])
    t0 = time.perf_counter()
    kb.assert_many([(f"user:7:attr{i}", f"value {i}", "tool:crm") for i in range(user)])
    t1 = time.perf_counter()
    made = kb.remember(TEXT, source="human:ann", model=model())
    t2 = time.perf_counter()
    assert len(made) == len(FACTS) and len(kb.keys()) == size
    return {"user": t1 - t0, "doc": t2 - t1, "document": made[0].document}  # type: ignore[dict-item]


def forget(kb: Any, written: dict[str, Any]) -> dict[str, float]:
    t0 = time.perf_counter()
    doc = kb.forget(written["document"])
    t1 = time.perf_counter()
    user = kb.forget(scope="user:7")
    t2 = time.perf_counter()
    assert doc.beliefs == len(FACTS) + 1 and user.beliefs == written["n_user"]
    return {"doc": t1 - t0, "user": t2 - t1}


def run(mode: str, size: int, user: int, repeats: int) -> dict[str, float]:
    rows: dict[str, list[float]] = {"write doc": [], "forget doc": [], "write user": [],
                                    "forget user": []}
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            ledger = None
            if mode == "plain":
                kb = BeliefBase(clock=ManualClock(NOW))
            else:
                ledger = open_ledger(str(Path(tmp) / "l.db"))
                kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(NOW))
            written: dict[str, Any] = build(kb, size, user)
            written["n_user"] = user
            took = forget(kb, written)
            rows["write doc"].append(written["doc"])
            rows["write user"].append(written["user"])
            rows["forget doc"].append(took["doc"])
            rows["forget user"].append(took["user"])
            if ledger is not None:
                ledger.close()
    return {name: statistics.median(times) for name, times in rows.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--user", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"# bench_forget: {args.size:,} beliefs, a user of {args.user:,}, median of "
          f"{args.repeats}; Python {platform.python_version()} on {sys.platform}")
    print(f"{'base':<10} {'what':<9} {'write ms':>10} {'forget ms':>10} {'ratio':>8}")
    for mode in ("plain", "journaled"):
        found = run(mode, args.size, args.user, args.repeats)
        for what in ("doc", "user"):
            write, erase = found[f"write {what}"], found[f"forget {what}"]
            print(f"{mode:<10} {what:<9} {write * 1e3:>10.1f} {erase * 1e3:>10.1f} "
                  f"{erase / write:>7.1f}x")


if __name__ == "__main__":
    main()

"""Writes ``journal_every_change.db`` and ``journal_every_change.json`` (what it reads): a
session holding an entry of every kind of change the base makes without a model, and a
snapshot of it (``snapshot_every_change.msgpack``), written by main's code at dbe254a, before
changes were values (issue 36). Run from a checkout of that commit::

    PYTHONPATH=<checkout> python tests/data/make_journal_every_change.py tests/data

tests/changes/test_old_journals.py opens them with today's code and compares the reads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from corollary import BeliefBase, ManualClock, open_ledger, rule, tool
from corollary.facade.operations import by_key, operation


@rule(output="tripled", inputs={"x": "n"}, name="fixtures.tripled")
def tripled(x: int) -> int:
    return 3 * x


@tool(trust=0.8, key="stock:{item}")
def stock(item: str) -> int:
    return len(item)


class Shop(BeliefBase):
    """A user's declared change (an entry of its own operation)."""

    @operation(subjects=by_key)
    def list_price(self, key: str, value: float, source: str = "tool:shop") -> None:
        self.assert_(key, value, source=source)  # noqa: UP005
        self.assert_(f"listed:{key}", True, source=source)  # noqa: UP005


def examples() -> list[tuple[float, bool]]:
    rng = np.random.default_rng(0)
    s = rng.random(500)
    return list(zip(s.tolist(), (rng.random(500) < s).tolist(), strict=True))


def every_change(kb: Shop, clock: ManualClock) -> None:
    kb.add_tool(stock)
    kb.assert_("a", 1, source="tool:one")
    kb.assert_many([("b", 2, "tool:one"), ("c", 3, "tool:two")])
    clock.advance(1)
    kb.call(stock, None, "tea")
    kb.claim("sum", 3, source="model:m", inputs={"x": "a", "y": "b"}, formula="x + y")
    kb.assert_("ceo", "Ann", source="tool:one")
    kb.assert_("ceo", "Bob", source="tool:two")
    kb.resolve("ceo", winner="Ann")
    kb.nogood("a", ("b", 2))
    kb.record_outcome("tool:one", True, reason="audited", key="a")
    kb.add_rule(tripled)
    kb.assert_("n", 7, source="tool:one")
    clock.advance(1)
    kb.retract("sum", reason="wrong")
    kb.end("c", source="tool:two", reason="sold")
    kb.remove_rule(tripled)
    kb.guarantee("g", examples(), max_error=0.2)
    kb.answer("a", "g")
    kb.remove_guarantee("g")
    kb.fit_calibrator(examples())
    kb.list_price("price:tea", 4.5)
    kb.forget("n")


def reads(kb: BeliefBase) -> dict[str, Any]:
    """What a caller reads of it, as JSON."""
    kb.refresh()
    beliefs = {key: sorted([repr(b.value), str(b.label), round(b.conf, 9)]
                           for b in kb.engine.values_of(key)) for key in sorted(kb.keys())}
    return {"beliefs": beliefs, "rules": [r.name for r in kb.rules],
            "tools": sorted(kb.tools), "outcomes": len(kb.ledger.outcomes())}


def main(out: Path) -> None:
    clock = ManualClock(1000)
    ledger = open_ledger(str(out / "journal_every_change.db"))
    kb = Shop.open_session(ledger, "every", clock=clock, checkpoint_every=8)
    every_change(kb, clock)
    history = [[h.seq, h.operation, h.key, repr(h.value), h.label] for h in kb.history()]
    kb.save(out / "snapshot_every_change.msgpack")
    (out / "journal_every_change.json").write_text(json.dumps(
        {"reads": reads(kb), "history": history}, indent=1) + "\n")
    ledger.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))

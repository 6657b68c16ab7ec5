"""The old journal fixture (tests/data/journal_every_change.db, written before changes were
values) appended to by today's code, and what a process reads of it afterwards:
tests/changes/test_old_journal_appended.py runs :func:`read_all` here and in another process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data.make_journal_every_change import Shop, reads, stock, tripled  # noqa: E402

from corollary import ManualClock  # noqa: E402

#: The journal times read back with ``as_of``: inside the old entries, and after each new one.
TIMES = (1000.5, 1001.5, 1002.5, 1003.5, 1004.5, 1005.5)


def append_new(kb: Shop, clock: ManualClock) -> None:
    """New entries of every shape the values changed (fields by name, defaults left out, a
    conflict object, a tool's call, a rule, a user's declared change)."""
    clock.advance(1)
    kb.assert_("d", 4, "tool:one", certainty=0.9)
    kb.claim("twice", 8, source="model:m", inputs={"x": "d"}, formula="x + x")
    kb.assert_("ceo", "Cy", source="tool:three")
    clock.advance(1)
    conflicts = kb.conflicts()
    kb.resolve(conflicts[0] if conflicts else "ceo", winner="Cy")
    kb.call(stock, None, "jam")
    kb.add_rule(tripled)
    kb.assert_("n", 5, source="tool:one")
    clock.advance(1)
    kb.retract("d", reason="moved", source="tool:one")
    kb.list_price("price:jam", 3.0)
    kb.end("b", source="tool:one", reason="gone")
    kb.record_outcome("tool:two", False, key="ceo")
    clock.advance(1)
    kb.remove_rule(tripled)


def read_all(kb: Shop) -> dict[str, Any]:
    """Its beliefs, its history and its values at past journal times."""
    history = [[h.seq, h.operation, h.key, repr(h.value), h.label] for h in kb.history()]
    past = {}
    for t in TIMES:
        view = kb.as_of(t)
        past[str(t)] = {k: sorted(repr(b.value) for b in view.engine.values_of(k)
                                  if str(b.label) == "IN") for k in sorted(view.keys())}
    return {"reads": reads(kb), "history": history, "as_of": past}

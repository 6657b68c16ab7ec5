"""A rule and a reopen run in a spawned process (tests/journal/test_removed_rule_stays_removed.py):
spawned children import their target from here, not from a test module."""

from __future__ import annotations

from corollary import BeliefBase, ManualClock, open_ledger, rule


@rule(name="double_a", inputs={"a": "a"}, output="b")
def double_a(a: int) -> int:
    return a * 2


def reopen_with_double_a(path: str, session: str) -> tuple[object, list[str]]:
    """Open ``session`` in the SQLite file ``path`` with ``rules=[double_a]``: its ``b`` and
    rule names."""
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, session, clock=ManualClock(20), rules=[double_a])
        return kb.value("b"), [r.name for r in kb.rules]

"""Adversarial review of journaled sessions (issue 19): ``kb.history``.

An ``assert_many`` naming one key twice (a source's new value replacing its old one in the same
batch) is listed for that key with the *first* row's value and the key's label after the entry:
``value=1, label='IN'`` while 1 was replaced and 2 is held (journal_entries.py
``history_entry``: ``next(s for s in subjects if s[0] == key)``)."""

from __future__ import annotations

from pathlib import Path

from corollary import BeliefBase, ManualClock, open_ledger


def test_review_history_of_a_key_named_twice_in_one_entry_gives_the_value_it_left(
        tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    kb.assert_many([("k", 1, "tool:a"), ("k", 2, "tool:a")])
    assert kb.value("k") == 2
    [entry] = kb.history("k")
    assert (entry.value, entry.label) == (2, "IN")  # (1, 'IN') today
    ledger.close()

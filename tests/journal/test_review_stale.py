"""Adversarial review of journaled sessions (issue 19): a change decided on a stale view.

``add_rule`` and ``add_tool`` decide "nothing changes, nothing to keep" *before* taking the
lock and applying other writers' entries (journaled.py ``_rule_op``: ``r in self._rules``;
``_add_tool``: ``tools.get(name) == spec``). When another writer removed the rule (or replaced
the tool) meanwhile, this writer's change is dropped: no entry, and after a sync the rule is
gone though this writer added it last."""

from __future__ import annotations

from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock, NameTakenError, open_ledger, rule, tool


@rule(output="tests_review_out", inputs={"x": "tests_review_in"},
      name="tests.journal.review.echo")
def echo(x: int) -> int:
    return x


def _make(trust: float):  # type: ignore[no-untyped-def]
    @tool(trust=trust, name="tests_review_lookup")
    def lookup(q: str) -> str:
        return "x"

    return lookup


def test_review_add_rule_after_another_writer_removed_it(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    a = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0), rules=[echo])
    a.add_rule(echo)
    b = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0), rules=[echo])
    b.remove_rule(echo)  # a has not seen this
    a.add_rule(echo)  # the last word: the rule is in
    a.sync()
    assert a.rules == (echo,)  # () today: a's add_rule was dropped as "known already"
    assert [h.operation for h in a.history()] == ["add_rule", "remove_rule", "add_rule"]


def test_review_add_tool_after_another_writer_replaced_it(tmp_path: Path) -> None:
    v1, v2 = _make(0.6), _make(0.95)
    path = tmp_path / "l.db"
    a = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    a.add_tool(v1)
    b = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(0))
    seq = b.journal_seq
    with pytest.raises(NameTakenError):  # another declaration under a taken name (issue 26)
        b.add_tool(v2)
    assert b.journal_seq == seq and b.tools["tests_review_lookup"].trust == 0.6
    a.add_tool(v1)  # the same declaration again: an entry, and still trust 0.6
    a.sync()
    assert a.tools["tests_review_lookup"].trust == 0.6

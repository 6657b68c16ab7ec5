"""A session's rules are its own record's, however it is opened (docs/journal.md, "What a
replay assumes"): a rule the session removed (its last add/remove a removal) stays removed when
the session reopens from a checkpoint with that rule in ``rules=``, exactly as a replay from the
journal's start (where ``rules=`` join at the open and the ``remove_rule`` entry removes it
again); a rule added again after its removal is there; a rule the session never had joins.
On a SQLite file and on PostgreSQL; a checkpoint made by ``kb.checkpoint()`` and by a ``forget``
(whose entry carries the whole state)."""

from __future__ import annotations

import multiprocessing
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.ledger_targets import drop_namespace
from support.rule_workers import double_a, reopen_with_double_a

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger, rule

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


@rule(name="triple_a", inputs={"a": "a"}, output="c")
def triple_a(a: int) -> int:
    return a * 3


def _checkpoint(kb: BeliefBase) -> None:
    kb.checkpoint()


def _forget(kb: BeliefBase) -> None:
    kb.assert_("scratch", 1, source="tool:x")
    kb.forget("scratch")


WAYS = {"checkpoint": _checkpoint, "forget": _forget}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def ledger_at(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], TrustLedger]]:
    """Opens a new ledger on the same store each call (a SQLite file, or a PostgreSQL namespace
    of this test's own)."""
    if request.param == "sqlite":
        path = str(tmp_path / "l.db")
        yield lambda: open_ledger(path)
        return
    namespace = f"t_{uuid.uuid4().hex[:16]}"
    try:
        yield lambda: open_ledger(PG_URL, namespace=namespace)
    finally:
        drop_namespace(namespace)


def _open(ledger: TrustLedger, rules: list[object]) -> BeliefBase:
    return BeliefBase.open_session(ledger, "s", clock=ManualClock(20), rules=rules)


def _seen(kb: BeliefBase) -> tuple[object, list[str]]:
    return kb.value("b"), [r.name for r in kb.rules]


def _removed_then(way: str, ledger: TrustLedger) -> BeliefBase:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(10), rules=[double_a])
    kb.assert_("a", 2, source="tool:x")
    assert kb.value("b") == 4
    kb.remove_rule(double_a)
    WAYS[way](kb)
    return kb


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_removed_rule_stays_removed_from_a_checkpoint_as_from_the_journal(
        way: str, ledger_at: Callable[[], TrustLedger]) -> None:
    with ledger_at() as ledger:
        _removed_then(way, ledger)
    with ledger_at() as ledger:
        again = _open(ledger, [double_a])
        assert _seen(again) == (None, [])
        again.checkpoint()  # the record is kept by the checkpoints after it
    with ledger_at() as ledger:
        assert _seen(_open(ledger, [double_a])) == (None, [])


def test_the_same_entries_without_a_checkpoint_replay_to_the_same_rules(
        ledger_at: Callable[[], TrustLedger]) -> None:
    with ledger_at() as ledger:  # the journal's start replayed: rules= join, the entry removes
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(10), rules=[double_a])
        kb.assert_("a", 2, source="tool:x")
        kb.remove_rule(double_a)
    with ledger_at() as ledger:
        assert _seen(_open(ledger, [double_a])) == (None, [])


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_rule_added_again_after_its_removal_is_there(
        way: str, ledger_at: Callable[[], TrustLedger]) -> None:
    with ledger_at() as ledger:
        kb = _removed_then(way, ledger)
        kb.add_rule(double_a)
        assert kb.value("b") == 4
        WAYS[way](kb)
    with ledger_at() as ledger:
        assert _seen(_open(ledger, [double_a])) == (4, ["double_a"])


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_rule_the_session_never_had_joins(
        way: str, ledger_at: Callable[[], TrustLedger]) -> None:
    with ledger_at() as ledger:
        _removed_then(way, ledger)
    with ledger_at() as ledger:
        again = _open(ledger, [double_a, triple_a])
        assert _seen(again) == (None, ["triple_a"])
        assert again.value("c") == 6


def test_a_reopen_in_another_process_keeps_the_rule_removed(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    with open_ledger(path) as ledger:
        _removed_then("forget", ledger)
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        assert pool.apply(reopen_with_double_a, (path, "s")) == (None, [])

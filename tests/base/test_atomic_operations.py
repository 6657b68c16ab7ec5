"""An operation's outcomes and its change to the base are all or nothing, and safe to retry.

Operations that record several outcomes (a retraction blaming many sources, a confirming
assertion, a claim with a formula and a citation, a human resolution) hand them to the ledger as
one batch, which every store writes in one transaction, before the base changes. The faults here
are real: a SQLite ledger that another connection holds locked, and a store that commits and then
fails to say so (the connection dropping after COMMIT), made by raising after the real write.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, TrustLedger, open_ledger
from corollary.foundations.errors import StoreError
from corollary.storage.sqlite import SQLiteStore
from corollary.trust.ledger import Outcome

N_SOURCES = 300


def stored(path: Path) -> list[tuple[str, str, int]]:
    """(event_id, source, outcome) rows, read with a connection of our own."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT event_id, source, outcome FROM outcomes ORDER BY id").fetchall()


class CommitThenFail(SQLiteStore):
    """A real SQLite store whose next ``fail`` writes commit and then raise, as a connection
    that drops right after COMMIT does."""

    fail = 0

    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        added = super().add(outcomes)
        if self.fail:
            self.fail -= 1
            raise StoreError("connection lost after commit (injected)", self.path)
        return added


class DiesMidway(SQLiteStore):
    """A real SQLite store whose server "goes away" once ``budget`` more outcomes were written:
    the transaction that would cross it is refused whole, as an aborted transaction is."""

    budget: int | None = None

    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        if self.budget is not None:
            if len(outcomes) > self.budget:
                self.budget = None
                raise StoreError("server closed the connection (injected)", self.path)
            self.budget -= len(outcomes)
        return super().add(outcomes)


def blamed_base(ledger: TrustLedger) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    for i in range(N_SOURCES):
        kb.assert_("x", 1, source=f"tool:s{i}", origin="shared")
    return kb


def test_retract_blaming_many_sources_is_all_or_nothing_when_the_store_is_locked(
        tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    ledger = open_ledger(path, timeout=0.05)
    kb = blamed_base(ledger)
    before = len(stored(path))
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holding the write lock
    try:
        with pytest.raises(StoreError):
            kb.retract("x", fault="source")
        assert len(stored(path)) == before == 0
        assert kb.label("x") == "IN"
        assert kb.reliability("tool:s0") == pytest.approx(0.95)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    kb.retract("x", fault="source")  # the retry, now that the lock is gone
    rows = stored(path)
    assert len(rows) == N_SOURCES
    assert sorted(r[1] for r in rows) == sorted(f"tool:s{i}" for i in range(N_SOURCES))
    assert {r[2] for r in rows} == {0}
    assert kb.label("x") == "OUT"
    ledger.close()


def test_retract_blaming_many_sources_when_the_store_dies_midway(tmp_path: Path) -> None:
    store = DiesMidway(tmp_path / "ledger.db")
    ledger = TrustLedger(store=store)
    kb = blamed_base(ledger)
    store.budget = N_SOURCES // 2
    with pytest.raises(StoreError):
        kb.retract("x", fault="source")
    assert stored(store.path) == [] and kb.label("x") == "IN"
    kb.retract("x", fault="source")
    assert len(stored(store.path)) == N_SOURCES and kb.label("x") == "OUT"
    assert {ledger.record_of(f"tool:s{i}").wrong for i in range(N_SOURCES)} == {1}
    ledger.close()


def test_a_retried_retraction_after_commit_then_failure_blames_each_source_once(
        tmp_path: Path) -> None:
    store = CommitThenFail(tmp_path / "ledger.db")
    ledger = TrustLedger(store=store)
    kb = blamed_base(ledger)
    store.fail = 1
    with pytest.raises(StoreError):
        kb.retract("x", fault="source")
    assert len(stored(store.path)) == N_SOURCES  # committed, though the caller saw a failure
    assert kb.label("x") == "IN"  # the base did not change
    kb.retract("x", fault="source")
    rows = stored(store.path)
    assert len(rows) == N_SOURCES and len({r[0] for r in rows}) == N_SOURCES
    assert kb.label("x") == "OUT"
    assert ledger.record_of("tool:s7").wrong == 1
    ledger.close()


def test_distinct_operations_never_share_event_ids(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "ledger.db")
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    for _ in range(3):  # the same outcome three times: three audits, three outcomes
        kb.record_outcome("tool:a", False, reason="audit")
    kb.assert_("k", 1, source="tool:a")
    kb.retract("k", fault="source")
    kb.assert_("k", 1, source="tool:a")  # asserted afresh, and wrong again
    kb.retract("k", fault="source")
    rows = stored(Path(tmp_path / "ledger.db"))
    assert len(rows) == 5 and len({r[0] for r in rows}) == 5
    assert ledger.record_of("tool:a").wrong == 5
    ledger.close()


def test_record_outcome_retried_after_commit_then_failure_counts_once(tmp_path: Path) -> None:
    store = CommitThenFail(tmp_path / "ledger.db")
    ledger = TrustLedger(store=store)
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    store.fail = 2
    for _ in range(2):
        with pytest.raises(StoreError):
            kb.record_outcome("human:auditor", False, reason="ticket 12")
    kb.record_outcome("human:auditor", False, reason="ticket 12")
    assert ledger.record_of("human:auditor").wrong == 1
    kb.record_outcome("human:auditor", False, reason="ticket 12")  # a new audit: counts
    assert ledger.record_of("human:auditor").wrong == 2
    ledger.close()


@pytest.mark.parametrize("operation", ["confirm", "claim", "resolve"])
def test_other_multi_outcome_operations_are_all_or_nothing_and_retry_once(
        tmp_path: Path, operation: str) -> None:
    store = CommitThenFail(tmp_path / "ledger.db")
    ledger = TrustLedger(store=store)
    kb = BeliefBase(clock=ManualClock(0), ledger=ledger)
    kb.assert_("a", 2.0, source="human:h")
    kb.assert_("doc", "the total was 4.0 units", source="document:d")
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Dallas", source="tool:rival")
    expected: dict[str, Any]
    if operation == "confirm":

        def do() -> None:
            kb.assert_("hq", "Austin", source="document:10-K")

        expected = {"document:10-K": (1, 0), "tool:registry": (1, 0)}
    elif operation == "claim":

        def do() -> None:
            kb.claim("t", 4.0, source="model:m", inputs={"a": "a"}, formula="a * 2",
                     citation=("doc", "total was 4.0"))

        expected = {"model:m": (2, 0)}
    else:

        def do() -> None:
            kb.resolve("hq", "Austin")

        expected = {"tool:registry": (1, 0), "tool:rival": (0, 1)}
    before_keys = sorted(kb.keys())
    before_held = {(h.key, repr(h.value)) for h in kb.beliefs()}
    store.fail = 1
    with pytest.raises(StoreError):
        do()
    # committed outcomes, but the base is exactly as it was
    assert sorted(kb.keys()) == before_keys
    assert {(h.key, repr(h.value)) for h in kb.beliefs()} == before_held
    n = len(stored(store.path))
    do()
    assert len(stored(store.path)) == n  # the retry stored nothing twice
    for source, (right, wrong) in expected.items():
        record = ledger.record_of(source)
        assert (record.correct, record.wrong) == (right, wrong), source
    if operation == "resolve":
        assert kb.value("hq") == "Austin"
    elif operation == "claim":
        assert kb.value("t") == 4.0
    else:
        assert kb.confidence("hq", "Austin") > 0.99
    ledger.close()


def test_policy_decided_conflicts_are_unaffected(tmp_path: Path) -> None:
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferHigherConfidence())
    kb.assert_("hq", "Austin", source="human:a")
    kb.assert_("hq", "Dallas", source="tool:b")
    assert kb.value("hq") == "Austin" and kb.ledger.outcomes() == []

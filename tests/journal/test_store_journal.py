"""The store side of session journals (corollary.storage.base.JournalStore): entries in one
gap-free order, a write lock, outcomes joining the journal's transaction, checkpoints, and the
JSON-file store's typed refusal."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from corollary.foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    JournalCorruptError,
    JournalUnsupportedError,
)
from corollary.storage.base import JOURNAL_METHODS
from corollary.storage.jsonfile import JSONFileStore
from corollary.storage.memory import MemoryStore
from corollary.storage.sqlite import SCHEMA_VERSION, SQLiteStore
from corollary.trust.outcomes import Outcome


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore | SQLiteStore]:
    made = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "l.db")
    yield made
    made.close()


def outcome(event_id: str) -> Outcome:
    return Outcome(source="tool:t", correct=True, at=0.0, recorded_at=0.0, event_id=event_id)


def test_entries_are_numbered_in_append_order_without_gaps(store: MemoryStore | SQLiteStore
                                                          ) -> None:
    assert store.journal_head("s") == 0
    with store.journal("s") as w:
        assert w.head == 0
        assert w.append(b"one", 1.0) == 1
        assert w.append(b"two", 2.0) == 2
    with store.journal("s") as w:
        assert w.head == 2
        assert w.entries(1) == [(2, b"two")]
        w.append(b"three", 2.5)
    assert store.journal_entries("s") == [(1, b"one"), (2, b"two"), (3, b"three")]
    assert store.journal_entries("s", 1, 2) == [(2, b"two")]
    assert store.journal_head("s") == 3
    assert store.journal_changed("s", 2) and not store.journal_changed("s", 3)
    assert [store.journal_seq_at("s", t) for t in (0.5, 1.0, 2.2, 9.0)] == [0, 1, 2, 3]
    assert store.journal_head("other") == 0
    assert store.journal_sessions() == ["s"]


def test_an_error_in_the_block_writes_no_entry_and_no_outcome(store: MemoryStore | SQLiteStore
                                                             ) -> None:
    store.add([outcome("before")])
    with pytest.raises(RuntimeError), store.journal("s") as w:
        w.append(b"lost", 1.0)
        assert [o.event_id for o in store.add([outcome("inside")])] == ["inside"]
        raise RuntimeError("refused")
    assert store.journal_head("s") == 0
    assert store.journal_entries("s") == []
    assert [o.event_id for o in store.outcomes()] == ["before"]
    assert store.totals("tool:t").total == 1
    with store.journal("s") as w:  # committed together
        w.append(b"kept", 1.0)
        store.add([outcome("inside")])
    assert [o.event_id for o in store.outcomes()] == ["before", "inside"]
    assert store.totals("tool:t").total == 2
    assert store.journal_entries("s") == [(1, b"kept")]


def test_the_journal_is_a_write_lock(store: MemoryStore | SQLiteStore) -> None:
    order: list[str] = []
    inside = threading.Event()

    def other() -> None:
        inside.wait()
        with store.journal("s") as w:
            order.append(f"other saw {w.head}")
            w.append(b"b", 2.0)

    thread = threading.Thread(target=other)
    thread.start()
    with store.journal("s") as w:
        inside.set()
        thread.join(0.2)  # the other writer waits for the lock meanwhile
        order.append("first")
        w.append(b"a", 1.0)
    thread.join()
    assert order == ["first", "other saw 1"]
    assert store.journal_entries("s") == [(1, b"a"), (2, b"b")]


def test_checkpoints(store: MemoryStore | SQLiteStore) -> None:
    assert store.read_checkpoint("s") is None
    for seq in (0, 10, 20, 30):
        store.write_checkpoint("s", seq, f"at {seq}".encode())
    store.write_checkpoint("s", 10, b"again")  # one kept there stays
    assert store.read_checkpoint("s") == (30, b"at 30")
    assert store.read_checkpoint("s", 25) == (20, b"at 20")
    assert store.read_checkpoint("s", 10) == (10, b"at 10")
    assert store.prune_checkpoints("s", 1) == 2  # the first and the newest stay
    assert store.read_checkpoint("s", 25) == (0, b"at 0")
    assert store.journal_sessions() == ["s"]
    assert store.delete_journal("s") and not store.delete_journal("s")
    assert store.read_checkpoint("s") is None and store.journal_sessions() == []


def test_bad_arguments_are_typed_errors(store: MemoryStore | SQLiteStore) -> None:
    with pytest.raises(InvalidInputError):
        store.journal_head("")
    with pytest.raises(InvalidTypeError):
        store.journal_entries(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        store.journal_entries("s", -1)
    with store.journal("s") as w:
        with pytest.raises(InvalidTypeError):
            w.append("text", 1.0)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError):
            w.append(b"", 1.0)
        with pytest.raises(InvalidInputError):
            w.append(b"x", float("nan"))
    with pytest.raises(InvalidTypeError):
        store.write_checkpoint("s", 0, "text")  # type: ignore[arg-type]


def test_sqlite_journal_survives_reopening_and_checks_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with SQLiteStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        with store.journal("s") as w:
            w.append(b"one", 1.0)
    with SQLiteStore(path) as store:
        assert store.journal_entries("s") == [(1, b"one")]
    conn = sqlite3.connect(path)
    conn.execute("UPDATE corollary_journal SET entry = 'text' WHERE seq = 1")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store, pytest.raises(JournalCorruptError):
        store.journal_entries("s")


def test_the_json_file_store_refuses_journals_with_a_typed_error(tmp_path: Path) -> None:
    store = JSONFileStore(tmp_path / "l.json")
    for name in JOURNAL_METHODS:
        with pytest.raises(JournalUnsupportedError):
            getattr(store, name)("s")


def test_a_rolled_back_journal_leaves_no_outcome_in_the_totals(tmp_path: Path) -> None:
    """An outcome added in a journal transaction and read back (folded into the totals cache)
    before the transaction rolls back must leave the totals; SQLite reuses its row id, so a
    watermark left past it would also skip the next real outcome (D18)."""
    from corollary import TrustLedger

    path = tmp_path / "l.db"
    store = SQLiteStore(path)
    ledger = TrustLedger(store=store)
    ledger.record_outcome("tool:a", True, at=0.0)
    with pytest.raises(RuntimeError), store.journal("s"):
        ledger.record_outcome("tool:a", False, at=0.0)  # joins the transaction
        inside = ledger.reliability("tool:a", at=0.0)  # folds the uncommitted row
        raise RuntimeError("the change fails: ROLLBACK")
    assert inside < ledger.reliability("tool:a", at=0.0)  # the wrong outcome is gone
    ledger.record_outcome("tool:a", False, at=0.0)  # takes the rolled-back row's id
    for source in ("tool:a",):
        fresh = TrustLedger(store=SQLiteStore(path))
        assert ledger.reliability(source, at=0.0) == fresh.reliability(source, at=0.0)
        assert store.totals(source).total == 2
        fresh.close()
    ledger.close()

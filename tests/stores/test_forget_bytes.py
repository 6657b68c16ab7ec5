"""Issue 35, item 2, in the stores' bytes: once ``kb.forget`` has erased a conversation, its words
are in no byte of the SQLite file (nor its ``-wal``: freed pages are zeroed by
``secure_delete`` and the log is truncated) and in no row of any table of the PostgreSQL
namespace (docs/journal.md, "Forgetting"). Before: no ``kb.forget``, and a retracted
conversation's text stayed in the journal, its checkpoints and the outcomes' reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.forget_workers import FORGOTTEN, open_session, remember_pin
from support.ledger_targets import PG_URL, Target


def _fill(kb: Any) -> str:
    """A conversation with the PIN, then enough changes for several checkpoints and pages."""
    doc = remember_pin(kb)
    for i in range(40):
        kb.assert_(f"bob:item:{i}", "x" * 200, source="tool:crm")
    kb.assert_("customer:42:email", "ann@example.org", source="tool:crm")
    kb.assert_("customer:42:note", "prefers e-mail", source="human:agent")
    return doc


def _sqlite_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_no_forgotten_byte_is_in_the_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    kb = open_session(str(path), {}, checkpoint_every=5)
    doc = _fill(kb)
    words = [w.encode() for w in (*FORGOTTEN, doc, "ann@example.org", "customer:42")]
    assert all(w in _sqlite_bytes(path) for w in words[:1])
    kb.forget(doc)
    kb.forget(scope="customer:42")
    raw = _sqlite_bytes(path)  # the ledger still open: the file and its -wal
    assert b"bob:item:39" in raw  # what was not forgotten is there
    for word in words:
        assert word not in raw
    kb.assert_("bob:after", 1, source="tool:crm")
    kb.ledger.close()
    raw = _sqlite_bytes(path)
    for word in words:
        assert word not in raw


@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_no_forgotten_byte_is_in_any_postgres_row(tmp_path: Path) -> None:
    import psycopg

    target = Target("postgres", tmp_path)
    try:
        kb = open_session(target.url, target.options, checkpoint_every=5)
        doc = _fill(kb)
        kb.forget(doc)
        kb.forget(scope="customer:42")
        words = [*FORGOTTEN, doc, "ann@example.org", "customer:42"]
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            tables = [r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                (target.namespace,)).fetchall()]
            assert "corollary_journal" in tables and "outcomes" in tables
            cells: list[Any] = []
            for table in tables:
                for row in conn.execute(f"SELECT * FROM {target.namespace}.{table}"):
                    cells.extend(row)
        blobs = b"".join(bytes(c) for c in cells if isinstance(c, (bytes, memoryview)))
        texts = " ".join(str(c) for c in cells if not isinstance(c, (bytes, memoryview)))
        assert b"bob:item:39" in blobs
        for word in words:
            assert word.encode() not in blobs and word not in texts
        with psycopg.connect(PG_URL, autocommit=True) as conn:  # the dead row versions too
            vacuumed = conn.execute(
                "SELECT relname FROM pg_stat_user_tables WHERE schemaname = %s AND "
                "last_vacuum IS NOT NULL", (target.namespace,)).fetchall()
        assert {"corollary_journal", "corollary_checkpoint", "outcomes"} <= {
            r[0] for r in vacuumed}
        kb.ledger.close()
    finally:
        target.cleanup()


def test_a_forgotten_fact_s_sentence_is_in_no_byte_and_the_rest_reads_the_same(
        tmp_path: Path) -> None:
    from support.forget_workers import facts_model, reopen, state

    path = tmp_path / "l.db"
    kb = open_session(str(path), {}, checkpoint_every=2)
    made = kb.remember("Hi, this is Ann. My PIN is 73914682. I live in Paris.", source="human:ann",
                       model=facts_model(
        {"subject": "Ann", "attribute": "pin", "value": "73914682", "quote": "My PIN is 73914682"},
        {"subject": "Ann", "attribute": "city", "value": "Paris", "quote": "I live in Paris"}))
    kb.assert_("bob:x", 1, source="tool:crm")
    kb.forget("ann:pin")
    kb.assert_("bob:y", 2, source="tool:crm")
    assert kb.value(made[0].document) == "Hi, this is Ann. [redacted] I live in Paris."
    again, text = reopen(str(path), {})
    assert again == state(kb)
    assert "73914682" not in text and "I live in Paris" in text
    kb.ledger.close()
    raw = _sqlite_bytes(path)
    assert b"73914682" not in raw and b"My PIN" not in raw

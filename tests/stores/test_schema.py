"""One schema, one migration list, a dialect per database (issue 26, point 6; docs/ledger.md).

The SQLite and PostgreSQL stores build their tables from :data:`corollary.storage.schema.MIGRATIONS`
through their dialect: what each database holds is what the list says, a database at any older
version of the list upgrades to the current one, and a new SQL database is one dialect.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.ledger_targets import drop_namespace

from corollary.storage.dialects import Dialect
from corollary.storage.dialects.postgres import POSTGRES
from corollary.storage.dialects.sqlite import SQLITE
from corollary.storage.schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    AddColumn,
    Column,
    Index,
    Migration,
    Table,
    tables_at,
)
from corollary.storage.sqlite import APPLICATION_ID, SQLiteStore
from corollary.trust.outcomes import Outcome

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
needs_pg = pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")


def _names(op: object) -> list[str]:
    if isinstance(op, Table):
        return [op.name, *(c.name for c in op.columns)]
    if isinstance(op, Index):
        return [op.name, op.table, *op.columns]
    assert isinstance(op, AddColumn)
    return [op.table, op.column.name]


@pytest.mark.parametrize("dialect", [SQLITE, POSTGRES.in_namespace("corollary")],
                         ids=["sqlite", "postgresql"])
def test_every_statement_a_dialect_emits_is_one_operation_of_the_one_list(
        dialect: Dialect) -> None:
    for migration in MIGRATIONS:
        statements = dialect.statements(migration)
        assert len(statements) == len(migration.operations)
        for statement, op in zip(statements, migration.operations, strict=True):
            assert all(name in statement for name in _names(op)), (statement, op)


def test_the_two_dialects_differ_only_in_spelling() -> None:
    pg = POSTGRES.in_namespace("corollary")
    for migration in MIGRATIONS:
        for lite, post in zip(SQLITE.statements(migration), pg.statements(migration),
                              strict=True):
            assert lite.split(" ", 2)[:2] == post.split(" ", 2)[:2]  # the same verb
    assert SCHEMA_VERSION == len(MIGRATIONS) == MIGRATIONS[-1].version
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))


def _file_at(path: Path, version: int) -> None:
    """A SQLite ledger at ``version`` of the list, with one outcome if it has the table."""
    conn = sqlite3.connect(path)
    if version:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(SQLITE.create_history())
    for step in MIGRATIONS[:version]:
        for statement in SQLITE.statements(step):
            conn.execute(statement)
        conn.execute(SQLITE.record_step(), (step.version, 0.0, 0))
    if version:
        conn.execute("INSERT INTO outcomes (event_id, source, outcome, observed_at, "
                     "recorded_at) VALUES ('old', 'tool:x', 1, 0, 0)")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def _sqlite_columns(path: Path) -> dict[str, list[str]]:
    conn = sqlite3.connect(path)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != 'schema_history'")]
        return {n: [r[1] for r in conn.execute(f"PRAGMA table_info({n})")] for n in names}
    finally:
        conn.close()


def _expected(version: int = SCHEMA_VERSION) -> dict[str, list[str]]:
    return {name: [c.name for c in columns] for name, columns in tables_at(version).items()}


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_a_sqlite_file_at_every_older_version_upgrades_to_the_list(tmp_path: Path,
                                                                    version: int) -> None:
    path = tmp_path / "old.db"
    _file_at(path, version)
    store = SQLiteStore(path)
    try:
        assert store.schema_version == SCHEMA_VERSION
        assert [o.event_id for o in store.outcomes()] == (["old"] if version else [])
        with store.journal("s") as writer:
            writer.append(b"entry", at=1.0)
        assert store.journal_seq_at("s", 1.0) == 1
    finally:
        store.close()
    assert _sqlite_columns(path) == _expected()
    conn = sqlite3.connect(path)
    history = [r[0] for r in conn.execute("SELECT version FROM schema_history ORDER BY 1")]
    conn.close()
    assert history == list(range(1, SCHEMA_VERSION + 1))


def test_a_new_sql_database_is_one_dialect(tmp_path: Path) -> None:
    # a made-up database that spells every type its own way: the whole schema follows
    shouty = Dialect(name="shouty", placeholder="?",
                     types={"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "text": "VARCHAR",
                            "int": "SMALLINT", "bigint": "BIGINT", "real": "FLOAT",
                            "blob": "BYTES"})
    conn = sqlite3.connect(tmp_path / "x.db")
    for step in MIGRATIONS:
        for statement in shouty.statements(step):
            conn.execute(statement)
    types = {r[1]: r[2] for r in conn.execute("PRAGMA table_info(corollary_journal)")}
    conn.close()
    assert types == {"session_id": "VARCHAR", "seq": "BIGINT", "at": "FLOAT", "entry": "BYTES"}


def test_a_step_appended_to_the_list_reaches_every_dialect() -> None:
    step = Migration(SCHEMA_VERSION + 1, "a note on each session", (
        AddColumn("sessions", Column("note", "text", null=True)),))
    assert SQLITE.statements(step) == ["ALTER TABLE sessions ADD COLUMN note TEXT"]
    assert POSTGRES.in_namespace("ns").statements(step) == [
        "ALTER TABLE ns.sessions ADD COLUMN note TEXT"]


# -- PostgreSQL --------------------------------------------------------------------------------
@pytest.fixture
def namespace() -> Iterator[str]:
    ns = f"sc_{uuid.uuid4().hex[:12]}"
    yield ns
    drop_namespace(ns)


def _pg_at(ns: str, version: int, *, index: bool = True) -> None:
    import psycopg

    dialect = POSTGRES.in_namespace(ns)
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {ns}")
        conn.execute(dialect.create_history())
        for step in MIGRATIONS[:version]:
            for statement in dialect.statements(step):
                if index or "corollary_journal_at" not in statement:
                    conn.execute(statement)
            conn.execute(dialect.record_step(), (step.version, 0.0, 0))
        if version:
            conn.execute(f"INSERT INTO {ns}.outcomes (event_id, source, outcome, observed_at, "
                         "recorded_at) VALUES ('old', 'tool:x', 1, 0, 0)")


def _pg_shape(ns: str) -> tuple[dict[str, list[str]], set[str]]:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name != 'schema_history' "
            "ORDER BY table_name, ordinal_position", (ns,)).fetchall()
        indexes = {r[0] for r in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (ns,))}
    tables: dict[str, list[str]] = {}
    for table, column in rows:
        tables.setdefault(table, []).append(column)
    return tables, indexes


@pytest.mark.postgres
@needs_pg
@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_postgres_ledger_at_every_older_version_upgrades_to_the_list(
        namespace: str, version: int) -> None:
    from corollary.storage.postgres import PostgresStore

    _pg_at(namespace, version)
    store = PostgresStore(PG_URL, namespace=namespace)
    try:
        assert store.schema_version == SCHEMA_VERSION
        assert [o.event_id for o in store.outcomes()] == ["old"]
        store.add([Outcome(source="tool:x", correct=False, at=1.0, recorded_at=1.0,
                           event_id="new")])
    finally:
        store.close()
    tables, indexes = _pg_shape(namespace)
    assert tables == _expected()
    assert {"outcomes_by_source", "corollary_journal_at"} <= indexes


@pytest.mark.postgres
@needs_pg
def test_a_postgres_version_5_of_the_two_copies_gains_the_journal_time_index(
        namespace: str) -> None:
    from corollary.storage.postgres import PostgresStore

    _pg_at(namespace, 5, index=False)  # what PostgresStore made before the one list
    assert "corollary_journal_at" not in _pg_shape(namespace)[1]
    PostgresStore(PG_URL, namespace=namespace).close()
    assert "corollary_journal_at" in _pg_shape(namespace)[1]


def test_the_sql_stores_share_their_statements_and_take_their_spelling_from_a_dialect() -> None:
    from corollary.storage.postgres import PostgresStore
    from corollary.storage.queries import SQLQueries

    supplied = ("_select", "_change")  # what each store supplies
    shared = [name for name in vars(SQLQueries) if not name.startswith("__")
              and name not in supplied]
    for store in (SQLiteStore, PostgresStore):
        assert issubclass(store, SQLQueries)
        assert [n for n in shared if n in vars(store)] == []  # none written again
    assert SQLiteStore.dialect is SQLITE

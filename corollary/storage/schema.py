"""The one SQL schema of a ledger, and the one list of migrations that builds it.

Every SQL store (SQLite, PostgreSQL, any other) keeps the same tables: the outcomes
(append-only), the ledger's settings, whole-snapshot sessions, and session journals with their
heads and checkpoints. They are written here once, as data: :data:`MIGRATIONS` is the history of
the schema, step by step (version ``v`` is the first ``v`` steps), and a database's dialect
(:mod:`corollary.storage.dialects`) renders each step in its own SQL (types, identity columns,
qualified names). A database at version ``v`` is upgraded by running steps ``v + 1`` on, once,
under the write lock; the version and the time of each step are kept in ``schema_history``.

A change of the schema is one new :class:`Migration` at the end of the list (never an edit of
an old one: databases made by it exist); every dialect gets it at once (docs/ledger.md,
"Storage").

Examples
--------
>>> from corollary.storage.dialects.sqlite import SQLITE
>>> SCHEMA_VERSION
6
>>> [m.version for m in MIGRATIONS]
[1, 2, 3, 4, 5, 6]
>>> print(SQLITE.statements(MIGRATIONS[3])[0])
ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1)
"""

from __future__ import annotations

from typing import Literal

import attrs

#: The kinds of column a table may have; each dialect maps them to its types.
Kind = Literal["id", "text", "int", "bigint", "real", "blob"]


@attrs.frozen(slots=True)
class Column:
    """One column: a name, a kind (:data:`Kind`), whether it may be NULL, a default, a check.

    ``kind="id"`` is the table's own row number, increasing with every insert (the primary key).
    """

    name: str
    kind: Kind
    null: bool = False
    unique: bool = False
    primary: bool = False
    default: str | None = None
    check: str | None = None


@attrs.frozen(slots=True)
class Table:
    """A table: its columns, a composite primary key (if any), and whether its rows are stored
    in primary-key order (``clustered``: SQLite's ``WITHOUT ROWID``; others ignore it)."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    clustered: bool = False


@attrs.frozen(slots=True)
class Index:
    """An index of ``table`` on ``columns`` (``if_missing``: unless it exists already)."""

    name: str
    table: str
    columns: tuple[str, ...]
    if_missing: bool = False


@attrs.frozen(slots=True)
class AddColumn:
    """A column added to an existing table."""

    table: str
    column: Column


#: What a migration step does.
Operation = Table | Index | AddColumn


@attrs.frozen(slots=True)
class Migration:
    """Step ``version``: what it does to a database at ``version - 1``, and why."""

    version: int
    why: str
    operations: tuple[Operation, ...]


def _outcomes() -> Table:
    return Table("outcomes", (
        Column("id", "id"),
        Column("event_id", "text", unique=True),
        Column("source", "text", check="length(source) > 0"),
        Column("outcome", "int", check="outcome IN (0, 1)"),
        Column("observed_at", "real"),
        Column("recorded_at", "real"),
        Column("evidence", "text", null=True),
        Column("reason", "text", null=True),
        Column("key", "text", null=True),
    ))


def _journal_tables() -> tuple[Operation, ...]:
    return (
        Table("corollary_journal", (
            Column("session_id", "text"),
            Column("seq", "bigint", check="seq >= 1"),
            Column("at", "real"),
            Column("entry", "blob"),
        ), primary_key=("session_id", "seq"), clustered=True),
        # entry times never go back: the last entry at or before a time is one index seek
        Index("corollary_journal_at", "corollary_journal", ("session_id", "at")),
        Table("corollary_journal_head", (
            Column("session_id", "text", primary=True),
            Column("seq", "bigint", check="seq >= 0"),
        )),
        Table("corollary_checkpoint", (
            Column("session_id", "text"),
            Column("seq", "bigint", check="seq >= 0"),
            Column("data", "blob"),
        ), primary_key=("session_id", "seq")),
    )


#: The history of the schema: ``MIGRATIONS[v]`` upgrades a database at version ``v`` to
#: ``v + 1``. Append only.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the outcome table (no topic, no confidence yet)", (
        _outcomes(),
        Index("outcomes_by_source", "outcomes", ("source", "id")),
    )),
    Migration(2, "outcomes get a topic and the belief's confidence at the time", (
        AddColumn("outcomes", Column("topic", "text", null=True)),
        AddColumn("outcomes", Column(
            "confidence", "real", null=True,
            check="confidence IS NULL OR (confidence >= 0 AND confidence <= 1)")),
    )),
    Migration(3, "base snapshots by session id, and ledger settings shared by all openers", (
        Table("sessions", (
            Column("session_id", "text", primary=True),
            Column("data", "blob"),
            Column("updated_at", "real"),
        )),
        Table("meta", (Column("name", "text", primary=True), Column("value", "text"))),
    )),
    Migration(4, "sessions carry a version, so that concurrent saves cannot lose a change", (
        AddColumn("sessions", Column("version", "bigint", default="1", check="version >= 1")),
    )),
    Migration(5, "session journals (entries in one order, a head per session) and checkpoints",
              _journal_tables()),
    # the two copies of the schema this list replaced differed here: PostgreSQL's version 5
    # had no time index on the journal (journal_seq_at scanned a session's entries)
    Migration(6, "the journal's time index on every database (PostgreSQL lacked it)", (
        Index("corollary_journal_at", "corollary_journal", ("session_id", "at"),
              if_missing=True),
    )),
)

#: The schema version this code writes: the number of steps.
SCHEMA_VERSION = len(MIGRATIONS)

#: Where a database keeps the steps applied to it (created before the first step).
HISTORY = Table("schema_history", (
    Column("version", "int", primary=True),
    Column("applied_at", "real"),
    Column("pid", "int"),
))


def tables_at(version: int = SCHEMA_VERSION) -> dict[str, tuple[Column, ...]]:
    """The tables (and their columns, in order) of a database at ``version``.

    >>> [c.name for c in tables_at(1)["outcomes"]][-2:]
    ['reason', 'key']
    >>> sorted(tables_at())  # doctest: +NORMALIZE_WHITESPACE
    ['corollary_checkpoint', 'corollary_journal', 'corollary_journal_head', 'meta',
     'outcomes', 'sessions']
    """
    tables: dict[str, tuple[Column, ...]] = {}
    for migration in MIGRATIONS[:version]:
        for op in migration.operations:
            if isinstance(op, Table):
                tables[op.name] = op.columns
            elif isinstance(op, AddColumn):
                tables[op.table] = (*tables[op.table], op.column)
    return tables

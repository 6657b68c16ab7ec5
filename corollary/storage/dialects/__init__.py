"""How one SQL database spells the ledger's schema and statements: a dialect per database.

The schema is written once (:mod:`corollary.storage.schema`); a :class:`Dialect` says how its
database writes it: the parameter marker, the type of each kind of column, the table's own
row number, qualified table names, rows kept in key order, the write lock and whether
committed journal entries wake followers. Statements both SQL stores share (an upsert, the
outcome listing) are built here from the dialect, so they too are written once.

A new SQL database is one dialect file beside :mod:`.sqlite` and :mod:`.postgres`, and a
store over its driver (docs/extending.md, "A store dialect").

Examples
--------
>>> from corollary.storage.dialects.postgres import POSTGRES
>>> from corollary.storage.schema import MIGRATIONS
>>> print(POSTGRES.in_namespace("ledger").statements(MIGRATIONS[2])[1])
CREATE TABLE ledger.meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..schema import HISTORY, AddColumn, Column, Index, Kind, Migration, Table


@attrs.frozen(slots=True)
class Dialect:
    """The spelling of one SQL database.

    Attributes
    ----------
    name : str
        The database, for messages (``"sqlite"``, ``"postgresql"``).
    placeholder : str
        The driver's parameter marker (``?``, ``%s``).
    types : mapping
        The SQL type of each column kind (:data:`~corollary.storage.schema.Kind`), ``"id"``
        included: the whole column definition of a table's increasing row number.
    clustered : str
        What follows a table whose rows are stored in key order (``" WITHOUT ROWID"``), if the
        database has it.
    write_lock : str
        The statement that serialises writers (for the docs and the stores' transactions).
    notifies : bool
        Whether a commit can wake followers waiting for a journal (LISTEN/NOTIFY); without it,
        followers poll the journal head.
    namespace : str or None
        The schema (namespace) the tables live in, if the database has namespaces.
    """

    name: str
    placeholder: str
    types: Mapping[Kind, str]
    clustered: str = ""
    write_lock: str = ""
    notifies: bool = False
    namespace: str | None = None

    def in_namespace(self, namespace: str | None) -> Dialect:
        """This dialect with its tables in ``namespace``."""
        return attrs.evolve(self, namespace=namespace)

    def table(self, name: str) -> str:
        """The name of table ``name`` in a statement (qualified by the namespace, if any)."""
        return name if self.namespace is None else f"{self.namespace}.{name}"

    # -- the schema ----------------------------------------------------------------------
    def column(self, column: Column) -> str:
        """One column definition."""
        parts = [column.name, self.types[column.kind]]
        if column.kind != "id":
            if column.primary:
                parts.append("PRIMARY KEY")
            elif not column.null:
                parts.append("NOT NULL")
            if column.unique:
                parts.append("UNIQUE")
            if column.default is not None:
                parts.append(f"DEFAULT {column.default}")
        if column.check is not None:
            parts.append(f"CHECK ({column.check})")
        return " ".join(parts)

    def create_table(self, table: Table, *, if_missing: bool = False) -> str:
        """``CREATE TABLE`` for ``table``."""
        lines = [self.column(c) for c in table.columns]
        if table.primary_key:
            lines.append(f"PRIMARY KEY ({', '.join(table.primary_key)})")
        missing = "IF NOT EXISTS " if if_missing else ""
        tail = self.clustered if table.clustered else ""
        return f"CREATE TABLE {missing}{self.table(table.name)} ({', '.join(lines)}){tail}"

    def create_index(self, index: Index) -> str:
        """``CREATE INDEX`` for ``index`` (an index lives in its table's namespace)."""
        missing = "IF NOT EXISTS " if index.if_missing else ""
        return (f"CREATE INDEX {missing}{index.name} ON {self.table(index.table)} "
                f"({', '.join(index.columns)})")

    def add_column(self, op: AddColumn) -> str:
        """``ALTER TABLE ... ADD COLUMN``."""
        return f"ALTER TABLE {self.table(op.table)} ADD COLUMN {self.column(op.column)}"

    def statements(self, migration: Migration) -> list[str]:
        """The statements of one migration step, in order."""
        out = []
        for op in migration.operations:
            if isinstance(op, Table):
                out.append(self.create_table(op))
            elif isinstance(op, Index):
                out.append(self.create_index(op))
            else:
                out.append(self.add_column(op))
        return out

    def create_history(self) -> str:
        """The ``schema_history`` table (made before the first step, if missing)."""
        return self.create_table(HISTORY, if_missing=True)

    def record_step(self) -> str:
        """The statement that records a step applied (version, time, process id)."""
        marks = ", ".join([self.placeholder] * 3)
        return f"INSERT INTO {self.table(HISTORY.name)} VALUES ({marks})"

    # -- statements the SQL stores share -------------------------------------------------
    def upsert(self, table: str, columns: Sequence[str], key: Sequence[str],
               update: Sequence[str] = ()) -> str:
        """Insert a row, or (on a taken ``key``) update ``update`` from it, or do nothing."""
        marks = ", ".join([self.placeholder] * len(columns))
        action = ("DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in update)
                  if update else "DO NOTHING")
        return (f"INSERT INTO {self.table(table)} ({', '.join(columns)}) VALUES ({marks}) "
                f"ON CONFLICT ({', '.join(key)}) {action}")

    def select_outcomes(self, columns: Sequence[str], source: str | None,
                        topic: str | None) -> tuple[str, list[Any]]:
        """The outcomes of ``source`` in ``topic`` (either may be ``None``: all), oldest
        recorded first; the statement and its parameters."""
        where, params = [], []
        for column, value in (("source", source), ("topic", topic)):
            if value is not None:
                where.append(f"{column} = {self.placeholder}")
                params.append(value)
        sql = f"SELECT {', '.join(columns)} FROM {self.table('outcomes')}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return sql + " ORDER BY id", params

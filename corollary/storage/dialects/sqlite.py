"""SQLite's spelling of the ledger's schema (:mod:`corollary.storage.schema`).

SQLite keeps a value of whatever type it is given, so the types are its affinities; the row
number is ``AUTOINCREMENT`` (never reused, even after the newest row is deleted); journal
entries are stored in key order (``WITHOUT ROWID``). Writers serialise on ``BEGIN IMMEDIATE``;
nothing wakes a follower, which polls (``PRAGMA data_version`` for outcomes, the head for a
journal).

>>> print(SQLITE.create_table(HISTORY, if_missing=True))  # doctest: +NORMALIZE_WHITESPACE
CREATE TABLE IF NOT EXISTS schema_history (version INTEGER PRIMARY KEY,
applied_at REAL NOT NULL, pid INTEGER NOT NULL)
"""

from __future__ import annotations

from ..schema import HISTORY
from . import Dialect

__all__ = ["HISTORY", "SQLITE"]

#: The dialect of SQLite files.
SQLITE = Dialect(
    name="sqlite",
    placeholder="?",
    types={"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "text": "TEXT", "int": "INTEGER",
           "bigint": "INTEGER", "real": "REAL", "blob": "BLOB"},
    clustered=" WITHOUT ROWID",
    write_lock="BEGIN IMMEDIATE",
    notifies=False,
)

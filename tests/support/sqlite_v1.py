"""A SQLite ledger file as version 1 of the schema wrote it, for the upgrade tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from corollary.storage.sqlite import APPLICATION_ID

# The schema of version 1, written out by hand as that release created it (no topic, no
# confidence, no sessions).
V1_DDL = """
CREATE TABLE outcomes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id    TEXT    NOT NULL UNIQUE,
    source      TEXT    NOT NULL CHECK (length(source) > 0),
    outcome     INTEGER NOT NULL CHECK (outcome IN (0, 1)),
    observed_at REAL    NOT NULL,
    recorded_at REAL    NOT NULL,
    evidence    TEXT,
    reason      TEXT,
    key         TEXT
);
CREATE INDEX outcomes_by_source ON outcomes (source, id);
"""


def make_v1(path: Path, n: int = 30) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(V1_DDL)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.executemany(
        "INSERT INTO outcomes (event_id, source, outcome, observed_at, recorded_at, evidence) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(f"old-{i}", "tool:scraper", int(i % 3 != 0), 0.0, 1.0, "https://x/1")
         for i in range(n)])
    conn.commit()
    conn.close()

"""One shared ledger for the multi-process store tests: a fresh SQLite file or PostgreSQL namespace."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from corollary import open_ledger

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


class Target:
    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        if kind == "sqlite":
            self.url = str(tmp_path / "shared.db")
            self.options: dict[str, Any] = {}
        else:
            self.url = PG_URL or ""
            self.namespace = f"t_{uuid.uuid4().hex[:16]}"
            self.options = {"namespace": self.namespace, "max_size": 2}

    def open(self) -> Any:
        return open_ledger(self.url, **self.options)

    def cleanup(self) -> None:
        if self.kind == "postgres":
            drop_namespace(self.namespace)


def drop_namespace(namespace: str) -> None:
    """Drop a test's PostgreSQL namespace and everything in it (nothing if it is not there)."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {namespace} CASCADE")

"""Driver errors met inside a PostgreSQL journal transaction reach the caller as
``StoreError`` (issue 28 item 1): a connection that breaks while a change reads other writers'
entries raised a raw ``psycopg`` error (docs/journal.md promises ``StoreError``; the MCP
server turns only ``CorollaryError`` into a tool error). A real server: the connection is
ended by ``pg_terminate_backend``, what a server restart does to it."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from corollary.facade.journal_entries import encode_entry, pack_args
from corollary.foundations.errors import StoreError

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture
def store() -> Iterator[object]:
    from corollary.storage.postgres import PostgresStore

    found = PostgresStore(str(PG_URL), namespace="t_" + uuid.uuid4().hex[:12])
    entry = encode_entry({"op": "assert_", "at": 1.0, "a": pack_args(("k", 1, "tool:t"), {}),
                          "ops": [0, 0], "subj": [], "after": [], "n": 1})
    with found.journal("s") as w:
        w.append(entry, 1.0)
    try:
        yield found
    finally:
        found.close()


def _cut(conn: object) -> None:
    import psycopg

    with psycopg.connect(str(PG_URL), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))  # type: ignore[attr-defined]


@pytest.mark.parametrize("attempt", range(3))
def test_a_connection_cut_while_reading_entries_is_a_store_error(store: object, attempt: int
                                                                 ) -> None:
    with pytest.raises(StoreError, match="connection broke"):
        with store.journal("s") as w:  # type: ignore[attr-defined]
            _cut(w.conn)
            w.entries(0)


def test_any_driver_error_inside_the_journal_block_is_a_store_error(store: object) -> None:
    # a statement the block sends on the writer's connection fails at the server
    with pytest.raises(StoreError, match="ledger database error"):
        with store.journal("s") as w:  # type: ignore[attr-defined]
            w.conn.execute("SELECT 1 / 0")
    with store.journal("s") as w:  # type: ignore[attr-defined]  # rolled back, usable again
        assert [seq for seq, _ in w.entries(0)] == [1]

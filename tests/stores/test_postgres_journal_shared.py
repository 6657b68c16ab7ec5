"""The journal store tests every journal-capable store passes (tests/journal/test_store_journal.py),
run against PostgreSQL: the same assertions, a real server (``COROLLARY_TEST_PG_URL``)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from journal.test_store_journal import (  # noqa: F401 - collected here with this module's store
    test_an_error_in_the_block_writes_no_entry_and_no_outcome,
    test_bad_arguments_are_typed_errors,
    test_checkpoints,
    test_entries_are_numbered_in_append_order_without_gaps,
    test_the_journal_is_a_write_lock,
)

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture
def store() -> Iterator[Any]:
    import psycopg

    from corollary.trust.stores.postgres import PostgresStore

    ns = f"pjs_{uuid.uuid4().hex[:12]}"
    made = PostgresStore(PG_URL, namespace=ns, timeout=10)
    yield made
    made.close()
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {ns} CASCADE")

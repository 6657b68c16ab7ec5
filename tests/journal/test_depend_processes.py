"""Issue 37, "Done when": a journaled session with dependencies and declared replacements,
written in one process, ripples correctly when the root changes in another (spawned) process,
on SQLite and, with ``COROLLARY_TEST_PG_URL`` set, on PostgreSQL. Before ``kb.depend`` and
``kb.replace_when`` there was no declarative, journaled form of either."""

from __future__ import annotations

import multiprocessing
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from support.depend_workers import change_root, read, write_declarations, write_remembered

from corollary import BeliefBase, ManualClock, open_ledger

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


@pytest.fixture
def pg_database() -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg")
    if not PG_URL:
        pytest.skip("COROLLARY_TEST_PG_URL is not set")
    name = f"depends_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _ripples(target: str, write: Callable[[str], None] = write_declarations) -> None:
    write(target)
    spawn = multiprocessing.get_context("spawn")
    results = spawn.Queue()
    child = spawn.Process(target=change_root, args=(target, results))
    child.start()
    got = results.get(timeout=120)
    child.join(120)
    assert child.exitcode == 0
    before, after = got["before"], got["after"]
    assert (before["condition"], before["medication"], before["exercise"]) == (
        "asthma", "inhaler", "running")
    assert "rests on user:condition = 'asthma'" in before["medication_proof"]
    assert (after["condition"], after["medication"], after["exercise"]) == (
        "none", None, "cycling")
    assert "replaces 'running' since user:condition changed" in after["exercise_proof"]
    assert "[OUT]" in after["medication_proof"]
    with open_ledger(target) as ledger:  # and the writer's side, opened again here, agrees
        kb = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000))
        assert read(kb) == after
        ops = [h.operation for h in kb.history()]
        assert ops[-1] == "assert_" and ({"depend", "replace_when"} <= set(ops)
                                         or "remember" in ops)


def test_sqlite_session_ripples_in_another_process(tmp_path: Path) -> None:
    _ripples(str(tmp_path / "ann.db"))


def test_a_remembered_session_ripples_in_another_process(tmp_path: Path) -> None:
    _ripples(str(tmp_path / "ann.db"), write_remembered)


@pytest.mark.postgres
def test_postgres_session_ripples_in_another_process(pg_database: str) -> None:
    _ripples(pg_database)


@pytest.mark.postgres
def test_a_remembered_postgres_session_ripples_in_another_process(pg_database: str) -> None:
    _ripples(pg_database, write_remembered)

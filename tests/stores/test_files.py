"""SQLite and JSON ledger files: schema versions and upgrades, corrupt and foreign files, paths."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from support.ledger_targets import drop_namespace
from support.sqlite_v1 import make_v1

from corollary import open_ledger
from corollary.foundations.errors import InvalidInputError, StoreError
from corollary.storage import StoreCorruptError, StoreVersionError, default_ledger_path
from corollary.storage.jsonfile import JSONFileStore
from corollary.storage.sqlite import APPLICATION_ID, SCHEMA_VERSION, SQLiteStore
from corollary.trust.ledger import TrustLedger

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- SQLite schema versions ----------------------------------------------------------------

def test_v1_file_upgrades_step_by_step(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    make_v1(path)
    ledger = open_ledger(path)
    assert ledger.store.schema_version == SCHEMA_VERSION
    record = ledger.record_of("tool:scraper", at=0)
    assert (record.correct, record.wrong) == (20, 10)
    assert ledger.outcomes("tool:scraper")[0].evidence == "https://x/1"
    ledger.record_outcome("tool:scraper", True, at=0, topic="news", confidence=0.8)
    assert ledger.track_record("tool:scraper", "news").samples == 1
    ledger.store.save_session("s", b"data")
    ledger.close()
    conn = sqlite3.connect(path)
    steps = conn.execute("SELECT version FROM schema_history ORDER BY version").fetchall()
    assert steps == [(v,) for v in range(2, SCHEMA_VERSION + 1)]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_v2_file_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    make_v1(path, n=5)
    conn = sqlite3.connect(path)
    conn.executescript("ALTER TABLE outcomes ADD COLUMN topic TEXT;"
                       "ALTER TABLE outcomes ADD COLUMN confidence REAL;"
                       "UPDATE outcomes SET topic = 'math';"
                       "PRAGMA user_version = 2;")
    conn.close()
    ledger = open_ledger(path)
    assert ledger.store.schema_version == SCHEMA_VERSION
    assert ledger.track_record("tool:scraper", "math").samples == 5
    assert ledger.store.list_sessions() == []
    ledger.close()


def test_fresh_file_has_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    open_ledger(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert [r[0] for r in conn.execute("SELECT version FROM schema_history")] == list(range(1, SCHEMA_VERSION + 1))
    # the CHECK holds even against writers that bypass corollary
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO outcomes (event_id, source, outcome, observed_at, recorded_at)"
                     " VALUES ('x', 'tool:x', 2, 0, 0)")
    conn.close()


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    open_ledger(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = digest(path)
    with pytest.raises(StoreVersionError, match="newer") as info:
        open_ledger(path)
    assert str(path) in str(info.value)
    assert digest(path) == before


@pytest.mark.parametrize("content", [
    b"this is not a database at all\n" * 100,
    b"SQLite format 3\x00" + bytes(range(256)) * 40,
    b"\x00" * 4096,
], ids=["text", "bad-pages", "zeros"])
def test_corrupt_file_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "ledger.db"
    path.write_bytes(content)
    with pytest.raises(StoreCorruptError) as info:
        open_ledger(path)
    assert isinstance(info.value, StoreError)
    assert info.value.path == path
    assert str(path) in str(info.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.db"]


def test_truncated_ledger_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    ledger = open_ledger(path)
    ledger.record_many([{"source": f"tool:s{i}", "correct": True, "at": 0, "reason": "r" * 200}
                        for i in range(2000)])
    ledger.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    before = digest(path)
    with pytest.raises(StoreError) as info:
        ledger = open_ledger(path)
        ledger.sources()
        ledger.store.count()
    assert str(path) in str(info.value)
    assert digest(path) == before


def test_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('acme')")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(StoreCorruptError, match="not a corollary ledger"):
        open_ledger(path)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_empty_file_becomes_a_ledger(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    ledger = open_ledger(path)
    ledger.record_outcome("tool:x", True, at=0)
    assert ledger.store.count() == 1
    ledger.close()


# -- PostgreSQL schema versions ------------------------------------------------------------

@pytest.fixture
def pg_namespace() -> Any:
    namespace = f"t_{uuid.uuid4().hex[:16]}"
    yield namespace
    drop_namespace(namespace)


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_postgres_v1_upgrades_and_newer_is_refused(pg_namespace: str) -> None:
    import psycopg

    ns = pg_namespace
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {ns}")
        conn.execute(f"CREATE TABLE {ns}.schema_history (version INTEGER PRIMARY KEY, "
                     "applied_at DOUBLE PRECISION NOT NULL, pid INTEGER NOT NULL)")
        conn.execute(f"INSERT INTO {ns}.schema_history VALUES (1, 0, 0)")
        conn.execute(f"""CREATE TABLE {ns}.outcomes (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
            outcome INTEGER NOT NULL CHECK (outcome IN (0, 1)),
            observed_at DOUBLE PRECISION NOT NULL, recorded_at DOUBLE PRECISION NOT NULL,
            evidence TEXT, reason TEXT, key TEXT)""")
        conn.execute(f"INSERT INTO {ns}.outcomes (event_id, source, outcome, observed_at, "
                     "recorded_at) SELECT 'old-' || i, 'tool:scraper', (i % 3 != 0)::int, 0, 0 "
                     "FROM generate_series(0, 29) AS i")
    ledger = open_ledger(PG_URL, namespace=ns)
    assert ledger.store.schema_version == SCHEMA_VERSION
    assert (ledger.record_of("tool:scraper", at=0).correct,
            ledger.record_of("tool:scraper", at=0).wrong) == (20, 10)
    ledger.record_outcome("tool:scraper", True, at=0, topic="news", confidence=0.5)
    ledger.store.save_session("s", b"x")
    ledger.close()
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        assert [r[0] for r in conn.execute(
            f"SELECT version FROM {ns}.schema_history ORDER BY version")
        ] == list(range(1, SCHEMA_VERSION + 1))
        conn.execute(f"INSERT INTO {ns}.schema_history VALUES ({SCHEMA_VERSION + 1}, 0, 0)")
    with pytest.raises(StoreVersionError, match="newer"):
        open_ledger(PG_URL, namespace=ns)


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_postgres_foreign_tables_refused(pg_namespace: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {pg_namespace}")
        conn.execute(f"CREATE TABLE {pg_namespace}.customers (id int)")
    with pytest.raises(StoreCorruptError, match="not a corollary ledger"):
        open_ledger(PG_URL, namespace=pg_namespace)
    with pytest.raises(InvalidInputError):
        open_ledger(PG_URL, namespace="Robert'); DROP TABLE x;--")


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_postgres_unreachable_is_a_store_error() -> None:
    with pytest.raises(StoreError) as info:
        open_ledger("postgresql://nobody:secret@127.0.0.1:1/none", timeout=1)
    assert "secret" not in str(info.value)


# -- targets and default paths -------------------------------------------------------------

def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("COROLLARY_LEDGER", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_ledger_path() == tmp_path / "xdg" / "corollary" / "ledger.db"
    ledger = open_ledger()
    ledger.record_outcome("tool:x", True, at=0)
    ledger.close()
    assert (tmp_path / "xdg" / "corollary" / "ledger.db").exists()
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_ledger_path() == tmp_path / "home" / ".local" / "share" / "corollary" / \
        "ledger.db"


def test_env_var_overrides_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COROLLARY_LEDGER", str(tmp_path / "env.db"))
    open_ledger().close()
    assert (tmp_path / "env.db").exists()
    monkeypatch.setenv("COROLLARY_LEDGER", str(tmp_path / "env.json"))
    ledger = open_ledger()
    ledger.record_outcome("tool:x", True, at=0)
    assert (tmp_path / "env.json").exists()


def test_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    ledger = open_ledger("sqlite:///rel.db")
    assert isinstance(ledger.store, SQLiteStore)
    ledger.close()
    assert (tmp_path / "rel.db").exists()
    ledger = open_ledger(f"sqlite:///{tmp_path}/abs.db")
    ledger.close()
    assert (tmp_path / "abs.db").exists()
    memory = open_ledger("sqlite://")
    memory.record_outcome("tool:x", True, at=0)
    assert memory.store.count() == 1
    assert isinstance(open_ledger(tmp_path / "x.json").store, JSONFileStore)
    for bad in ("ledger.txt", "redis://localhost", ""):
        with pytest.raises(InvalidInputError):
            open_ledger(bad)
    with pytest.raises(InvalidInputError):
        open_ledger(tmp_path / "y.db", not_an_option=1)


def test_open_ledger_is_the_one_spelling(tmp_path: Path) -> None:
    import corollary.storage

    ledger = open_ledger(tmp_path / "new.db", prior_weight=3)
    assert isinstance(ledger.store, SQLiteStore) and ledger.prior_weight == 3
    ledger.close()
    assert not hasattr(TrustLedger, "open")  # its spelling before 0.1.0
    # the stores sit below the ledger (tests/architecture/test_layers.py): storage does not
    # name what opens a ledger, not even as an old spelling
    assert not hasattr(corollary.storage, "open_ledger")


def test_a_malformed_stored_setting_is_reported_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "fleet.db"
    open_ledger(path, prior_weight=3).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '{' WHERE name = 'prior_weight'")
    conn.close()
    with pytest.raises(StoreCorruptError, match="malformed setting prior_weight"):
        open_ledger(path)


def test_settings_of_first_opener_stick(tmp_path: Path) -> None:
    path = tmp_path / "fleet.db"
    open_ledger(path, prior_weight=3).close()
    second = open_ledger(path)
    assert second.prior_weight == 3 and second.memory_half_life is None
    third = open_ledger(path, prior_weight=7)  # an explicit setting applies to this process
    assert third.prior_weight == 7
    assert open_ledger(path).prior_weight == 3


# -- JSON files ----------------------------------------------------------------------------

def test_json_file_has_versioned_header_and_loads(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    ledger = open_ledger(path, prior_weight=5)
    for i in range(10):
        ledger.record_outcome("tool:x", i < 7, at=0, topic="t")
    doc = json.loads(path.read_text())
    assert (doc["format"], doc["version"], doc["store"]) == ("corollary-ledger", 1, "jsonfile")
    assert doc["prior_weight"] == 5
    loaded = TrustLedger.load(path)
    assert loaded.record_of("tool:x", at=0) == ledger.record_of("tool:x", at=0)
    assert open_ledger(path).prior_weight == 5
    assert not list(tmp_path.glob(".trust.json.*.tmp"))


def test_json_store_opens_a_saved_ledger(tmp_path: Path) -> None:
    memory = TrustLedger(max_history=5)
    for i in range(50):
        memory.record_outcome("tool:x", i % 2 == 0, at=0)
    path = tmp_path / "saved.json"
    memory.save(path)  # history truncated to 5: the totals still count 50
    ledger = open_ledger(path)
    assert ledger.record_of("tool:x", at=0) == memory.record_of("tool:x", at=0)
    ledger.record_outcome("tool:x", True, at=0)
    assert open_ledger(path).record_of("tool:x", at=0).correct == 26


@pytest.mark.parametrize("content", [
    b"{not json", b"", b"[1, 2, 3]", b'{"format": "something-else"}',
    b'{"format": "corollary-ledger", "version": "one", "outcomes": []}',
    b"\xff\xfe\x00garbage",
], ids=["syntax", "empty", "list", "foreign", "bad-version", "binary"])
def test_json_corrupt_or_foreign_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "trust.json"
    path.write_bytes(content)
    with pytest.raises(StoreCorruptError) as info:
        open_ledger(path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == content


def test_json_newer_version_refused(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    content = json.dumps({"format": "corollary-ledger", "version": 99, "outcomes": []}).encode()
    path.write_bytes(content)
    with pytest.raises(StoreVersionError, match="newer"):
        open_ledger(path)
    assert path.read_bytes() == content


def test_json_half_life_mismatch_refused(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    open_ledger(path, memory_half_life=60).record_outcome("tool:x", True)
    assert open_ledger(path).memory_half_life == 60
    with pytest.raises(InvalidInputError, match="half-life"):
        open_ledger(path, memory_half_life=120)


def test_json_two_writers_in_one_process_merge(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    a, b = open_ledger(path), open_ledger(path)
    a.record_outcome("tool:a", True, at=0, event_id="a1")
    b.record_outcome("tool:b", False, at=0, event_id="b1")  # b merges a's before writing
    a.record_outcome("tool:a", True, at=0, event_id="a2")
    fresh = open_ledger(path)
    assert sorted(o.event_id for o in fresh.outcomes()) == ["a1", "a2", "b1"]
    # a picked b's outcome up while writing; with no listener to tell, it waits for a poll
    assert a.sources() == ["tool:a", "tool:b"] and a.poll() == {"tool:b"}
    assert b.poll() == {"tool:a"}
    assert b.record_of("tool:a", at=0) == fresh.record_of("tool:a", at=0)

"""Store protocols split by concern (issue 26, point 6; docs/ledger.md, "Storage"): outcomes,
sessions, journals, each a small protocol that a store implements when it keeps that concern;
the ledger reads each concern through its own view; ``sync`` is the one spelling of catching up
(``refresh`` warns); the old module paths of the stores still import, with a warning."""

from __future__ import annotations

import inspect
import os
import warnings
from pathlib import Path
from typing import Any

import pytest
from support.ledger_targets import drop_namespace

from corollary import TrustLedger, open_ledger
from corollary.storage import protocols
from corollary.storage.jsonfile import JSONFileStore
from corollary.storage.memory import MemoryStore
from corollary.storage.sqlite import SQLiteStore

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
ROOT = Path(__file__).resolve().parents[2]


def _members(protocol: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(protocol, inspect.isfunction)
            if not name.startswith("_")}


def test_each_concern_is_its_own_small_protocol() -> None:
    outcomes = _members(protocols.OutcomeStore)
    sessions = _members(protocols.SessionStore)
    journals = _members(protocols.JournalStore)
    assert not outcomes & sessions and not sessions & journals and not outcomes & journals
    assert all(len(m) <= 10 for m in (outcomes, sessions, journals))
    assert sessions == {"save_session", "read_session", "load_session", "list_sessions",
                        "delete_session"}
    assert journals == set(protocols.JOURNAL_METHODS)
    assert _members(protocols.LedgerStore) == outcomes | sessions


@pytest.mark.parametrize("kind", ["memory", "json", "sqlite"])
def test_a_store_has_the_concerns_it_keeps_and_the_ledger_views_them(tmp_path: Path,
                                                                     kind: str) -> None:
    target = {"memory": None, "json": tmp_path / "l.json", "sqlite": tmp_path / "l.db"}[kind]
    ledger = open_ledger(target) if target is not None else TrustLedger()
    try:
        store = ledger.store
        for name in _members(protocols.LedgerStore):
            assert callable(getattr(store, name)), name
        assert ledger.sessions is store
        assert ledger.sessions.save_session("s", b"x") == 1
        if kind == "json":  # outcomes and whole snapshots, no journals (documented)
            assert ledger.journals is None
        else:
            assert ledger.journals is store
            with ledger.journals.journal("j") as writer:
                writer.append(b"entry", at=1.0)
            assert ledger.journals.journal_head("j") == 1
    finally:
        ledger.close()


def test_sync_is_the_one_spelling_and_refresh_warns(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    writer, reader = SQLiteStore(path), SQLiteStore(path)
    try:
        from corollary.trust.outcomes import Outcome

        writer.add([Outcome(source="tool:a", correct=True, at=0.0, recorded_at=0.0,
                            event_id="e1")])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert reader.sync() == {"tool:a"}
        writer.add([Outcome(source="tool:b", correct=True, at=0.0, recorded_at=0.0,
                            event_id="e2")])
        assert reader.sync() == {"tool:b"} and not hasattr(reader, "refresh")
    finally:
        writer.close()
        reader.close()
    assert MemoryStore().sync() == set()
    assert JSONFileStore(tmp_path / "l.json").sync() == set()


def test_the_stores_old_paths_are_gone() -> None:
    """``corollary.trust.stores`` was never released (0.1.0): the stores are
    ``corollary.storage`` alone (issue 36)."""
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("corollary.trust.stores")


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_postgres_keeps_every_concern_and_can_wake_a_follower() -> None:
    import uuid

    from corollary.storage.postgres import PostgresStore

    namespace = f"pr_{uuid.uuid4().hex[:12]}"
    store: Any = PostgresStore(PG_URL or "", namespace=namespace)
    try:
        for protocol in (protocols.LedgerStore, protocols.JournalStore,
                         protocols.JournalWaiting):
            assert all(callable(getattr(store, m)) for m in _members(protocol))
        assert store.sync() == set()
    finally:
        store.close()
        drop_namespace(namespace)

"""``CorollaryStore.sharded`` (corollary/integrations/langgraph.py, docs/many-users.md):
LangGraph's store behaviours of tests/integrations/test_langgraph_store.py run again, word for
word, against the sharded store on a SQLite file and on PostgreSQL (``postgres`` marker), beside
``InMemoryStore``; then what sharding itself promises: each user's namespace is a session of its
own, a search by a user's namespace opens that user's session only, the mapping can be given,
and another replica's put is seen by the next get."""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")
from integrations.test_langgraph_store import (  # noqa: E402, F401 - collected here, on this store
    test_a_bad_namespace_is_refused_and_nothing_is_written,
    test_batch_runs_every_kind_of_operation_in_order,
    test_delete_removes_the_item_and_a_missing_one_is_no_error,
    test_filters_match_as_documented,
    test_keys_and_labels_holding_colons_and_percents_come_back_as_put,
    test_limit_and_offset_page_through_every_item_once,
    test_list_namespaces_as_documented,
    test_put_then_get_returns_the_item,
    test_search_covers_the_namespace_prefix_and_nothing_else,
    test_the_async_api_does_what_the_sync_one_does,
)
from langgraph.store.base import BaseStore, InvalidNamespaceError  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402
from support.ledger_targets import PG_URL, Target  # noqa: E402
from support.shard_workers import put_elsewhere  # noqa: E402

from corollary import ManualClock, TrustLedger  # noqa: E402
from corollary.foundations.errors import InvalidInputError, InvalidTypeError  # noqa: E402
from corollary.integrations.langgraph import CorollaryStore, ShardedStore  # noqa: E402

PG = [pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=PG)])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    found = Target(request.param, tmp_path)
    yield found
    found.cleanup()


@pytest.fixture(params=["InMemoryStore", "sharded"])
def store(request: pytest.FixtureRequest, target: Target) -> Iterator[BaseStore]:
    if request.param == "InMemoryStore":
        yield InMemoryStore()
        return
    ledger = target.open()
    yield CorollaryStore.sharded(ledger, clock=ManualClock(1_000.0), max_sessions=3)
    ledger.close()


def test_each_users_namespace_is_a_session_and_a_search_opens_that_one_only(
        target: Target) -> None:
    ledger = target.open()
    try:
        store = CorollaryStore.sharded(ledger, max_sessions=2)
        for user in range(5):
            for i in range(3):
                store.put(("memories", f"u{user}"), f"k{i}", {"user": user, "i": i})
        assert sorted(ledger.store.journal_sessions()) == [f"memories:u{u}" for u in range(5)]
        misses = store.cache.stats().misses
        found = store.search(("memories", "u0"), filter={"i": {"$gte": 1}})
        assert [(i.key, i.value) for i in found] == [("k1", {"user": 0, "i": 1}),
                                                     ("k2", {"user": 0, "i": 2})]
        assert store.cache.stats().misses == misses + 1  # u0's session alone was opened
        assert store.cache.open_sessions()[-1] == "memories:u0" and len(store.cache) == 2
        everyone = store.search(("memories",), limit=100)  # spans every session
        assert len(everyone) == 15 and len(store.cache) == 2
        assert store.list_namespaces(prefix=("memories",)) == [
            ("memories", f"u{u}") for u in range(5)]
    finally:
        ledger.close()


def test_the_sharded_store_answers_as_in_memory_store_on_a_random_workload(
        target: Target) -> None:
    ledger = target.open()
    try:
        ours = CorollaryStore.sharded(ledger, max_sessions=3)
        theirs = InMemoryStore()
        rng = random.Random(38)
        for _ in range(150):
            ns = ("memories", f"u{rng.randrange(6)}", *(["prefs"] if rng.random() < 0.3 else []))
            key = f"k{rng.randrange(5)}"
            roll, value = rng.random(), {"n": rng.randrange(3)}
            for s in (ours, theirs):
                if roll < 0.7:
                    s.put(ns, key, value)
                elif roll < 0.85:
                    s.delete(ns, key)
            got = [s.get(ns, key) for s in (ours, theirs)]
            assert (got[0] and got[0].value) == (got[1] and got[1].value)
        for prefix in [("memories",), ("memories", "u1"), ("memories", "u2", "prefs"), ()]:
            mine = {(i.namespace, i.key): i.value for i in ours.search(prefix, limit=1000)}
            other = {(i.namespace, i.key): i.value for i in theirs.search(prefix, limit=1000)}
            assert mine == other
            mine = {(i.namespace, i.key) for i in ours.search(prefix, filter={"n": 1}, limit=99)}
            other = {(i.namespace, i.key) for i in theirs.search(prefix, filter={"n": 1},
                                                               limit=99)}
            assert mine == other
        assert ours.list_namespaces() == sorted(theirs.list_namespaces())
        assert ours.list_namespaces(max_depth=2) == sorted(theirs.list_namespaces(max_depth=2))
    finally:
        ledger.close()


def test_another_replicas_put_is_seen_by_the_next_get(target: Target) -> None:
    ledger = target.open()
    try:
        store = CorollaryStore.sharded(ledger)
        store.put(("memories", "alice"), "diet", {"text": "vegetarian"})
        assert store.get(("memories", "alice"), "diet").value == {  # type: ignore[union-attr]
            "text": "vegetarian"}
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(1) as pool:
            pool.apply(put_elsewhere, (target.url, target.options, ("memories", "alice"),
                                       "diet", {"text": "vegan"}))
        assert store.get(("memories", "alice"), "diet").value == {  # type: ignore[union-attr]
            "text": "vegan"}
        assert store.cache.stats().misses == 1  # followed, not reopened
    finally:
        ledger.close()


def test_a_given_mapping_names_the_sessions_and_a_bad_one_is_refused() -> None:
    ledger = TrustLedger()

    def by_tenant(namespace: tuple[str, ...]) -> str | None:
        return f"tenant-{namespace[0]}" if namespace else None

    store = CorollaryStore.sharded(ledger, session_of=by_tenant)
    store.put(("acme", "u1"), "k", {"x": 1})
    store.put(("acme", "u2"), "k", {"x": 2})
    store.put(("globex", "u1"), "k", {"x": 3})
    assert sorted(ledger.store.journal_sessions()) == ["tenant-acme", "tenant-globex"]
    assert [i.value for i in store.search(("acme",))] == [{"x": 1}, {"x": 2}]
    assert [i.value for i in store.search(())] == [{"x": 1}, {"x": 2}, {"x": 3}]
    nowhere = CorollaryStore.sharded(TrustLedger(), session_of=lambda ns: None)
    with pytest.raises(InvalidInputError):
        nowhere.put(("a", "b"), "k", {"x": 1})
    bad: Any = CorollaryStore.sharded(TrustLedger(), session_of=lambda ns: 42)
    with pytest.raises(InvalidTypeError):
        bad.get(("a", "b"), "k")
    with pytest.raises(InvalidTypeError):
        ShardedStore(TrustLedger(), session_of="users")  # type: ignore[arg-type]
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"x": 1})
    assert sorted(ledger.store.journal_sessions()) == ["tenant-acme", "tenant-globex"]

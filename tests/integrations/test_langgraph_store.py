"""LangGraph's store behaviours, each run against LangGraph's own ``InMemoryStore`` and against
``CorollaryStore`` (one test, both stores, so that any difference shows): what its docs and its
in-memory store show of put/get/delete, search within a namespace prefix, filters, limit and
offset, list_namespaces (prefix, suffix, wildcards, depth, paging), batch and abatch, items'
times, and the namespace errors. Then what only CorollaryStore does: search never returns a
superseded, deleted or untrusted value, delete blames nobody, namespaces are scopes, and a
journaled session works. docs/integrations.md lists the differences."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")
from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore  # noqa: E402

from corollary import BeliefBase, ManualClock  # noqa: E402
from corollary.integrations.langgraph import CorollaryStore  # noqa: E402


@pytest.fixture(params=["InMemoryStore", "CorollaryStore"])
def store(request: pytest.FixtureRequest) -> BaseStore:
    if request.param == "InMemoryStore":
        return InMemoryStore()
    return CorollaryStore(BeliefBase(clock=ManualClock(1_000.0)))


def keys(items: list[Any]) -> list[tuple[tuple[str, ...], str]]:
    return [(i.namespace, i.key) for i in items]


def test_put_then_get_returns_the_item(store: BaseStore) -> None:
    store.put(("users", "1"), "prefs", {"theme": "dark", "n": 3, "tags": ["a", "b"]})
    item = store.get(("users", "1"), "prefs")
    assert item is not None
    assert (item.namespace, item.key) == (("users", "1"), "prefs")
    assert item.value == {"theme": "dark", "n": 3, "tags": ["a", "b"]}
    assert isinstance(item.created_at, datetime) and isinstance(item.updated_at, datetime)
    assert item.created_at.tzinfo is not None and item.updated_at >= item.created_at
    assert set(item.dict()) == {"namespace", "key", "value", "created_at", "updated_at"}
    assert store.get(("users", "1"), "missing") is None
    assert store.get(("users", "2"), "prefs") is None  # another namespace


def test_a_second_put_replaces_the_value(store: BaseStore) -> None:
    store.put(("users", "1"), "prefs", {"theme": "dark"})
    store.put(("users", "1"), "prefs", {"theme": "light"})
    item = store.get(("users", "1"), "prefs")
    assert item is not None and item.value == {"theme": "light"}
    assert [i.value for i in store.search(("users",))] == [{"theme": "light"}]


def test_delete_removes_the_item_and_a_missing_one_is_no_error(store: BaseStore) -> None:
    store.put(("users", "1"), "prefs", {"theme": "dark"})
    store.delete(("users", "1"), "prefs")
    assert store.get(("users", "1"), "prefs") is None
    assert store.search(("users",)) == []
    store.delete(("users", "1"), "prefs")
    store.delete(("nobody",), "x")
    store.put(("users", "1"), "prefs", {"theme": "blue"})  # put again after a delete
    assert store.get(("users", "1"), "prefs").value == {"theme": "blue"}  # type: ignore[union-attr]


def test_search_covers_the_namespace_prefix_and_nothing_else(store: BaseStore) -> None:
    store.put(("users", "1"), "a", {"v": 1})
    store.put(("users", "1", "notes"), "b", {"v": 2})
    store.put(("users", "10"), "c", {"v": 3})  # "1" is not a prefix of "10"
    store.put(("teams", "1"), "d", {"v": 4})
    assert sorted(keys(store.search(("users", "1")))) == [
        (("users", "1"), "a"), (("users", "1", "notes"), "b")]
    assert sorted(k for _, k in keys(store.search(("users",)))) == ["a", "b", "c"]
    assert sorted(k for _, k in keys(store.search(()))) == ["a", "b", "c", "d"]
    assert store.search(("nobody",)) == []


@pytest.mark.parametrize("where, expected", [
    ({"color": "red"}, ["apple", "cherry"]),
    ({"color": {"$eq": "red"}}, ["apple", "cherry"]),
    ({"color": {"$ne": "red"}}, ["banana"]),
    ({"price": {"$gt": 1.0}}, ["cherry"]),
    ({"price": {"$gte": 1.0}}, ["apple", "cherry"]),
    ({"price": {"$lt": 1.0}}, ["banana"]),
    ({"price": {"$lte": 1.0}}, ["apple", "banana"]),
    ({"price": {"$gte": 0.5, "$lt": 3.0}}, ["apple", "banana"]),
    ({"color": "red", "price": {"$gt": 2}}, ["cherry"]),
    ({"meta": {"origin": "spain"}}, ["cherry"]),
    ({"tags": ["x", "y"]}, ["apple"]),
    ({"color": "blue"}, []),
])
def test_filters_match_as_documented(store: BaseStore, where: dict[str, Any],
                                     expected: list[str]) -> None:
    store.put(("fruit",), "apple", {"color": "red", "price": 1.0, "tags": ["x", "y"]})
    store.put(("fruit",), "banana", {"color": "yellow", "price": 0.5, "tags": ["x"]})
    store.put(("fruit",), "cherry", {"color": "red", "price": 3.0,
                                     "meta": {"origin": "spain"}})
    assert sorted(k for _, k in keys(store.search(("fruit",), filter=where))) == expected


def test_limit_and_offset_page_through_every_item_once(store: BaseStore) -> None:
    for i in range(25):
        store.put(("docs",), f"d{i:02}", {"i": i})
    assert len(store.search(("docs",))) == 10  # the default limit
    pages = [store.search(("docs",), limit=7, offset=o) for o in range(0, 28, 7)]
    assert [len(p) for p in pages] == [7, 7, 7, 4, 0][:len(pages)]
    seen = [k for page in pages for _, k in keys(page)]
    assert sorted(seen) == [f"d{i:02}" for i in range(25)]
    filtered = store.search(("docs",), filter={"i": {"$gte": 20}}, limit=3, offset=1)
    assert len(filtered) == 3 and all(i.value["i"] >= 20 for i in filtered)


def test_list_namespaces_as_documented(store: BaseStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
               ("a", "c", "f"), ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"),
               ("admin", "users", "789")]:
        store.put(ns, "k", {"x": 1})
    assert store.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f"),
                                                    ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"),
                                                                 ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    every = store.list_namespaces()
    assert every == sorted(every) and len(every) == 9
    assert store.list_namespaces(limit=3, offset=2) == every[2:5]
    assert store.list_namespaces(prefix=("users",)) == [("users", "123"),
                                                        ("users", "456", "settings")]


def test_batch_runs_every_kind_of_operation_in_order(store: BaseStore) -> None:
    store.put(("test",), "key1", {"data": "value1"})
    results = store.batch([
        GetOp(("test",), "key1"),
        PutOp(("test",), "key2", {"data": "value2"}),
        SearchOp(("test",), limit=10),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("test",)),)),
        GetOp(("test",), "key2"),  # reads see the store before the batch's writes
    ])
    assert results[0].value == {"data": "value1"}
    assert results[1] is None
    assert keys(results[2]) == [(("test",), "key1")]
    assert results[3] == [("test",)]
    assert results[4] is None
    assert store.get(("test",), "key2").value == {"data": "value2"}  # type: ignore[union-attr]
    store.batch([PutOp(("test",), "key2", {"data": "a"}), PutOp(("test",), "key2", None),
                 PutOp(("test",), "key1", {"data": "b"})])  # the last write of a key wins
    assert store.get(("test",), "key2") is None
    assert store.get(("test",), "key1").value == {"data": "b"}  # type: ignore[union-attr]


def test_the_async_api_does_what_the_sync_one_does(store: BaseStore) -> None:
    async def go() -> tuple[Any, ...]:
        await store.aput(("users", "1"), "prefs", {"theme": "dark"})
        got = await store.aget(("users", "1"), "prefs")
        found = await store.asearch(("users",), filter={"theme": "dark"})
        spaces = await store.alist_namespaces(prefix=("users",))
        batch = await store.abatch([GetOp(("users", "1"), "prefs")])
        await store.adelete(("users", "1"), "prefs")
        return got, found, spaces, batch, await store.aget(("users", "1"), "prefs")

    got, found, spaces, batch, gone = asyncio.run(go())
    assert got.value == {"theme": "dark"} and keys(found) == [(("users", "1"), "prefs")]
    assert spaces == [("users", "1")] and batch[0].value == {"theme": "dark"} and gone is None


@pytest.mark.parametrize("namespace", [(), ("a.b",), ("",), ("langgraph", "x"), ("a", 1),
                                       ("a\x00",)])
def test_a_bad_namespace_is_refused_and_nothing_is_written(store: BaseStore,
                                                           namespace: Any) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(namespace, "k", {"x": 1})
    assert store.list_namespaces() == []


def test_keys_and_labels_holding_colons_and_percents_come_back_as_put(store: BaseStore) -> None:
    store.put(("a:b", "50%"), "k:1%3A", {"x": 1})
    store.put(("a", "b:50%"), "k", {"x": 2})
    assert store.get(("a:b", "50%"), "k:1%3A").value == {"x": 1}  # type: ignore[union-attr]
    assert store.get(("a", "b:50%"), "k").value == {"x": 2}  # type: ignore[union-attr]
    assert sorted(store.list_namespaces()) == [("a", "b:50%"), ("a:b", "50%")]
    assert keys(store.search(("a:b",))) == [(("a:b", "50%"), "k:1%3A")]


def test_an_items_key_is_never_read_as_a_namespace_label(store: BaseStore) -> None:
    """The item ``'m'`` of ``('n',)`` is stored under the key a namespace ``('n', 'm')`` would
    prefix; a search of ``('n', 'm')`` returns that namespace's items only (issue 35, item 7)."""
    store.put(("n",), "m", {"text": "in n, key m"})
    store.put(("n", "m"), "k", {"text": "in n:m, key k"})
    assert keys(store.search(("n", "m"))) == [(("n", "m"), "k")]
    assert keys(store.search(("n", "m"), query="key")) == [(("n", "m"), "k")]
    assert sorted(keys(store.search(("n",)))) == [(("n",), "m"), (("n", "m"), "k")]
    assert sorted(store.list_namespaces()) == [("n",), ("n", "m")]
    assert store.get(("n",), "m").value == {"text": "in n, key m"}  # type: ignore[union-attr]


@pytest.mark.parametrize("namespace", [("langgraph", "foo"), ("langgraph",), ()])
def test_reads_and_deletes_where_put_refuses_find_nothing(store: BaseStore,
                                                          namespace: tuple[str, ...]) -> None:
    """``put`` refuses an empty namespace and one under ``"langgraph"``; a read or a delete
    there answers as ``InMemoryStore``'s does: nothing found, nothing deleted, no error."""
    store.put(("n",), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(namespace, "k", {"x": 2})
    assert store.get(namespace, "k") is None
    assert store.delete(namespace, "k") is None  # type: ignore[func-returns-value]
    if namespace:
        assert store.search(namespace) == []
    assert store.batch([GetOp(namespace, "k"), PutOp(namespace, "k", None)]) == [None, None]
    assert store.get(("n",), "k").value == {"x": 1}  # type: ignore[union-attr]


def test_the_corollary_store_answers_as_the_in_memory_store_does() -> None:
    """The same operations on both stores give the same items (namespace, key, value)."""
    def run(store: BaseStore) -> list[Any]:
        store.put(("n",), "m", {"v": 1})
        store.put(("n", "m"), "k", {"v": 2})
        store.put(("n", "m", "k"), "z", {"v": 3})
        answers: list[Any] = []
        for namespace in [("n",), ("n", "m"), ("n", "m", "k"), ("langgraph", "foo"), ()]:
            answers.append(sorted((i.namespace, i.key, repr(i.value))
                                  for i in store.search(namespace)))
            got = store.get(namespace, "k")
            answers.append(None if got is None else (got.namespace, got.key, got.value))
        return answers

    corollary = CorollaryStore(BeliefBase(clock=ManualClock(1_000.0)))
    assert run(corollary) == run(InMemoryStore())

"""What CorollaryStore adds to LangGraph's store contract, and where it differs from
InMemoryStore (each difference shown on both stores, as docs/integrations.md lists them): a
search never returns a superseded, deleted or untrusted value; delete blames nobody; a
namespace is a scope an agent can be confined to; a journaled session keeps the items."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")
from langgraph.store.base import PutOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

from corollary import (  # noqa: E402
    Agent,
    BeliefBase,
    InvalidTypeError,
    ManualClock,
    ScriptedModel,
    TrustPolicy,
    open_ledger,
)
from corollary.integrations.langgraph import CorollaryStore, belief_key  # noqa: E402
from corollary.models import Reply, ToolCall  # noqa: E402


def base() -> BeliefBase:
    return BeliefBase(clock=ManualClock(1_000.0))


def test_search_never_returns_the_replaced_value() -> None:
    kb = base()
    store = CorollaryStore(kb)
    store.put(("memories", "u1"), "home", {"text": "lives on Oak St"})
    kb.clock.advance(60)
    store.put(("memories", "u1"), "home", {"text": "moved to Pine Ave"})
    for query in ("Oak St", "Pine Ave", "lives moved"):
        assert [i.value["text"] for i in store.search(("memories",), query=query)] in (
            [], ["moved to Pine Ave"])
    assert kb.value("memories:u1:home") == {"text": "moved to Pine Ave"}


def test_delete_withdraws_without_blame_and_search_drops_it() -> None:
    kb = base()
    store = CorollaryStore(kb)
    store.put(("memories", "u1"), "diet", {"text": "vegetarian"})
    before = kb.reliability("tool:langgraph-store")
    store.delete(("memories", "u1"), "diet")
    assert kb.label("memories:u1:diet") == "OUT"
    assert kb.reliability("tool:langgraph-store") == before  # no outcome recorded
    assert store.search(("memories",), query="vegetarian diet") == []


def test_an_untrusted_value_is_neither_got_nor_found() -> None:
    kb = BeliefBase(policy=TrustPolicy(min_confidence=0.6), clock=ManualClock(0.0))
    kb.assert_("memories:u1:tip", {"text": "rumour"}, source="model:gossip", certainty=0.5)
    store = CorollaryStore(kb)  # a model at 0.9 × 0.5 is below the policy's floor
    assert store.get(("memories", "u1"), "tip") is None
    assert store.search(("memories",)) == []
    assert store.search(("memories",), query="rumour") == []
    assert [i.key for i in CorollaryStore(kb, min_confidence=0.1).search(("memories",))] == [
        "tip"]


def test_search_with_a_query_is_recall_within_the_namespace() -> None:
    kb = base()
    store = CorollaryStore(kb)
    store.put(("memories", "u1"), "a", {"text": "likes green tea"})
    store.put(("memories", "u1"), "b", {"text": "allergic to peanuts"})
    store.put(("memories", "u2"), "c", {"text": "likes green tea too"})
    found = store.search(("memories", "u1"), query="green tea")
    assert [(i.key, i.value["text"]) for i in found] == [("a", "likes green tea")]
    assert found[0].score is not None and found[0].score > 0
    assert [i.key for i in store.search(("memories",), query="tea", limit=1, offset=1)] in (
        ["a"], ["c"])


def test_differences_from_in_memory_store() -> None:
    """Each difference docs/integrations.md lists, on both stores."""
    kb = base()
    ours, theirs = CorollaryStore(kb), InMemoryStore()
    for store in (ours, theirs):
        store.put(("n",), "z", {"text": "zebra"})
        store.put(("n",), "a", {"text": "apple"})
    # 1. a query ranks by relevance (words in common); InMemoryStore without an index ignores it
    assert [i.key for i in ours.search(("n",), query="zebra")] == ["z"]
    assert [i.key for i in theirs.search(("n",), query="zebra")] == ["z", "a"]
    # 2. without a query, items come sorted by namespace and key, not in insertion order
    assert [i.key for i in ours.search(("n",))] == ["a", "z"]
    assert [i.key for i in theirs.search(("n",))] == ["z", "a"]
    # 3. created_at stays across updates; InMemoryStore makes both times anew on every put
    first = ours.get(("n",), "a")
    kb.clock.advance(30)
    ours.put(("n",), "a", {"text": "apricot"})
    again = ours.get(("n",), "a")
    assert first is not None and again is not None
    assert again.created_at == first.created_at and again.updated_at > first.updated_at
    assert (again.updated_at - again.created_at).total_seconds() == 30
    # 4. a numeric filter on a missing field matches nothing; InMemoryStore raises TypeError
    assert ours.search(("n",), filter={"price": {"$gt": 1}}) == []
    with pytest.raises(TypeError):
        theirs.search(("n",), filter={"price": {"$gt": 1}})


def test_a_ttl_is_refused_as_in_memory_store_refuses_it() -> None:
    for store in (CorollaryStore(base()), InMemoryStore()):
        with pytest.raises(NotImplementedError):
            store.put(("n",), "k", {"x": 1}, ttl=5)
    with pytest.raises(NotImplementedError):
        CorollaryStore(base()).batch([PutOp(("n",), "k", {"x": 1}, ttl=5.0)])


def test_bad_construction_and_values_are_typed_errors() -> None:
    with pytest.raises(InvalidTypeError):
        CorollaryStore({})  # type: ignore[arg-type]
    store = CorollaryStore(base())
    with pytest.raises(InvalidTypeError):
        store.batch([PutOp(("n",), "k", ["not", "a", "mapping"])])  # type: ignore[arg-type]
    assert store.list_namespaces() == []


def test_a_source_per_namespace_and_a_prefix() -> None:
    kb = base()
    store = CorollaryStore(kb, source=lambda ns: f"human:{ns[-1]}", prefix=("lg",))
    store.put(("users", "ann"), "pet", {"text": "a cat"})
    assert belief_key(("users", "ann"), "pet", ("lg",)) == "lg:users:ann:pet"
    assert kb.confidence("lg:users:ann:pet") == pytest.approx(kb.reliability("human:ann"))
    kb.assert_("users:bob:pet", {"text": "a dog"}, source="human:bob")  # not under the prefix
    assert store.list_namespaces() == [("users", "ann")]


def test_an_agent_scoped_to_a_namespace_sees_only_its_memories() -> None:
    kb = base()
    store = CorollaryStore(kb)
    store.put(("customer", "42"), "address", {"text": "42 Pine Ave"})
    store.put(("customer", "7"), "address", {"text": "7 Oak St"})
    model = ScriptedModel([Reply(None, [ToolCall("1", "answer", {
        "value": "42 Pine Ave", "inputs": ["customer:42:address"]})])])
    run = Agent(model, kb, scope="customer:42").run("Where does customer 42 live (address)?")
    assert run.status == "ok"
    sent = str(model.requests[0][0])
    assert "42 Pine Ave" in sent and "Oak St" not in sent


def test_over_a_journaled_session_the_items_outlive_the_process(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "mem", clock=ManualClock(1_000.0))
        store = CorollaryStore(kb)
        store.put(("memories", "u1"), "diet", {"text": "vegan"})
        store.put(("memories", "u1"), "pet", {"text": "a cat"})
        store.delete(("memories", "u1"), "pet")
    with open_ledger(path) as ledger:
        again = CorollaryStore(BeliefBase.open_session(ledger, "mem",
                                                       clock=ManualClock(2_000.0)))
        assert again.get(("memories", "u1"), "diet").value == {"text": "vegan"}  # type: ignore[union-attr]
        assert again.get(("memories", "u1"), "pet") is None
        assert [i.key for i in again.search(("memories",), query="vegan")] == ["diet"]


def test_under_prefer_newer_a_second_put_supersedes_and_history_stays() -> None:
    from corollary import PreferNewer

    kb = BeliefBase(clock=ManualClock(1_000.0), conflict_policy=PreferNewer())
    store = CorollaryStore(kb)
    store.put(("memories", "u1"), "home", {"text": "lives on Oak St"})
    kb.clock.advance(60)
    store.put(("memories", "u1"), "home", {"text": "moved to Pine Ave"})
    line = [(e.value["text"], e.status) for e in kb.timeline("memories:u1:home")]
    assert line == [("lives on Oak St", "superseded"), ("moved to Pine Ave", "held")]
    assert [i.value["text"] for i in store.search(("memories",), query="Oak St")] in (
        [], ["moved to Pine Ave"])
    assert kb.at(1_030.0).value("memories:u1:home") == {"text": "lives on Oak St"}
    item = CorollaryStore(kb).get(("memories", "u1"), "home")  # a new store: from the timeline
    assert item is not None and item.created_at.timestamp() == 1_000.0
    assert item.updated_at.timestamp() == 1_060.0

"""Issue 35, item 1: the LangGraph store's ``delete`` ends an item. Before, under
``PreferNewer`` it retracted the newest value, so ``put(Oak St)``, ``put(Pine Ave)``, ``delete``
made ``get`` and ``search`` return Oak St again (``InMemoryStore``: ``None`` and ``[]``), and
through LangMem a deleted memory's pre-update text came back."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")
from langgraph.store.memory import InMemoryStore  # noqa: E402

from corollary import BeliefBase, ManualClock, PreferNewer, TrustLedger  # noqa: E402
from corollary.integrations.langgraph import CorollaryStore  # noqa: E402

NS = ("customer", "42")


def reads(store: Any) -> tuple[Any, list[Any], list[Any]]:
    got = store.get(NS, "address")
    return (None if got is None else got.value,
            [h.value for h in store.search(NS)],
            [h.value for h in store.search(NS, query="address street")])


def moved_then_deleted(store: Any, clock: ManualClock | None, step: float) -> None:
    store.put(NS, "address", {"street": "Oak St"})
    if clock is not None:
        clock.advance(step)
    store.put(NS, "address", {"street": "Pine Ave"})
    if clock is not None:
        clock.advance(step)
    store.delete(NS, "address")


@pytest.mark.parametrize("step", [60.0, 0.0])  # 0: every write at one instant
def test_a_deleted_item_is_gone_never_the_value_it_replaced(step: float) -> None:
    clock = ManualClock(1_000.0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
    store = CorollaryStore(kb)
    moved_then_deleted(store, clock, step)
    memory = InMemoryStore()
    moved_then_deleted(memory, None, step)
    assert reads(store) == reads(memory) == (None, [], [])
    assert kb.value("customer:42:address") is None
    clock.advance(60)
    store.put(NS, "address", {"street": "Elm Rd"})  # put again after the delete: it holds
    assert reads(store)[0] == {"street": "Elm Rd"}


def test_the_delete_is_an_end_the_past_still_reads_and_the_proof_says_so() -> None:
    clock = ManualClock(1_000.0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
    store = CorollaryStore(kb)
    moved_then_deleted(store, clock, 60.0)
    assert kb.at(1_030.0).value("customer:42:address") == {"street": "Oak St"}
    assert kb.at(1_090.0).value("customer:42:address") == {"street": "Pine Ave"}
    assert [e.status for e in kb.timeline("customer:42:address")] == [
        "superseded", "superseded", "ended"]
    assert "ended at" in str(kb.explain("customer:42:address")).splitlines()[0]
    assert "'deleted from the store'" in str(kb.explain("customer:42:address"))


def test_a_delete_over_a_journaled_session_sticks_in_another_base() -> None:
    ledger = TrustLedger()
    clock = ManualClock(1_000.0)
    kb = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
    moved_then_deleted(CorollaryStore(kb), clock, 60.0)
    assert [h.operation for h in kb.history()][-1] == "end"
    other = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
    assert reads(CorollaryStore(other)) == (None, [], [])


def test_langmem_delete_is_not_undone_by_the_update_before_it() -> None:
    pytest.importorskip("langmem", reason="the langgraph extra: corollary[langgraph] (LangMem)")
    from langmem import create_manage_memory_tool, create_search_memory_tool

    clock = ManualClock(1_000.0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
    store = CorollaryStore(kb)
    namespace = ("memories", "u1")
    manage = create_manage_memory_tool(namespace, store=store)
    search = create_search_memory_tool(namespace, store=store)
    created = manage.invoke({"content": "prefers green tea", "action": "create"})
    memory_id = created.split()[-1]
    clock.advance(60)
    manage.invoke({"content": "prefers black coffee", "action": "update", "id": memory_id})
    clock.advance(60)
    assert "Deleted" in manage.invoke({"action": "delete", "id": memory_id})
    found = search.invoke({"query": "prefers tea coffee"})
    found = json.loads(found) if isinstance(found, str) else found
    assert found == [] and store.get(namespace, memory_id) is None
    assert kb.value(f"memories:u1:{memory_id}") is None


def test_with_no_policy_a_delete_is_an_end_too() -> None:
    clock = ManualClock(1_000.0)
    kb = BeliefBase(clock=clock)
    store = CorollaryStore(kb)
    moved_then_deleted(store, clock, 60.0)
    assert reads(store) == (None, [], [])
    assert kb.at(1_090.0).value("customer:42:address") == {"street": "Pine Ave"}
    assert kb.timeline("customer:42:address")[-1].status == "ended"

"""CorollaryStore where LangGraph users put it: a real ``StateGraph`` compiled with
``store=CorollaryStore(...)`` whose nodes write and search memories through the store LangGraph
hands them, and LangMem's ``create_manage_memory_tool`` / ``create_search_memory_tool`` driven by
LangChain's fake chat model in a tool-calling graph (LangGraph's ToolNode). What the model last stored is what a
search finds: never the memory it updated away or deleted."""

from __future__ import annotations

import json
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")
pytest.importorskip("langmem", reason="the langgraph extra: corollary[langgraph] (LangMem)")
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import BaseStore  # noqa: E402
from langmem import create_manage_memory_tool, create_search_memory_tool  # noqa: E402

from corollary import BeliefBase, ManualClock  # noqa: E402
from corollary.integrations.langgraph import CorollaryStore  # noqa: E402


class State(TypedDict, total=False):
    user: str
    said: str
    found: list[str]


def remember(state: State, *, store: BaseStore) -> State:
    store.put(("memories", state["user"]), "latest", {"text": state["said"]})
    return {}


def recall(state: State, *, store: BaseStore) -> State:
    hits = store.search(("memories", state["user"]), query=state["said"])
    return {"found": [h.value["text"] for h in hits]}


def graph(store: BaseStore) -> Any:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_a_state_graph_writes_and_searches_through_the_store() -> None:
    kb = BeliefBase(clock=ManualClock(1_000.0))
    app = graph(CorollaryStore(kb))
    assert app.invoke({"user": "ann", "said": "I live on Oak St"})["found"] == [
        "I live on Oak St"]
    kb.clock.advance(60)
    assert app.invoke({"user": "ann", "said": "I moved: I live on Pine Ave"})["found"] == [
        "I moved: I live on Pine Ave"]  # the Oak St memory was replaced, never found again
    assert app.invoke({"user": "bob", "said": "I live on Elm St"})["found"] == [
        "I live on Elm St"]  # bob's search is bob's namespace only
    assert kb.value("memories:ann:latest") == {"text": "I moved: I live on Pine Ave"}


class ToolModel(GenericFakeChatModel):
    """The fake chat model, told of tools (the prebuilt agent binds them)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def calls(name: str, args: dict[str, Any], n: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call{n}"}])


def agent(model: Any, tools: list[Any], store: BaseStore) -> Any:
    """A tool-calling agent as a StateGraph: the model, then its tool calls, until it answers."""
    from langgraph.graph import MessagesState
    from langgraph.prebuilt import ToolNode, tools_condition

    builder = StateGraph(MessagesState)
    builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(store=store)


def test_langmem_tools_over_the_store_in_a_tool_calling_graph() -> None:
    kb = BeliefBase(clock=ManualClock(1_000.0))
    store = CorollaryStore(kb)
    namespace = ("memories", "{langgraph_user_id}")
    tools = [create_manage_memory_tool(namespace), create_search_memory_tool(namespace)]
    config = {"configurable": {"langgraph_user_id": "u1"}}

    first = ToolModel(messages=iter([
        calls("manage_memory", {"content": "prefers green tea", "action": "create"}, 1),
        AIMessage("Noted."),
    ]))
    out = agent(first, tools, store).invoke(
        {"messages": [("user", "I prefer green tea")]}, config)
    created = next(m for m in out["messages"] if isinstance(m, ToolMessage)).content
    memory_id = created.split()[-1]  # "created memory <id>"
    assert kb.value(f"memories:u1:{memory_id}") == {"content": "prefers green tea"}

    kb.clock.advance(60)
    second = ToolModel(messages=iter([
        calls("manage_memory", {"content": "prefers black coffee", "action": "update",
                                "id": memory_id}, 2),
        calls("search_memory", {"query": "prefers tea coffee"}, 3),
        AIMessage("You prefer black coffee."),
    ]))
    out = agent(second, tools, store).invoke(
        {"messages": [("user", "Actually, black coffee now. What do I prefer?")]}, config)
    found = json.loads([m for m in out["messages"] if isinstance(m, ToolMessage)][-1].content)
    assert [m["value"]["content"] for m in found] == ["prefers black coffee"]
    assert found[0]["key"] == memory_id and found[0]["namespace"] == ["memories", "u1"]

    third = ToolModel(messages=iter([
        calls("manage_memory", {"action": "delete", "id": memory_id}, 4),
        calls("search_memory", {"query": "prefers coffee"}, 5),
        AIMessage("I have forgotten it."),
    ]))
    out = agent(third, tools, store).invoke(
        {"messages": [("user", "Forget my preference.")]}, config)
    assert json.loads([m for m in out["messages"] if isinstance(m, ToolMessage)][-1].content) == []
    assert kb.label(f"memories:u1:{memory_id}") == "OUT"

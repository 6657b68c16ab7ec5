"""Issue 36, item 1: every surface changes the base through ``apply``, all or nothing.

MCP's tools (a real client over the in-memory transport), the native toolsets (pydantic-ai's
and the Agents SDK's, run by their own agents, and the :class:`Operations` both are made of),
the agent's built-in tools and the LangGraph store (put, delete, forget):

- a change made through a surface is one change of the base, the operation of a value class
  its tool table entry names (heard by an operation log installed on the base: the top-level
  operations it is asked to make), and no surface module calls a changing method of a base
  itself (read from their source: they build a value and hand it to ``apply``);
- a failure injected inside it (the base's conflict policy raising from ``after_change``,
  once the change is made: an ``Exception``, or a ``BaseException`` where the surface lets
  one through) leaves the base, its journal and its checkpoints as they were (a SQLite
  session, reopened after a checkpoint).
"""

from __future__ import annotations

import ast
import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.journal_workers import state

import corollary
from corollary import Agent, BeliefBase, ManualClock, ScriptedModel, open_ledger
from corollary.facade.operations import OperationCall, install_log, operations_of
from corollary.integrations.operations import Operations
from corollary.models import Reply, ToolCall
from corollary.serving import tools
from corollary.tms.conflicts import ConflictPolicy


class Injected(RuntimeError):
    """The failure a surface test injects (an ``Exception``)."""


class InjectedInterrupt(BaseException):
    """The failure a surface test injects that no ``except Exception`` catches."""


class FailsOnceAfterChange(ConflictPolicy):
    """A policy whose ``after_change`` raises ``armed`` once, when armed."""

    watches_changes = True

    def __init__(self) -> None:
        self.armed: type[BaseException] | None = None

    def after_change(self, base: Any) -> None:
        failure, self.armed = self.armed, None
        if failure is not None:
            raise failure("injected once the change was made")


class Spy:
    """An operation log: the top-level operations a base is asked to make (one each for a
    change made through ``apply``; the changes made inside it are part of it)."""

    def __init__(self) -> None:
        self.made: list[str] = []
        self.depth = 0

    def run(self, call: OperationCall) -> Any:
        if self.depth == 0:
            self.made.append(call.name)
        self.depth += 1
        try:
            return call.proceed()
        finally:
            self.depth -= 1

    def resolved(self, what: str, value: Any) -> None:
        """Nothing to keep."""


def held() -> BeliefBase:
    """A base holding what every changing tool of the table can change."""
    kb = BeliefBase(clock=ManualClock(1000))
    for key, value in (("a", 1), ("b", 2), ("c", 3), ("d", 4)):
        kb.assert_(key, value, source="tool:a", valid_from=100)
    kb.assert_("ceo", "Ann", source="tool:a")
    kb.assert_("ceo", "Bob", source="tool:b")
    return kb


#: One call of each changing tool of the table (``remember`` needs a model: below), with the
#: arguments a toolset fills itself (``source`` of claim and depend) given for MCP.
CALLS: dict[str, dict[str, Any]] = {
    "assert_fact": {"key": "x", "value": 7, "source": "tool:a"},
    "claim": {"key": "twice", "value": 2, "inputs": {"n": "a"}, "formula": "n * 2"},
    "retract": {"key": "b"},
    "end": {"key": "c", "source": "tool:a"},
    "forget": {"key": "d"},
    "depend": {"key": "e", "value": 5, "on": ["a"]},
    "record_outcome": {"source": "tool:a", "correct": True},
    "resolve": {"conflict": "ceo", "winner": "Ann"},
}
FILLED = {"claim": {"source": "model:agent"}, "depend": {"source": "model:agent"}}


def test_every_changing_tool_of_the_table_names_its_value_classes() -> None:
    changing = {t.name for t in tools.TOOLS if t.effect != "read"}
    assert changing == set(CALLS) | {"remember"}
    for tool in tools.TOOLS:
        assert bool(tool.changes) == (tool.effect != "read"), tool.name
        for kind in tool.changes:
            assert kind.op in operations_of(BeliefBase), (tool.name, kind)


def _one_change_each(run: Callable[[BeliefBase, str, dict[str, Any]], Any]) -> None:
    """Each changing tool, run by ``run(kb, name, arguments)`` on a base of its own, is one
    operation of the value class its entry names."""
    for name, arguments in CALLS.items():
        kb = held()
        spy = Spy()
        install_log(kb, spy)
        run(kb, name, arguments)
        assert len(spy.made) == 1, (name, spy.made)
        assert spy.made[0] in {kind.op for kind in tools.tool_named(name).changes}, name


def test_a_toolset_s_change_is_one_apply_of_its_value() -> None:
    _one_change_each(lambda kb, name, arguments: getattr(Operations(kb), name)(**arguments))


def _mcp(kb: BeliefBase, name: str, arguments: dict[str, Any]) -> Any:
    from mcp import Client

    from corollary.mcp import make_server

    async def go() -> Any:
        async with Client(make_server(kb), read_timeout_seconds=30) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(go())


def test_an_mcp_tool_s_change_is_one_apply_of_its_value() -> None:
    pytest.importorskip("mcp.types", reason="the MCP SDK is the optional extra corollary[mcp]")

    def run(kb: BeliefBase, name: str, arguments: dict[str, Any]) -> None:
        done = _mcp(kb, name, {**arguments, **FILLED.get(name, {})})
        assert not done.is_error, done.content

    _one_change_each(run)


# -- a failure injected inside a surface's change ------------------------------------------------
@pytest.fixture
def session(tmp_path: Path) -> Iterator[Callable[[], BeliefBase]]:
    """Opens the test's SQLite session (a checkpoint after every entry), holding ``a``."""
    ledger = open_ledger(str(tmp_path / "surfaces.db"))
    sid = f"s{uuid.uuid4().hex[:8]}"

    def open_it() -> BeliefBase:
        return BeliefBase.open_session(ledger, sid, clock=ManualClock(1000),
                                       checkpoint_every=1,
                                       conflict_policy=FailsOnceAfterChange())

    kb = open_it()
    kb.assert_("a", 1, source="tool:a")
    kb.assert_("b", 2, source="tool:a")
    yield open_it
    ledger.close()


def _unchanged(kb: BeliefBase, reopen: Callable[[], BeliefBase],
               make: Callable[[], Any], failure: type[BaseException]) -> None:
    """``make()`` fails by ``failure`` injected after the change; the base, its journal and a
    checkpoint taken now are as before."""
    before = (state(kb), [(h.operation, h.key) for h in kb.history()])
    policy = kb.conflict_policy
    assert isinstance(policy, FailsOnceAfterChange)
    policy.armed = failure
    try:
        make()
    except failure:
        pass
    assert policy.armed is None  # the hook ran: the change was made, then undone
    assert (state(kb), [(h.operation, h.key) for h in kb.history()]) == before
    kb.checkpoint()
    again = reopen()
    assert (state(again), [(h.operation, h.key) for h in again.history()]) == before


def test_a_toolset_s_failed_change_leaves_the_session_unchanged(
        session: Callable[[], BeliefBase]) -> None:
    kb = session()
    ops = Operations(kb)
    for failure in (Injected, InjectedInterrupt, KeyboardInterrupt):
        _unchanged(kb, session, lambda: ops.assert_fact("x", 1, "tool:a"), failure)
        _unchanged(kb, session, lambda: ops.retract("b"), failure)


def test_an_mcp_tool_s_failed_change_leaves_the_session_unchanged(
        session: Callable[[], BeliefBase]) -> None:
    pytest.importorskip("mcp.types", reason="the MCP SDK is the optional extra corollary[mcp]")
    kb = session()

    def call() -> None:
        done = _mcp(kb, "assert_fact", {"key": "x", "value": 1, "source": "tool:a"})
        assert done.is_error  # the server answers the failure as the tool's error

    _unchanged(kb, session, call, Injected)


def test_a_pydantic_ai_agent_s_failed_change_leaves_the_session_unchanged(
        session: Callable[[], BeliefBase]) -> None:
    pytest.importorskip("pydantic_ai", reason="the frameworks extra: pydantic-ai-slim")
    from pydantic_ai import Agent as PydanticAgent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from corollary.integrations.pydantic_ai import make_toolset

    kb = session()

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(
                "assert_fact", {"key": "x", "value": 1, "source": "tool:a"}, tool_call_id="a")])
        return ModelResponse(parts=[TextPart("done")])

    agent = PydanticAgent(FunctionModel(model), toolsets=[make_toolset(kb)])
    _unchanged(kb, session, lambda: agent.run_sync("keep x"), Injected)


def test_an_agents_sdk_agent_s_failed_change_leaves_the_session_unchanged(
        session: Callable[[], BeliefBase]) -> None:
    pytest.importorskip("agents", reason="the frameworks extra: openai-agents")
    from agents import Agent as SdkAgent
    from agents import Runner, set_tracing_disabled
    from frameworks.test_openai_agents import ScriptedModel as SdkModel
    from frameworks.test_openai_agents import call, text

    from corollary.integrations.openai_agents import make_tools

    set_tracing_disabled(True)
    kb = session()
    model = SdkModel([[call("a", "assert_fact", {"key": "x", "value": 1, "source": "tool:a"})],
                      [text("done")]])
    agent = SdkAgent(name="keeper", instructions="Keep x.", model=model, tools=make_tools(kb))
    _unchanged(kb, session, lambda: asyncio.run(Runner.run(agent, "keep x")), Injected)


def test_the_agent_s_claim_is_one_apply_and_all_or_nothing(
        session: Callable[[], BeliefBase]) -> None:
    claim = ToolCall("c1", "claim", {"key": "twice", "value": 2, "inputs": {"n": "a"},
                                     "formula": "n * 2"})
    answer = ToolCall("a1", "answer", {"value": 2, "inputs": ["twice"]})
    kb = held()
    spy = Spy()
    install_log(kb, spy)
    Agent(ScriptedModel([Reply(None, [claim]), Reply(None, [answer])]), kb).run("double a")
    assert spy.made == ["claim", "claim"]  # its claim, then its answer's

    kb = session()
    agent = Agent(ScriptedModel([Reply(None, [claim]), Reply(None, [answer])]), kb)
    _unchanged(kb, session, lambda: agent.run("double a"), InjectedInterrupt)


def test_the_langgraph_store_s_put_and_delete_are_one_apply_each_and_all_or_nothing(
        session: Callable[[], BeliefBase]) -> None:
    pytest.importorskip("langgraph", reason="the langgraph extra")
    from corollary.integrations.langgraph import CorollaryStore

    kb = BeliefBase(clock=ManualClock(1000))
    spy = Spy()
    install_log(kb, spy)
    store = CorollaryStore(kb)
    store.put(("users", "ann"), "city", {"name": "Paris"})
    store.delete(("users", "ann"), "city")
    store.put(("users", "bob"), "city", {"name": "Lyon"})
    store.forget(("users", "bob"))
    assert spy.made == ["assert_", "retract", "assert_", "forget"]

    kb = session()
    store = CorollaryStore(kb)
    store.put(("users", "ann"), "city", {"name": "Paris"})
    for failure in (Injected, InjectedInterrupt):
        _unchanged(kb, session, lambda: store.put(("users", "ann"), "city", {"name": "Oslo"}),
                   failure)
        _unchanged(kb, session, lambda: store.delete(("users", "ann"), "city"), failure)


# -- no surface calls a changing method of a base itself ------------------------------------------
SURFACES = ("mcp", "serving", "integrations", "agent", "cli")
#: ``corollary demo`` shows a reader the base's own methods, as their code would call them.
SHOWN = {"demo.py"}
#: The names the surfaces hold a base by.
HOLDERS = {"kb", "base"}


def _base_method_calls(path: Path, methods: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in methods):
            continue
        holder = node.func.value
        name = holder.attr if isinstance(holder, ast.Attribute) else getattr(holder, "id", None)
        if name in HOLDERS:
            found.append(f"{path.name}:{node.lineno} {node.func.attr}")
    return found


def test_no_surface_calls_a_changing_method_of_a_base() -> None:
    methods = {declared.method for declared in operations_of(BeliefBase).values()}
    root = Path(corollary.__file__).parent
    found = [call for surface in SURFACES
             for path in sorted((root / surface).rglob("*.py")) if path.name not in SHOWN
             for call in _base_method_calls(path, methods)]
    assert found == [], f"change the base through corollary.changes.apply: {found}"

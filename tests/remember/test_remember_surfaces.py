"""remember on the surfaces: the MCP tool (with and without a configured model) and
``corollary remember`` over a snapshot file and a journaled session, each against a real
OpenAI-compatible server on loopback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from model_server import Answer, Server
from remember_cases import fact, facts, wire_facts

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.cli import build_parser, main
from corollary.models import ScriptedModel

try:
    from mcp import Client
except ImportError:
    Client = None  # type: ignore[assignment,misc]

needs_mcp = pytest.mark.skipif(Client is None, reason="the MCP SDK is corollary[mcp]")


def call(server: Any, body: Callable[[Any], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


@needs_mcp
def test_the_mcp_tool_remembers_with_the_servers_model() -> None:
    from corollary.mcp import make_server

    kb = BeliefBase(clock=ManualClock(1_800_000_000))  # 2027: after the message's time
    kb.assert_("alice:city", "Paris", source="human:alice")
    model = ScriptedModel([facts(fact("Alice", "home city", "Lyon", "I moved to Lyon"),
                                 fact("Alice", "pet", "dog", "a dog"))])
    server = make_server(kb, model=model)
    result = call(server, lambda c: c.call_tool("remember", {
        "text": "I moved to Lyon.", "source": "human:alice", "at": "2024-01-02T00:00:00Z"}))
    out = result.structured_content
    assert [(r["key"], r["value"], r["merged_from"]) for r in out["remembered"]] == [
        ("alice:city", "Lyon", "alice:home_city")]
    assert out["refused"] == [{"reason": "quote not found", "key": "alice:pet",
                               "value": "dog", "quote": "a dog"}]  # ["quote not found"] on main
    (r,) = out["remembered"]
    assert kb.value(r["document"]) == "I moved to Lyon."


@needs_mcp
def test_a_scoped_mcp_server_remembers_inside_its_scope_and_may_forget_the_conversation(
        ) -> None:
    from corollary.mcp import make_server

    kb = BeliefBase(clock=ManualClock(1_800_000_000))
    model = ScriptedModel([facts(fact("customer:42", "email", "ann@x.org", "ann@x.org"))])
    server = make_server(kb, model=model, scope="customer:42")

    async def body(client: Any) -> Any:
        made = await client.call_tool("remember", {"text": "Write to ann@x.org.",
                                                   "source": "human:ann"})
        (r,) = made.structured_content["remembered"]
        forgot = await client.call_tool("retract", {"key": r["document"]})
        return made.structured_content, forgot

    out, forgot = call(server, body)
    assert out["refused"] == []  # "outside the scope" on main: the key was customer_42:email
    (r,) = out["remembered"]
    assert r["key"] == "customer:42:email" and r["document"].startswith("customer:42:doc:")
    assert not forgot.is_error and kb.label("customer:42:email") == "OUT"


@needs_mcp
def test_the_mcp_tool_without_a_model_says_how_to_configure_one() -> None:
    from corollary.mcp import make_server
    from corollary.mcp.remember_tool import NO_MODEL

    kb = BeliefBase(clock=ManualClock(1000))

    async def body(client: Any) -> Any:
        names = {t.name for t in (await client.list_tools()).tools}
        return names, await client.call_tool("remember", {"text": "x", "source": "human:a"})

    names, result = call(make_server(kb), body)
    assert "remember" in names
    assert result.is_error and result.content[0].text.endswith(NO_MODEL)
    assert not kb.engine.keys


@needs_mcp
def test_the_mcp_tool_refuses_a_naive_time_and_a_failed_model_unchanged(
        server: Server) -> None:
    from corollary.mcp import make_server
    from corollary.models import OpenAIChat

    kb = BeliefBase(clock=ManualClock(1000))
    server.then(Answer(status=500, body={"error": "boom"}))
    mcp = make_server(kb, model=OpenAIChat(server.url, "m", api_key="", max_retries=0))

    async def body(client: Any) -> Any:
        naive = await client.call_tool("remember", {"text": "x", "source": "human:a",
                                                    "at": "2024-01-02T00:00:00"})
        failed = await client.call_tool("remember", {"text": "x", "source": "human:a"})
        return naive, failed

    naive, failed = call(mcp, body)
    assert naive.is_error and "naive datetime" in naive.content[0].text
    assert failed.is_error and not kb.engine.keys


def test_corollary_mcp_takes_a_model() -> None:
    args = build_parser().parse_args(["mcp", "--model", "http://127.0.0.1:1/v1",
                                      "--model-name", "qwen"])
    from corollary.cli.remembering import model_of

    model = model_of(args)
    assert (model.base_url, model.model) == ("http://127.0.0.1:1/v1", "qwen")
    assert model_of(build_parser().parse_args(["mcp"])) is None


def test_corollary_remember_into_a_snapshot(tmp_path: Path, server: Server,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "kb.msgpack"
    BeliefBase(clock=ManualClock(0)).save(base)
    text = tmp_path / "note.txt"
    text.write_text("Bob works at Acme.", encoding="utf-8")
    server.then(Answer(body=wire_facts(fact("Bob", "employer", "Acme", "works at Acme"))))
    assert main(["remember", str(base), str(text), "--source", "human:bob", "--model",
                 server.url, "--model-name", "qwen", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(r["key"], r["label"]) for r in out["remembered"]] == [("bob:employer", "IN")]
    again = BeliefBase.load(base)
    assert again.value("bob:employer") == "Acme"
    assert "model judgement by model:qwen" in str(again.explain("bob:employer"))


def test_corollary_remember_a_chat_into_a_session(tmp_path: Path, server: Server,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ledger = tmp_path / "ledger.db"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"speaker": "human:alice", "text": "I live in Paris.", "at": 10},
        {"speaker": "human:bob", "text": "I live in Rome.", "at": 20}]), encoding="utf-8")
    server.then(Answer(body=wire_facts(fact("Alice", "city", "Paris", "I live in Paris"),
                                       fact("Bob", "city", "Rome", "I live in Rome"))))
    assert main(["remember", str(chat), "--ledger", str(ledger), "--session", "s",
                 "--model", server.url]) == 0
    printed = capsys.readouterr().out
    assert "alice:city" in printed and "bob:city" in printed
    with open_ledger(ledger) as opened:
        kb = BeliefBase.open_session(opened, "s", clock=ManualClock(30))
        assert (kb.value("alice:city"), kb.value("bob:city")) == ("Paris", "Rome")
        assert [h.operation for h in kb.history()] == ["remember"]


def test_corollary_remember_usage_errors(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "t.txt"
    text.write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["remember", str(text), "--model", "http://127.0.0.1:1/v1", "--source", "human:a"])
    base = tmp_path / "kb.msgpack"
    BeliefBase().save(base)
    assert main(["remember", str(base), str(text), "--model", "http://127.0.0.1:1/v1"]) == 1
    assert "--source S" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["remember", str(base), str(text), "--source", "human:a", "--model", "u",
              "--at", "2024-01-01T00:00:00"])


@needs_mcp
def test_corollary_mcp_with_a_model_remembers_over_stdio(tmp_path: Path, server: Server) -> None:
    import sys

    from mcp import StdioServerParameters
    from support.cli_support import ROOT

    ledger = tmp_path / "ledger.db"
    server.then(Answer(body=wire_facts(fact("Bob", "employer", "Acme", "works at Acme"))))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "corollary", "mcp", "--ledger", str(ledger), "--session", "s",
              "--model", server.url, "--model-name", "qwen"],
        cwd=str(tmp_path), env={"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": ""})

    async def body() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            return await client.call_tool("remember", {"text": "Bob works at Acme.",
                                                       "source": "human:bob"})

    result = asyncio.run(body())
    assert [r["key"] for r in result.structured_content["remembered"]] == ["bob:employer"]
    assert server.requests[0].json["model"] == "qwen"
    with open_ledger(ledger) as opened:
        kb = BeliefBase.open_session(opened, "s")
        assert kb.value("bob:employer") == "Acme"
        assert "model judgement by model:qwen" in str(kb.explain("bob:employer"))


def test_corollary_remember_takes_a_chat_file_timed_in_iso_8601(
        tmp_path: Path, server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "kb.msgpack"
    BeliefBase(clock=ManualClock(0)).save(base)
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"speaker": "human:alice", "text": "I live in Paris.", "at": "2024-01-02T00:00:00Z"},
        {"speaker": "human:alice", "text": "I moved to Lyon.", "at": "2024-03-01"}]),
        encoding="utf-8")
    server.then(Answer(body=wire_facts(fact("Alice", "city", "Paris", "I live in Paris"),
                                       fact("Alice", "home city", "Lyon", "I moved to Lyon"),
                                       fact("Alice", "pet", "dog", "my dog"))))
    assert main(["remember", str(base), str(chat), "--model", server.url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)  # exit 1, "at must be POSIX seconds", on main
    assert [(r["key"], r["value"]) for r in out["remembered"]] == [
        ("alice:city", "Paris"), ("alice:city", "Lyon")]
    assert out["refused"] == [{"reason": "quote not found", "key": "alice:pet", "value": "dog",
                               "quote": "my dog"}]
    kb = BeliefBase.load(base)
    assert kb.at(1_704_153_600 + 1).value("alice:city") == "Paris"  # 2024-01-02
    server.then(Answer(body=wire_facts(fact("Alice", "pet", "dog", "my dog"))))
    assert main(["remember", str(base), str(chat), "--model", server.url]) == 0
    assert "refused 1: quote not found: alice:pet = \"dog\" ('my dog')" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"speaker": "human:a", "text": "x", "at": "2024-01-02T09:00"}]),
                   encoding="utf-8")
    assert main(["remember", str(base), str(bad), "--model", server.url]) == 1
    assert "message 0: at" in capsys.readouterr().err

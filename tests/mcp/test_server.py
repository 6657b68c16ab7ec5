"""The MCP server: every tool and resource through the SDK's in-process client, bad input as tool
errors with the base unchanged, concurrent calls serialised, sessions saved after every change,
and ``corollary mcp`` as a real stdio child killed with SIGKILL and started again."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

# not importorskip("mcp"): with tests/ on sys.path, this folder passes for a namespace package
# "mcp" when the SDK is missing
try:
    from mcp import Client, MCPError, StdioServerParameters
    from mcp.types import CallToolResult, TextResourceContents
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
from support.cli_support import ROOT, env_for, make_shop  # noqa: E402

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, open_ledger  # noqa: E402
from corollary.mcp import make_server  # noqa: E402

TOOLS = {"assert_fact", "claim", "retract", "end", "forget", "depend", "record_outcome", "belief", "beliefs", "explain",
         "conflicts", "resolve", "faded", "recall"}


def call(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def error_text(result: CallToolResult) -> str:
    assert result.is_error is True and result.structured_content is None
    return result.content[0].text  # type: ignore[union-attr]


def base() -> BeliefBase:
    return BeliefBase(clock=ManualClock(1_000.0), conflict_policy=None)


# -- listing ---------------------------------------------------------------------------------
def test_tools_have_schemas_and_descriptions() -> None:
    server = make_server(base())

    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools, (await client.list_resource_templates())

    tools, templates = call(server, body)
    expected = TOOLS | {"what_to_check", "remember"}
    assert {t.name for t in tools} == expected
    for t in tools:
        assert t.output_schema is not None and t.output_schema["type"] == "object", t.name
        assert 40 <= len(t.description or "") <= 300, t.name
    schema = next(t for t in tools if t.name == "assert_fact").input_schema
    assert schema["required"] == ["key", "value", "source"]
    assert set(schema["properties"]) == {"key", "value", "source", "origin", "half_life_s", "ttl_s",
                                         "certainty", "valid_from", "valid_until"}
    assert sorted((r.uri_template, r.mime_type) for r in templates.resource_templates) == [
        ("belief://{key}", "application/json"), ("proof://{key}", "text/plain")]


def test_the_instructions_are_the_agents_prompt_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from corollary.agent import prompts

    async def body(client: Client) -> Any:
        return client.instructions

    assert call(make_server(base()), body) == prompts.MCP_INSTRUCTIONS
    assert "recall(query, k)" in prompts.MCP_INSTRUCTIONS
    monkeypatch.setattr(prompts, "MCP_INSTRUCTIONS", "CHANGED-INSTRUCTIONS")
    assert call(make_server(base()), body) == "CHANGED-INSTRUCTIONS"


# -- every tool --------------------------------------------------------------------------------
def test_assert_fact_with_a_stated_certainty() -> None:
    kb = base()
    server = make_server(kb)

    async def body(client: Client) -> Any:
        return await client.call_tool("assert_fact", {"key": "answer:q1", "value": 42,
                                                      "source": "document:notes",
                                                      "certainty": 0.5})

    a = call(server, body)
    # docs/model.md: reliability (a document's prior, 0.9) x the stated certainty
    assert a.structured_content["confidence"] == pytest.approx(0.45)
    assert kb.engine.find("answer:q1", 42).premises[0].certainty == 0.5


def test_assert_claim_explain_beliefs() -> None:
    kb = base()
    server = make_server(kb)

    async def body(client: Client) -> Any:
        a = await client.call_tool("assert_fact", {"key": "rev:Q2", "value": 100.0,
                                                   "source": "document:10-Q"})
        await client.call_tool("assert_fact", {"key": "rev:Q3", "value": 110.0,
                                               "source": "document:10-Q"})
        c = await client.call_tool("claim", {"key": "growth", "value": 0.2, "source": "model:gpt",
                                             "inputs": {"q2": "rev:Q2", "q3": "rev:Q3"},
                                             "formula": "(q3 - q2) / q2"})
        e = await client.call_tool("explain", {"key": "growth"})
        b = await client.call_tool("beliefs", {"min_confidence": 0.85})
        one = await client.call_tool("belief", {"key": "growth"})
        return a, c, e, b, one

    a, c, e, b, one = call(server, body)
    assert a.structured_content == {"key": "rev:Q2", "value": 100.0, "label": "IN",
                                    "confidence": 0.9, "saved_version": None}
    # the model said 0.2; the formula computes 0.1, which is believed
    assert c.structured_content["value"] == 0.1 and c.structured_content["label"] == "IN"
    assert kb.value("growth") == 0.1
    assert e.structured_content["text"] == str(kb.explain("growth"))
    assert "stated 0.2 but computes 0.1" in e.structured_content["text"]
    assert e.structured_content["tree"] == kb.explain("growth").to_dict()
    assert b.structured_content == {"beliefs": [
        {"key": h.key, "value": h.value, "label": "IN", "confidence": h.confidence}
        for h in kb.beliefs(0.85)], "truncated": False}
    assert len(b.structured_content["beliefs"]) == 3  # rev:Q2, rev:Q3, growth (1 × min): 0.9 each
    assert one.structured_content == {"key": "growth", "value": 0.1, "label": "IN",
                                      "confidence": kb.confidence("growth")}


def test_citation_retract_with_blame_record_outcome() -> None:
    kb = base()
    server = make_server(kb)

    async def body(client: Client) -> Any:
        await client.call_tool("assert_fact", {"key": "doc:10-K", "value": "Revenue grew 10%.",
                                               "source": "document:10-K"})
        cited = await client.call_tool("claim", {
            "key": "grew", "value": True, "source": "model:gpt", "inputs": ["doc:10-K"],
            "citation": {"document": "doc:10-K", "quote": "revenue grew 10%"}})
        retracted = await client.call_tool("retract", {"key": "grew", "reason": "misread",
                                                       "fault": "source"})
        outcome = await client.call_tool("record_outcome", {"source": "document:10-K",
                                                            "correct": False, "reason": "audit"})
        return cited, retracted, outcome

    cited, retracted, outcome = call(server, body)
    assert cited.structured_content["label"] == "IN"
    assert "(found)" in str(kb.explain("grew", True))
    assert retracted.structured_content == {"key": "grew", "value": True, "label": "OUT",
                                            "confidence": 0.0, "saved_version": None}
    assert str(kb.explain("grew", True)).startswith("grew = True [OUT] retracted: misread")
    assert [o.correct for o in kb.ledger.outcomes("model:gpt")] == [True, False]  # cited, blamed
    assert outcome.structured_content == {"source": "document:10-K",
                                          "reliability": kb.reliability("document:10-K"),
                                          "saved_version": None}
    assert kb.reliability("document:10-K") < 0.9


def test_conflicts_resolve_faded() -> None:
    kb = base()
    server = make_server(kb)

    async def body(client: Client) -> Any:
        await client.call_tool("claim", {"key": "ceo", "value": "Bob", "source": "model:gpt",
                                         "certainty": 0.8})
        await client.call_tool("assert_fact", {"key": "ceo", "value": "Alice",
                                               "source": "human:ops"})
        await client.call_tool("assert_fact", {"key": "price", "value": 101.5,
                                               "source": "tool:quote", "half_life_s": 60,
                                               "ttl_s": 600})
        open_ = await client.call_tool("conflicts", {})
        ambiguous = await client.call_tool("belief", {"key": "ceo"})
        kb.clock.advance(120)  # type: ignore[attr-defined]
        faded = await client.call_tool("faded", {"min_confidence": 0.5})
        resolved = await client.call_tool("resolve", {"conflict": "ceo", "winner": "Bob",
                                                      "learn": True})
        after = await client.call_tool("conflicts", {})
        return open_, ambiguous, faded, resolved, after

    open_, ambiguous, faded, resolved, after = call(server, body)
    assert open_.structured_content == {"conflicts": [{"key": "ceo", "candidates": [
        {"value": "Alice", "confidence": 0.99, "sources": ["human:ops"]},
        {"value": "Bob", "confidence": 0.9 * 0.8, "sources": ["model:gpt"]}]}]}
    assert "is in an open conflict" in error_text(ambiguous)
    assert faded.structured_content == {"faded": [
        {"key": "price", "value": 101.5, "confidence": kb.faded(0.5)[0].confidence,
         "sources": ["tool:quote"]}]}
    assert faded.structured_content["faded"][0]["confidence"] == pytest.approx(0.95 / 4)
    assert resolved.structured_content["value"] == "Bob"
    assert resolved.structured_content["label"] == "IN"
    assert kb.value("ceo") == "Bob" and kb.label("ceo", "Alice") == "OUT"
    assert after.structured_content == {"conflicts": []}
    assert [o.correct for o in kb.ledger.outcomes("human:ops")] == [False]


@pytest.mark.parametrize("tool, arguments, message", [
    ("assert_fact", {"key": "k", "value": 1, "source": "nokind"},
     "a source must look like 'kind:name', got 'nokind'"),
    ("assert_fact", {"key": " ", "value": 1, "source": "tool:a"}, "a key must be a non-empty string"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "half_life_s": -1},
     "half_life must be finite and non-negative, got -1"),
    ("assert_fact", {"key": "k", "value": 1, "source": "rule:r"}, "is a reasoning step"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "certainty": 1.5}, "certainty"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "certainty": 0}, "certainty"),
    ("claim", {"key": "g", "value": 1, "source": "model:m", "inputs": ["nope"]},
     "no belief about 'nope'"),
    ("claim", {"key": "g", "value": 1, "source": "model:m", "inputs": {"a": "hq"},
               "formula": "__import__('os')"}, "formula"),
    ("claim", {"key": "g", "value": 1, "source": "model:m", "certainty": 1.5}, "certainty"),
    ("retract", {"key": "hq", "fault": "blame"}, "fault must be 'none' or 'source', got 'blame'"),
    ("retract", {"key": "nope"}, "no belief about 'nope'"),
    ("retract", {"key": "hq", "value": "Dallas"}, "no belief hq = 'Dallas'"),
    ("record_outcome", {"source": "rule:r", "correct": True}, "is a reasoning step"),
    ("belief", {"key": "nope"}, "no belief about 'nope'"),
    ("explain", {"key": "nope"}, "no belief about 'nope'"),
    ("beliefs", {"min_confidence": 2}, "min_confidence"),
    ("beliefs", {"query": "", "min_confidence": 0.5}, "query must hold some text"),
    ("recall", {"query": "hq", "min_confidence": 2}, "min_confidence"),
    ("faded", {"min_confidence": -0.5}, "min_confidence"),
    ("resolve", {"conflict": "hq", "winner": "Dallas"}, "'Dallas' is not a standing value of 'hq'"),
])
def test_bad_input_is_a_tool_error_and_changes_nothing(tool: str, arguments: dict[str, Any],
                                                        message: str) -> None:
    text = refused(tool, arguments)
    assert text.startswith(f"Error executing tool {tool}: ")
    assert message in text, text


def refused(tool: str, arguments: dict[str, Any]) -> str:
    """The error text of a call the server refuses, checked to change neither the base nor
    the ledger."""
    kb = base()
    kb.assert_("hq", "Austin", source="tool:registry")
    before = kb.to_dict()
    outcomes = len(kb.ledger.outcomes())
    text = error_text(call(make_server(kb), lambda client: client.call_tool(tool, arguments)))
    assert kb.to_dict() == before
    assert len(kb.ledger.outcomes()) == outcomes
    return text


def test_resources_read_keys_with_colons_slashes_and_quotes() -> None:
    kb = base()
    kb.assert_('a:b/c "d"', "x", source="tool:registry")
    server = make_server(kb)
    uri = quote('a:b/c "d"', safe="")

    async def body(client: Client) -> Any:
        one = (await client.read_resource(f"belief://{uri}")).contents
        proof = (await client.read_resource(f"proof://{uri}")).contents
        with pytest.raises(MCPError) as missing:
            await client.read_resource("proof://nope")
        return one, proof, missing.value

    (one,), (proof,), missing = call(server, body)
    assert isinstance(one, TextResourceContents) and one.mime_type == "application/json"
    assert one.text == '{"key": "a:b/c \\"d\\"", "value": "x", "label": "IN", "confidence": 0.95}'
    assert isinstance(proof, TextResourceContents) and proof.text == str(kb.explain('a:b/c "d"'))
    assert (missing.code, missing.message) == (-32602, "no belief about 'nope'")


def test_what_to_check() -> None:
    clock = ManualClock(1_000.0)
    kb = BeliefBase(clock=clock)
    kb.assert_("rev:Q2", 100.0, source="document:10-Q", half_life=60)
    kb.assert_("rev:Q3", 110.0, source="tool:scraper", half_life=30)
    kb.claim("growth", 0.1, source="model:gpt", inputs=["rev:Q2", "rev:Q3"], certainty=0.9)
    clock.advance(60)  # both premises have faded: refreshing either is worth something
    expected = kb.what_to_check("growth", limit=5)
    result = call(make_server(kb), lambda c: c.call_tool("what_to_check", {"key": "growth"}))
    assert result.structured_content == {"items": [
        {"key": i.key, "value": i.value, "source": i.source, "gain": i.gain} for i in expected]}
    assert len(expected) == 2


# -- sessions, concurrency ---------------------------------------------------------------------
def test_concurrent_changes_are_serialised_and_all_saved(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "ledger.db") as ledger:
        kb = BeliefBase(ledger=ledger, clock=ManualClock(0))
        server = make_server(kb, session="s")

        async def body(client: Client) -> Any:
            return await asyncio.gather(*[
                client.call_tool("assert_fact", {"key": f"k{i}", "value": i,
                                                 "source": "tool:feed"}) for i in range(40)])

        results = call(server, body)
        assert [r.is_error for r in results] == [False] * 40
        assert sorted(r.structured_content["saved_version"] for r in results) == list(range(1, 41))
        again = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        assert sorted(again.keys()) == sorted(f"k{i}" for i in range(40))
        assert len(again) == 40


def test_another_writer_is_reported_and_the_stored_session_served(tmp_path: Path) -> None:
    # a whole-snapshot session (a JSON ledger); a SQLite one serves the session's journal
    # (tests/journal/test_one_session_model.py)
    with open_ledger(tmp_path / "ledger.json") as ledger:
        kb = BeliefBase(ledger=ledger, clock=ManualClock(0))
        kb.assert_("plan", "basic", source="human:sales")
        kb.save_session("s")
        server = make_server(kb, session="s")
        other = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        other.assert_("plan", "pro", source="human:sales")
        other.save_session("s")  # version 2, behind the server's back

        async def body(client: Client) -> Any:
            lost = await client.call_tool("assert_fact", {"key": "seats", "value": 5,
                                                          "source": "human:sales"})
            now = await client.call_tool("belief", {"key": "plan"})
            seats = await client.call_tool("belief", {"key": "seats"})
            kept = await client.call_tool("assert_fact", {"key": "seats", "value": 5,
                                                          "source": "human:sales"})
            return lost, now, seats, kept

        lost, now, seats, kept = call(server, body)
        text = error_text(lost)
        assert "session 's' was saved by another writer" in text
        assert "This change was not saved" in text
        assert now.structured_content["value"] == "pro"
        assert "no belief about 'seats'" in error_text(seats)
        assert kept.structured_content["saved_version"] == 3
        final = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        assert (final.value("plan"), final.value("seats")) == ("pro", 5)


# -- corollary mcp as a child process -------------------------------------------------------
def _params(ledger: Path, session: str = "agent-1") -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "corollary", "mcp", "--ledger", str(ledger), "--session", session],
        cwd=str(ledger.parent.parent), env={"PYTHONPATH": str(ROOT)})


def _server_pids(ledger: Path) -> list[int]:
    """The `corollary mcp` children serving ``ledger`` (found in /proc: the SDK hides them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"mcp" in argv and str(ledger).encode() in argv:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc to find the child")
def test_stdio_server_killed_and_restarted_loses_nothing(tmp_path: Path) -> None:
    ledger = tmp_path / "agents" / "ledger.db"

    async def first() -> int:
        async with Client(_params(ledger), read_timeout_seconds=30) as client:
            for key, value, source in [("rev:Q2", 100.0, "document:10-Q"),
                                       ("rev:Q3", 110.0, "document:10-Q"),
                                       ("ceo", "Alice", "human:ops")]:
                r = await client.call_tool("assert_fact", {"key": key, "value": value,
                                                           "source": source})
                assert r.is_error is False, r.content
            r = await client.call_tool("claim", {"key": "growth", "value": 0.1,
                                                 "source": "model:gpt",
                                                 "inputs": {"q2": "rev:Q2", "q3": "rev:Q3"},
                                                 "formula": "(q3 - q2) / q2"})
            assert r.structured_content["saved_version"] == 4  # the journal's fourth entry
            r = await client.call_tool("claim", {"key": "ceo", "value": "Bob",
                                                 "source": "model:gpt", "certainty": 0.8})
            assert r.is_error is False
            (pid,) = _server_pids(ledger)
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(MCPError) as closed:
                await client.call_tool("belief", {"key": "ceo"})
            assert closed.value.message == "Connection closed"
            return pid

    async def second() -> tuple[Any, ...]:
        async with Client(_params(ledger), read_timeout_seconds=30) as client:
            (pid,) = _server_pids(ledger)
            conflicts = await client.call_tool("conflicts", {})
            resolved = await client.call_tool("resolve", {"conflict": "ceo", "winner": "Alice"})
            retracted = await client.call_tool("retract", {"key": "rev:Q3", "reason": "restated",
                                                           "fault": "source"})
            proof = await client.call_tool("explain", {"key": "growth"})
            return pid, conflicts, resolved, retracted, proof

    killed = asyncio.run(first())
    pid, conflicts, resolved, retracted, proof = asyncio.run(second())
    assert pid != killed
    assert [c["value"] for c in conflicts.structured_content["conflicts"][0]["candidates"]] == [
        "Alice", "Bob"]
    assert resolved.structured_content["label"] == "IN"
    assert retracted.structured_content["label"] == "OUT"
    assert proof.structured_content["text"].startswith("growth = 0.1 [OUT] unsupported")
    assert _server_pids(ledger) == []  # the second child exited with its client
    with open_ledger(ledger) as opened:
        kb = BeliefBase.open_session(opened, "agent-1")  # corollary mcp keeps a journal
        assert kb.value("ceo") == "Alice" and kb.label("ceo", "Bob") == "OUT"
        assert kb.label("rev:Q3") == "OUT" and kb.label("growth") == "OUT"
        assert [o.correct for o in opened.outcomes("document:10-Q")] == [False]


def test_stdio_server_needs_and_takes_the_users_module(tmp_path: Path) -> None:
    shop = make_shop(tmp_path / "shop")
    args = ["-m", "corollary", "mcp", "--ledger", str(shop.ledger), "--session", "shop-1"]
    done = subprocess.run([sys.executable, *args], env=env_for(shop.home), cwd=shop.home,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "corollary: session 'shop-1': the snapshot needs rules ['shop.signal'] and tools "
        "['shop_filings', 'shop_quote'] that no imported module defines: pass --import shop "
        "(the module that defines them)\n")
    params = StdioServerParameters(command=sys.executable, args=[*args, "--import", "shop"],
                                   cwd=str(shop.home), env=env_for(shop.home))

    async def body() -> Any:
        async with Client(params, read_timeout_seconds=30) as client:
            growth = await client.call_tool("belief", {"key": "growth"})
            # the server answers at the wall clock: the quote saved in 2026-01-01 has expired,
            # and the rule's conclusion with it
            signal = await client.call_tool("explain", {"key": "signal"})
            return growth, signal

    growth, signal = asyncio.run(body())
    # growth rests on the filings, right once in the shared ledger: (10 × 0.99 + 1) / 11
    assert growth.structured_content == {"key": "growth", "value": 0.1, "label": "IN",
                                         "confidence": (10 * 0.99 + 1) / 11}
    assert signal.structured_content["text"].startswith("signal = 'buy' [OUT] unsupported")
    assert "rule shop.signal" in signal.structured_content["text"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_http_transport(tmp_path: Path) -> None:
    port = _free_port()
    ledger = tmp_path / "ledger.db"
    child = subprocess.Popen(
        [sys.executable, "-m", "corollary", "mcp", "--ledger", str(ledger), "--session", "web",
         "--transport", "http", "--port", str(port)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the HTTP server did not start in 30 s"
            time.sleep(0.1)

        async def body() -> Any:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=30) as client:
                await client.call_tool("assert_fact", {"key": "hq", "value": "Austin",
                                                       "source": "tool:registry"})
                return await client.call_tool("belief", {"key": "hq"})

        result = asyncio.run(body())
        assert result.structured_content == {"key": "hq", "value": "Austin", "label": "IN",
                                             "confidence": 0.95}
    finally:
        child.terminate()
        child.wait(timeout=30)
    with open_ledger(ledger) as opened:
        assert BeliefBase.open_session(opened, "web").value("hq") == "Austin"


def test_without_the_extra_one_line_says_how_to_install_it(tmp_path: Path) -> None:
    script = ("import sys; sys.modules['mcp'] = None\n"  # as if the extra were not installed
              "from corollary.cli import main\n"
              f"sys.exit(main(['mcp', '--ledger', {str(tmp_path / 'l.db')!r}]))\n")
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == ("corollary: corollary's MCP server needs the optional package 'mcp': "
                           "pip install 'corollary[mcp]'\n")
    assert not (tmp_path / "l.db").exists()


def test_make_server_refuses_what_is_not_a_base() -> None:
    from corollary import InvalidTypeError, NameTakenError
    from corollary.tms import register
    from corollary.tms.kinds import RuleStep

    # the typed family (issue 26, smaller list), still the built-in types callers catch
    with pytest.raises(InvalidTypeError, match="make_server needs a BeliefBase"):
        make_server(object())  # type: ignore[arg-type]
    with pytest.raises(NameTakenError) as taken:
        register(RuleStep())
    assert isinstance(taken.value, ValueError)


def test_conflict_policy_survives_the_session(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "ledger.db") as ledger:
        kb = BeliefBase(ledger=ledger, conflict_policy=PreferHigherConfidence(), clock=ManualClock(0))
        server = make_server(kb, session="p")

        async def body(client: Client) -> Any:
            await client.call_tool("claim", {"key": "ceo", "value": "Bob", "source": "model:gpt",
                                             "certainty": 0.8})
            await client.call_tool("assert_fact", {"key": "ceo", "value": "Alice",
                                                   "source": "human:ops"})
            return await client.call_tool("belief", {"key": "ceo"})

        held = call(server, body)
        assert held.structured_content["value"] == "Alice"
        again = BeliefBase.load_session(ledger, "p", clock=ManualClock(0))
        assert again.value("ceo") == "Alice" and again.label("ceo", "Bob") == "OUT"


def test_a_held_null_value_is_in() -> None:
    kb = base()

    async def body(client: Client) -> Any:
        await client.call_tool("assert_fact", {"key": "manager", "value": None,
                                               "source": "human:hr"})
        await client.call_tool("assert_fact", {"key": "gone", "value": 1, "source": "human:hr"})
        await client.call_tool("retract", {"key": "gone"})
        return (await client.call_tool("belief", {"key": "manager"}),
                await client.call_tool("belief", {"key": "gone"}))

    held, gone = call(make_server(kb), body)
    assert held.structured_content == {"key": "manager", "value": None, "label": "IN",
                                       "confidence": 0.99}
    assert gone.structured_content == {"key": "gone", "value": None, "label": "OUT",
                                       "confidence": 0.0}


def customers(n: int) -> BeliefBase:
    kb = base()
    kb.assert_many((f"customer:{i}:email", f"customer{i}@example.com", "tool:crm")
                   for i in range(n))
    return kb


def test_recall_finds_what_a_query_names_and_never_a_retracted_value() -> None:
    kb = customers(300)
    kb.assert_("customer:7:email", "old7@example.com", source="tool:legacy")
    kb.retract("customer:7:email", "old7@example.com")
    server = make_server(kb)

    async def body(client: Client) -> Any:
        found = await client.call_tool("recall", {"query": "customer 7 email", "k": 3})
        default = await client.call_tool("recall", {"query": "customer 8"})
        bad = await client.call_tool("recall", {"query": "  "})
        too_many = await client.call_tool("recall", {"query": "customer", "k": 51})
        return found, default, bad, too_many

    found, default, bad, too_many = call(server, body)
    items = found.structured_content["beliefs"]
    assert items[0] == {"key": "customer:7:email", "value": "customer7@example.com",
                        "label": "IN", "confidence": 0.95,
                        "score": kb.recall("customer 7 email", 1)[0].score,
                        "why": ["customer", "7", "email"], "conflict": False, "source_of": []}
    assert "old7@example.com" not in str(found.structured_content)
    assert [i["key"] for i in items] == [r.key for r in kb.recall("customer 7 email", 3)]
    assert [b["key"] for b in default.structured_content["beliefs"]] == [
        r.key for r in kb.recall("customer 8")]  # k=10 by default
    assert "query must hold some text" in error_text(bad)
    assert too_many.is_error is True  # k is at most 50: the SDK refuses it


def test_beliefs_by_query_and_limit() -> None:
    kb = customers(120)
    server = make_server(kb)

    async def body(client: Client) -> Any:
        every = await client.call_tool("beliefs", {})
        few = await client.call_tool("beliefs", {"limit": 5})
        found = await client.call_tool("beliefs", {"query": "customer 7", "limit": 2})
        all_found = await client.call_tool("beliefs", {"query": "customer 7 email", "limit": 50})
        return every, few, found, all_found

    every, few, found, all_found = call(server, body)
    assert len(every.structured_content["beliefs"]) == 100  # the default limit
    assert every.structured_content["truncated"] is True
    assert few.structured_content["beliefs"] == every.structured_content["beliefs"][:5]
    assert [b["key"] for b in found.structured_content["beliefs"]] == [
        r.key for r in kb.recall("customer 7", 2)]
    assert found.structured_content["truncated"] is (len(kb.recall("customer 7", 3)) > 2)
    assert found.structured_content["beliefs"][0] == {
        "key": "customer:7:email", "value": "customer7@example.com", "label": "IN",
        "confidence": 0.95}
    assert all_found.structured_content["truncated"] is (
        len(kb.recall("customer 7 email", 51)) > 50)


# -- strict argument types (issue 20, finding 12) ---------------------------------------------
@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("record_outcome", {"source": "tool:registry", "correct": "no"}, "correct"),
    ("record_outcome", {"source": "tool:registry", "correct": "yes"}, "correct"),
    ("record_outcome", {"source": "tool:registry", "correct": 0}, "correct"),
    ("record_outcome", {"source": "tool:registry", "correct": True, "reason": 3}, "reason"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "half_life_s": "60"},
     "half_life_s"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "ttl_s": True}, "ttl_s"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "certainty": "0.5"}, "certainty"),
    ("assert_fact", {"key": 7, "value": 1, "source": "tool:a"}, "key"),
    ("assert_fact", {"key": "k", "value": 1, "source": "tool:a", "origin": 1}, "origin"),
    ("claim", {"key": "g", "value": 1, "source": "model:m", "inputs": '["hq"]'}, "inputs"),
    ("claim", {"key": "g", "value": 1, "source": "model:m", "certainty": "0.5"}, "certainty"),
    ("claim", {"key": "g", "value": 1, "source": "model:m", "formula": 2}, "formula"),
    ("claim", {"key": "g", "value": 1, "source": "model:m",
               "citation": '{"document": "hq", "quote": "Austin"}'}, "citation"),
    ("retract", {"key": "hq", "reason": False}, "reason"),
    ("retract", {"key": "hq", "fault": 0}, "fault"),
    ("resolve", {"conflict": "hq", "winner": "Austin", "learn": "false"}, "learn"),
    ("what_to_check", {"key": "hq", "limit": "5"}, "limit"),
    ("what_to_check", {"key": "hq", "limit": 5.0}, "limit"),
    ("recall", {"query": "hq", "k": "3"}, "k"),
    ("recall", {"query": "hq", "min_confidence": "0.5"}, "min_confidence"),
    ("beliefs", {"limit": True}, "limit"),
    ("beliefs", {"query": 1}, "query"),
    ("belief", {"key": ["hq"]}, "key"),
    ("explain", {"key": 1}, "key"),
    ("faded", {"min_confidence": "0.5"}, "min_confidence"),
])
def test_wrong_json_types_are_refused_not_coerced(tool: str, arguments: dict[str, Any],
                                                  field: str) -> None:
    text = refused(tool, arguments)
    assert re.search(rf"validation errors? for {tool}Arguments\n{field}\b", text), text


def test_every_tool_takes_its_json_types_strictly() -> None:
    """The same calls with the right JSON types pass; a JSON text given as a value stays text."""
    kb = base()
    server = make_server(kb)

    async def body(client: Client) -> list[CallToolResult]:
        return [await client.call_tool(tool, arguments) for tool, arguments in [
            ("assert_fact", {"key": "hq", "value": "[1, 2]", "source": "tool:registry",
                             "half_life_s": 60, "ttl_s": 3600.5, "origin": "o"}),
            ("claim", {"key": "g", "value": "[1, 2]", "source": "model:m", "inputs": ["hq"],
                       "certainty": 1}),
            ("record_outcome", {"source": "tool:registry", "correct": False, "reason": "audit"}),
            ("what_to_check", {"key": "g", "limit": 5}),
            ("recall", {"query": "hq", "k": 3, "min_confidence": 0}),
            ("beliefs", {"limit": 10}),
            ("faded", {"min_confidence": 1}),
            ("retract", {"key": "g", "reason": "done", "fault": "none"}),
        ]]

    results = call(server, body)
    assert [r.is_error for r in results] == [False] * len(results), results
    assert kb.value("hq") == "[1, 2]"  # a string, not the list its text spells
    assert kb.ledger.outcomes("tool:registry")[-1].correct is False


# -- a refuted claim says so (issue 20, finding 13) -------------------------------------------
def test_a_claim_its_formula_refutes_says_so_with_the_computed_value() -> None:
    kb = base()
    kb.assert_("rev:Q2", 100.0, source="document:10-Q")
    kb.assert_("rev:Q3", 110.0, source="document:10-Q")
    kb.assert_("units", 4, source="document:10-Q")
    server = make_server(kb)
    growth = {"inputs": {"q2": "rev:Q2", "q3": "rev:Q3"}, "formula": "(q3 - q2) / q2"}

    async def body(client: Client) -> list[CallToolResult]:
        return [
            await client.call_tool("claim", {"key": "growth", "value": 0.3, "source": "model:m",
                                             **growth}),
            await client.call_tool("claim", {"key": "growth2", "value": 0.1, "source": "model:m",
                                             **growth}),
            await client.call_tool("claim", {"key": "double", "value": True, "source": "model:m",
                                             "inputs": {"u": "units"}, "formula": "u / 4"}),
            await client.call_tool("claim", {"key": "guess", "value": 0.3, "source": "model:m",
                                             "inputs": ["rev:Q2"]}),
        ]

    wrong, right, a_bool, unchecked = call(server, body)
    assert wrong.is_error is False
    assert wrong.structured_content == {
        "key": "growth", "value": 0.1, "label": "IN", "confidence": kb.confidence("growth"),
        "saved_version": None,
        "refuted": {"stated": 0.3, "computed": 0.1, "formula": "(q3 - q2) / q2"}}
    # the model reads the text content: the refutation is in it too
    assert json.loads(wrong.content[0].text)["refuted"] == wrong.structured_content["refuted"]
    assert kb.value("growth") == 0.1
    assert right.structured_content["refuted"] is None and right.structured_content["value"] == 0.1
    # True is no number: the formula's 1.0 is believed, and the claim is refuted
    assert a_bool.structured_content["refuted"] == {"stated": True, "computed": 1.0,
                                                    "formula": "u / 4"}
    assert unchecked.structured_content["refuted"] is None  # nothing checked the claim
    assert unchecked.structured_content["value"] == 0.3


# -- every change all or nothing (issue 20, finding 3) ----------------------------------------
def _ceo_in_conflict(ledger: Any) -> BeliefBase:
    kb = BeliefBase(ledger=ledger, clock=ManualClock(0), conflict_policy=None)
    kb.assert_("ceo", "Alice", source="tool:a")
    kb.assert_("ceo", "Bob", source="tool:b")
    assert kb.save_session("s") == 1
    return kb


def test_a_null_asserted_into_an_open_conflict_is_answered_and_saved(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "ledger.json") as ledger:
        server = make_server(_ceo_in_conflict(ledger), session="s")

        async def body(client: Client) -> Any:
            null = await client.call_tool("assert_fact", {"key": "ceo", "value": None,
                                                          "source": "tool:c"})
            return null, await client.call_tool("conflicts", {})

        null, conflicts = call(server, body)
        # the null value's own state, read from the conflict it joined
        assert null.structured_content == {"key": "ceo", "value": None, "label": "IN",
                                           "confidence": 0.95, "saved_version": 2}
        assert [c["value"] for c in conflicts.structured_content["conflicts"][0]["candidates"]
                ] == ["Alice", "Bob", None]
        stored = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        assert [c.values for c in stored.conflicts()] == [("Alice", "Bob", None)]


def test_a_change_that_cannot_be_read_back_is_not_kept(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from corollary import CorollaryError
    from corollary.serving import tool_host

    with open_ledger(tmp_path / "ledger.json") as ledger:
        server = make_server(_ceo_in_conflict(ledger), session="s")
        read_back = tool_host.belief_state

        def failing(kb: BeliefBase, key: str, value: Any) -> dict[str, Any]:
            if key == "cfo":  # a read-back fault, after the change was applied
                raise CorollaryError("reading cfo failed")
            return read_back(kb, key, value)

        monkeypatch.setattr(tool_host, "belief_state", failing)

        async def body(client: Client) -> Any:
            lost = await client.call_tool("assert_fact", {"key": "cfo", "value": "Carol",
                                                          "source": "tool:c"})
            cfo = await client.call_tool("belief", {"key": "cfo"})
            kept = await client.call_tool("assert_fact", {"key": "cto", "value": "Dan",
                                                          "source": "tool:c"})
            return lost, cfo, kept

        lost, cfo, kept = call(server, body)
        text = error_text(lost)
        assert "reading cfo failed. This change was not saved (reading the change back " \
               "failed): the server now serves the session as stored" in text
        assert "no belief about 'cfo'" in error_text(cfo)
        assert kept.structured_content["saved_version"] == 2
        stored = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        assert sorted(stored.keys()) == ["ceo", "cto"]  # the next change did not save cfo


def test_explain_of_a_5000_claim_chain_comes_in_blocks() -> None:
    """A proof nested four JSON levels a belief stops MCP serializers near 64 levels (about 15
    beliefs): the tree comes cut into numbered blocks, as the text is, and walks to the end."""
    kb = base()
    kb.assert_("k0", 0, source="human:ops")
    for i in range(1, 5001):
        kb.claim(f"k{i}", i, source="model:m", inputs=[f"k{i - 1}"])
    server = make_server(kb)

    async def body(client: Client) -> Any:
        return await client.call_tool("explain", {"key": "k5000"})

    result = call(server, body)
    assert not result.is_error
    doc = result.structured_content
    assert doc["text"] == str(kb.explain("k5000"))
    blocks = {block["number"]: block["proof"] for block in doc["continued"]}
    node, seen = doc["tree"], []
    while True:  # follow the chain down through the blocks
        if "continued" in node:  # the same belief, its reasons in that block
            assert blocks[node["continued"]]["key"] == node["key"]
            node = blocks[node["continued"]]
        seen.append(node["key"])
        if not node.get("reasons") or not node["reasons"][0].get("inputs"):
            break
        node = node["reasons"][0]["inputs"][0]
    assert seen == [f"k{i}" for i in range(5000, -1, -1)]
    assert len(blocks) == 500


def test_explain_of_a_short_proof_is_one_tree() -> None:
    kb = base()
    kb.assert_("a", 1, source="human:ops")
    kb.claim("b", 2, source="model:m", inputs=["a"])

    async def body(client: Client) -> Any:
        return await client.call_tool("explain", {"key": "b"})

    doc = call(make_server(kb), body).structured_content
    assert doc["tree"] == kb.explain("b").to_dict() and doc["continued"] == []

"""Many users served by replicas (issue 38, "Done when"): two ``corollary mcp --tokens-file``
processes on one ledger (a SQLite file, and a PostgreSQL database when
``COROLLARY_TEST_PG_URL`` is set), real HTTP on loopback, the SDK's own client.

Every write acknowledged by either replica is seen by the other's next read; a token for one
user cannot reach another's session, tried through every tool and both ways of naming a session
(every outcome counted); sessions evicted from a cache of two reopen to the same state; a
replica killed with SIGKILL loses nothing it acknowledged."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

try:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
from support.cli_support import ROOT  # noqa: E402

from corollary import BeliefBase, ManualClock, open_ledger  # noqa: E402
from corollary.serving.tools import TOOLS  # noqa: E402

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
USERS = [f"user-{i}" for i in range(5)]
TOKENS = {user: f"token-of-{user}-{uuid.uuid4().hex}" for user in USERS}
MCP_HEADERS = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
#: A call of every tool that a session holding ``city`` accepts.
CALLS: dict[str, dict[str, Any]] = {
    "assert_fact": {"key": "pet", "value": "cat", "source": "human:me"},
    "claim": {"key": "guess", "value": 1, "source": "model:m", "inputs": []},
    "depend": {"key": "commute", "value": "bike", "source": "human:me", "on": ["city"]},
    "retract": {"key": "pet"},
    "end": {"key": "city", "source": "human:me", "at": "2020-01-01"},
    "forget": {"key": "guess"},
    "record_outcome": {"source": "human:me", "correct": True},
    "resolve": {"conflict": "city", "winner": "x"},
    "belief": {"key": "city"},
    "recall": {"query": "city"},
    "beliefs": {},
    "explain": {"key": "city"},
    "conflicts": {},
    "faded": {},
    "what_to_check": {"key": "city"},
    "remember": {"text": "I live in Rome.", "source": "human:me"},
}


def test_every_tool_is_tried() -> None:
    assert sorted(CALLS) == sorted(t.name for t in TOOLS)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty ledger both replicas serve: a SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "users.db")
        return
    import psycopg

    name = f"many_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def replica(ledger: str, tokens: Path, log: Path) -> Iterator[tuple[str, subprocess.Popen[Any]]]:
    """A real ``corollary mcp --tokens-file`` on loopback, caching at most two sessions."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    with log.open("a") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "corollary", "mcp", "--ledger", ledger, "--transport", "http",
             "--port", str(port), "--tokens-file", str(tokens), "--max-sessions", "2"],
            env={**env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert child.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the replica did not start in 60 s"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", child
    finally:
        if child.poll() is None:
            child.terminate()
        child.wait(timeout=30)


def call(url: str, user: str, steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run ``steps`` (tool, arguments) in ``user``'s session through the SDK's client."""
    async def go() -> list[Any]:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKENS[user]}"},
                                      timeout=60) as http:
            async with Client(streamable_http_client(f"{url}/sessions/{user}/mcp",
                                                     http_client=http),
                              read_timeout_seconds=60) as client:
                return [await client.call_tool(tool, arguments) for tool, arguments in steps]

    return asyncio.run(go())


def held(url: str, user: str) -> dict[str, Any]:
    """Every belief ``user``'s session holds, read through ``url``."""
    (listed,) = call(url, user, [("beliefs", {"limit": 1000})])
    assert listed.is_error is False, listed.content
    return {b["key"]: b["value"] for b in listed.structured_content["beliefs"]}


def _events(response: httpx2.Response) -> list[Any]:
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [json.loads(line[5:]) for line in response.text.splitlines()
            if line.startswith("data:") and line[5:].strip()]


def raw_calls(url: str, token: str, own: str, path: str, header: str | None) -> list[int]:
    """A raw MCP session opened by ``token`` on its ``own`` session, then every tool called
    with that session's id on ``path`` (naming ``header`` as Corollary-Session if given): the
    HTTP status of each call."""
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    opened = httpx2.post(f"{url}/sessions/{own}/mcp", headers=auth, timeout=60, json={
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}})
    assert opened.status_code == 200, opened.text
    auth["mcp-session-id"] = opened.headers["mcp-session-id"]
    if "mcp-protocol-version" in opened.headers:
        auth["mcp-protocol-version"] = opened.headers["mcp-protocol-version"]
    httpx2.post(f"{url}/sessions/{own}/mcp", headers=auth, timeout=60,
                json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    if header is not None:
        auth["Corollary-Session"] = header
    statuses = []
    for n, (tool, arguments) in enumerate(CALLS.items(), start=1):
        done = httpx2.post(f"{url}{path}", headers=auth, timeout=60, json={
            "jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
        if done.status_code == 200:
            (answer,) = [e for e in _events(done) if e.get("id") == n]
            assert "result" in answer, answer  # a tool's own error is a result, is_error
        statuses.append(done.status_code)
    return statuses


def stored(ledger: str, user: str) -> dict[str, Any]:
    """``user``'s session as a fresh process opens it from the ledger."""
    with open_ledger(ledger) as opened:
        kb = BeliefBase.open_session(opened, user, clock=ManualClock(0))
        return {h.key: h.value for h in kb.beliefs()}


def test_two_replicas_serve_many_users(ledger: str, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({TOKENS[user]: [user] for user in USERS}))
    log = tmp_path / "replicas.log"
    acknowledged: dict[str, dict[str, Any]] = {user: {} for user in USERS}
    with replica(ledger, tokens, log) as (a, _), replica(ledger, tokens, log) as (b, killed):
        # every write acknowledged by one replica is read by the other's next read; five users
        # through caches of two sessions: each round evicts and reopens every session
        for round_ in range(3):
            for i, user in enumerate(USERS):
                writer, reader = (a, b) if (i + round_) % 2 == 0 else (b, a)
                key, value = f"note:{round_}", f"{user} says {round_}"
                (done,) = call(writer, user, [("assert_fact", {
                    "key": key, "value": value, "source": f"human:{user}"})])
                assert done.is_error is False, done.content
                acknowledged[user][key] = value
                (seen,) = call(reader, user, [("belief", {"key": key})])
                assert seen.structured_content["value"] == value
        for user in USERS:
            call(a, user, [("assert_fact", {"key": "city", "value": f"{user}-town",
                                            "source": f"human:{user}"})])
            acknowledged[user]["city"] = f"{user}-town"
        for url in (a, b):
            assert {user: held(url, user) for user in USERS} == acknowledged

        # a token for user-0 never reaches user-1's session: every tool, by path and by
        # header, on an MCP session its own token opened; its own session serves each one
        before = stored(ledger, "user-1")
        token = TOKENS["user-0"]
        by_path = raw_calls(a, token, "user-0", "/sessions/user-1/mcp", None)
        by_header = raw_calls(b, token, "user-0", "/mcp", "user-1")
        own = raw_calls(a, token, "user-0", "/sessions/user-0/mcp", None)
        assert (by_path.count(403), by_header.count(403), own.count(200)) == (
            len(TOOLS), len(TOOLS), len(TOOLS))
        assert stored(ledger, "user-1") == before == acknowledged["user-1"]
        with pytest.raises(Exception) as caught:  # noqa: PT011 - the SDK's ExceptionGroup
            asyncio.run(_intrude(a, token, "user-1"))
        assert "Server returned an error response" in repr(caught.value)
        # what user-0's own calls left (each acknowledged) is what the other replica reads
        acknowledged["user-0"] = held(b, "user-0")
        assert acknowledged["user-0"] == held(a, "user-0")

        # killing a replica loses nothing it acknowledged
        for user in USERS:
            (done,) = call(b, user, [("assert_fact", {"key": "last", "value": user,
                                                      "source": f"human:{user}"})])
            assert done.is_error is False
            acknowledged[user]["last"] = user
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        for user in USERS:
            assert held(a, user) == acknowledged[user]
    for user in USERS:
        assert stored(ledger, user) == acknowledged[user]


async def _intrude(url: str, token: str, session: str) -> None:
    """The SDK's client with user-0's token on ``session``'s path."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                  timeout=60) as http:
        async with Client(streamable_http_client(f"{url}/sessions/{session}/mcp",
                                                 http_client=http),
                          read_timeout_seconds=60) as client:
            await client.call_tool("belief", {"key": "city"})

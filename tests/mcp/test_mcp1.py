"""The server on mcp 1.x (``mcp>=1.24,<2``, what langchain-mcp-adapters 0.3.2 and FastMCP 3
clients pin): the same tools, strict types, values as sent, resources with quoted keys and
tool errors as on mcp 2 (corollary/mcp/sdk.py). Runs where mcp 1 is installed (CI's second
environment, .ci/run); the rest of tests/mcp drives mcp 2's client."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

try:
    from corollary.mcp import sdk
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
if sdk.MAJOR != 1:
    pytest.skip("mcp 1.x is not installed here (CI's second environment has it)",
                allow_module_level=True)
from mcp.shared.exceptions import McpError  # noqa: E402
from mcp.shared.memory import (  # noqa: E402
    create_connected_server_and_client_session as connect,
)
from support.cli_support import ROOT  # noqa: E402

from corollary import BeliefBase, ManualClock, open_ledger  # noqa: E402
from corollary.mcp import make_server  # noqa: E402

TOKEN = "t0k3n-for-the-mcp1-tests-Zr4pQ"


def test_every_tool_works_on_mcp1() -> None:
    async def body() -> dict[str, Any]:
        server = make_server(BeliefBase(clock=ManualClock(1000.0), conflict_policy=None))
        async with connect(server._mcp_server) as client:
            done: dict[str, Any] = {"init": None}
            done["listed"] = (await client.list_tools()).tools
            done["assert"] = await client.call_tool("assert_fact", {
                "key": "a/b:c", "value": "[1, 2]", "source": "tool:registry"})
            done["coerced"] = await client.call_tool("record_outcome", {
                "source": "tool:registry", "correct": "no"})
            done["bad"] = await client.call_tool("assert_fact", {
                "key": "hq", "value": "Austin", "source": "nokind"})
            done["claim"] = await client.call_tool("claim", {
                "key": "double", "value": 3, "source": "model:gpt", "inputs": {"x": "n"},
                "formula": "2 * x"})
            done["resource"] = await client.read_resource(f"belief://{quote('a/b:c', safe='')}")
            done["proof"] = await client.read_resource(f"proof://{quote('a/b:c', safe='')}")
            try:
                await client.read_resource("belief://nope")
            except McpError as exc:
                done["missing"] = str(exc)
            return done

    done = asyncio.run(body())
    tools = {t.name: t for t in done["listed"]}
    assert set(tools) >= {"assert_fact", "claim", "retract", "record_outcome", "belief",
                          "recall", "beliefs", "explain", "conflicts", "resolve", "faded"}
    assert tools["belief"].annotations.readOnlyHint is True
    assert tools["retract"].annotations.destructiveHint is True
    assert tools["belief"].outputSchema is not None
    assert done["assert"].isError is False
    assert done["assert"].structuredContent == {  # a JSON text for a value is that text
        "key": "a/b:c", "value": "[1, 2]", "label": "IN", "confidence": 0.95,
        "saved_version": None}
    assert done["coerced"].isError is True  # strict: "no" is no boolean
    assert "correct" in done["coerced"].content[0].text
    assert done["bad"].content[0].text == ("Error executing tool assert_fact: a source must "
                                           "look like 'kind:name', got 'nokind'")
    assert done["claim"].isError is True  # 'n' is not held: the base's own message
    assert "'n'" in done["claim"].content[0].text
    assert json.loads(done["resource"].contents[0].text)["value"] == "[1, 2]"
    assert done["proof"].contents[0].text.startswith("a/b:c = '[1, 2]' [IN")
    assert "no belief about 'nope'" in done["missing"]


def test_http_on_mcp1_is_guarded_and_serves(tmp_path: Path) -> None:
    """``corollary mcp --transport http`` on mcp 1 (whose app takes transport security as a
    server setting): the guard's Host and token checks hold, a name given with
    ``--allowed-host`` passes (the SDK's own loopback-only check is off), and the SDK's
    client writes."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env.update(PYTHONPATH=str(ROOT), COROLLARY_MCP_TOKEN=TOKEN)
    ledger = tmp_path / "ledger.db"
    child = subprocess.Popen([sys.executable, "-m", "corollary", "mcp", "--ledger", str(ledger),
                              "--session", "web", "--transport", "http", "--port", str(port),
                              "--allowed-host", "mcp.example.com"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}

    async def write() -> Any:
        async with streamablehttp_client(url, headers={"Authorization": f"Bearer {TOKEN}"}) \
                as (read, send, _), ClientSession(read, send) as session:
            await session.initialize()
            return await session.call_tool("assert_fact", {"key": "hq", "value": "Austin",
                                                           "source": "tool:registry"})

    try:
        for _ in range(300):
            if child.poll() is not None:
                raise AssertionError(child.stderr.read() if child.stderr else "exited")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        rebound = httpx.post(url, json=init, headers={**headers, "Host": "attacker.example"})
        # the name a reverse proxy serves: on corollary's list, and the SDK's own check (which
        # knows loopback names only) is off
        proxied = httpx.post(url, json=init, headers={**headers, "Host": "mcp.example.com"})
        anonymous = httpx.post(url, json=init, headers={
            k: v for k, v in headers.items() if k != "Authorization"})
        done = asyncio.run(write())
    finally:
        child.terminate()
        child.wait(timeout=30)
    assert (rebound.status_code, proxied.status_code, anonymous.status_code) == (421, 200, 401)
    # a SQLite ledger's session is served as a journal: the change is its entry 1
    assert done.isError is False and done.structuredContent["saved_version"] == 1
    with open_ledger(ledger) as opened:
        kb = BeliefBase.open_session(opened, "web")
        assert [b.key for b in kb.beliefs()] == ["hq"]


def test_a_journaled_session_is_served_on_mcp1_and_subscribers_hear_of_changes(tmp_path: Path
                                                                               ) -> None:
    """mcp 1 has ``resources/subscribe`` (not mcp 2's ``subscriptions/listen``): a client
    subscribed to ``belief://hq`` is sent ``notifications/resources/updated`` for the server's
    own change (a sync tool, which mcp 1 runs on the event loop) and for another writer's (the
    server follows the journal in its lifespan); a change of another key sends nothing; after
    unsubscribing, nothing more."""
    import anyio
    from mcp import types

    path = str(tmp_path / "ledger.db")
    with open_ledger(path) as mine, open_ledger(path) as theirs:
        served = BeliefBase.open_session(mine, "team", clock=ManualClock(10))
        other = BeliefBase.open_session(theirs, "team", clock=ManualClock(20))
        server = make_server(served)

        async def body() -> tuple[list[str], Any, Any, str]:
            heard: list[str] = []
            arrived = anyio.Event()

            async def on_message(message: Any) -> None:
                nonlocal arrived
                if isinstance(message, types.ServerNotification) and isinstance(
                        message.root, types.ResourceUpdatedNotification):
                    heard.append(str(message.root.params.uri))
                    arrived.set()

            async def next_update() -> None:
                nonlocal arrived
                with anyio.fail_after(20):
                    await arrived.wait()
                arrived = anyio.Event()

            async with connect(server._mcp_server, message_handler=on_message) as client:
                await client.subscribe_resource("belief://hq")  # type: ignore[arg-type]
                own = await client.call_tool("assert_fact", {
                    "key": "hq", "value": "Austin", "source": "tool:registry"})
                await next_update()
                await client.call_tool("assert_fact", {"key": "plan", "value": "pro",
                                                       "source": "tool:crm"})
                await anyio.to_thread.run_sync(lambda: other.retract("hq", reason="moved"))
                await next_update()  # another writer's change: no request of this client's
                await client.unsubscribe_resource("belief://hq")  # type: ignore[arg-type]
                later = await client.call_tool("assert_fact", {
                    "key": "hq", "value": "Dallas", "source": "tool:registry"})
                read = await client.read_resource("belief://hq")
            return heard, own, later, json.loads(read.contents[0].text)["value"]

        heard, own, later, value = asyncio.run(body())
    assert heard == ["belief://hq", "belief://hq"]
    assert (own.isError, own.structuredContent["saved_version"]) == (False, 1)
    assert (later.isError, later.structuredContent["saved_version"]) == (False, 4)
    assert value == "Dallas"


def test_many_users_on_mcp1_each_on_the_session_its_token_may_open(tmp_path: Path) -> None:
    """``corollary mcp --tokens-file`` on mcp 1 (whose tools read the request through a
    ``Context`` of its own): each user's write lands in that user's session, and a token on
    another user's path is refused (tests/mcp/test_many_users.py runs the whole of it on mcp 2)."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    tokens = {"user-7": f"{TOKEN}-seven", "user-42": f"{TOKEN}-forty-two"}
    (tmp_path / "tokens.json").write_text(json.dumps({t: [u] for u, t in tokens.items()}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env.update(PYTHONPATH=str(ROOT))
    ledger = tmp_path / "ledger.db"
    child = subprocess.Popen([sys.executable, "-m", "corollary", "mcp", "--ledger", str(ledger),
                              "--transport", "http", "--port", str(port), "--tokens-file",
                              str(tmp_path / "tokens.json"), "--max-sessions", "1"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    async def write(user: str) -> Any:
        url = f"http://127.0.0.1:{port}/sessions/{user}/mcp"
        async with streamablehttp_client(url, headers={"Authorization": f"Bearer {tokens[user]}"}
                                         ) as (read, send, _), ClientSession(read, send) as session:
            await session.initialize()
            return await session.call_tool("assert_fact", {"key": "city", "value": user,
                                                           "source": "human:" + user})

    try:
        for _ in range(300):
            if child.poll() is not None:
                raise AssertionError(child.stderr.read() if child.stderr else "exited")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        done = [asyncio.run(write(user)) for user in ("user-7", "user-42")]
        intruder = httpx.post(f"http://127.0.0.1:{port}/sessions/user-42/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}},
            headers={"Accept": "application/json, text/event-stream",
                     "Content-Type": "application/json",
                     "Authorization": f"Bearer {tokens['user-7']}"})
    finally:
        child.terminate()
        child.wait(timeout=30)
    assert [d.isError for d in done] == [False, False] and intruder.status_code == 403
    with open_ledger(ledger) as opened:
        for user in ("user-7", "user-42"):
            assert BeliefBase.open_session(opened, user).value("city") == user

"""``corollary mcp --transport http`` guarded (issue 20, finding 11): a real server on loopback
addresses, real HTTP requests and the SDK's own client. A token is required off the loopback
names; with one, every request must carry it; Host and Origin must be on the allow-list
whatever the address. Every test counts the beliefs the session holds afterwards."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

try:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
from support.cli_support import ROOT  # noqa: E402

from corollary import BeliefBase, open_ledger  # noqa: E402

TOKEN = "t0k3n-for-the-tests-Xq8vLr2Wz"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _mcp(ledger: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "corollary", "mcp", "--ledger", str(ledger), "--session", "web",
            "--transport", "http", *args]


@contextmanager
def serving(ledger: Path, host: str, *args: str, env: dict[str, str] | None = None
            ) -> Iterator[str]:
    """A real ``corollary mcp`` over HTTP on ``host``; yields its base URL."""
    port = _free_port(host)
    child = subprocess.Popen(_mcp(ledger, "--host", host, "--port", str(port), *args),
                             env=env or _env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex((host, port)) == 0:
                    break
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the HTTP server did not start in 30 s"
            time.sleep(0.1)
        yield f"http://{host}:{port}"
    finally:
        child.terminate()
        child.wait(timeout=30)


def write(url: str, key: str, headers: dict[str, str],
          statuses: list[int] | None = None) -> Any:
    """Assert ``key`` through the SDK's client sending ``headers``; the tool's answer. The
    status of every HTTP response goes to ``statuses``."""
    async def seen(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    async def go() -> Any:
        async with httpx2.AsyncClient(headers=headers, timeout=30,
                                      event_hooks={"response": [seen]}) as http:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http),
                              read_timeout_seconds=30) as client:
                return await client.call_tool("assert_fact", {"key": key, "value": 1,
                                                              "source": "tool:web"})

    return asyncio.run(go())


def refused_write(url: str, key: str, headers: dict[str, str]) -> set[int]:
    """The HTTP statuses the server answered the SDK's client that failed to assert ``key``
    (the client reports them only as "Server returned an error response")."""
    statuses: list[int] = []
    with pytest.raises(Exception) as caught:  # noqa: PT011 - an ExceptionGroup of the SDK's
        write(url, key, headers, statuses)
    assert "Server returned an error response" in repr(caught.value)
    return set(statuses)


def raw(url: str, headers: dict[str, str]) -> httpx2.Response:
    """One ``initialize`` POST, as any HTTP client (or a browser) sends it."""
    return httpx2.post(f"{url}/mcp", json=INIT, headers={**MCP_HEADERS, **headers}, timeout=30)


def stored_keys(ledger: Path) -> list[str]:
    with open_ledger(ledger) as opened:
        return sorted(BeliefBase.open_session(opened, "web").keys())  # corollary mcp journals


def test_a_token_is_required_on_every_request(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    right = {"Authorization": f"Bearer {TOKEN}"}
    with serving(ledger, "127.0.0.1", "--token-file", str(token_file)) as url:
        none = raw(url, {})
        wrong = raw(url, {"Authorization": f"Bearer {TOKEN[:-1]}x"})
        basic = raw(url, {"Authorization": f"Basic {TOKEN}"})
        for refused in (none, wrong, basic):
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"] == "Bearer"
        assert raw(url, right).status_code == 200
        for headers in ({}, {"Authorization": "Bearer nope"}):
            assert refused_write(url, "lost", headers) == {401}
        # the session's first journal entry
        assert write(url, "kept", right).structured_content["saved_version"] == 1
        assert write(url, "kept2", {"authorization": f"bearer {TOKEN}"}).is_error is False
    assert stored_keys(ledger) == ["kept", "kept2"]


def test_hostile_host_and_origin_are_refused_on_any_address(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    right = {"Authorization": f"Bearer {TOKEN}"}
    # 127.0.0.2 is not one of the loopback names: the SDK left its own check off here
    with serving(ledger, "127.0.0.2", "--allowed-host", "mcp.example.com",
                 env=_env(COROLLARY_MCP_TOKEN=TOKEN)) as url:
        host = raw(url, {**right, "Host": "attacker.example"})
        origin = raw(url, {**right, "Origin": "http://attacker.example"})
        null_origin = raw(url, {**right, "Origin": "null"})
        assert (host.status_code, origin.status_code, null_origin.status_code) == (421, 403, 403)
        assert refused_write(url, "rebound", {**right, "Host": "attacker.example"}) == {421}
        assert refused_write(url, "cross-site", {**right, "Origin": "http://attacker.example"}
                             ) == {403}
        # the bound address, the loopback names and --allowed-host are on the list
        assert write(url, "direct", right).is_error is False
        assert write(url, "proxied", {**right, "Host": "mcp.example.com",
                                      "Origin": "https://mcp.example.com"}).is_error is False
        assert raw(url, {**right, "Host": "LOCALHOST:8000",
                         "Origin": "http://localhost:3000"}).status_code == 200
    assert stored_keys(ledger) == ["direct", "proxied"]


def test_hostile_host_is_refused_on_the_default_address_too(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    with serving(ledger, "127.0.0.1") as url:  # no token: loopback only
        assert raw(url, {"Host": "attacker.example"}).status_code == 421
        assert raw(url, {"Origin": "http://attacker.example:80"}).status_code == 403
        assert write(url, "mine", {}).is_error is False
    assert stored_keys(ledger) == ["mine"]


@pytest.mark.parametrize(("args", "env", "message"), [
    (["--host", "0.0.0.0"], {}, "--host 0.0.0.0 is reachable from other machines: give a token "
     "(--token-file FILE or $COROLLARY_MCP_TOKEN), or serve on 127.0.0.1"),
    (["--host", "127.0.0.2"], {"COROLLARY_MCP_TOKEN": ""}, "--host 127.0.0.2 is reachable"),
    (["--host", "127.0.0.2"], {"COROLLARY_MCP_TOKEN": "short"},
     "$COROLLARY_MCP_TOKEN: a token must be at least 16 printable characters without spaces"),
    (["--token-file", "{tmp}/missing"], {}, "no such file: {tmp}/missing"),
    (["--allowed-host", "http://x/"], {}, "--allowed-host takes a host name, got 'http://x/'"),
])
def test_an_exposed_server_refuses_to_start(tmp_path: Path, args: list[str],
                                            env: dict[str, str], message: str) -> None:
    ledger = tmp_path / "ledger.db"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run(_mcp(ledger, *argv, "--port", "9"), env=_env(**env),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("corollary: "), done.stderr
    assert message.replace("{tmp}", str(tmp_path)) in lines[0]
    assert not ledger.exists()  # refused before anything was made


def test_token_flags_are_for_http_only(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "corollary", "mcp", "--ledger",
                           str(tmp_path / "l.db"), "--allowed-host", "example.com"],
                          env=_env(), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (
        1, "corollary: --token-file and --allowed-host are for --transport http\n")


def test_a_busy_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(_mcp(tmp_path / "l.db", "--port", str(port)), env=_env(),
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"corollary: cannot listen on 127.0.0.1:{port}: ")
    assert done.stderr.count("\n") == 1


def test_clients_that_never_read_do_not_stall_another(tmp_path: Path) -> None:
    """Held (issue 28): eight clients that send a request and never read the answer (their
    sockets' buffers fill, then they hang) do not stall a ninth client's call."""
    ledger = tmp_path / "ledger.db"
    with serving(ledger, "127.0.0.1") as url:
        port = int(url.rsplit(":", 1)[1])
        body = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
                '"2025-06-18","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}')
        request = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   "Accept: application/json, text/event-stream\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                   f"{body}").encode()
        slow = []
        try:
            for _ in range(8):
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
                s.sendall(request)  # and never read
                slow.append(s)
            done = write(url, "k", {})  # a stall would end in the client's 30 s read timeout
            assert not done.is_error
        finally:
            for s in slow:
                s.close()
    assert stored_keys(ledger) == ["k"]

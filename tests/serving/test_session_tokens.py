"""Which sessions a token may open (docs/many-users.md): the tokens file, and the guard in front
of a server of many users, driven over real HTTP requests to an ASGI app that answers the
session it was handed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.cli_support import ROOT

from corollary import InvalidInputError, InvalidTypeError
from corollary.serving.http import allowed_names
from corollary.serving.session_tokens import SESSION_KEY, SessionTokens, sessions_guard

SEVEN = "token-of-user-7-0123456789"
STAFF = "token-of-the-staff-0123456789"
TOKENS = SessionTokens.of({SEVEN: ["user-7"], STAFF: ["user-7", "team-*"]})


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    body = json.dumps({"session": scope[SESSION_KEY], "path": scope["path"]}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


def request(path: str, headers: dict[str, str]) -> tuple[int, str]:
    """One GET through the guard, as an ASGI server hands it over."""
    app = sessions_guard(_echo, tokens=TOKENS, allowed=allowed_names("127.0.0.1"))
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "path": path, "raw_path": path.encode(), "method": "GET",
             "headers": [(k.lower().encode(), v.encode())
                         for k, v in {"host": "127.0.0.1:8000", **headers}.items()]}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], sent[1]["body"].decode()


def bearer(token: str, **more: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", **more}


def test_a_token_opens_its_own_sessions_only() -> None:
    assert request("/sessions/user-7/mcp", bearer(SEVEN)) == (
        200, '{"session": "user-7", "path": "/mcp"}')
    assert request("/mcp", bearer(SEVEN))[0] == 200  # its one session, unnamed
    assert request("/mcp", bearer(SEVEN, **{"corollary-session": "user-7"}))[0] == 200
    assert request("/sessions/team-blue/mcp", bearer(STAFF))[1] == (
        '{"session": "team-blue", "path": "/mcp"}')
    statuses = [request("/sessions/user-42/mcp", bearer(SEVEN))[0],
                request("/mcp", bearer(SEVEN, **{"corollary-session": "user-42"}))[0],
                request("/sessions/user-42/mcp", bearer(STAFF))[0],
                request("/mcp", bearer(STAFF))[0],  # two sessions: it must name one
                request("/sessions/user-7/mcp", {})[0],
                request("/sessions/user-7/mcp", bearer(SEVEN + "x"))[0],
                request("/sessions/user-7/mcp", bearer(SEVEN, host="attacker.example"))[0]]
    assert statuses == [403, 403, 403, 400, 401, 401, 421]


@pytest.mark.parametrize(("mapping", "error"), [
    ({"short": ["user-7"]}, InvalidInputError),
    ({SEVEN: [""]}, InvalidInputError),
    ({SEVEN: ["*"]}, InvalidInputError),
    ({SEVEN: [7]}, InvalidInputError),
    ([SEVEN], InvalidTypeError),
])
def test_a_bad_mapping_is_refused(mapping: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        SessionTokens.of(mapping)


def test_the_tokens_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({SEVEN: "user-7"}))
    assert SessionTokens.read(path).session_for(SEVEN, None) == "user-7"
    path.write_text("{not json")
    with pytest.raises(InvalidInputError, match="tokens file"):
        SessionTokens.read(path)


def test_the_command_checks_its_options(tmp_path: Path) -> None:
    # the SDK itself (tests/mcp is a package named mcp too, on the tests' path)
    pytest.importorskip("mcp.types", reason="corollary mcp needs the optional extra corollary[mcp]")
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({SEVEN: "user-7"}))
    done = subprocess.run([sys.executable, "-m", "corollary", "mcp", "--ledger",
                           str(tmp_path / "l.db"), "--tokens-file", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode != 0 and "--tokens-file serves many users over --transport http" \
        in done.stderr
    assert not (tmp_path / "l.db").exists()  # refused before anything was created

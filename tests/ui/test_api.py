"""``corollary ui``'s JSON API and its guard, over a real server in a child process: what each
endpoint answers about the test base (tests/support/ui_base.py), paging and filters, errors,
the event stream, and the token and Host/Origin checks shared with ``corollary mcp``."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from support.ui_base import OUTCOMES

from ui.conftest import env, needs_ui_extra, serving

TOKEN = "ui-t0k3n-for-the-tests-Wq8rZ"


def get(url: str, path: str, headers: dict[str, str] | None = None
        ) -> tuple[int, dict[str, str], bytes]:
    where = urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def api(url: str, path: str, status: int = 200) -> Any:
    code, _, body = get(url, path)
    assert code == status, body
    return json.loads(body)


def test_the_beliefs_table_pages_sorts_and_filters(server: str) -> None:
    first = api(server, "/api/beliefs?limit=4")
    assert first["count"] == 11 and first["total"] == 11
    assert [r["key"] for r in first["rows"]] == ["answer", "ceo", "ceo", "forecast:Q4"]
    rest = api(server, "/api/beliefs?limit=4&offset=8")
    assert [r["key"] for r in rest["rows"]] == ["revenue:Q2", "revenue:Q3", "trend"]
    best = api(server, "/api/beliefs?sort=confidence&order=desc&limit=1")["rows"][0]
    assert (best["key"], best["label"], round(best["confidence"], 4)) == ("hq", "IN", 0.9959)
    out = api(server, "/api/beliefs?label=OUT")
    assert sorted(r["key"] for r in out["rows"]) == ["forecast:Q4", "revenue:Q1"]
    assert all(r["confidence"] == 0.0 for r in out["rows"])
    tools = api(server, "/api/beliefs?kind=tool")
    assert {r["source"] for r in tools["rows"]} == {"tool:filings", "tool:quote",
                                                     "tool:registry"}
    assert "model:analyst" in tools["sources"] and "formula" in tools["kinds"]
    strong = api(server, "/api/beliefs?min_confidence=0.95")
    assert {r["key"] for r in strong["rows"]} == {"growth", "hq", "revenue:Q2", "revenue:Q3"}
    found = api(server, "/api/beliefs?q=" + quote("growth"))
    assert [r["key"] for r in found["rows"]] == ["growth"]
    assert found["rows"][0]["why"] == ["growth"]


def test_a_belief_answers_its_proof_graph_and_checks(server: str) -> None:
    growth = api(server, "/api/belief?key=growth")
    assert growth["text"].splitlines()[0].startswith("growth = 0.1 [IN 0.99]")
    assert growth["proof"]["reasons"][0]["kind"] == "formula"
    assert growth["sources"] == ["model:analyst", "tool:filings"]
    assert growth["history"] is None  # no journal in this base
    nodes = {n["id"]: n for n in growth["graph"]["nodes"]}
    root = [n for n in nodes.values() if n.get("root")]
    assert [n["key"] for n in root] == ["growth"]
    above = {n["key"] for n in nodes.values() if n["kind"] == "belief" and n["level"] > 0}
    below = {n["key"] for n in nodes.values() if n["kind"] == "belief" and n["level"] < 0}
    assert above == {"trend", "answer"} and below == {"revenue:Q2", "revenue:Q3"}
    price = api(server, "/api/belief?key=" + quote("price:ACME"))
    assert [(c["source"], c["gain"] > 0.5) for c in price["what_to_check"]] == [
        ("tool:quote", True)]
    gone = api(server, "/api/belief?key=" + quote("revenue:Q1"))
    assert gone["values"][0]["label"] == "OUT" and "superseded" in gone["values"][0]["why"]
    assert "no belief about 'nope'" in api(server, "/api/belief?key=nope", 404)["error"]
    assert "sort must be one of" in api(server, "/api/beliefs?sort=colour", 400)["error"]


def test_sources_problems_and_promises(server: str) -> None:
    sources = {s["source"]: s for s in api(server, "/api/sources")["sources"]}
    analyst = sources["model:analyst"]
    assert (analyst["right"], analyst["wrong"], analyst["tier"]) == (
        OUTCOMES.count(True), OUTCOMES.count(False), "measured")
    assert sources["tool:filings"]["reliability"] == pytest.approx(0.99)
    assert sources["tool:filings"]["prior"] == pytest.approx(0.99)  # the base's policy
    one = api(server, "/api/source?name=" + quote("model:analyst"))
    assert len(one["series"]) == len(OUTCOMES)
    assert one["series"][-1]["reliability"] == pytest.approx(analyst["reliability"])
    assert [p["correct"] for p in one["series"]] == OUTCOMES
    problems = api(server, "/api/problems")
    assert [c["key"] for c in problems["conflicts"]] == ["ceo"]
    assert [f["key"] for f in problems["faded"]] == ["price:ACME"]
    assert [e["key"] for e in problems["expired"]] == ["forecast:Q4"]
    promises = api(server, "/api/promises")["promises"]
    assert [p["name"] for p in promises] == ["default"]
    verdicts = {a["key"]: a["status"] for a in promises[0]["answers"]}
    assert verdicts == {"growth": "ok", "price:ACME": "abstain"}
    assert promises[0]["groups"][0]["statement"]


def test_the_event_stream_says_whether_it_is_live(server: str) -> None:
    where = urlsplit(server)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        conn.request("GET", "/api/events")
        res = conn.getresponse()
        assert res.status == 200 and res.getheader("content-type", "").startswith(
            "text/event-stream")
        first = b""
        while b"\n\n" not in first:
            first += res.read1(256)
    finally:
        conn.close()
    assert b"event: hello" in first
    # the base served is a whole-snapshot session: no journal to follow, so not live, and no
    # reason it stopped (it never followed)
    assert json.loads(first.split(b"data: ")[1].split(b"\n")[0]) == {
        "live": False, "not_live": None}


def test_hostile_host_and_origin_are_refused(server: str) -> None:
    port = urlsplit(server).port
    assert get(server, "/api/summary", {"Host": "attacker.example"})[0] == 421
    assert get(server, "/api/summary", {"Origin": "http://attacker.example"})[0] == 403
    assert get(server, "/api/summary", {"Origin": f"http://localhost:{port}"})[0] == 200


def test_a_token_guards_every_request(ledger: Path, tmp_path: Path) -> None:
    needs_ui_extra()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with serving("--ledger", str(ledger), "--session", "demo", "--token-file",
                 str(token_file)) as url:
        assert get(url, "/api/summary")[0] == 401
        assert get(url, "/static/app.js")[0] == 401
        assert get(url, "/api/summary", {"Authorization": "Bearer wrong-token-xxxxxxxx"})[0] \
            == 401
        assert get(url, "/api/summary", {"Authorization": f"Bearer {TOKEN}"})[0] == 200
        # issue 28 item 7: never a token in a URL (browser history, proxy logs): `/?token=`
        # logs no one in; a browser without the cookie goes to the login form
        status, headers, _ = get(url, f"/?token={TOKEN}")
        assert status == 303 and headers["location"] == "/login"
        assert "set-cookie" not in headers
        status, _, form = get(url, "/login")
        assert status == 200 and b'method="post"' in form and b'type="password"' in form
        assert get(url, "/static/login.js")[0] == 200
        status, headers, _ = post(url, "/login", f"token={quote(TOKEN)}")
        assert status == 303 and headers["location"] == "/"
        cookie = headers["set-cookie"].split(";")[0]
        assert "httponly" in headers["set-cookie"].lower()
        assert get(url, "/api/summary", {"Cookie": cookie})[0] == 200
        assert post(url, "/login", "token=not-the-token-at-all")[0] == 401
        # a login posted from another site is refused before it is read
        assert post(url, "/login", f"token={quote(TOKEN)}",
                    {"Origin": "http://attacker.example"})[0] == 403


def post(url: str, path: str, body: str, headers: dict[str, str] | None = None
         ) -> tuple[int, dict[str, str], bytes]:
    where = urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        conn.request("POST", path, body=body.encode(), headers={
            "content-type": "application/x-www-form-urlencoded", **(headers or {})})
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def test_the_inspector_never_takes_the_mcp_write_token(ledger: Path) -> None:
    """issue 28 item 7: `corollary ui` took $COROLLARY_MCP_TOKEN, so whoever was given the
    read-only inspector held the MCP write token. It takes $COROLLARY_UI_TOKEN only."""
    needs_ui_extra()
    mcp_token = "mcp-write-token-not-for-the-inspector"
    with serving("--ledger", str(ledger), "--session", "demo",
                 env_extra={"COROLLARY_MCP_TOKEN": mcp_token}) as url:
        assert get(url, "/api/summary", {"Authorization": f"Bearer {mcp_token}"})[0] == 200
        assert get(url, "/api/summary")[0] == 200  # no token: the MCP one is not its own
    with serving("--ledger", str(ledger), "--session", "demo",
                 env_extra={"COROLLARY_MCP_TOKEN": mcp_token,
                            "COROLLARY_UI_TOKEN": TOKEN}) as url:
        assert get(url, "/api/summary")[0] == 401
        assert get(url, "/api/summary", {"Authorization": f"Bearer {mcp_token}"})[0] == 401
        assert get(url, "/api/summary", {"Authorization": f"Bearer {TOKEN}"})[0] == 200


def test_a_busy_port_is_one_line_before_anything_is_printed(ledger: Path) -> None:
    """issue 28 item 8: `corollary ui` printed another server's address, then uvicorn's
    [Errno 98] and `stopped: SystemExit(3)`."""
    needs_ui_extra()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "corollary", "ui", "--ledger", str(ledger),
                               "--session", "demo", "--port", str(port)], env=env(),
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"corollary: cannot listen on 127.0.0.1:{port}: Address already in "
                           "use\n")


def test_an_exposed_server_without_a_token_refuses_to_start(ledger: Path) -> None:
    needs_ui_extra()
    host = "0.0.0.0"  # any address but a loopback name (tests/mcp/test_http.py: the rule)
    done = subprocess.run([sys.executable, "-m", "corollary", "ui", "--ledger", str(ledger),
                           "--session", "demo", "--host", host, "--port", "9"], env=env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"--host {host} is reachable from other machines: give a token" in done.stderr



def test_as_of_serves_a_journaled_session_as_it_stood(tmp_path: Path) -> None:
    needs_ui_extra()
    from corollary import BeliefBase, ManualClock, open_ledger

    db = tmp_path / "ledger.db"
    clock = ManualClock(1_000.0)
    with open_ledger(str(db)) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=clock)
        for plan in ("free", "pro", "team"):  # at 1000, 1100, 1200
            kb.assert_("plan", plan, source="tool:crm")
            clock.advance(100)
    with serving("--ledger", str(db), "--session", "s", "--as-of", "1150") as url:
        then = api(url, "/api/belief?key=plan")
        assert then["text"].splitlines()[0].startswith("plan = 'pro'")
    with serving("--ledger", str(db), "--session", "s") as url:
        now = api(url, "/api/belief?key=plan")
        assert now["text"].splitlines()[0].startswith("plan = 'team'")


@pytest.mark.parametrize("path", [
    "/static/../views.py", "/static/%2e%2e/views.py", "/static/..%2fviews.py",
    "/static/%2e%2e%2f%2e%2e%2fpyproject.toml", "/static//etc/passwd", "/static/./../app.py",
])
def test_paths_out_of_the_static_folder_are_not_served(server: str, path: str) -> None:
    # held (issue 28): traversal requests answered as they should
    status, _, body = get(server, path)
    assert status == 404 and b"import" not in body and b"root:" not in body


@pytest.mark.parametrize("query", [
    "/api/beliefs?limit=abc", "/api/beliefs?limit=0", "/api/beliefs?limit=501",
    "/api/beliefs?offset=-1", "/api/beliefs?min_confidence=nan", "/api/beliefs?sort=evil",
    "/api/problems?threshold=inf", "/api/belief", "/api/source", "/api/source?name=nokind",
    "/api/sources?limit=100000", "/api/history?limit=0", "/api/history?before=x",
])
def test_bad_parameters_are_a_clear_400_or_404(server: str, query: str) -> None:
    # held (issue 28): bad parameters answered with a typed error, the server still up
    status, headers, body = get(server, query)
    assert status in (400, 404) and headers["content-type"] == "application/json"
    assert json.loads(body)["error"]
    assert get(server, "/api/summary")[0] == 200

"""Several ``corollary mcp`` servers on one journaled session, through the real MCP client.

Each server is a real child process (stdio, or streamable HTTP) on one SQLite ledger (and on
PostgreSQL when ``COROLLARY_TEST_PG_URL`` names a server). What must hold (issue 19, and issue
20's finding 4): servers converge instead of refusing (a change made through one is read
through the other); every acknowledged ``record_outcome`` is in the ledger exactly once; a
change the base refuses (here a claim whose computed value makes a rule raise, after the claim
recorded an outcome against the model) leaves nothing, neither in memory nor in the ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from mcp import Client, StdioServerParameters
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
from support.cli_support import ROOT  # noqa: E402

from corollary import BeliefBase, ManualClock, open_ledger  # noqa: E402

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")

#: A rule the session carries: it raises when its input is 0 (a refused change).
RULES = '''
from corollary import rule


@rule(output="inverse", inputs={"x": "ratio"}, name="tests.mcp.inverse")
def inverse(x):
    return 1 / x
'''


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = os.pathsep.join([str(home), str(ROOT)])
    return env


def _stdio(ledger: str, home: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "corollary", "mcp", "--ledger", ledger, "--session", "team", "--import",
              "journal_rules"], cwd=str(home), env=_env(home))


@contextlib.contextmanager
def _http(ledger: str, home: Path) -> Iterator[str]:
    """A ``corollary mcp --transport http`` child; yields its URL."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    child = subprocess.Popen(
        [sys.executable, "-m", "corollary", "mcp", "--ledger", ledger, "--session", "team",
         "--import", "journal_rules", "--transport", "http", "--port", str(port)],
        cwd=str(home), env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        child.terminate()
        child.wait(timeout=30)


@contextlib.asynccontextmanager
async def _clients(*servers: Any) -> AsyncIterator[list[Client]]:
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(Client(s, read_timeout_seconds=60))
               for s in servers]


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A directory holding the session's rule module, importable here and in the servers."""
    (tmp_path / "journal_rules.py").write_text(RULES)
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("journal_rules", None)


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request: pytest.FixtureRequest, home: Path) -> Iterator[str]:
    """The shared ledger, its journaled session 'team' made in Python with the rule attached."""
    if request.param == "sqlite":
        target = str(home / "ledger.db")
    else:
        if not PG_URL:
            pytest.skip("COROLLARY_TEST_PG_URL is not set")
        import psycopg

        name = f"pjmcp_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        from urllib.parse import urlsplit, urlunsplit

        target = urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    import journal_rules

    with open_ledger(target) as opened:
        BeliefBase.open_session(opened, "team", clock=ManualClock(0),
                                rules=[journal_rules.inverse])
    yield target
    if request.param == "postgres":
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _outcomes(target: str, source: str) -> list[tuple[bool, str | None]]:
    with open_ledger(target) as opened:
        return [(o.correct, o.reason) for o in opened.outcomes(source)]


def _error(result: Any) -> str:
    assert result.is_error is True, result.structured_content
    return str(result.content[0].text)


def test_two_stdio_servers_converge_and_count_every_outcome_once(ledger: str,
                                                                 home: Path) -> None:
    async def body() -> Any:
        async with _clients(_stdio(ledger, home), _stdio(ledger, home)) as (a, b):
            made = await a.call_tool("assert_fact", {"key": "hq", "value": "Austin",
                                                     "source": "tool:registry"})
            seen = await b.call_tool("belief", {"key": "hq"})  # the other server's change
            moved = await b.call_tool("assert_fact", {"key": "hq", "value": "Boston",
                                                      "source": "tool:registry"})
            back = await a.call_tool("belief", {"key": "hq"})  # and back
            # both servers record outcomes at once: none refused, each stored once
            recorded = await asyncio.gather(*[
                client.call_tool("record_outcome", {"source": "tool:registry",
                                                    "correct": i % 3 != 0,
                                                    "reason": f"{name}-{i}"})
                for i in range(12) for name, client in (("a", a), ("b", b))])
            final = [await c.call_tool("belief", {"key": "hq"}) for c in (a, b)]
            return made, seen, moved, back, recorded, final

    made, seen, moved, back, recorded, final = asyncio.run(body())
    assert made.structured_content["saved_version"] == 1
    assert seen.structured_content["value"] == "Austin"
    assert moved.structured_content["saved_version"] == 2  # appended after a's, not refused
    assert back.structured_content["value"] == "Boston"
    assert [r.is_error for r in recorded] == [False] * 24
    versions = sorted(r.structured_content["saved_version"] for r in recorded)
    assert versions == list(range(3, 27))  # one journal entry each, one order
    stored = _outcomes(ledger, "tool:registry")
    assert sorted(reason or "" for _, reason in stored) == sorted(
        f"{n}-{i}" for i in range(12) for n in ("a", "b"))  # every one exactly once
    assert final[0].structured_content == final[1].structured_content


def test_a_refused_change_leaves_no_outcome_and_no_belief(ledger: str, home: Path) -> None:
    async def body() -> Any:
        with _http(ledger, home) as url:
            async with _clients(_stdio(ledger, home), url) as (a, b):
                for key in ("p", "q"):
                    await a.call_tool("assert_fact", {"key": key, "value": 1.0,
                                                      "source": "tool:meter"})
                # stated 0.5, the formula computes 0: refuted (an outcome against the model),
                # then the rule divides by 0: the claim is refused, outcome and all
                refused = await b.call_tool("claim", {
                    "key": "ratio", "value": 0.5, "source": "model:m",
                    "inputs": {"p": "p", "q": "q"}, "formula": "p - q"})
                after = [await c.call_tool("belief", {"key": "ratio"}) for c in (a, b)]
                kept = await a.call_tool("claim", {
                    "key": "ratio", "value": 0.5, "source": "model:m",
                    "inputs": {"p": "p", "q": "q"}, "formula": "p + q"})
                inverse = await b.call_tool("belief", {"key": "inverse"})
                return refused, after, kept, inverse

    refused, after, kept, inverse = asyncio.run(body())
    assert "tests.mcp.inverse" in _error(refused)
    for result in after:  # neither server holds it: not in memory, not in the journal
        assert "no belief about 'ratio'" in _error(result)
    assert kept.structured_content["value"] == 2.0
    assert kept.structured_content["refuted"]["computed"] == 2.0
    assert inverse.structured_content["value"] == 0.5
    assert [correct for correct, _ in _outcomes(ledger, "model:m")] == [False]  # the kept one
    with open_ledger(ledger) as opened:
        import journal_rules

        fresh = BeliefBase.open_session(opened, "team", rules=[journal_rules.inverse])
        assert [h.operation for h in fresh.history()] == ["assert_", "assert_", "claim"]


def _refuse_appends(target: str, on: bool) -> None:
    """Make the ledger's own database refuse (or take again) every journal append: a trigger
    on the journal table, as a full disk or a constraint would, after the outcomes of the
    change were written in the same transaction."""
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            if on:
                conn.execute("CREATE OR REPLACE FUNCTION corollary.refuse() RETURNS trigger "
                             "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected: no "
                             "room'; END $$")
                conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON "
                             "corollary.corollary_journal FOR EACH ROW EXECUTE FUNCTION "
                             "corollary.refuse()")
            else:
                conn.execute("DROP TRIGGER refuse ON corollary.corollary_journal")
        return
    import sqlite3

    conn = sqlite3.connect(target, timeout=30)
    with conn:
        if on:
            conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON corollary_journal BEGIN "
                         "SELECT RAISE(ABORT, 'injected: no room'); END")
        else:
            conn.execute("DROP TRIGGER refuse")
    conn.close()


def test_a_change_whose_append_fails_leaves_nothing_in_memory_or_ledger(
        ledger: str, home: Path) -> None:
    async def body() -> Any:
        async with _clients(_stdio(ledger, home), _stdio(ledger, home)) as (a, b):
            await a.call_tool("assert_fact", {"key": "plan", "value": "pro",
                                              "source": "tool:crm"})
            _refuse_appends(ledger, True)
            failed = [
                await a.call_tool("record_outcome", {"source": "tool:crm", "correct": False,
                                                     "reason": "lost"}),
                await b.call_tool("retract", {"key": "plan", "fault": "source",
                                              "reason": "lost"}),
            ]
            held = [await c.call_tool("belief", {"key": "plan"}) for c in (a, b)]
            _refuse_appends(ledger, False)
            kept = await b.call_tool("record_outcome", {"source": "tool:crm", "correct": True,
                                                        "reason": "kept"})
            again = await a.call_tool("record_outcome", {"source": "tool:crm",
                                                         "correct": True, "reason": "kept 2"})
            return failed, held, kept, again

    failed, held, kept, again = asyncio.run(body())
    for result in failed:
        assert "injected: no room" in _error(result)
    for result in held:  # the retraction is undone in both servers' memory
        assert result.structured_content["label"] == "IN"
    assert _outcomes(ledger, "tool:crm") == [(True, "kept"), (True, "kept 2")]
    # both servers reckon the source from the stored outcomes only: two right, none wrong
    with open_ledger(":memory:") as fresh:
        fresh.record_outcome("tool:crm", True)
        one = fresh.reliability("tool:crm")
        fresh.record_outcome("tool:crm", True)
        two = fresh.reliability("tool:crm")
    assert kept.structured_content["reliability"] == pytest.approx(one)
    assert again.structured_content["reliability"] == pytest.approx(two)
    assert kept.structured_content["saved_version"] == 2
    assert again.structured_content["saved_version"] == 3


def test_a_client_listening_to_a_belief_hears_of_changes_by_any_writer(tmp_path: Path) -> None:
    """``subscriptions/listen`` on ``belief://hq``: the server's own change and another
    writer's (a base in this process, on the same session) each send ``ResourceUpdated``;
    a change of another key sends nothing."""
    from mcp.shared.subscriptions import ResourceUpdated

    from corollary.mcp import make_server

    path = str(tmp_path / "ledger.db")
    with open_ledger(path) as mine, open_ledger(path) as theirs:
        served = BeliefBase.open_session(mine, "team", clock=ManualClock(10))
        other = BeliefBase.open_session(theirs, "team", clock=ManualClock(20))
        server = make_server(served)

        async def body() -> list[Any]:
            heard: list[Any] = []
            async with Client(server, read_timeout_seconds=30) as client:
                async with client.listen(resource_subscriptions=["belief://hq"]) as sub:
                    async def next_event() -> Any:
                        with anyio.fail_after(20):
                            return await sub.__anext__()

                    await client.call_tool("assert_fact", {"key": "hq", "value": "Austin",
                                                           "source": "tool:registry"})
                    heard.append(await next_event())
                    await client.call_tool("assert_fact", {"key": "plan", "value": "pro",
                                                           "source": "tool:crm"})
                    await anyio.to_thread.run_sync(
                        lambda: other.retract("hq", reason="moved"))  # another writer
                    heard.append(await next_event())  # no request of this client's needed
                    read = await client.read_resource("belief://hq")
                    heard.append(json.loads(read.contents[0].text)["label"])
            return heard

        import anyio

        heard = asyncio.run(body())
    assert heard[:2] == [ResourceUpdated(uri="belief://hq")] * 2
    assert heard[2] == "OUT"


def test_recall_through_one_server_never_returns_what_another_replaced_or_retracted(
        ledger: str, home: Path) -> None:
    """Held (issue 28): a value replaced (retracted, then another asserted) or retracted
    through one server is never recalled through the other, whose recall index was built
    before the change."""
    async def body() -> list[Any]:
        async with _clients(_stdio(ledger, home), _stdio(ledger, home)) as (a, b):
            await a.call_tool("assert_fact", {"key": "customer:7:email", "value": "old@x.org",
                                              "source": "tool:crm"})
            await a.call_tool("assert_fact", {"key": "customer:7:phone", "value": "555-0100",
                                              "source": "tool:crm"})
            first = await b.call_tool("recall", {"query": "customer 7 email phone"})
            await a.call_tool("retract", {"key": "customer:7:email", "reason": "moved"})
            await a.call_tool("assert_fact", {"key": "customer:7:email", "value": "new@x.org",
                                              "source": "tool:crm"})
            await a.call_tool("retract", {"key": "customer:7:phone", "reason": "gone"})
            second = await b.call_tool("recall", {"query": "customer 7 email phone"})
            return [first, second]

    first, second = asyncio.run(body())

    def found(result: Any) -> dict[str, Any]:
        assert not result.is_error
        return {r["key"]: r["value"] for r in result.structured_content["beliefs"]}

    assert found(first) == {"customer:7:email": "old@x.org", "customer:7:phone": "555-0100"}
    assert found(second) == {"customer:7:email": "new@x.org"}

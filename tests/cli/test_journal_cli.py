"""The CLI over journaled sessions: ``corollary history``, ``--as-of``, ``corollary convert``,
``corollary sessions`` listing journals, and a live ``corollary mcp`` server's session read as
its journal stands now (not at its last snapshot). Real child processes, a real SQLite ledger."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli_support import ROOT

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "corollary", *args], capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def ok_json(*args: str) -> Any:
    done = cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def ledger(tmp_path: Path) -> str:
    """A SQLite ledger with the journaled session 'team': hq Austin (t=100), Boston (t=200),
    retracted (t=300); 'plan' basic (t=150)."""
    path = str(tmp_path / "ledger.db")
    clock = ManualClock(100)
    with open_ledger(path) as opened:
        kb = BeliefBase.open_session(opened, "team", clock=clock)
        kb.assert_("hq", "Austin", source="tool:registry")
        clock.set(150)
        kb.assert_("plan", "basic", source="human:sales")
        clock.set(200)
        kb.assert_("hq", "Boston", source="tool:registry")
        clock.set(300)
        kb.retract("hq", reason="moved out")
    return path


def test_history_lists_changes_by_key_and_since(ledger: str) -> None:
    every = ok_json("history", "--ledger", ledger, "--session", "team")["changes"]
    assert [(c["seq"], c["time"], c["operation"], c["key"]) for c in every] == [
        (1, 100.0, "assert_", "hq"), (2, 150.0, "assert_", "plan"),
        (3, 200.0, "assert_", "hq"), (4, 300.0, "retract", "hq")]
    hq = ok_json("history", "hq", "--ledger", ledger, "--session", "team",
                 "--since", "150")["changes"]
    assert [(c["seq"], c["value"], c["label"]) for c in hq] == [(3, "Boston", "IN"),
                                                                 (4, "Boston", "OUT")]
    assert hq[1]["reason"] == "moved out"
    table = cli("history", "--ledger", ledger, "--session", "team").stdout.splitlines()
    assert table[0].split() == ["SEQ", "TIME", "OPERATION", "KEY", "VALUE", "SOURCE", "LABEL",
                                "CONFIDENCE", "REASON"]
    assert len(table) == 5 and "moved out" in table[-1]  # a header, four changes
    missing = cli("history", "--ledger", ledger, "--session", "nope")
    assert missing.returncode == 1 and "no journaled session 'nope'" in missing.stderr


def test_as_of_reads_the_session_as_it_stood(ledger: str) -> None:
    def held(*extra: str) -> dict[str, Any]:
        found = ok_json("beliefs", "--ledger", ledger, "--session", "team", *extra)
        return {b["key"]: b["value"] for b in found["beliefs"]}

    assert held("--as-of", "120") == {"hq": "Austin"}
    assert held("--as-of", "250") == {"hq": "Boston", "plan": "basic"}
    assert held() == {"plan": "basic"}  # now: hq retracted
    proof = ok_json("explain", "hq", "--ledger", ledger, "--session", "team", "--as-of", "120")
    assert proof["base"]["as_of"] == 120.0 and proof["base"]["journal_seq"] == 1
    assert proof["text"].startswith("hq = 'Austin' [IN 0.95]")
    snapshot = cli("beliefs", "--ledger", ledger, "--session", "team", "--as-of", "1", "x.kb")
    assert snapshot.returncode == 2  # a snapshot path and --session: a usage error


def test_convert_turns_a_saved_session_into_a_journal(tmp_path: Path) -> None:
    path = str(tmp_path / "ledger.db")
    with open_ledger(path) as opened:
        kb = BeliefBase(ledger=opened, clock=ManualClock(50))
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.save_session("old")
    refused = cli("beliefs", "--ledger", path, "--session", "old", "--as-of", "60")
    assert refused.returncode == 1 and "is a whole snapshot" in refused.stderr
    done = cli("convert", path, "old")
    assert done.returncode == 0, done.stderr
    assert "now journaled" in done.stdout
    again = cli("convert", path, "old")
    assert again.returncode == 1 and "already has a journal" in again.stderr
    listed = ok_json("sessions", path)["sessions"]
    assert [(s["id"], s["journal"]) for s in listed] == [("old", 0)]
    with open_ledger(path) as opened:
        BeliefBase.open_session(opened, "old", clock=ManualClock(70)).assert_(
            "plan", "pro", source="human:sales")
    assert ok_json("sessions", path)["sessions"][0]["journal"] == 1
    assert [c["key"] for c in ok_json("history", "--ledger", path, "--session", "old")[
        "changes"]] == ["plan"]


def test_the_cli_reads_a_live_servers_session_as_its_journal_stands_now(tmp_path: Path) -> None:
    # not importorskip("mcp"): with tests/ on sys.path, tests/mcp passes for a namespace
    # package "mcp" when the SDK is missing
    try:
        import mcp
        from mcp import StdioServerParameters  # noqa: F401
    except ImportError:
        pytest.skip("the MCP SDK is the optional extra corollary[mcp]")
    path = str(tmp_path / "ledger.db")
    params = mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "corollary", "mcp", "--ledger", path, "--session",
                                      "live"], env={"PYTHONPATH": str(ROOT)})

    async def body() -> tuple[Any, Any]:
        async with mcp.Client(params, read_timeout_seconds=60) as client:
            await client.call_tool("assert_fact", {"key": "quote", "value": 10.5,
                                                   "source": "tool:feed", "ttl_s": 2.0})
            await client.call_tool("assert_fact", {"key": "hq", "value": "Austin",
                                                   "source": "tool:registry"})
            while_live = ok_json("beliefs", "--ledger", path, "--session", "live")
            time.sleep(2.5)  # the quote expires while the server still runs
            later = ok_json("beliefs", "--ledger", path, "--session", "live")
            return while_live, later

    while_live, later = asyncio.run(body())
    assert {b["key"] for b in while_live["beliefs"]} == {"quote", "hq"}
    assert while_live["base"]["journal_seq"] == 2
    assert {b["key"] for b in later["beliefs"]} == {"hq"}  # read at the wall clock


def test_every_ledger_command_takes_ledger_as_an_option(ledger: str, tmp_path: Path) -> None:
    """issue 28 item 13: `sessions --ledger x.db` was rejected (sessions, sources and convert
    took a positional LEDGER, the others --ledger); both spellings read the same now."""
    assert ok_json("sessions", "--ledger", ledger) == ok_json("sessions", ledger)
    assert ok_json("sources", "--ledger", ledger)["sources"] == ok_json("sources", ledger)[
        "sources"]
    snap = str(tmp_path / "snap.db")
    with open_ledger(snap) as opened:
        kb = BeliefBase(ledger=opened, clock=ManualClock(0))
        kb.assert_("hq", "Austin", source="tool:a")
        kb.save_session("old")
    done = cli("convert", "--ledger", snap, "--session", "old")
    assert done.returncode == 0, done.stderr
    assert "session 'old' is now journaled" in done.stdout
    twice = cli("sessions", snap, "--ledger", snap)
    assert twice.returncode == 2 and "give the ledger once: --ledger PATH" in twice.stderr


def test_sessions_counts_the_beliefs_of_a_journaled_session(ledger: str) -> None:
    """issue 28 item 13: BELIEFS was '-' for every journaled session."""
    with open_ledger(ledger) as opened:
        held = len(BeliefBase.open_session(opened, "team", clock=ManualClock(400)))
    row = next(r for r in ok_json("sessions", "--ledger", ledger)["sessions"] if r["id"] == "team")
    assert row["journal"] == 4 and row["beliefs"] == held and held >= 2


def test_a_ledger_where_a_snapshot_or_key_goes_is_named_as_a_ledger(ledger: str) -> None:
    """issue 28 item 13: `beliefs support.db` said "corrupt or truncated snapshot (ExtraData
    ...)"; `history support.db --session X` read support.db as the key, then found no default
    ledger."""
    done = cli("beliefs", ledger)
    assert done.returncode == 1
    assert done.stderr == (f"corollary: {ledger} is a SQLite ledger, not a snapshot: read a "
                           f"session in it with --ledger {ledger} --session ID\n")
    done = cli("history", ledger, "--session", "team")
    assert done.returncode == 1
    assert done.stderr == (f"corollary: {ledger} is a SQLite ledger, not a key: give it as "
                           f"--ledger {ledger}\n")
    file = str(Path(ledger).with_name("ledger.json"))
    TrustLedger().save(file)
    done = cli("explain", file, "hq")
    assert done.returncode == 1 and f"{file} is a ledger file, not a snapshot" in done.stderr

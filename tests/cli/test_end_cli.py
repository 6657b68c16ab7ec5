"""``corollary end``: a fact ends on a source's word in a journaled session and in a snapshot
file, the proof says so, a later process reads it ended, and bad input changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.cli_support import ROOT, env_for

from corollary import BeliefBase, ManualClock, open_ledger


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "corollary", *args], capture_output=True,
                          text=True, timeout=120, env=env_for(ROOT), stdin=subprocess.DEVNULL)


def session(db: Path) -> None:
    ledger = open_ledger(str(db))
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000.0))
    kb.assert_("ann:employer", "Acme", source="human:ann")
    kb.assert_("ann:city", "Oslo", source="human:ann")
    ledger.close()


def held(db: Path) -> dict[str, object]:
    done = cli("beliefs", "--ledger", str(db), "--session", "s", "--json")
    assert done.returncode == 0, done.stderr
    return {b["key"]: b["value"] for b in json.loads(done.stdout)["beliefs"]}


def test_an_end_in_a_session_is_read_by_the_next_process(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    session(db)
    done = cli("end", "--ledger", str(db), "--session", "s", "ann:employer", "--source",
               "human:ann", "--at", "2000", "--reason", "I quit", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["key"], out["source"], out["at"]) == ("ann:employer", "human:ann", 2000.0)
    assert "ended at 1970-01-01T00:33:20Z by human:ann ('I quit')" in out["proof"]
    assert held(db) == {"ann:city": "Oslo"}
    ledger = open_ledger(str(db))
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(3000.0))
    assert kb.value("ann:employer") is None and kb.at(1500.0).value("ann:employer") == "Acme"
    ledger.close()


def test_an_end_in_a_snapshot_is_written_back(tmp_path: Path) -> None:
    path = tmp_path / "kb.json"
    kb = BeliefBase(clock=ManualClock(1000.0))
    kb.assert_("ann:employer", "Acme", source="human:ann")
    kb.save(str(path))
    done = cli("end", str(path), "ann:employer", "--value", "Acme", "--source", "human:ann")
    assert done.returncode == 0, done.stderr
    assert "ended at" in done.stdout
    assert BeliefBase.load(str(path)).value("ann:employer") is None


def test_bad_input_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    session(db)
    refusals = [
        (["ann:employer"], 2, "--source"),  # whose word: required
        (["ann:employer", "--source", "human:ann", "--at", "soon"], 2, "not a time"),
        (["nope:key", "--source", "human:ann"], 1, "nope:key"),
        (["ann:employer", "--value", "Initech", "--source", "human:ann"], 1, "Initech"),
    ]
    outcomes = []
    for args, _code, said in refusals:
        done = cli("end", "--ledger", str(db), "--session", "s", *args)
        outcomes.append((done.returncode, said in done.stderr, "Traceback" in done.stderr))
    assert outcomes == [(code, True, False) for _, code, _ in refusals]
    assert held(db) == {"ann:employer": "Acme", "ann:city": "Oslo"}

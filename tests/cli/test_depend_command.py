"""``corollary depend`` (issue 37, item 1: dependencies and declared replacements from the
CLI), each command its own process: on a journaled SQLite session and on a snapshot file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.cli_support import ROOT, env_for

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "corollary", "depend", *args],
                          capture_output=True, text=True, timeout=60, env=env_for(ROOT),
                          stdin=subprocess.DEVNULL)


def cli(*args: str) -> Any:
    done = run(*args, "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def _ann(kb: BeliefBase) -> None:
    kb.assert_("user:condition", "asthma", source="human:ann", valid_from=100)
    kb.assert_("user:exercise", "running", source="human:ann", valid_from=101)


def test_depend_on_a_session_and_the_root_changes_in_another_process(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    with open_ledger(db) as ledger:
        _ann(BeliefBase.open_session(ledger, "s", clock=ManualClock(1000),
                                     conflict_policy=PreferNewer()))
    session = ["--ledger", db, "--session", "s"]
    rests = cli(*session, "user:medication", "inhaler", "--on", "user:condition",
                "--source", "model:m")
    waits = cli(*session, "user:exercise", "cycling", "--if-changes", "user:condition",
                "--source", "model:m")
    assert (rests["value"], rests["label"], waits["label"]) == ("inhaler", "IN", "OUT")
    with open_ledger(db) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
        kb.assert_("user:condition", "none", source="human:ann", valid_from=500)
        assert (kb.value("user:medication"), kb.value("user:exercise")) == (None, "cycling")


def test_depend_on_a_snapshot_writes_it_back_and_refuses_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "kb.json"
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    _ann(kb)
    kb.save(path)
    done = run(str(path), "user:medication", "inhaler", "--on", "user:condition",
               "--source", "model:m")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "user:medication = 'inhaler' [IN] resting on user:condition"
    back = BeliefBase.load(path, clock=ManualClock(1000))
    assert "rests on user:condition = 'asthma'" in str(back.explain("user:medication"))
    before = path.read_bytes()
    neither = run(str(path), "user:pills", "daily", "--source", "model:m")
    unknown = run(str(path), "user:pills", "daily", "--on", "user:nothing", "--source", "model:m")
    assert neither.returncode != 0 and "one of them" in neither.stderr
    assert unknown.returncode != 0 and "user:nothing" in unknown.stderr
    assert path.read_bytes() == before

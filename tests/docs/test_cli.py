"""The ``corollary`` command: the demo runs, checks its own numbers and prints the proofs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock
from corollary.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_run() -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "corollary", "demo"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_demo_exits_zero(demo_run: subprocess.CompletedProcess[str]) -> None:
    assert demo_run.returncode == 0, demo_run.stderr
    assert demo_run.stderr == ""
    assert demo_run.stdout.rstrip().endswith("demo: all checks passed")


def test_demo_prints_the_numbers_and_the_proofs(demo_run: subprocess.CompletedProcess[str]) -> None:
    out = demo_run.stdout
    assert "0.9959" in out
    assert "answer = 'revenue is growing' [IN 0.80]" in out
    assert "0.9 × min(0.99, 0.891) = 0.802" in out
    assert "re-executed: reproduced 0.1" in out
    assert "premise from tool:filings" in out
    assert "[OUT] lost to ceo = 'Alice'" in out
    assert "[OUT] retracted: restated in the 10-K/A" in out
    assert "price:ACME 0.67" in out and "price:ACME 0.48" in out and "price:ACME 0.24" in out
    assert "after the ttl: price:ACME is OUT" in out


def test_demo_is_deterministic(demo_run: subprocess.CompletedProcess[str],
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == demo_run.stdout


def test_explain_a_snapshot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.save(tmp_path / "kb.cor")
    assert main(["explain", str(tmp_path / "kb.cor"), "hq"]) == 0
    assert capsys.readouterr().out.startswith("hq = 'Austin' [IN 0.95]")

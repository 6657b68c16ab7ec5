"""The examples run and print what they promise."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(name: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout


def test_quickstart():
    out = run("quickstart.py")
    assert "hq = Austin at 0.9959" in out
    assert "after 30 s: price 0.67" in out
    assert "growth is OUT, cheap is OUT" in out
    assert "document:10-Q reliability now 0.818" in out  # (9 + 0) / 11


def test_shared_ledger():
    out = run("shared_ledger.py")
    assert "scraper reliability 0.731" in out  # 9.5 / 13
    assert "restored: price:ACME at 0.731" in out

"""The examples run and print what they promise."""

import shutil
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


def test_agent_offline():
    out = run("agent_offline.py")
    without, with_learning = out.split("With learning on")
    assert "claim  trend = 'up' [IN 0.891]" in without
    assert "status ok: trend 0.891, answer 0.802; model:analyst reliability 0.900" in without
    assert "answer = 'revenue is growing' [IN 0.80]\n" in without
    assert "formula (q3 - q2) / q2 by model:analyst, re-executed: reproduced 0.1" in without
    # learning on: the passed formula check lifts model:analyst to 10/11 before it judges
    assert "status ok: trend 0.900, answer 0.818; model:analyst reliability 0.909" in with_learning
    assert "answer = 'revenue is growing' [IN 0.82]\n" in with_learning


def test_shop_without_a_folder_writes_into_a_temporary_one_not_the_current(tmp_path):
    # issue 28 item 15: run from a clone, `python examples/shop.py` wrote shop.cor and ledger.db
    # into the repository root
    done = subprocess.run([sys.executable, str(EXAMPLES / "shop.py")], capture_output=True,
                          text=True, timeout=120, check=True, cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []
    written = Path(done.stdout.split()[1])
    assert written.name == "shop.cor" and written.is_file()
    assert written.parent.name.startswith("corollary-shop-")
    assert (written.parent / "ledger.db").is_file()
    shutil.rmtree(written.parent)


def test_the_readme_sets_up_a_virtual_environment_and_git_ignores_what_shop_writes():
    root = EXAMPLES.parent
    setup = (root / "README.md").read_text().split("## Set-up", 1)[1].split("\n## ", 1)[0]
    assert setup.index("python3 -m venv .venv") < setup.index("pip install -e .")
    ignored = (root / ".gitignore").read_text().split()
    assert "shop.cor" in ignored and "*.db" in ignored

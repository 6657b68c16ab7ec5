"""docs/cli.md shows real output: every ``$ corollary ...`` line of its console blocks runs in a
folder made by examples/shop.py, and prints exactly what the page says (stdout then stderr, as
a terminal shows them); a line that printed an error exited non-zero, and no other did."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli_support import ROOT

DOC = ROOT / "docs" / "cli.md"


def examples() -> list[tuple[str, str]]:
    found = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(), flags=re.S):
        command, lines = None, []
        for line in block.splitlines() + ["$ end"]:
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, "\n".join(lines)))
                command, lines = line[2:], []
            else:
                lines.append(line)
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("docs")
    subprocess.run([sys.executable, str(ROOT / "examples" / "shop.py"), str(where)],
                   check=True, capture_output=True, timeout=60)
    return where


def test_the_page_has_examples() -> None:
    commands = [c.split()[1] for c, _ in examples()]
    assert len(commands) == 36  # one more: beliefs --scope --limit --offset
    for name in ("explain", "beliefs", "recall", "conflicts", "faded", "graph", "sessions",
                 "sources"):
        assert name in commands, name


@pytest.mark.parametrize("command, shown", examples())
def test_each_example_prints_what_the_page_shows(folder: Path, command: str, shown: str) -> None:
    assert command.startswith("corollary ")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "examples"), str(ROOT)])
    done = subprocess.run([sys.executable, "-m", "corollary", *shlex.split(command)[1:]],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert (done.stdout + done.stderr).rstrip("\n") == shown
    if done.stderr:
        assert done.returncode == (2 if ": error: " in done.stderr else 1)
        assert len(done.stderr.splitlines()) == 1
    else:
        assert done.returncode == 0


def test_the_setup_block_makes_the_folder_the_examples_run_in(tmp_path: Path) -> None:
    """The page's setup, as a user types it from the repository (issue 20: without
    ``examples/`` on ``PYTHONPATH``, ``--import shop`` found no module)."""
    setup = next(b for b in re.findall(r"```bash\n(.*?)```", DOC.read_text(), flags=re.S)
                 if "examples/shop.py" in b)
    script = (setup.replace("/tmp/shop", str(tmp_path / "shop"))
              .replace("python ", f"{shlex.quote(sys.executable)} ", 1)
              .replace("corollary ", f"{shlex.quote(sys.executable)} -m corollary "))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = str(ROOT)  # corollary itself, as an install would give it
    done = subprocess.run(["bash", "-euc", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "signal" in done.stdout and "revenue:Q3" in done.stdout
    without = subprocess.run(
        [sys.executable, "-m", "corollary", "beliefs", "shop.cor", "--import", "shop"],
        cwd=tmp_path / "shop", env=env, capture_output=True, text=True, timeout=60)
    assert without.returncode == 1
    assert without.stderr == "corollary: --import shop: No module named 'shop'\n"

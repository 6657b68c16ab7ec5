"""Helpers for the command-line and MCP tests: a user's module that defines tools and rules, a
snapshot and a SQLite session built from it in a separate process, and a runner for
``python -m corollary`` that checks no traceback ever reaches the user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parents[2]

#: The user's module: tools and a rule a saved base needs, defined outside corollary.
USER_MODULE = ROOT / "examples" / "shop.py"

START = 1_767_225_600.0
TAKEN_AT = START + 200


@attrs.frozen
class Shop:
    """Where the user's module, its snapshot and its ledger (with session ``shop-1``) are."""

    home: Path
    snapshot: Path
    ledger: Path


def make_shop(home: Path) -> Shop:
    """Copy the user's module (examples/shop.py) in ``home`` and build its snapshot and
    session in a child process (the test process never imports it unless a test asks)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "shop.py").write_text(USER_MODULE.read_text())
    shop = Shop(home, home / "shop.cor", home / "ledger.db")
    done = subprocess.run([sys.executable, "-c", f"import shop, pathlib; shop.save_all(pathlib.Path({str(home)!r}))"],
                          cwd=home, env=env_for(home), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return shop


def env_for(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a child: corollary and the user's module importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = os.pathsep.join([str(home), str(ROOT)])
    env.update(extra)
    return env


def run(shop: Shop, *args: str, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m corollary ARGS`` as a user runs it; no traceback may reach stderr."""
    done = subprocess.run([sys.executable, "-m", "corollary", *args], cwd=cwd or shop.home,
                          env=env or env_for(shop.home), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def one_line_error(done: subprocess.CompletedProcess[str], status: int = 1) -> str:
    """The single line a failed command printed on stderr (and nothing on stdout)."""
    assert done.returncode == status, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert done.stdout == ""
    return lines[0]


def load_module(home: Path) -> Any:
    """Import the user's module in this process (for expected values)."""
    if str(home) not in sys.path:
        sys.path.insert(0, str(home))
    import importlib

    return importlib.import_module("shop")

"""docs/extending.md stays true: every module and test it points at exists, and each kind of
change the issue lists has its line."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")


def test_every_path_it_names_exists() -> None:
    named = set(re.findall(r"`((?:corollary|tests|docs)/[\w/.]+?)`", PAGE))
    assert len(named) >= 10
    # a module another change is creating is marked so, and is checked once it is there
    coming = set(re.findall(r"`((?:corollary|tests)/[\w/.]+?)` \(being created\)", PAGE))
    missing = sorted(p for p in named - coming if not (ROOT / p).exists())
    assert missing == []


def test_each_kind_of_change_has_its_line() -> None:
    rows = [line for line in PAGE.splitlines() if line.startswith("| ") and "---" not in line][1:]
    firsts = [row.split("|")[1].strip() for row in rows]
    for kind in ("kind of reason", "store backend", "conflict policy", "CLI command", "MCP tool",
                 "prompt text"):
        assert sum(kind in first for first in firsts) == 1, kind

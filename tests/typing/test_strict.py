"""Issue 36, item 4: ``mypy --strict`` passes on the facade, the changes and a user's script
that subclasses ``BeliefBase``, adds a change value and opens it as a session
(tests/typing/user_subclass.py), which then runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("user_subclass.py")


def test_the_facade_the_changes_and_a_user_script_pass_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    env = {**os.environ, "MYPYPATH": str(ROOT), "PYTHONPATH": str(ROOT)}
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), "corollary/facade", "corollary/changes",
         str(SCRIPT)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert ran.stdout.split() == ["True", "4.5", "['typing_list_price',", "'assert_',",
                                  "'restock']", "3"], ran.stderr

"""An end standing in an open conflict (too little trusted to supersede the value under
``PreferNewer``) is listed as what it says, ``ended ('reason')``, never as its reserved value
``{'$ended': ...}``: by ``Conflict``'s text, ``corollary conflicts`` and the browser view's data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.cli_support import ROOT, env_for

from corollary import BeliefBase, ManualClock, PreferNewer


def open_end() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0.0), conflict_policy=PreferNewer())
    for _ in range(8):
        kb.record_outcome("human:bob", False)
    kb.assert_("user:employer", "Acme", source="human:ann")
    kb.clock.advance(10.0)  # type: ignore[attr-defined]
    kb.end("user:employer", source="human:bob", reason="left")
    return kb


def test_a_conflict_names_the_end_as_an_end() -> None:
    (conflict,) = open_end().conflicts()
    assert str(conflict) == "user:employer: 'Acme' (0.99), ended ('left') (0.55)"


def test_the_cli_lists_the_end_as_an_end(tmp_path: Path) -> None:
    path = tmp_path / "kb.json"
    open_end().save(str(path))
    done = subprocess.run([sys.executable, "-m", "corollary", "conflicts", str(path)],
                          capture_output=True, text=True, timeout=120, env=env_for(ROOT))
    assert done.returncode == 0, done.stderr
    assert "ended ('left')" in done.stdout and "$ended" not in done.stdout


def test_the_browser_view_lists_the_end_as_an_end() -> None:
    from corollary.ui.views import Inspector

    (conflict,) = Inspector(open_end()).problems()["conflicts"]
    assert [c["value_text"] for c in conflict["candidates"]] == ["'Acme'", "ended ('left')"]

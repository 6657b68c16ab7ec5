"""The journal as a typed layer (issue 26, point 2): ``open_session`` returns a
:class:`corollary.Session`, a class defined in the source, whose journal methods a type checker
sees. Before, the session class was made at run time and ``open_session`` said ``BeliefBase``:
``kb.history()`` failed ``mypy`` with ``attr-defined`` and ``as_of`` returned ``Any``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from corollary import BeliefBase, ManualClock, ReadOnlyBaseError, Session, TrustLedger

ROOT = Path(__file__).resolve().parents[2]

USER_SCRIPT = """
from corollary import BeliefBase, ManualClock, Session, TrustLedger, Watch, WatchEvent


def main() -> None:
    kb = BeliefBase.open_session(TrustLedger(), "team", clock=ManualClock(10))
    seen: list[str] = []

    def heard(event: WatchEvent) -> None:
        seen.append(event.key)

    watch: Watch = kb.watch(heard, keys=["hq"])
    kb.assert_("hq", "Austin", source="tool:registry")
    applied: int = kb.sync()
    past: Session = kb.as_of(10)
    value: object = past.value("hq")
    operations: list[str] = [h.operation for h in kb.history()]
    watch.stop()
    print(applied, value, operations, seen)


main()
"""


def test_a_user_script_passes_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(USER_SCRIPT))
    env = {**os.environ, "MYPYPATH": str(ROOT), "PYTHONPATH": str(ROOT)}
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), str(script)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert ran.stdout.split() == ["0", "Austin", "['assert_']", "['hq']"], ran.stderr


class Desk(BeliefBase):
    """A user's subclass: its session class is a Session and keeps its own methods."""

    def assert_(self, key, value, source, **options):  # type: ignore[no-untyped-def]
        self.asserted = getattr(self, "asserted", 0) + 1
        return super().assert_(key, value, source, **options)


def test_the_session_class_is_defined_in_the_source() -> None:
    kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
    assert type(kb) is Session and Session.__module__ == "corollary.facade.session"
    for name in ("sync", "history", "as_of", "watch", "checkpoint", "session_id", "journal_seq"):
        assert hasattr(Session, name)
    kb.assert_("hq", "Austin", source="tool:registry")
    past = kb.as_of(0)
    assert isinstance(past, Session) and past.value("hq") == "Austin"
    with pytest.raises(ReadOnlyBaseError):
        past.assert_("hq", "Dallas", source="tool:registry")


def test_a_subclass_opens_as_a_session_of_its_own() -> None:
    ledger = TrustLedger()
    kb = Desk.open_session(ledger, "s", clock=ManualClock(0))
    assert isinstance(kb, Session) and isinstance(kb, Desk)
    assert type(kb).__name__ == "DeskSession"
    kb.assert_("hq", "Austin", source="tool:registry")
    assert kb.asserted == 1  # type: ignore[attr-defined]
    assert [h.operation for h in kb.history()] == ["assert_"]
    assert Desk.open_session(ledger, "s", clock=ManualClock(0)).value("hq") == "Austin"

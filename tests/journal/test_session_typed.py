"""The journal as a typed layer (issue 26, point 2; issue 36, item 3): ``open_session`` returns
a base of the class it is called on, which has a journal; its journal methods are the base's
own, which a type checker sees, and ``isinstance(kb, corollary.Session)`` tells it is a session.
Before issue 26 ``kb.history()`` failed ``mypy`` with ``attr-defined`` and ``as_of`` returned
``Any``; before issue 36 a ``<Name>Session`` class was made at run time for each subclass."""

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
    past: BeliefBase = kb.as_of(10)
    assert isinstance(past, Session)
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


def test_a_session_is_the_base_with_a_journal() -> None:
    kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
    assert type(kb) is BeliefBase and isinstance(kb, Session) and kb.journal is not None
    assert not isinstance(BeliefBase(), Session)
    for name in ("sync", "history", "as_of", "watch", "checkpoint", "session_id", "journal_seq"):
        assert hasattr(BeliefBase, name)
    kb.assert_("hq", "Austin", source="tool:registry")
    past = kb.as_of(0)
    assert isinstance(past, Session) and past.value("hq") == "Austin"
    with pytest.raises(ReadOnlyBaseError):
        past.assert_("hq", "Dallas", source="tool:registry")


def test_a_subclass_opens_as_a_session_of_its_own() -> None:
    ledger = TrustLedger()
    kb = Desk.open_session(ledger, "s", clock=ManualClock(0))
    assert isinstance(kb, Session) and isinstance(kb, Desk)
    assert type(kb) is Desk  # no class made for it (issue 36, item 3)
    kb.assert_("hq", "Austin", source="tool:registry")
    assert kb.asserted == 1  # type: ignore[attr-defined]
    assert [h.operation for h in kb.history()] == ["assert_"]
    assert Desk.open_session(ledger, "s", clock=ManualClock(0)).value("hq") == "Austin"


def test_a_base_that_is_no_session_says_so_when_asked_for_its_journal() -> None:
    from corollary.foundations.errors import JournalError

    kb = BeliefBase(clock=ManualClock(0))
    assert kb.journal is None and kb.session_id is None and kb.journal_seq == 0
    for ask in (kb.history, kb.checkpoint, lambda: kb.as_of(0), lambda: kb.watch(print)):
        with pytest.raises(JournalError, match="no session"):
            ask()

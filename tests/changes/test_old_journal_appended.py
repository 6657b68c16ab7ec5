"""An old journal (written before changes were values, tests/data/journal_every_change.db)
appended to by today's code, whose new entries keep a value's fields by name: another process
reopens it (from its checkpoint, and again replaying every entry) and reads the same beliefs,
history and ``as_of`` values (issue 36, Done when: old journals open and read the same)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from support.old_journal_appended import Shop, append_new, read_all

from corollary import ManualClock, open_ledger

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def _read_elsewhere(path: Path, prune: bool) -> object:
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        from corollary import ManualClock, open_ledger
        from support.old_journal_appended import Shop, read_all
        with open_ledger({str(path)!r}) as ledger:
            if {prune!r}:
                ledger.store.prune_checkpoints("every", 0)
            kb = Shop.open_session(ledger, "every", clock=ManualClock(1010))
            print(json.dumps(read_all(kb)))
    """)
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=180, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def test_an_old_journal_appended_to_reads_the_same_in_another_process(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    shutil.copy(DATA / "journal_every_change.db", path)
    with open_ledger(str(path)) as ledger:
        clock = ManualClock(1002)
        kb = Shop.open_session(ledger, "every", clock=clock)
        old_seq = kb.journal_seq
        append_new(kb, clock)
        assert kb.journal_seq == old_seq + 12
        kb.checkpoint()
        here = json.loads(json.dumps(read_all(kb)))
    assert _read_elsewhere(path, prune=False) == here  # from the checkpoint just written
    assert _read_elsewhere(path, prune=True) == here  # every entry, old and new, replayed

"""Issue 36, item 1: journals and snapshots written before changes were values open and read
the same. ``tests/data/journal_every_change.db`` (a session with an entry of every kind of
change the base makes without a model, a user's declared change among them) and
``snapshot_every_change.msgpack`` were written by main's code at dbe254a
(tests/data/make_journal_every_change.py); ``journal_every_change.json`` is what it read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from data.make_journal_every_change import Shop, reads

from corollary import BeliefBase, ManualClock, open_ledger

DATA = Path(__file__).resolve().parents[1] / "data"
EXPECTED = json.loads((DATA / "journal_every_change.json").read_text())


def test_an_old_journal_opens_and_reads_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "journal.db"
    shutil.copy(DATA / "journal_every_change.db", copy)  # opening may migrate: not the fixture
    ledger = open_ledger(str(copy))
    try:
        kb = Shop.open_session(ledger, "every", clock=ManualClock(1002))
        assert json.loads(json.dumps(reads(kb))) == EXPECTED["reads"]
        history = [[h.seq, h.operation, h.key, repr(h.value), h.label] for h in kb.history()]
        assert history == EXPECTED["history"]
        # replayed from its first checkpoint: every entry applied again by today's code
        store = ledger.store
        store.prune_checkpoints("every", 0)
        again = Shop.open_session(ledger, "every", clock=ManualClock(1002))
        assert json.loads(json.dumps(reads(again))) == EXPECTED["reads"]
    finally:
        ledger.close()


def test_an_old_snapshot_loads_and_reads_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "journal.db"
    shutil.copy(DATA / "journal_every_change.db", copy)  # the session's ledger: it was shared
    ledger = open_ledger(str(copy))
    try:
        kb = BeliefBase.load(DATA / "snapshot_every_change.msgpack", ledger=ledger,
                             clock=ManualClock(1002))
        assert json.loads(json.dumps(reads(kb))) == EXPECTED["reads"]
    finally:
        ledger.close()

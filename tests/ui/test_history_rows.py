"""History rows say the label of the value they name, at that entry (issue 28 item 4), keep
integers beyond 2**53 exact on their way to a browser (item 6), and a journal row that is not
where it says it is refuses to replay (item 3). Through ``kb.history``, the inspector's data,
``corollary history`` (a real child process) and a real SQLite ledger."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.cli_support import ROOT

from corollary import BeliefBase, JournalCorruptError, ManualClock, open_ledger
from corollary.ui.views import Inspector

BIG = 2**53 + 1  # 9007199254740993: a double reads it as ...992


def addresses(path: Path) -> None:
    """Session 's': addr '12 Oak St' (tool:a), then 'Pine Ave' (tool:b) into an open conflict,
    then '12 Oak St' retracted: 'Pine Ave' holds."""
    clock = ManualClock(1000)
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=clock)
        kb.assert_("addr", "12 Oak St", source="tool:a")
        clock.advance(1)
        kb.assert_("addr", "Pine Ave", source="tool:b")
        clock.advance(1)
        kb.retract("addr", "12 Oak St", reason="moved")


def labels(rows: list[tuple[str, object, str | None, float | None]]
           ) -> list[tuple[str, object, str | None, bool]]:
    return [(op, value, label, confidence is not None and confidence > 0)
            for op, value, label, confidence in rows]


EXPECTED = [("assert_", "12 Oak St", "IN", True),
            ("assert_", "Pine Ave", "CONFLICT", False),  # OUT before: one of two held values
            ("retract", "12 Oak St", "OUT", False)]  # IN 0.90 before: Pine Ave's state


def test_history_gives_each_rows_own_value_its_label(tmp_path: Path) -> None:
    addresses(tmp_path / "l.db")
    with open_ledger(tmp_path / "l.db") as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(2000))
        found = [(h.operation, h.value, h.label, h.confidence) for h in kb.history("addr")]
        assert labels(found) == EXPECTED
        assert found[1][3] is None  # a conflict's entry keeps no confidence of this value
        rows = Inspector(kb).history("addr")
    assert rows is not None
    assert [(r["operation"], r["value"], r["label"]) for r in reversed(rows)] == [
        (op, value, label) for op, value, label, _ in EXPECTED]
    assert [r["value_text"] for r in rows] == ["'12 Oak St'", "'Pine Ave'", "'12 Oak St'"]


def test_corollary_history_gives_the_retract_row_the_retracted_values_label(
        tmp_path: Path) -> None:
    addresses(tmp_path / "l.db")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "corollary", "history", "addr", "--ledger",
                           str(tmp_path / "l.db"), "--session", "s", "--json"],
                          capture_output=True, text=True, timeout=120, env=env, check=True)
    changes = json.loads(done.stdout)["changes"]
    assert labels([(c["operation"], c["value"], c["label"], c["confidence"])
                   for c in changes]) == EXPECTED


def test_a_value_beyond_2_53_reaches_the_page_exact(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "l.db") as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
        kb.assert_("id", BIG, source="tool:a")
        rows = Inspector(kb).history("id")
    assert rows is not None and rows[0]["value_text"] == "9007199254740993"
    # what a browser's JSON.parse would show without it
    assert float(json.loads(json.dumps(rows[0]["value"]))) == float(BIG - 1)


def _journal_of_three(path: Path) -> None:
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
        for i in range(3):
            kb.assert_(f"k{i}", i, source="tool:a")


DAMAGE = {
    # entry 2's row copied over entry 3
    "duplicated": ["UPDATE corollary_journal SET entry = (SELECT entry FROM corollary_journal "
                   "WHERE seq = 2) WHERE seq = 3"],
    # entries 2 and 3 swapped
    "moved": ["UPDATE corollary_journal SET seq = 10 WHERE seq = 2",
              "UPDATE corollary_journal SET seq = 2 WHERE seq = 3",
              "UPDATE corollary_journal SET seq = 3 WHERE seq = 10"],
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_duplicated_or_moved_entry_row_is_refused_on_replay(tmp_path: Path, damage: str
                                                             ) -> None:
    path = tmp_path / "l.db"
    _journal_of_three(path)
    conn = sqlite3.connect(path)
    for statement in DAMAGE[damage]:
        conn.execute(statement)
    conn.execute("DELETE FROM corollary_checkpoint WHERE seq > 0")  # replay from the start
    conn.commit()
    conn.close()
    with open_ledger(path) as ledger, pytest.raises(JournalCorruptError,
                                                    match="duplicated or moved"):
        BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))


def test_a_promise_answer_beyond_2_53_reaches_the_page_exact() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("id", BIG, source="tool:a")
    assert kb.answer("id").value == BIG
    (answer,) = Inspector(kb).promises()["unguarded"]
    assert answer["value_text"] == "9007199254740993"


def test_the_page_draws_each_rows_label_and_the_exact_value(tmp_path: Path, page: Any) -> None:
    from ui.conftest import needs_ui_extra, serving

    needs_ui_extra()
    addresses(tmp_path / "l.db")
    with open_ledger(tmp_path / "l.db") as ledger:
        BeliefBase.open_session(ledger, "s", clock=ManualClock(1003)).assert_(
            "addr", BIG, source="tool:c")
    with serving("--ledger", str(tmp_path / "l.db"), "--session", "s") as url:
        p = page.page
        p.goto(f"{url}/#/belief/addr")
        history = p.get_by_role("region", name="History")
        history.get_by_text("retract").wait_for()
        rows = [r.inner_text().split("\t") for r in history.locator("tbody tr").all()]
    # newest first: the big value (a new conflict with Pine Ave), the retract, the value asserted
    # into the first conflict, the first value
    assert [(r[2], r[3], r[6]) for r in rows] == [
        ("assert_", "9007199254740993", "CONTESTED"), ("retract", "'12 Oak St'", "OUT"),
        ("assert_", "'Pine Ave'", "CONTESTED"), ("assert_", "'12 Oak St'", "IN 0.95")]
    assert page.errors == []

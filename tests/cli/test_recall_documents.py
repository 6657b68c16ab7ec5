"""``corollary recall`` and issue 35 item 4: the remembered fact first, a transcript listed only
when the query asks what was said, and then marked with the facts it states, held or not
(docs/recall.md, "Facts before the documents they came from")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.cli_support import Shop, run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recall"))
from test_documents import ann_moves  # noqa: E402


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    where = tmp_path_factory.mktemp("ann")
    ann_moves().save(where / "ann.cor")
    return Shop(where, where / "ann.cor", where / "ledger.db")


def test_recall_lists_the_fact_and_marks_a_transcript_asked_for(home: Shop) -> None:
    where = json.loads(run(home, "recall", str(home.snapshot), "where does Ann live",
                           "--json").stdout)
    assert [(b["key"], b["value"]) for b in where["beliefs"]] == [("ann:city", "Nantes")]
    said = json.loads(run(home, "recall", str(home.snapshot), "what did Ann say in the chat",
                          "--json").stdout)["beliefs"]
    assert said[0]["value"] == "Nantes" and "source_of" not in said[0]
    (paris,) = [b for b in said if b["value"] == "I live in Paris now."]
    assert paris["source_of"] == [{"key": "ann:city", "value": "Paris", "held": False}]
    table = run(home, "recall", str(home.snapshot), "what did Ann say in the chat").stdout
    (line,) = [line for line in table.splitlines() if "I live in Paris now." in line]
    assert line.endswith('(source of ann:city = "Paris" (not held))')

"""A journaled remember: the model's facts are the entry, so a replay or another process never
asks the model again, and a commit that fails leaves nothing acknowledged behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from remember_cases import fact, facts
from support.journal_workers import CommitFails, state

from corollary import BeliefBase, ManualClock, StoreError, TrustLedger, open_ledger
from corollary.models import ScriptedModel


def _remember(kb: BeliefBase) -> None:
    kb.assert_("alice:city", "Paris", source="human:alice")
    model = ScriptedModel([facts(fact("Alice", "home city", "Lyon", "I moved to Lyon"),
                                 fact("Alice", "pet", "dog", "no such words"))])
    kb.remember("I moved to Lyon.", source="human:alice", model=model, at=900)


def test_another_process_reads_the_facts_without_a_model(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    ledger = open_ledger(path)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    _remember(kb)
    expected = state(kb)
    history = kb.history()
    assert [h.operation for h in history] == ["assert_", "remember"]
    assert history[1].keys == ("alice:city",)
    ledger.close()
    code = (
        "from corollary import BeliefBase, ManualClock, open_ledger\n"
        f"kb = BeliefBase.open_session(open_ledger({str(path)!r}), 's', clock=ManualClock(1000))\n"
        "print(sorted(kb.keys()))\n"
        "print('merged from alice:home_city' in str(kb.explain('alice:city')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert "alice:city" in out[0] and out[1] == "True"
    again = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000))
    assert state(again) == expected
    # one wrong outcome (the quote not there), one right (the one found): committed once
    assert sorted(o.correct for o in again.ledger.outcomes("model:remember")) == [False, True]


def test_a_replay_applies_the_entry_without_the_model() -> None:
    ledger = TrustLedger()
    writer = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    reader = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    _remember(writer)
    assert reader.sync() == 2
    assert state(reader) == state(writer)
    # the reader's own remember sees the writer's keys first (it syncs), with a model of its own
    model = ScriptedModel([facts(fact("Alice", "city", "Nice", "Nice"))])
    (r,) = reader.remember("Nice.", source="human:alice", model=model)
    assert r.key == "alice:city"
    writer.sync()
    assert state(reader) == state(writer)


def test_a_failed_commit_keeps_nothing_and_a_retry_does(tmp_path: Path) -> None:
    store = CommitFails(tmp_path / "l.db")
    ledger = TrustLedger(store=store)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    store.fail = True
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "Paris"))] * 2)
    with pytest.raises(StoreError):
        kb.remember("Paris", source="human:alice", model=model)
    assert kb.keys() == [] and ledger.outcomes() == []
    (r,) = kb.remember("Paris", source="human:alice", model=model)
    assert kb.value("alice:city") == "Paris"
    fresh = BeliefBase.open_session(TrustLedger(store=store), "s", clock=ManualClock(1000))
    assert fresh.value("alice:city") == "Paris" and fresh.journal_seq == 1


def test_all_refused_writes_no_entry_only_the_outcomes() -> None:
    ledger = TrustLedger()
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "Rome"))])
    assert list(kb.remember("Paris", source="human:alice", model=model)) == []
    assert kb.journal_seq == 0 and kb.history() == []
    assert [o.correct for o in ledger.outcomes("model:remember")] == [False]


PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
def test_a_session_on_postgres_replays_remember_without_the_model() -> None:
    import psycopg

    name = f"remember_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    try:
        with open_ledger(url) as ledger:
            kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
            _remember(kb)
            expected = state(kb)
        with open_ledger(url) as ledger:
            again = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
            assert state(again) == expected
            assert [h.operation for h in again.history()] == ["assert_", "remember"]
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_history_shows_each_value_one_remember_made_with_its_own_label(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from corollary import PreferNewer
    from corollary.cli import main

    ledger = open_ledger(tmp_path / "ledger.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000),
                                 conflict_policy=PreferNewer())
    model = ScriptedModel([facts(fact("Alice", "city", "Paris", "I live in Paris"),
                                 fact("Alice", "home city", "Lyon", "I moved to Lyon"),
                                 fact("Alice", "pet", "cat", "my cat"))])
    kb.remember(messages=[{"speaker": "human:alice", "text": "I live in Paris.", "at": 10},
                          {"speaker": "human:alice", "text": "I moved to Lyon with my cat.",
                           "at": 20}], model=model)
    rows = kb.history("alice:city")  # one row, Lyon IN, on main
    assert [(h.seq, h.value, h.label, h.valid_from) for h in rows] == [
        (1, "Paris", "OUT", 10.0), (1, "Lyon", "IN", 20.0)]
    assert rows[1].confidence == pytest.approx(kb.confidence("alice:city"))
    assert [(h.value, h.label) for h in kb.history("alice:pet")] == [("cat", "IN")]
    (whole,) = kb.history()  # the entry, once, naming its keys
    assert whole.keys == ("alice:city", "alice:pet")
    ledger.close()
    assert main(["history", "alice:city", "--ledger", str(tmp_path / "ledger.db"),
                 "--session", "s", "--json"]) == 0
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert [(c["value"], c["label"]) for c in changes] == [("Paris", "OUT"), ("Lyon", "IN")]

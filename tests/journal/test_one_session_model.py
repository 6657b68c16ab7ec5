"""One session model (issue 26, point 1): on a store that keeps journals a session is its journal.

The losses measured in the issue, each reproduced: after a session became a journal,
``BeliefBase.load_session`` returned the snapshot saved before the journal began, and a
``save_session`` of that snapshot was acknowledged (version 2) yet no reader of the journal
ever saw it; an in-process server over a ``load_session`` base stored the outcome of a change
whose save was refused. JSON-file ledgers keep whole-snapshot sessions (docs/journal.md).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ledger_targets import drop_namespace

from corollary import (
    BeliefBase,
    ConcurrentWriteError,
    JournalError,
    ManualClock,
    SessionNotFoundError,
    TrustLedger,
    open_ledger,
)
from corollary.foundations.errors import SessionJournaledError

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
KINDS = ["memory", "sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])]


@pytest.fixture(params=KINDS)
def ledger(request: Any, tmp_path: Path) -> Iterator[TrustLedger]:
    kind = request.param
    if kind == "memory":
        yield TrustLedger()
        return
    if kind == "sqlite":
        with open_ledger(tmp_path / "ledger.db") as opened:
            yield opened
        return
    namespace = f"one_{uuid.uuid4().hex[:12]}"
    with open_ledger(PG_URL or "", namespace=namespace) as opened:
        yield opened
    drop_namespace(namespace)


def _snapshot_session(ledger: TrustLedger) -> BeliefBase:
    """A whole-snapshot session "s" (the old model), as a script written against
    docs/ledger.md makes it; the base that saved it."""
    kb = BeliefBase(ledger=ledger, clock=ManualClock(0))
    kb.assert_("plan", "basic", source="human:sales")
    assert kb.save_session("s") == 1
    return kb


def test_load_session_reads_the_journal_once_the_session_is_one(ledger: TrustLedger) -> None:
    _snapshot_session(ledger)
    served = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))  # converts, once
    served.assert_("seats", 5, source="human:sales")
    loaded = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
    assert loaded.value("seats") == 5  # was missing: the snapshot from before the journal
    assert loaded.value("plan") == "basic"
    assert loaded.session_id == "s" and loaded.journal_seq == 1


def test_a_snapshot_save_over_a_journal_is_refused_and_writes_nothing(
        ledger: TrustLedger) -> None:
    old = _snapshot_session(ledger)
    BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).assert_(
        "seats", 5, source="human:sales")
    stored = ledger.store.read_session("s")
    old.assert_("plan", "pro", source="human:sales")
    for overwrite in (False, True):
        with pytest.raises(SessionJournaledError) as info:
            old.save_session("s", overwrite=overwrite)  # was acknowledged as version 2
        assert "open_session" in str(info.value) and "nothing was written" in str(info.value)
        assert isinstance(info.value, ConcurrentWriteError) and isinstance(info.value,
                                                                           JournalError)
    stranger = BeliefBase(ledger=ledger, clock=ManualClock(0))
    with pytest.raises(SessionJournaledError):
        stranger.save_session("s")
    with pytest.raises(SessionJournaledError):  # nor by the store's own method
        ledger.store.save_session("s", b"bytes", expected_version=None)
    assert ledger.store.read_session("s") == stored
    now = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    assert now.value("plan") == "basic" and now.value("seats") == 5
    assert [h.operation for h in now.history()] == ["assert_"]


def test_load_change_save_writes_through_the_journal(ledger: TrustLedger) -> None:
    _snapshot_session(ledger)
    kb = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))  # the first open converts
    kb.assert_("seats", 5, source="human:sales")
    assert kb.save_session("s") == kb.journal_seq == 1  # already saved: nothing to write
    again = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
    assert again.value("seats") == 5
    assert [h.key for h in again.history()] == ["seats"]


def test_the_reload_and_retry_loop_of_the_ledger_doc_still_saves(ledger: TrustLedger) -> None:
    """docs/ledger.md's loop: on ConcurrentWriteError reload and reapply. A base loaded before
    the session became a journal is refused once; the reload opens the journal."""
    old = _snapshot_session(ledger)
    BeliefBase.open_session(ledger, "s", clock=ManualClock(0))  # a server converts it
    kb = old
    for _attempt in range(2):
        kb.assert_("seats", 7, source="human:sales")
        try:
            kb.save_session("s")
            break
        except ConcurrentWriteError:
            kb = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
    assert BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).value("seats") == 7


def test_a_session_that_does_not_exist_is_not_created_by_loading(ledger: TrustLedger) -> None:
    with pytest.raises(SessionNotFoundError):
        BeliefBase.load_session(ledger, "nobody")
    assert ledger.store.journal_sessions() == []  # type: ignore[attr-defined]


def test_load_session_keeps_the_saved_conflict_policy(ledger: TrustLedger) -> None:
    from corollary import PreferHigherConfidence

    kb = BeliefBase(ledger=ledger, clock=ManualClock(0), conflict_policy=PreferHigherConfidence())
    kb.save_session("s")
    loaded = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
    assert isinstance(loaded.conflict_policy, PreferHigherConfidence)
    opened = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    assert opened.conflict_policy is None  # a journal's policy is the process's own


def test_json_file_ledgers_keep_whole_snapshot_sessions(tmp_path: Path) -> None:
    with open_ledger(tmp_path / "ledger.json") as ledger:
        _snapshot_session(ledger)
        kb = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        assert kb.session_id is None
        kb.assert_("seats", 5, source="human:sales")
        assert kb.save_session("s") == 2
        assert BeliefBase.load_session(ledger, "s").value("seats") == 5


# -- a server in the process ---------------------------------------------------------------------
def _client() -> Any:
    try:
        from mcp import Client
    except ImportError:
        pytest.skip("the MCP SDK is the optional extra corollary[mcp]")
    return Client


def _call_all(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    client_class = _client()

    async def go() -> list[Any]:
        async with client_class(server, raise_exceptions=True, read_timeout_seconds=30) as c:
            return [await c.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(go())


OUTCOME = ("record_outcome", {"source": "human:sales", "correct": False, "reason": "wrong"})


@pytest.mark.parametrize("loaded", [True, False], ids=["load_session base", "plain base"])
def test_a_server_in_the_process_stores_no_outcome_it_did_not_acknowledge(
        tmp_path: Path, loaded: bool) -> None:
    """The issue's measure: 2 outcomes in the ledger for 1 acknowledged, when another writer
    saved the session between the server's load and its change."""
    _client()
    from corollary.mcp import make_server

    with open_ledger(tmp_path / "ledger.db") as ledger:
        kb = _snapshot_session(ledger)
        if loaded:
            kb = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        server = make_server(kb, session="s")
        other = BeliefBase.load_session(ledger, "s", clock=ManualClock(0))
        other.assert_("plan", "pro", source="human:sales")
        other.save_session("s")
        results = _call_all(server, [OUTCOME, OUTCOME,
                                     ("belief", {"key": "plan"})])
        acknowledged = [r for r in results[:2] if not r.is_error]
        assert len(acknowledged) == 2
        assert len(ledger.outcomes()) == len(acknowledged)
        assert results[2].structured_content["value"] == "pro"
        final = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
        assert [h.operation for h in final.history()] == ["assert_", "record_outcome",
                                                          "record_outcome"]

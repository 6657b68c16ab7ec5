"""A session reads the same wherever it is opened (issue 35, item 3): a session written under
``PreferNewer`` (an agent's base, ``corollary mcp``) keeps that policy, and a plain
``BeliefBase.open_session(ledger, id)`` in another process reads what its writer read (not an
open conflict); a different policy given explicitly is refused (``SessionPolicyError``, naming
both). A session written before sessions kept their policy opens as it did: the fixture
``tests/data/session_before_kept_policy.db`` was written by main's code before this change
(``open_session(ledger, "customer-42", conflict_policy=PreferNewer(), clock=ManualClock(1000))``,
Oak St from 100 by ``tool:crm``, Pine Ave from 200 by ``document:email``)."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path

import pytest
from support.session_workers import KEY, read_plainly, write_moves, write_store_moves

from corollary import (
    AmbiguousValueError,
    AskHuman,
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    PreferNewer,
    SessionPolicyError,
    open_ledger,
)

LEGACY = Path(__file__).resolve().parents[1] / "data" / "session_before_kept_policy.db"


def spawned(target: object, *args: object) -> None:
    child = multiprocessing.get_context("spawn").Process(target=target, args=args)
    child.start()
    child.join(120)
    assert child.exitcode == 0


def test_a_plain_open_in_another_process_reads_what_the_writer_read(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    spawned(write_moves, path, "customer-42")  # the writer is another process
    ledger = open_ledger(path)
    kb = BeliefBase.open_session(ledger, "customer-42", clock=ManualClock(1_000.0))
    assert kb.value(KEY) == "Pine Ave"
    assert kb.conflicts() == []
    assert kb.conflict_policy == PreferNewer()
    assert "superseded by 'Pine Ave'" in str(kb.explain(KEY, "Oak St"))
    assert BeliefBase.load_session(ledger, "customer-42").value(KEY) == "Pine Ave"
    kb.checkpoint()  # a checkpoint by a plain opener keeps the session's policy
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(read_plainly, (path, "customer-42")) == "Pine Ave"
    ledger.close()


def test_a_different_policy_is_refused_naming_both_and_the_same_one_is_taken(
        tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    spawned(write_moves, path, "customer-42")
    ledger = open_ledger(path)
    with pytest.raises(SessionPolicyError) as refused:
        BeliefBase.open_session(ledger, "customer-42", conflict_policy=PreferHigherConfidence())
    assert "PreferNewer(margin=0.2)" in str(refused.value)
    assert "PreferHigherConfidence()" in str(refused.value)
    with pytest.raises(SessionPolicyError):  # another margin is another policy
        BeliefBase.open_session(ledger, "customer-42", conflict_policy=PreferNewer(0.3))
    same = BeliefBase.open_session(ledger, "customer-42", conflict_policy=PreferNewer(),
                                   clock=ManualClock(1_000.0))
    assert same.value(KEY) == "Pine Ave"
    ledger.close()


def test_a_session_made_with_no_policy_keeps_none(tmp_path: Path) -> None:
    path = str(tmp_path / "l.db")
    ledger = open_ledger(path)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1_000.0))
    kb.assert_("ceo", "Alice", source="human:ops")
    kb.assert_("ceo", "Bob", source="tool:crm")
    with pytest.raises(SessionPolicyError, match="None"):
        BeliefBase.open_session(ledger, "s", conflict_policy=PreferNewer())
    with pytest.raises(AmbiguousValueError):
        BeliefBase.open_session(ledger, "s", clock=ManualClock(1_000.0)).value("ceo")
    # an AskHuman session: the one given (with its ask) is the same policy, taken
    asked = BeliefBase.open_session(ledger, "a", conflict_policy=AskHuman(lambda c: None))
    again = BeliefBase.open_session(ledger, "a", conflict_policy=AskHuman(lambda c: "x"))
    assert isinstance(again.conflict_policy, AskHuman) and asked.conflict_policy is not None
    ledger.close()


def test_a_session_written_before_opens_as_it_did(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(LEGACY, path)
    ledger = open_ledger(path)
    plain = BeliefBase.open_session(ledger, "customer-42", clock=ManualClock(1_000.0))
    with pytest.raises(AmbiguousValueError):  # as before: the process's policy, none
        plain.value(KEY)
    other = BeliefBase.open_session(ledger, "customer-42", clock=ManualClock(1_000.0),
                                    conflict_policy=PreferHigherConfidence())
    assert other.value(KEY) == "Oak St"  # any policy given is taken, as before
    newer = BeliefBase.open_session(ledger, "customer-42", clock=ManualClock(1_000.0),
                                    conflict_policy=PreferNewer())
    assert newer.value(KEY) == "Pine Ave"
    newer.assert_("customer:42:city", "Nantes", source="tool:crm")
    newer.checkpoint()  # new code checkpointing an old session keeps it old
    with pytest.raises(AmbiguousValueError):
        BeliefBase.open_session(ledger, "customer-42", clock=ManualClock(1_000.0)).value(KEY)
    ledger.close()


def test_the_langgraph_store_over_a_session_reads_what_its_writer_read(tmp_path: Path) -> None:
    pytest.importorskip("langgraph.store.base", reason="the langgraph extra")
    from corollary.integrations.langgraph import CorollaryStore

    path = str(tmp_path / "l.db")
    spawned(write_store_moves, path, "lg")
    ledger = open_ledger(path)
    store = CorollaryStore(BeliefBase.open_session(ledger, "lg", clock=ManualClock(1_100.0)))
    got = store.get(("customer", "42"), "address")
    assert got is not None and got.value == {"street": "Pine"}
    assert [i.value for i in store.search(("customer",))] == [{"street": "Pine"}]
    ledger.close()

"""Journaled sessions through the public API (docs/journal.md): every change one entry, replay
equal to the live base, refusals that write nothing, history, as_of, watch, checkpoints,
conversion of whole-snapshot sessions, and typed errors for bad input."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.journal_workers import (
    CommitFails,
    journal_quote,
    journal_total,
    record_on_replay,
    state,
)

from corollary import (
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    JournalCorruptError,
    JournalReplayError,
    JournalUnsupportedError,
    JournalVersionError,
    ManualClock,
    ReadOnlyBaseError,
    RuleError,
    SnapshotError,
    StoreError,
    TrustLedger,
    UnknownBeliefError,
    open_ledger,
    rule,
)
from corollary.facade import journaled
from corollary.facade.journal_entries import ENTRY_VERSION, MAGIC
from corollary.facade.operations import operations_of
from corollary.reasons.registry import DEFINED


@pytest.fixture(params=["sqlite", "memory"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TrustLedger]:
    made = open_ledger(tmp_path / "l.db") if request.param == "sqlite" else TrustLedger()
    yield made
    made.close()


def reopen(ledger: TrustLedger, now: float, **options: Any) -> BeliefBase:
    return BeliefBase.open_session(ledger, "s", clock=ManualClock(now), **options)


@rule(output="doubled", inputs={"x": "n"}, name="tests.journal.doubled")
def doubled(x: int) -> int:
    return 2 * x


@rule(output="broken", inputs={"x": "boom"}, name="tests.journal.broken")
def broken(x: int) -> int:
    raise ValueError("this rule always fails")


def test_every_kind_of_change_is_one_entry_and_a_fresh_open_replays_to_the_same_state(
        ledger: TrustLedger) -> None:
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "s", clock=clock)
    kb.assert_("a", 1, source="tool:one")
    clock.advance(1)
    kb.assert_many([("b", 2, "tool:one"), {"key": "c", "value": (3, "x"), "source": "tool:two"}])
    clock.advance(1)
    price = kb.call(journal_quote, None, "ACME")
    kb.claim("sum", 3, source="model:m", inputs={"x": "a", "y": "b"}, formula="x + y")
    kb.claim("guess", "big", source="model:m", inputs=["a"], certainty=0.7)
    kb.assert_("ceo", "Ann", source="tool:one")
    kb.assert_("ceo", "Bob", source="tool:two")
    kb.resolve("ceo", winner="Ann")
    ng = kb.nogood("a", ("b", 2))
    kb.record_outcome("tool:one", True, reason="audited", key="a")
    kb.add_rule(doubled)
    kb.assert_("n", 21, source="tool:one")
    clock.advance(1)
    kb.retract("guess", fault="source", reason="wrong")
    kb.remove_rule(doubled)
    ops = [h.operation for h in kb.history()]
    assert ops == ["assert_", "assert_many", "call", "claim", "claim", "assert_", "assert_",
                   "resolve", "nogood", "record_outcome", "add_rule", "assert_", "retract",
                   "remove_rule"]
    assert [h.seq for h in kb.history()] == list(range(1, 15))
    assert kb.journal_seq == 14
    fresh = reopen(ledger, clock(), rules=[doubled])
    assert state(fresh) == state(kb)
    assert fresh.value("quote:ACME") == price  # the tool's value was kept, not fetched again
    assert fresh.value("c") == (3, "x")  # a tuple stays a tuple
    assert fresh.conflicts() == kb.conflicts()
    assert ng in fresh.engine.nogoods
    assert [r.name for r in fresh.rules] == []
    assert len(fresh.calls("quote:ACME")) == 1


def test_replay_records_no_outcome_twice_and_event_ids_are_deterministic(
        ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("hq", "Austin", source="document:b")  # a confirmation: outcomes for both
    kb.assert_("n", 4, source="tool:a")
    kb.claim("x", 5, source="model:m", inputs={"a": "n"}, formula="a + 2")  # a wrong formula
    kb.record_outcome("tool:a", False, reason="audit")
    kb.retract("hq", fault="source")
    stored = sorted(o.event_id for o in ledger.outcomes())
    assert len(stored) >= 5
    fresh = reopen(ledger, 1000)
    recorded = record_on_replay(fresh)
    fresh.journal.reload()  # replay recording outcomes: all known
    assert sum(recorded) >= len(stored)  # the replay did record them (the store skipped them)
    assert sorted(o.event_id for o in ledger.outcomes()) == stored
    assert state(fresh) == state(kb)


def test_a_refused_change_writes_nothing(ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000), rules=[broken])
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("one", 1, source="tool:a")
    before = (kb.journal_seq, len(ledger.outcomes()), state(kb))
    with pytest.raises(InvalidInputError):
        kb.assert_("", 1, source="tool:a")
    with pytest.raises(UnknownBeliefError):
        kb.retract("nothing")
    with pytest.raises(InvalidInputError):
        kb.assert_("k", object(), source="tool:a")
    with pytest.raises(RuleError):  # fires a failing rule: undone whole, outcomes too
        kb.assert_("boom", 1, source="tool:a")
    with pytest.raises(RuleError):  # its formula check's outcome would be recorded with it
        kb.claim("boom", 3, source="model:m", inputs={"a": "one"}, formula="a + 2")
    assert (kb.journal_seq, len(ledger.outcomes()), state(kb)) == before
    assert len(kb.history()) == 2
    assert state(reopen(ledger, 1000, rules=[broken])) == before[2]


def test_history_as_of_and_three_changes_of_one_key(ledger: TrustLedger) -> None:
    clock = ManualClock(1000)
    kb = BeliefBase.open_session(ledger, "s", clock=clock)
    kb.assert_("hq", "Austin", source="tool:a")
    clock.advance(10)
    kb.assert_("other", 1, source="tool:a")
    kb.assert_("hq", "Dallas", source="tool:a")  # a source's new value replaces its old one
    clock.advance(10)
    kb.retract("hq", reason="moved out")
    found = kb.history("hq")
    assert [(h.seq, h.time, h.operation, h.value, h.label) for h in found] == [
        (1, 1000.0, "assert_", "Austin", "IN"), (3, 1010.0, "assert_", "Dallas", "IN"),
        (4, 1020.0, "retract", "Dallas", "OUT")]
    assert found[2].reason == "moved out" and found[0].source == "tool:a"
    assert 0 < found[0].confidence <= 1 and found[2].confidence == 0.0
    assert [h.seq for h in kb.history(since=1010)] == [2, 3, 4]
    assert kb.as_of(1005).value("hq") == "Austin"
    assert kb.as_of(1015).value("hq") == "Dallas"
    assert kb.as_of(1025).value("hq") is None
    assert kb.as_of(999).keys() == []
    past = kb.as_of(1005)
    assert [h.seq for h in past.history()] == [1]
    with pytest.raises(ReadOnlyBaseError):
        past.assert_("hq", "Paris", source="tool:a")
    with pytest.raises(ReadOnlyBaseError):
        past.retract("hq")
    assert kb.value("hq") is None  # the live base is untouched by its past


def test_watch_own_and_replayed_changes(ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    other = reopen(ledger, 1000)
    seen: list[tuple[str, Any, str | None, str | None, str]] = []
    everything: list[str] = []
    handle = kb.watch(lambda e: seen.append((e.key, e.value, e.before, e.after,
                                             e.entry.operation)), keys=["hq"])
    kb.watch(lambda e: everything.append(e.key))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("elsewhere", 1, source="tool:a")
    other.sync()
    other.retract("hq")
    assert seen == [("hq", "Austin", None, "IN", "assert_")]
    assert kb.sync() == 1
    assert seen[-1] == ("hq", "Austin", "IN", "OUT", "retract")
    assert everything == ["hq", "elsewhere", "hq"]
    handle.stop()
    assert not handle.active
    kb.assert_("hq", "Paris", source="tool:a")
    assert len(seen) == 2 and everything[-1] == "hq"
    with pytest.raises(InvalidTypeError):
        kb.watch("not callable")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        kb.watch(print, keys="hq")


def test_two_bases_take_turns_and_converge(ledger: TrustLedger) -> None:
    one = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    two = reopen(ledger, 1000)
    one.assert_("a", 1, source="tool:a")
    two.assert_("b", 2, source="tool:b")  # applies one's entry first
    assert two.value("a") == 1
    one.retract("a")  # applies two's entry first
    assert one.value("b") == 2
    two.sync()
    assert state(one) == state(two)
    assert [h.operation for h in one.history()] == ["assert_", "assert_", "retract"]


def test_checkpoints_are_written_by_themselves_and_opening_replays_the_tail(
        ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000), checkpoint_every=5)
    for i in range(12):
        kb.assert_(f"k{i}", i, source="tool:a")
    store: Any = ledger.store
    assert store.read_checkpoint("s")[0] == 10
    assert store.read_checkpoint("s", 7)[0] == 0  # the one at 5 was pruned when 10 was written
    assert store.read_checkpoint("s", 4)[0] == 0
    fresh = reopen(ledger, 1000)
    assert fresh.journal_seq == 12 and state(fresh) == state(kb)
    assert kb.checkpoint() == 12
    assert kb.as_of(1000).value("k3") == 3


def test_promises_are_journaled_as_snapshots(ledger: TrustLedger) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    s = rng.random(2000)
    examples = list(zip(s.tolist(), (rng.random(2000) < s).tolist(), strict=True))
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.guarantee("strict", examples, max_error=0.1)
    kb.answer("hq", "strict")
    fresh = reopen(ledger, 1000)
    assert set(fresh.promises) == {"strict"}
    assert fresh.verdicts.keys() == kb.verdicts.keys()
    kb.remove_guarantee("strict")
    fresh.sync()
    assert fresh.promises == {}
    assert [h.operation for h in kb.history()] == ["assert_", "guarantee", "answer",
                                                   "remove_guarantee"]


def test_a_whole_snapshot_session_converts_to_a_journal(ledger: TrustLedger) -> None:
    old = BeliefBase(ledger=ledger, clock=ManualClock(1000))
    old.assert_("hq", 4, source="tool:a")
    old.claim("len", 6, source="model:m", inputs={"a": "hq"}, formula="a + 2")
    assert old.save_session("s") == 1
    assert BeliefBase.convert_session(ledger, "s") == 0
    kb = reopen(ledger, 1000)
    assert state(kb) == state(old)
    kb.retract("hq")
    assert kb.value("len") is None
    loaded = BeliefBase.load_session(ledger, "s", clock=ManualClock(1000))  # the journal now
    assert loaded.value("hq") is None and loaded.session_id == "s"
    with pytest.raises(Exception, match="already has a journal"):
        BeliefBase.convert_session(ledger, "s")
    BeliefBase.convert_session(ledger, "s", overwrite=True)
    assert reopen(ledger, 1000).value("len") == 6


def test_rules_and_tools_replay_by_name(ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000), rules=[journal_total])
    kb.assert_("a", 1.5, source="tool:a")
    kb.assert_("b", 2.0, source="tool:a")
    kb.add_tool(journal_quote)
    assert kb.value("total") == 3.5
    fresh = reopen(ledger, 1000, rules=[journal_total])
    assert fresh.value("total") == 3.5 and "journal_quote" in fresh.tools
    assert state(fresh) == state(kb)


# -- bad input --------------------------------------------------------------------------------
def test_bad_arguments_to_open_session_are_typed(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    with pytest.raises(InvalidTypeError):
        BeliefBase.open_session("ledger.db", "s")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        BeliefBase.open_session(ledger, "")
    with pytest.raises(InvalidTypeError):
        BeliefBase.open_session(ledger, 7)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        BeliefBase.open_session(ledger, "s", clock=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        BeliefBase.open_session(ledger, "s", colour="blue")
    with pytest.raises(InvalidInputError):
        BeliefBase.open_session(ledger, "s", checkpoint_every=0)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    with pytest.raises(InvalidTypeError):
        kb.history(key=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        kb.as_of("yesterday")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        kb.assert_many(5)  # type: ignore[arg-type]
    assert kb.journal_seq == 0
    json_ledger = open_ledger(tmp_path / "l.json")
    with pytest.raises(JournalUnsupportedError):
        BeliefBase.open_session(json_ledger, "s")
    ledger.close()


def _write_entry(path: Path, raw: bytes) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE corollary_journal SET entry = ? WHERE seq = 2", (raw,))
    conn.commit()
    conn.close()


def _entry(path: Path) -> bytes:
    conn = sqlite3.connect(path)
    raw = conn.execute("SELECT entry FROM corollary_journal WHERE seq = 2").fetchone()[0]
    conn.close()
    return bytes(raw)


def test_damaged_and_future_entries_are_typed_errors(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
        kb.assert_("a", 1, source="tool:a")
        kb.assert_("b", 2, source="tool:a")
    good = _entry(path)
    flipped = 0
    for i in range(0, len(good), max(1, len(good) // 40)):
        for bit in (0, 3, 7):
            damaged = bytearray(good)
            damaged[i] ^= 1 << bit
            _write_entry(path, bytes(damaged))
            with open_ledger(path) as ledger, pytest.raises(JournalCorruptError):
                BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
            flipped += 1
    assert flipped > 60
    for raw in (b"\x00", b"not msgpack at all", msgpack.packb([MAGIC, 1, b"x", b"y"]),
                msgpack.packb({"op": "assert_"})):
        _write_entry(path, raw)
        with open_ledger(path) as ledger, pytest.raises(JournalCorruptError):
            BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    _, _, check, body = msgpack.unpackb(good)
    _write_entry(path, msgpack.packb([MAGIC, ENTRY_VERSION + 1, check, body]))
    with open_ledger(path) as ledger, pytest.raises(JournalVersionError):
        BeliefBase.open_session(ledger, "s", clock=ManualClock(0))
    _write_entry(path, good)
    with open_ledger(path) as ledger:
        assert BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).value("b") == 2


def test_a_change_whose_commit_fails_is_not_kept_and_the_base_rebuilds(tmp_path: Path) -> None:
    store = CommitFails(tmp_path / "l.db")
    ledger = TrustLedger(store=store)
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.assert_("hq", "Austin", source="tool:a")
    seen: list[str] = []
    kb.watch(lambda e: seen.append(f"{e.key}={e.value} {e.after}"))
    store.fail = True
    with pytest.raises(StoreError):
        kb.retract("hq", fault="source")
    assert kb.sync() == 0  # rebuilt from the journal: the retraction is not there
    assert kb.value("hq") == "Austin" and ledger.outcomes() == []
    kb.assert_("b", 1, source="tool:a")
    assert seen == ["b=1 IN"]  # the watcher survived the rebuild
    assert state(reopen(ledger, 1000)) == state(kb)
    ledger.close()


def test_async_tool_calls_are_journaled(ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    price = asyncio.run(kb.acall(journal_quote, None, "ACME"))
    assert reopen(ledger, 1000).value("quote:ACME") == price
    assert [h.operation for h in kb.history()] == ["call"]


def test_bases_in_two_threads_share_one_session(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    bases = [BeliefBase.open_session(ledger, "s", clock=ManualClock(1000)) for _ in range(2)]

    def work(me: int) -> None:
        for i in range(40):
            bases[me].assert_(f"k{me}:{i}", i, source=f"tool:t{me}")
            bases[me].assert_("shared", me, source=f"tool:t{me}")

    threads = [threading.Thread(target=work, args=(me,)) for me in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for kb in bases:
        kb.sync()
    assert bases[0].journal_seq == bases[1].journal_seq == 160
    assert state(bases[0]) == state(bases[1]) == state(reopen(ledger, 1000))
    ledger.close()


def test_an_entry_that_cannot_be_replayed_here_is_a_typed_error(tmp_path: Path) -> None:
    @rule(output="late", inputs={"x": "a"}, name="tests.journal.unregistered")
    def late(x: int) -> int:
        return x

    ledger = open_ledger(tmp_path / "l.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.add_rule(late)
    DEFINED.forget(late)  # a process that does not know the rule
    with pytest.raises(JournalReplayError, match="tests.journal.unregistered"):
        reopen(ledger, 1000)
    assert reopen(ledger, 1000, rules=[late]).rules == (late,)
    ledger.close()


def test_a_damaged_checkpoint_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with open_ledger(path) as ledger:
        BeliefBase.open_session(ledger, "s", clock=ManualClock(0)).assert_("a", 1, source="tool:a")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE corollary_checkpoint SET data = substr(data, 1, 40)")
    conn.commit()
    conn.close()
    with open_ledger(path) as ledger, pytest.raises(SnapshotError):
        BeliefBase.open_session(ledger, "s", clock=ManualClock(0))


#: Public methods of a base that change nothing a snapshot keeps (reads, and whole-base I/O).
QUERIES = {"at", "beliefs", "calibration_pairs", "calls", "confidence", "conflicts", "convert_session",
           "expired", "explain", "faded", "from_dict", "keys", "label", "load", "load_session",
           "now", "open_as_session", "open_session", "project", "recall", "refresh",
           "reliability", "replay", "save", "save_session", "sync", "timeline", "to_dict",
           "value", "what_to_check",
           "add_retriever",  # this process's recall configuration, as the embedder: no change
           # a session's journal, read (or checkpointed) through the base that has it
           "as_of", "checkpoint", "history", "watch"}


def test_every_public_method_is_journaled_or_a_query() -> None:
    """A new public change must be journaled (corollary.facade.journaled) or listed here."""
    public = {n for n in dir(BeliefBase) if not n.startswith("_")
              and callable(getattr(BeliefBase, n))}
    declared = {d.method for d in operations_of(BeliefBase).values()}
    # call, acall, remember and aremember make their change through _called and _remembered
    # (declared)
    journaled = ({m for m in declared if not m.startswith("_")}
                 | {"call", "acall", "remember", "aremember"})
    assert {"_called", "_remembered"} <= declared
    assert public - journaled - QUERIES == set()
    assert journaled <= public and not journaled & QUERIES


def test_many_writers_write_one_checkpoint_per_interval(ledger: TrustLedger,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journaled, "CHECKPOINTS_KEPT", 100)  # keep them all, to count them
    bases = [BeliefBase.open_session(ledger, "s", clock=ManualClock(1000), checkpoint_every=4)
             for _ in range(3)]
    for i in range(13):
        bases[i % 3].assert_(f"k{i}", i, source="tool:a")
    store: Any = ledger.store
    kept = {store.read_checkpoint("s", upto)[0] for upto in range(14)}
    assert kept == {0, 4, 8, 12}


def test_history_of_a_change_naming_many_keys(ledger: TrustLedger) -> None:
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.assert_many([("a", 1, "tool:x"), ("b", 2, "tool:y")])
    kb.nogood("a", "b")
    whole = kb.history()
    assert [(h.operation, h.key, h.keys) for h in whole] == [
        ("assert_many", None, ("a", "b")), ("nogood", None, ("a", "b"))]
    about_b = kb.history("b")
    assert [(h.operation, h.key, h.value, h.source, h.label) for h in about_b] == [
        ("assert_many", "b", 2, "tool:y", "IN"), ("nogood", "b", None, None, "IN")]
    assert kb.history("nothing") == []


def test_a_failing_watcher_under_warnings_as_errors_never_undoes_a_committed_change(
        ledger: TrustLedger) -> None:
    """Under ``-W error`` the warning about a failing watcher must not escape from a change
    that was committed (the caller would retry a change that was made)."""
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))

    def broken(event: Any) -> None:
        raise ValueError("watcher bug")

    kb.watch(broken)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kb.assert_("hq", "Austin", source="tool:a")  # returns: the change is made
    assert kb.value("hq") == "Austin"
    assert [h.operation for h in kb.history()] == ["assert_"]
    assert reopen(ledger, 1000).value("hq") == "Austin"

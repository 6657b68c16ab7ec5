"""Issue 35, item 2, in a journaled session: ``kb.forget`` rewrites the journal's past (entries
and checkpoints), keeps one entry saying that something was forgotten (when, by whom, nothing
of what), and every reader drops it: ``kb.history``, ``kb.as_of``, a process that followed the
session since before (after ``sync``), a process that reopens it, the CLI. Entries after the
forget replay as before (docs/journal.md, "Forgetting"). Before: no ``kb.forget``, and a
retracted conversation stayed readable in ``kb.history`` and every checkpoint."""

from __future__ import annotations

import contextlib
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.forget_workers import (
    FORGOTTEN,
    follow,
    open_session,
    readable,
    remember_pin,
    reopen,
    state,
)
from support.ledger_targets import PG_URL, Target

from corollary.facade.journal_entries import decode_entry

KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.skipif(
    not PG_URL, reason="COROLLARY_TEST_PG_URL is not set"))]


@pytest.fixture(params=KINDS)
def target(request: Any, tmp_path: Path) -> Any:
    made = Target(request.param, tmp_path)
    yield made
    made.cleanup()


def _write_before(kb: Any) -> str:
    doc = remember_pin(kb)
    kb.assert_("ann:city", "Paris", source="tool:crm")  # other support: stays
    kb.assert_many([("bob:x", 1, "tool:crm"), ("ann:pin_hint", "43..", "tool:crm")])
    kb.assert_("bob:y", 2, source="tool:crm")
    return doc


def _write_after(kb: Any) -> None:
    kb.assert_("bob:z", 3, source="tool:crm")
    kb.retract("bob:x")
    kb.assert_("ann:city", "Lyon", source="tool:crm")


def test_forget_erases_the_past_and_every_process_reads_the_same(target: Any) -> None:
    ctx = multiprocessing.get_context("spawn")
    kb = open_session(target.url, target.options, checkpoint_every=2)
    doc = _write_before(kb)
    assert any(w in readable(kb) for w in FORGOTTEN)
    opened, go, out = ctx.Queue(), ctx.Queue(), ctx.Queue()
    follower = ctx.Process(target=follow, args=(target.url, target.options, opened, go, out))
    follower.start()
    assert "ann:pin" in opened.get(timeout=120)  # it holds the PIN, read before the forget

    done = kb.forget(doc, by="human:dpo", reason="asked by the user")
    assert done.beliefs == 2 and done.kept == 1  # the document and the PIN; the city stays
    assert done.entries >= 1 and done.checkpoints >= 1
    _write_after(kb)

    mine = readable(kb)
    for word in (*FORGOTTEN, doc):
        assert word not in mine
    forget_rows = [h for h in kb.history() if h.operation == "forget"]
    assert [(h.key, h.value, h.source, h.reason) for h in forget_rows] == [
        (None, None, "human:dpo", "asked by the user")]
    assert (kb.value("ann:city"), kb.value("bob:z"), kb.label("bob:x")) == ("Lyon", 3, "OUT")

    go.put(True)
    followed, followed_text = out.get(timeout=120)
    follower.join(60)
    assert followed == state(kb)
    for word in (*FORGOTTEN, doc):
        assert word not in followed_text
    with ctx.Pool(1) as pool:
        reopened, reopened_text = pool.apply(reopen, (target.url, target.options))
    assert reopened == state(kb)
    for word in (*FORGOTTEN, doc):
        assert word not in reopened_text
    kb.ledger.close()


def test_the_forget_entry_says_nothing_of_what_and_later_entries_are_untouched(
        target: Any) -> None:
    kb = open_session(target.url, target.options)
    doc = _write_before(kb)
    store = kb.ledger.store
    kb.forget(doc)
    head = store.journal_head("s")
    _write_after(kb)
    later = store.journal_entries("s", head)
    kb.forget(scope="bob")  # a second forget rewrites the first one's state, not later entries
    entries = {seq: raw for seq, raw in store.journal_entries("s")}
    forget = decode_entry(head, entries[head])
    assert forget.op == "forget" and forget.args == () and forget.kwargs == {}
    assert forget.subjects == ((None, None, None, None),)
    for seq, raw in later:
        if b"bob:" not in raw:
            assert entries[seq] == raw
    for raw in entries.values():
        for word in (*FORGOTTEN, doc, "bob:"):
            assert word.encode() not in raw
    kb.ledger.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "corollary", *args], capture_output=True,
                          text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])


def test_the_cli_forgets_and_reads_none_of_it(tmp_path: Path) -> None:
    import json

    path = str(tmp_path / "l.db")
    kb = open_session(path, {})
    doc = _write_before(kb)
    kb.ledger.close()
    refused = _cli("forget", "--ledger", path, "--session", "s", "nope:key")
    assert refused.returncode == 1 and "nope:key" in refused.stderr
    done = _cli("forget", "--ledger", path, "--session", "s", doc, "--by", "human:dpo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["forgotten"]["beliefs"] == 2
    outputs = []
    for args in (["history", "--session", "s"], ["history", "--session", "s", "--json"],
                 ["beliefs", "--session", "s", "--json"],
                 ["explain", "--session", "s", "ann:city"]):
        done = _cli(*args, "--ledger", path)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert "forget" in outputs[0] and "human:dpo" in outputs[0] and "ann:city" in outputs[3]
    for text in outputs:
        for word in (*FORGOTTEN, doc):
            assert word not in text


def test_an_in_memory_session_forgets_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    from corollary import BeliefBase, ManualClock
    from corollary.facade import erasing
    from corollary.trust.ledger import TrustLedger

    monkeypatch.setattr(erasing, "CHUNK", 2)  # the journal read a few entries at a time

    ledger = TrustLedger()
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000.0), checkpoint_every=2)
    doc = _write_before(kb)
    kb.forget(doc)
    _write_after(kb)
    again = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000.0))
    assert state(again) == state(kb)
    store = ledger.store
    raws = [raw for _, raw in store.journal_entries("s")]
    found = store.read_checkpoint("s")
    while found is not None:
        raws.append(found[1])
        found = store.read_checkpoint("s", found[0] - 1) if found[0] else None
    for raw in raws:
        for word in (*FORGOTTEN, doc):
            assert word.encode() not in raw


# -- the property, journaled: a reopen reads what the live base reads, and what a base that was
# never told reads (labels and values; the ledger's counts are kept, docs/model.md)
_KEYS = ["a:x", "a:y", "b:x"]
_SOURCES = ["tool:one", "tool:two", "human:ann"]


def _rows() -> Any:
    from hypothesis import strategies as st

    return st.lists(st.tuples(st.sampled_from(_KEYS), st.integers(0, 2),
                              st.sampled_from(_SOURCES), st.booleans()), max_size=8)


def _apply(kb: Any, rows: list[tuple[str, int, str, bool]]) -> None:
    from corollary.foundations.errors import CorollaryError

    for key, value, source, retract in rows:
        if not retract:
            kb.assert_(key, value, source=source)
        elif key in kb.keys():
            with contextlib.suppress(CorollaryError):  # refused: nothing written, in both
                kb.retract(key, value, source=source)


def _held(kb: Any) -> dict[str, list[str]]:
    """The values each key holds (IN), through the public API."""
    found = {k: sorted(repr(b.value) for b in kb.engine.values_of(k)
                       if kb.confidence(k, b.value) > 0) for k in kb.keys()}
    return {k: v for k, v in found.items() if v}


def test_forgetting_in_a_session_reads_as_never_having_said_it(tmp_path: Path) -> None:
    import itertools

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from corollary import BeliefBase, ManualClock, open_ledger

    counter = itertools.count()

    @settings(max_examples=25, deadline=None)
    @given(before=_rows(), after=_rows(), what=st.sampled_from(
        [("source", s) for s in _SOURCES] + [("scope", "a")]))
    def check(before: Any, after: Any, what: tuple[str, str]) -> None:
        kind, name = what
        path = str(tmp_path / f"p{next(counter)}.db")
        ledger = open_ledger(path)
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000.0), checkpoint_every=3)
        _apply(kb, before)
        kb.forget(**{kind: name})
        _apply(kb, after)
        again = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000.0))
        assert _held(again) == _held(kb)
        said = (lambda r: r[2] == name) if kind == "source" else (lambda r: r[0].startswith("a:"))
        never = BeliefBase(clock=ManualClock(1000.0))
        _apply(never, [r for r in before if not said(r)] + after)
        assert _held(never) == _held(kb)
        again.ledger.close()
        ledger.close()

    check()


def test_a_forget_the_store_fails_changes_nothing(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from corollary.foundations.errors import StoreError

    path = str(tmp_path / "l.db")
    kb = open_session(path, {})
    doc = _write_before(kb)
    before, store = state(kb), kb.ledger.store
    entries = store.journal_entries("s")

    def fails(*args: Any, **kwargs: Any) -> None:
        raise StoreError("the disk is full; nothing was written")

    monkeypatch.setattr(store, "rewrite_journal", fails)
    with pytest.raises(StoreError):
        kb.forget(doc)
    assert state(kb) == before and store.journal_entries("s") == entries
    monkeypatch.undo()
    assert kb.forget(doc).beliefs == 2
    kb.ledger.close()


def test_the_cli_forgets_a_scope_in_a_snapshot_file(tmp_path: Path) -> None:
    from corollary import BeliefBase, ManualClock

    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("customer:42:email", "ann@example.org", source="tool:crm")
    kb.assert_("customer:7:email", "bob@example.org", source="tool:crm")
    kb.save(tmp_path / "base.json")
    done = _cli("forget", str(tmp_path / "base.json"), "--scope", "customer:42")
    assert done.returncode == 0, done.stderr
    assert "forgot 1 belief" in done.stdout
    assert b"ann@example.org" not in (tmp_path / "base.json").read_bytes()
    assert BeliefBase.load(tmp_path / "base.json").keys() == ["customer:7:email"]

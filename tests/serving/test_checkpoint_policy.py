"""When an open through the cache has a checkpoint written (docs/many-users.md, "Checkpoints";
corollary/serving/shards.py ``checkpoint_pays``): after an open that replayed entries at least
as large as the checkpoint it decoded, or 16 entries or more; not after a short tail of small
entries on a large session. Counted on SQLite and PostgreSQL (``postgres`` marker): the
checkpoints the store is asked to write, and the entries each open replays."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ledger_targets import PG_URL, Target

from corollary import BeliefBase, TrustLedger
from corollary.serving.shards import SessionCache

KINDS = ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])]


@pytest.fixture(params=KINDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    found = Target(request.param, tmp_path)
    yield found
    found.cleanup()


def count_checkpoints(ledger: TrustLedger) -> list[tuple[str, int]]:
    """The checkpoints the ledger's store writes from here on, ``(session, seq)`` in order (the
    store's own method, observed)."""
    store: Any = ledger.store
    written: list[tuple[str, int]] = []
    write = store.write_checkpoint

    def observed(session_id: str, seq: int, data: bytes) -> None:
        write(session_id, seq, data)
        written.append((session_id, seq))

    store.write_checkpoint = observed
    return written


def memory(i: int, version: int = 0) -> dict[str, Any]:
    return {"text": f"likes {i} v{version}", "kind": i % 5, "version": version}


def load(cache: SessionCache, session: str, n: int) -> None:
    """A user's ``n`` memories in one ``assert_many`` entry (how an application loads one)."""
    with cache.session(session) as kb:
        kb.assert_many([(f"m{i}", memory(i), "tool:app") for i in range(n)])
    cache.evict(session)


def visit(cache: SessionCache, session: str, puts: int, at: int) -> tuple[int, int]:
    """Open the session (not open in the cache), make ``puts`` puts, leave it evicted; the
    entries the open replayed, and the checkpoint it opened from."""
    with cache.session(session, sync=False) as kb:
        journal: Any = kb.journal
        replayed, opened_from = journal.seen - journal.cp_seq, journal.cp_seq
        for j in range(puts):
            kb.assert_(f"m{(at + j) % 7}", memory(j, at + 1), source="tool:app")
    assert cache.wait_checkpoints(60)
    cache.evict(session)
    return replayed, opened_from


def test_a_short_tail_as_large_as_the_checkpoint_is_replayed_once(target: Target) -> None:
    """A user loaded by one entry of 50 memories: the first open replays it (1 entry, larger
    than the empty first checkpoint) and has a checkpoint written at it; no later open
    replays it again. Before, only an open that replayed 16 entries did: every open replayed
    the load."""
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        load(cache, "u1", 50)
        written = count_checkpoints(ledger)
        replayed, opened_from = visit(cache, "u1", 0, 0)
        assert (replayed, opened_from) == (1, 0)  # the load, from the empty first checkpoint
        assert written == [("u1", 1)]  # one checkpoint, at the load
        opens = [visit(cache, "u1", 1, at) for at in range(1, 8)]
        assert opens[0] == (0, 1)  # from that checkpoint: nothing replayed
        assert all(opened_from >= 1 for _, opened_from in opens)  # the load never again
        assert [r for r, _ in opens] == list(range(7))  # each visit's put, small: replayed
        assert written == [("u1", 1)]  # seven puts weigh less than 50 memories: none written
        fresh = BeliefBase.open_session(ledger, "u1")
        assert fresh.value("m0") == memory(0, 8) and fresh.value("m49") == memory(49)
    finally:
        ledger.close()


def test_puts_outweighing_the_checkpoint_have_one_written(target: Target) -> None:
    """A user of 5 memories visited once a put: the puts' entries soon outweigh the small
    checkpoint, and the open that replays them has one written; the entries replayed by all
    the opens stay within a few visits' puts."""
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        load(cache, "u2", 5)
        visit(cache, "u2", 0, 0)  # the load checkpointed (as above)
        written = count_checkpoints(ledger)
        opens = [visit(cache, "u2", 1, at) for at in range(1, 21)]
        assert written, "no checkpoint in 20 visits"
        assert all(seq > 1 for _, seq in written)
        assert max(r for r, _ in opens) < 16  # never the journal's own rule (16 entries)
        assert sum(r for r, _ in opens) < sum(range(20)) // 2  # a growing tail would be 190
    finally:
        ledger.close()


def test_a_short_tail_of_small_entries_on_a_large_session_is_replayed_not_rewritten(
        target: Target) -> None:
    """Three puts after a checkpoint of 300 memories: each open replays them (a few small
    entries) rather than have the whole state written again."""
    ledger = target.open()
    try:
        cache = SessionCache(ledger)
        load(cache, "big", 300)
        visit(cache, "big", 0, 0)  # the load checkpointed
        written = count_checkpoints(ledger)
        assert visit(cache, "big", 3, 0) == (0, 1)  # three puts after it
        assert [visit(cache, "big", 0, 0) for _ in range(3)] == [(3, 1)] * 3
        assert written == []
    finally:
        ledger.close()


def test_a_checkpoint_pending_when_the_ledger_closes_is_given_up_quietly(
        target: Target) -> None:
    """The application closes the ledger while a checkpoint an open made due waits for its
    session: the writer gives it up without a warning (its journal holds every entry), and
    the session opens as it was from the next ledger."""
    ledger = target.open()
    cache = SessionCache(ledger)
    load(cache, "u3", 50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with cache.session("u3", sync=False) as kb:  # replays the load: one is due
            assert kb.journal.seen - kb.journal.cp_seq == 1  # type: ignore[union-attr]
            ledger.close()  # while the writer waits for the session
        assert cache.wait_checkpoints(60)
    assert [str(w.message) for w in caught] == []
    reopened = target.open()
    try:
        kb = BeliefBase.open_session(reopened, "u3")
        assert kb.journal.cp_seq == 0 and kb.value("m7") == memory(7)  # type: ignore[union-attr]
    finally:
        reopened.close()

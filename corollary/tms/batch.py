"""Changes taken back: batches of changes undone on failure, and what-if trials.

A :class:`Batch` notes what an all-or-nothing operation of the facade does (``assert_many``:
the keys it made, the prior state of the keys it changed, the numbering and count before it),
so that :func:`rollback` can undo it from any point: every key it touched is as
:func:`save_key` found it, what it made is gone, numbering resumes where it was, and memos are
recomputed on demand.

A :class:`Trial` (a what-if) renews premises (fresh at ``now``, so valid and at full freshness), settles
what a query reads with the engine's own sweep, and then puts everything back exactly as it
was: the premises, every memo the sweeps wrote (label, confidence, time stamp, why OUT, the
time-dependent set, the nogood losses), the dirty set, the touched keys a rule engine watches,
the expiry heap and the numbering. Nothing outside the engine is told (no ledger, no rule, no
hook), so a what-if answered this way is what the engine itself would answer, for every kind
of reason, exception, nogood and conflict policy.

The trial works on a settled start: :meth:`Engine.trial` first brings the targets' ancestry up
to ``now`` (an ordinary read), then swaps in an empty dirty set, a fresh set of touched keys
and an empty expiry heap. Since the ancestry is settled and no premise expires by ``now``,
what the trial marks is exactly what a real renewal would make stale there, and the sweeps
write only the memos the trial saves first (:meth:`Trial.keep`, called by the sweep).
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING, Any

from .records import Belief, Premise, record_is_timed, record_source, record_start, renewed

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine

__all__ = ["Batch", "Trial", "rollback", "save_key"]


class Batch:
    """What a batch of changes did, for :func:`rollback`: the keys it made, the prior
    state of the keys it changed, and the numbering and count before it."""

    __slots__ = ("next_seq", "count", "runs", "saved", "run")

    def __init__(self, next_seq: int, count: int) -> None:
        self.next_seq = next_seq
        self.count = count
        self.run = 0  # the length of the next run of new keys (0: row by row)
        # (rows, start, end): the rows whose new keys were made
        self.runs: list[tuple[list[tuple[Any, ...]], int, int]] = []
        self.saved: dict[str, tuple[Any, list[tuple[Belief, Any, str | None, Any]]]] = {}


def save_key(engine: Engine, batch: Batch, key: str) -> None:
    """Note the state of ``key``'s beliefs before ``batch`` first changes them."""
    if key in batch.saved or key not in engine.keys:
        return
    slot = engine.keys[key]
    beliefs = engine.values_of(key)
    batch.saved[key] = (dict(slot) if type(slot) is dict else slot,  # type: ignore[arg-type]
                        [(b, b.evidence, b.withdrawn, b.justs if type(b.justs) is tuple
                          else list(b.justs)) for b in beliefs])


def rollback(engine: Engine, batch: Batch) -> None:
    """Undo a batch of premise changes (new keys and values, renewed, replaced, dropped and
    withdrawn reasons): every key it touched is as :func:`save_key` found it, what it made is
    gone, and numbering resumes where it was. Memos are recomputed on demand."""
    keys = engine.keys
    for key, (slot, states) in batch.saved.items():
        kept = {b for b, *_ in states}
        for b in engine.values_of(key):
            if b not in kept:
                _drop_made(engine, b)
        keys[key] = dict(slot) if type(slot) is dict else slot  # type: ignore[arg-type]
        for b, evidence, withdrawn, justs in states:
            b.evidence = evidence
            b.withdrawn = withdrawn
            for j in justs:
                if j not in b.justs:
                    engine.link_justification(j)  # a reason withdrawn by the batch
            b.justs = tuple(justs) if type(justs) is tuple else list(justs)
            engine.reason_index.pop(b, None)  # rebuilt when next needed
            for r in b.records():
                engine.by_source.setdefault(record_source(r), []).append(b)  # a repeat is harmless
            engine.dirty.discard(b)
            engine.mark(b)
    made = batch.next_seq  # a belief numbered from here on was made by the batch
    for rows, start, end in batch.runs:
        for row in rows[start:end]:
            slot = keys.get(row[0])
            beliefs = ([] if slot is None else [slot] if type(slot) is Belief
                       else list(slot.values()))  # type: ignore[union-attr]
            if beliefs and all(b.seq >= made for b in beliefs):
                for b in beliefs:
                    _drop_made(engine, b)
                del keys[row[0]]
                engine.world_reads.pop(row[0], None)
    engine.count = batch.count
    engine.continue_numbering(batch.next_seq)
    # the expiries the batch pushed (numbered from its start): their numbers are reused now
    heap = engine.expiries
    if heap and any(e[1] >= made for e in heap):
        heap[:] = [e for e in heap if e[1] < made]
        heapq.heapify(heap)
    engine.next_expiry = heap[0][0] if heap else math.inf


def _drop_made(engine: Engine, b: Belief) -> None:
    """Forget a belief a rolled-back batch made (its list entries become stale).

    What it fed is marked first: exceptions naming its key or value, its rivals and nogood
    partners may have been recomputed with it during the batch."""
    engine.dirty.discard(b)
    engine.mark(b)
    for j in list(b.justs):
        engine.remove_justification(j)
    b.evidence = None
    engine.dirty.discard(b)
    engine.timed.discard(b)
    engine.nogood_losses.pop(b, None)


class Trial:
    """Premises renewed on the engine, and taken back exactly on :meth:`undo`.

    Made by :meth:`Engine.trial`, which undoes it when its ``with`` block ends.
    """

    __slots__ = ("engine", "now", "next_seq", "count", "dirty", "touched", "expiries",
                 "next_expiry", "evidence", "memo")

    def __init__(self, engine: Engine, now: float) -> None:
        # only reads here (and one number taken, as a batch takes one): an interrupt before
        # :meth:`begin` has changed nothing, and :meth:`undo` can put back a half-made begin
        self.engine = engine
        self.now = now
        self.next_seq = engine.next_number()
        self.count = engine.count
        self.dirty = engine.dirty
        self.touched = engine.touched
        self.expiries = engine.expiries
        self.next_expiry = engine.next_expiry
        # the evidence of each renewed belief, and the memo of each swept one, as they were
        self.evidence: dict[Belief, Any] = {}
        self.memo: dict[Belief, tuple[Any, float, float | None, Any, bool, Any]] = {}

    def begin(self) -> None:
        """Give the trial its own dirty set, touched keys and expiry heap."""
        engine = self.engine
        engine.dirty = set()
        if engine.touched is not None:
            engine.touched = set()
        engine.expiries = []  # no expiry is due by now: the heap is not read during a trial

    def renew(self, b: Belief, premise: Premise) -> None:
        """Make ``b``'s premise ``premise`` (one of its own) fresh and valid at ``now``: the
        same source, origin, half-life and ttl, asserted now, as a refresh renews it."""
        if b.record_from(premise.source) is None:
            raise ValueError(f"{b!r} has no premise from {premise.source!r} to renew")
        if b not in self.evidence:
            self.evidence[b] = b.evidence
        record = premise.record
        start = None  # the world's time stays
        if (not record_is_timed(record)
                and getattr(self.engine.conflict_policy, "mode", None) == "time"
                and record_start(record) < self.now):
            # as a real renewal does under a time policy (facade/assertions.put): the value
            # keeps the start it was first seen holding from (a re-read must not look newer)
            start = record_start(record)
        self.engine.set_premise(b, Premise.of(renewed(record, self.now, start)))

    def confidence(self, b: Belief) -> float:
        """``b``'s confidence at ``now`` with the premises renewed so far (0.0 when OUT)."""
        self.engine.sync(self.now, (b,))
        return b.conf if b.best is not None else 0.0

    def keep(self, region: set[Belief]) -> None:
        """Save the memos of ``region`` before a sweep writes them (the sweep calls this)."""
        memo = self.memo
        timed = self.engine.timed
        losses = self.engine.nogood_losses
        for b in region:
            if b not in memo:
                memo[b] = (b.best, b.conf, b.as_of, b.note, b in timed, losses.get(b))

    def reset(self) -> None:
        """Put back everything the trial changed, and go on with a new trial from there."""
        self.undo()  # the engine is as it was when the trial was made: the saved state holds
        self.begin()

    def undo(self) -> None:
        """Put back everything the trial changed (see the module docstring); run again after
        an interrupt, it puts back the same."""
        engine = self.engine
        for b, evidence in self.evidence.items():
            b.evidence = evidence
        timed = engine.timed
        losses = engine.nogood_losses
        for b, (best, conf, as_of, note, was_timed, loss) in self.memo.items():
            b.best = best
            b.conf = conf
            b.as_of = as_of
            b.note = note
            if was_timed:
                timed.add(b)
            else:
                timed.discard(b)
            if loss is None:
                losses.pop(b, None)
            else:
                losses[b] = loss
        engine.dirty = self.dirty
        engine.touched = self.touched
        engine.expiries = self.expiries
        engine.next_expiry = self.next_expiry
        engine.count = self.count
        engine.continue_numbering(self.next_seq)
        self.evidence = {}
        self.memo = {}

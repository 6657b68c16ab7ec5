"""Changes taken back: what-if trials on the engine itself.

A :class:`Trial` renews premises (fresh at ``now``, so valid and at full freshness), settles
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

import itertools
from typing import TYPE_CHECKING, Any

from .records import Belief, Premise

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine

__all__ = ["Trial"]


class Trial:
    """Premises renewed on the engine, and taken back exactly on :meth:`undo`.

    Made by :meth:`Engine.trial`, which undoes it when its ``with`` block ends.
    """

    __slots__ = ("engine", "now", "next_seq", "count", "dirty", "touched", "expiries",
                 "next_expiry", "evidence", "memo")

    def __init__(self, engine: Engine, now: float) -> None:
        self.engine = engine
        self.now = now
        self._begin()

    def _begin(self) -> None:
        engine = self.engine
        self.next_seq = engine.next_number()
        self.count = engine.count
        self.dirty = engine.dirty
        self.touched = engine.touched
        self.expiries = engine._expiries
        self.next_expiry = engine.next_expiry
        # the evidence of each renewed belief, and the memo of each swept one, as they were
        self.evidence: dict[Belief, Any] = {}
        self.memo: dict[Belief, tuple[Any, float, float | None, Any, bool, Any]] = {}
        engine.dirty = set()
        if engine.touched is not None:
            engine.touched = set()
        engine._expiries = []  # no expiry is due by now: the heap is not read during a trial

    def renew(self, b: Belief, premise: Premise) -> None:
        """Make ``b``'s premise ``premise`` (one of its own) fresh and valid at ``now``: the
        same source, origin, half-life and ttl, asserted now, as a refresh renews it."""
        if b.record_from(premise.source) is None:
            raise ValueError(f"{b!r} has no premise from {premise.source!r} to renew")
        if b not in self.evidence:
            self.evidence[b] = b.evidence
        self.engine.set_premise(b, Premise(premise.source, premise.origin, self.now,
                                           premise.half_life, premise.ttl))

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
        self.undo()
        self._begin()

    def undo(self) -> None:
        """Put back everything the trial changed (see the module docstring)."""
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
        engine._expiries = self.expiries
        engine.next_expiry = self.next_expiry
        engine.count = self.count
        engine._seq = itertools.count(self.next_seq)
        self.evidence = {}
        self.memo = {}

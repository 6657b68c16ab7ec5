"""The parts a :class:`~corollary.BeliefBase` is made of, owned by one object: :class:`Parts`.

A base is one class whose methods live in the facade's modules, one concept each (queries,
remember, snapshots, sessions...). What they share is not the base's private attributes but
this object, ``kb.parts``, whose attributes and methods are public to those modules (issue 36,
item 2: no module reads another object's underscore attributes). An agent calls the base's
methods; ``kb.parts`` is for the facade's own views (a world at a time, the journal, the undo
of a user's change, snapshots) and for tools that read the engine itself.

Its fields split in two, as a snapshot does (:attr:`Parts.STATE`): the base's *state*, which a
journaled session takes whole from a base rebuilt from its journal (:meth:`Parts.take_state`),
and what this process holds besides (the operation count and id that number outcome events,
the whole-session versions it saved, its operation log).

Examples
--------
>>> from corollary import BeliefBase, ManualClock
>>> kb = BeliefBase(clock=ManualClock(0))
>>> kb.assert_("hq", "Austin", source="tool:registry")
>>> parts = kb.parts
>>> "hq" in parts.engine.keys, parts.log is None, parts.ops
(True, True, 0)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from ..promises.book import PromiseBook
from ..reasons.calls import CallMemory
from ..reasons.rule_engine import RuleEngine
from ..tms import Engine, Justification
from ..tms.batch import Batch
from ..tms.conflicts import ConflictPolicy
from ..trust.ledger import TrustLedger
from ..trust.policy import TrustPolicy
from ..trust.view import TrustView
from .blame import Verdict, outcome_events
from .lookup import EngineSync, Lookup
from .operations import hook_failed

if TYPE_CHECKING:  # pragma: no cover
    from ..reasons.rules import Rule
    from ..retrieval.vectors import Embedder
    from .base import BeliefBase
    from .key_resolution import KeyIndex
    from .operations import OperationLog
    from .recall import Recaller

__all__ = ["Parts"]


class Parts:
    """The collaborators of one base, and the bookkeeping its changes share.

    Parameters
    ----------
    policy : TrustPolicy
        The base's priors and thresholds.
    ledger : TrustLedger
        Where reliability is learned.
    shared : bool
        Whether ``ledger`` was passed in (saved apart from the base's snapshots).
    clock : Clock
        POSIX seconds now.
    conflict_policy : ConflictPolicy or None
        How conflicts are settled.
    max_firings, max_seconds : int, float
        The rules' budget within one operation.
    embedder : callable or None
        ``texts -> 2-D array`` for recall, checked.
    """

    __slots__ = ("trust", "engine", "sync", "rules", "lookup", "promises", "calls",
                 "recaller", "embedder", "key_index", "hooks", "uid", "ops", "sessions", "log")

    #: The fields that are the base's state (a snapshot's parts, taken by :meth:`take_state`);
    #: the others (``uid``, ``ops``, ``sessions``, ``log``) are this process's.
    STATE: ClassVar[tuple[str, ...]] = ("trust", "engine", "sync", "rules", "lookup",
                                        "promises", "calls", "recaller", "embedder", "key_index",
                                        "hooks")

    def __init__(self, policy: TrustPolicy, ledger: TrustLedger, shared: bool,
                 clock: Callable[[], float], conflict_policy: ConflictPolicy | None,
                 max_firings: int, max_seconds: float, embedder: Embedder | None) -> None:
        #: sources' priors, the ledger and the tools' declarations
        self.trust = TrustView(policy, ledger, shared)
        #: the TMS: beliefs, reasons, labels
        self.engine = Engine(self.trust.reliability, policy.corroboration, conflict_policy)
        #: brings the engine up to the clock's time
        self.sync = EngineSync(clock, self.trust, self.engine)
        #: the rules, fired on what the engine holds
        self.rules = RuleEngine(self.engine, self.sync.beliefs, max_firings, max_seconds)
        #: the held values of keys, read at the clock's time
        self.lookup = Lookup(clock, self.trust, self.engine, self.rules, self.sync)
        #: promises (guarantees), their verdicts and the calibrator
        self.promises = PromiseBook()
        #: the tool calls whose results were asserted
        self.calls = CallMemory()
        #: made on the first recall (corollary.facade.recall)
        self.recaller: Recaller | None = None
        self.embedder = embedder
        #: the keys' index remember resolves names with, made on its first use
        #: (:mod:`corollary.facade.key_resolution`)
        self.key_index: KeyIndex | None = None
        #: whether anything runs after a change (rules, or a policy that watches changes):
        #: read on every change, so kept as a flag (:meth:`watch_changes`)
        self.hooks = False
        # outcome event ids derive from the base and its operation count, so that retrying an
        # operation whose outcomes may have been stored records nothing twice
        self.uid = uuid.uuid4().hex
        self.ops = 0
        #: the whole-session versions this base loaded or saved, by session id
        self.sessions: dict[str, int] = {}
        #: the operation log every declared change announces itself to (docs/extending.md):
        #: none on a plain base; a journaled session installs its journal
        self.log: OperationLog | None = None

    def take_state(self, other: Parts) -> None:
        """Take ``other``'s state (:attr:`STATE`) as this one's, the parts themselves, not
        copies: ``other`` is not used again."""
        for name in self.STATE:
            setattr(self, name, getattr(other, name))

    def watch_changes(self, conflict_policy: ConflictPolicy | None) -> None:
        """Note whether anything must run after a change (:attr:`hooks`)."""
        self.hooks = self.rules.active or (conflict_policy is not None
                                           and conflict_policy.watches_changes)

    def replaying(self) -> bool:
        """Whether the base's journal is replaying an entry (its outcomes are stored)."""
        return getattr(self.log, "replaying", False) is True

    def record(self, items: Sequence[Verdict], *, at: float | None = None,
               topic: str | None = None) -> None:
        """Record one operation's outcomes at once, before the operation changes the base: the
        ledger stores the batch in one transaction (all or nothing), so a failing store leaves
        both unchanged (event ids: :func:`corollary.facade.blame.outcome_events`)."""
        if not items:
            return
        if self.replaying():
            self.ops += 1  # committed with the entry: only the numbering moves on
            return
        self.trust.ledger.record_many(outcome_events(
            self.uid, self.ops, items, self.sync.now() if at is None else at, topic))
        self.ops += 1

    def noting(self, *keys: str) -> Batch | None:
        """With rules, a batch noting ``keys`` before the operation changes them, so that a
        rule failing after it undoes it (:meth:`after_change`); ``None`` without rules."""
        if not self.rules.active:
            return None
        engine = self.engine
        batch = self.rules.batch()
        for key in keys:
            if key in engine.keys:
                engine.save_key(batch, key)
            else:
                batch.runs.append(([(key,)], 0, 1))
        return batch

    def recorder(self, batch: Batch | None, items: Sequence[Verdict]
                 ) -> Callable[[], None] | None:
        """With a batch (rules), the operation's outcomes are recorded after its rules have
        fired, and a failing ledger undoes the change with them; without, they were recorded
        before the change."""
        if batch is None or not items:
            return None
        return lambda: self.record(items)

    def after_change(self, base: BeliefBase, extra_rules: Sequence[Rule] = (),
                     batch: Batch | None = None, made: Sequence[Justification] = (),
                     then: Callable[[], None] | None = None) -> None:
        """Fire the rules (undoing the change when they fail), then the base's conflict
        policy's ``after_change``, if it watches changes."""
        self.rules.settle(extra_rules, batch, made, then)
        policy = base.conflict_policy
        if policy is not None and policy.watches_changes:
            try:
                policy.after_change(base)
            except BaseException:
                hook_failed(base)  # the change is made: undone, not taken for a refusal
                raise

"""The :class:`BeliefBase`: what an agent runtime talks to.

A facade: it validates every input before touching anything, then delegates to the parts it
composes, and answers queries at the clock's current time.

- the TMS (:mod:`corollary.tms`) holds beliefs and reasons and labels them;
- the rule engine (:mod:`corollary.reasons.rule_engine`) fires rules on what the TMS holds;
- the trust view (:mod:`corollary.trust`) gives the TMS priors and learned reliabilities;
- the promises (:mod:`corollary.promises`) answer or abstain under statistical guarantees;
- proofs (:mod:`corollary.tms.proof`) and snapshots (:mod:`corollary.snapshot`) read the TMS
  through its public API and the state the base hands over.

Operations that record outcomes hand the ledger one batch, before anything changes, so an
operation and its outcomes are all or nothing.

This module holds the base's making, its parts, and the operations that change beliefs. What an
assertion means is :mod:`corollary.facade.assertions`, who is blamed :mod:`corollary.facade.blame`, settling
a conflict by a person :mod:`corollary.facade.resolving`. The rest of the base's methods come from its
parts, one concept each: queries (:mod:`corollary.facade.queries`), tool calls
(:mod:`corollary.facade.calling`), promises (:mod:`corollary.facade.promising`), snapshots
(:mod:`corollary.facade.saving`), nogoods and conflicts (:mod:`corollary.facade.resolving`) and
the doors to journaled sessions (:mod:`corollary.facade.opening`). Each changing method is
declared once with ``@operation`` (:mod:`corollary.facade.operations`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from ..foundations._collector import collector_paused
from ..foundations._validate import check_bool, check_int, check_number, plain_text
from ..foundations.clock import Clock, Duration, Instant, system_clock
from ..foundations.errors import (
    BlameError,
    InvalidInputError,
    InvalidTypeError,
    NameTakenError,
    UnknownBeliefError,
)
from ..foundations.values import check_key, check_text
from ..promises.book import PromiseBook
from ..reasons.calls import CallMemory
from ..reasons.claims import check_claim
from ..reasons.rule_engine import RuleEngine
from ..reasons.rules import Rule
from ..reasons.tools import ToolSpec, spec_of
from ..retrieval.vectors import check_embedder
from ..tms import Engine, Justification, make_items, premise_record, strata
from ..tms.batch import Batch
from ..tms.conflicts import ConflictPolicy
from ..tms.reading import EngineView
from ..trust.ledger import TrustLedger
from ..trust.policy import STEP_KINDS, TrustPolicy
from ..trust.view import TrustView
from .assertions import (
    assert_rows,
    check_assertion,
    check_certainty,
    check_rows,
    check_span,
    check_valid_time,
    confirmations,
    put,
)
from .base_operations import (
    claimed,
    keep_rows,
    keep_rule,
    keep_tool,
    named_rows,
    outcome_of,
    replay_add_rule,
    replay_add_tool,
    replay_remove_rule,
    retracted,
)
from .blame import FAULTS, Verdict, blame, outcome_events
from .calling import ToolCallMethods
from .depending import DependMethods
from .ending import EndMethods
from .forgetting import ForgetMethods
from .lookup import EngineSync, Lookup
from .opening import SessionMethods
from .operations import OperationLog, by_key, declare_overrides, hook_failed, operation
from .promising import PromiseMethods
from .queries import Faded, Held, QueryMethods
from .recall import Recaller
from .remembering import RememberMethods
from .resolving import ConflictMethods
from .saving import SnapshotMethods

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = ["BeliefBase", "Faded", "Held"]


class BeliefBase(QueryMethods, ToolCallMethods, PromiseMethods, SnapshotMethods,
                 RememberMethods, ConflictMethods, SessionMethods, ForgetMethods,
                 EndMethods, DependMethods):
    """Beliefs with their reasons, labels and confidences, kept right as evidence changes.

    Parameters
    ----------
    policy : TrustPolicy, optional
        Priors and thresholds.
    ledger : TrustLedger, optional
        Where reliability is learned. A ledger passed in is *shared*: it is saved apart from
        this base's snapshots. Without one the base makes its own and snapshots carry it.
    clock : callable, optional
        POSIX seconds now; :class:`corollary.ManualClock` for tests and simulations.
    conflict_policy : ConflictPolicy, optional
        How two held values of one key, and nogoods, are settled; ``None`` leaves conflicts
        open (:meth:`conflicts` lists them).
    tools : iterable of @tool functions
        Their declared trust, half-life, ttl and origin apply to premises from ``tool:<name>``.
    rules : iterable of @rule functions
        Fired whenever their inputs are held.
    learn_from_checks : bool
        Whether re-executed formulas and checked citations record outcomes for the model.
    max_rule_firings : int
        How many times rules may fire within one operation (an assertion, a query...) before
        :class:`~corollary.foundations.errors.RuleLimitError` says they do not settle.
    max_rule_seconds : float
        How many seconds of work rules may take within one operation before the same error
        (default 2). An operation whose rules fail is undone whole (docs/model.md).
    embedder : callable, optional
        ``texts -> 2-D array``: :meth:`recall` then fuses lexical and vector ranks (see
        :mod:`corollary.retrieval.vectors`). Not saved in snapshots: pass it again on load.

    Examples
    --------
    >>> from corollary import ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("hq", "Austin", source="tool:registry")
    >>> kb.assert_("hq", "Austin", source="document:10-K")
    >>> round(kb.confidence("hq"), 4)
    0.9959
    """

    def __init__(
        self,
        policy: TrustPolicy | None = None,
        ledger: TrustLedger | None = None,
        clock: Clock | None = None,
        conflict_policy: ConflictPolicy | None = None,
        tools: Iterable[Callable[..., Any]] = (),
        rules: Iterable[Rule] = (),
        learn_from_checks: bool = True,
        max_rule_firings: int = 10_000,
        max_rule_seconds: float = 2.0,
        embedder: Callable[[list[str]], Any] | None = None,
    ) -> None:
        #: the operation log every declared change announces itself to (docs/extending.md):
        #: none on a plain base; a journaled Session installs its journal
        self._oplog: OperationLog | None = None
        if policy is not None and not isinstance(policy, TrustPolicy):
            raise InvalidTypeError("policy must be a TrustPolicy")
        if ledger is not None and not isinstance(ledger, TrustLedger):
            raise InvalidTypeError("ledger must be a TrustLedger")
        if clock is not None and not callable(clock):
            raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
        if conflict_policy is not None and not isinstance(conflict_policy, ConflictPolicy):
            raise InvalidTypeError("conflict_policy must be a conflict policy or None")
        check_bool(learn_from_checks, "learn_from_checks")
        self.max_rule_firings = check_int(max_rule_firings, "max_rule_firings", low=1, high=2**62)
        self.max_rule_seconds = check_number(max_rule_seconds, "max_rule_seconds", finite=False,
                                             low=1e-6)
        self.policy = policy or TrustPolicy()
        self.clock: Clock = clock or system_clock
        self.conflict_policy = conflict_policy
        self.learn_from_checks = learn_from_checks
        shared = ledger is not None
        if ledger is None:
            ledger = TrustLedger(policy=self.policy, clock=self.clock)
        self._trust = TrustView(self.policy, ledger, shared)
        self._engine = Engine(self._trust.reliability, self.policy.corroboration,
                              conflict_policy)
        self._sync_engine = EngineSync(self.clock, self._trust, self._engine)
        self._rules = RuleEngine(self._engine, self._sync_engine.beliefs, self.max_rule_firings,
                                 self.max_rule_seconds)
        self._lookup = Lookup(self.clock, self._trust, self._engine, self._rules,
                              self._sync_engine)
        self._promises = PromiseBook()
        self._calls = CallMemory()
        # outcome event ids derive from this base and the operation count, so that retrying an
        # operation whose outcomes may have been stored records nothing twice
        self._uid = uuid.uuid4().hex
        self._ops = 0
        self._sessions: dict[str, int] = {}
        self._recaller: Recaller | None = None  # made on the first recall (corollary.facade.recall)
        self._embedder = check_embedder(embedder)
        self._hooks = False
        self._watch_changes()
        for t in tools:
            self.add_tool(t)
        for r in rules:
            self.add_rule(r)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declare_overrides(cls)  # an override of a changing method is the same operation

    # -- configuration and parts -----------------------------------------------------------
    @property
    def ledger(self) -> TrustLedger:
        """The trust ledger."""
        return self._trust.ledger

    @property
    def shared_ledger(self) -> bool:
        """Whether the ledger was passed in (and is saved apart from this base's snapshots)."""
        return self._trust.shared

    @property
    def engine(self) -> EngineView:
        """The TMS, for reading (tools, pictures, tests): a view whose changing methods warn
        (:class:`~corollary.tms.reading.EngineView`); change the base through its methods."""
        return EngineView(self._engine)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in the order they were added."""
        return self._rules.rules

    @property
    def tools(self) -> dict[str, ToolSpec]:
        """The tools' declarations, by name."""
        return dict(self._trust.tools)

    @operation(keep=keep_tool, replay=replay_add_tool)
    def add_tool(self, fn: Callable[..., Any]) -> None:
        """Apply a tool's declared trust, half-life, ttl and origin to its premises.

        A tool of a name this base holds with another declaration is refused
        (:class:`~corollary.foundations.errors.NameTakenError`); the same one again changes
        nothing.
        """
        spec = spec_of(fn)
        held = self._trust.tools.get(spec.name)
        if held is not None and held != spec:
            raise NameTakenError(f"this base has another tool named {spec.name!r} ({held}); "
                                 "give the new one another name")
        self._trust.add_tool(spec)
        self._engine.mark_source(spec.source)

    @operation(keep=keep_rule, replay=replay_add_rule)
    def add_rule(self, r: Rule) -> None:
        """Add a rule; it fires at once for inputs already held."""
        if not isinstance(r, Rule):
            raise InvalidTypeError("rules must be @rule functions")
        if self._rules.add(r):
            self._watch_changes()
            try:
                self._after_change(extra_rules=[r])
            except BaseException:
                # its firings are undone; so is adding it
                self._rules.remove(r)
                self._watch_changes()
                raise

    @operation(keep=keep_rule, replay=replay_remove_rule)
    def remove_rule(self, r: Rule) -> None:
        """Remove a rule and every justification it made (what rested only on them goes OUT)."""
        if not isinstance(r, Rule):
            raise InvalidTypeError("remove_rule takes a @rule function")
        if r not in self._rules:
            raise InvalidInputError(f"rule {r.name} is not in this base")
        self._rules.remove(r)
        self._engine.remove_rule_reasons(r.name)
        self._watch_changes()
        self._after_change()

    def _watch_changes(self) -> None:
        """Note whether anything must run after a change: rules, or a policy that watches
        changes (read on every change, so kept as a flag)."""
        policy = self.conflict_policy
        self._hooks = self._rules.active or (policy is not None and policy.watches_changes)

    def now(self) -> float:
        """The clock's current time."""
        return self._sync_engine.now()

    # -- trust and outcomes ----------------------------------------------------------------
    def reliability(self, source: str) -> float:
        """``source``'s learned reliability now (its prior until outcomes come in)."""
        source = plain_text(source)
        self._trust.check_source(source, "only sources have a reliability")
        self._trust.poll()
        return self._trust.reliability(source, self._sync_engine.outcomes())[0]

    @operation(subjects=outcome_of)
    def record_outcome(self, source: str, correct: bool, *, reason: str | None = None,
                       at: float | None = None, topic: str | None = None,
                       key: str | None = None) -> None:
        """Record your own ground truth about ``source`` (an audit, a ticket) in the ledger.

        With ``key``, the outcome keeps that belief's confidence now, for calibration. A call
        that raised (a store that failed) may be repeated: it never records twice.
        """
        source = plain_text(source)
        if self._trust.kind_of(source) in STEP_KINDS:
            raise BlameError(f"{source!r} is a reasoning step: outcomes belong to sources")
        conf = None
        if key is not None:
            key = check_key(key)
            conf = self._lookup.held_confidence(key)
        self._record([(source, correct, reason, key, conf)], at=at, topic=topic)

    def _record(self, items: Sequence[Verdict], *, at: float | None = None,
                topic: str | None = None) -> None:
        """Record one operation's outcomes at once, before the operation changes the base: the
        ledger stores the batch in one transaction (all or nothing), so a failing store leaves
        both unchanged (event ids: :func:`corollary.facade.blame.outcome_events`)."""
        if not items:
            return
        journal = self.journal
        if journal is not None and journal.replaying:
            self._ops += 1  # committed with the entry: only the numbering moves on
            return
        self.ledger.record_many(outcome_events(
            self._uid, self._ops, items, self.now() if at is None else at, topic))
        self._ops += 1

    # -- changes ---------------------------------------------------------------------------
    @operation(subjects=by_key)
    def assert_(self, key: str, value: Any, source: str, origin: str | None = None,
                half_life: Duration | None = None, ttl: Duration | None = None,
                certainty: float | None = None, *, valid_from: Instant | None = None,
                valid_until: Instant | None = None) -> None:
        """Assert ``key = value`` on the word of ``source``.

        A source repeating a value renews its premise in place; a source giving a new value
        for a key replaces its earlier premise on that key. An independent origin asserting a
        value another origin already holds records a right outcome for both.

        ``certainty`` (in (0, 1]) is how sure the source says it is of this one assertion (a
        model's own probability, a retriever's score): the premise's confidence is then the
        source's reliability times it, so never above what the source is trusted for
        (docs/model.md, "A stated certainty").

        ``valid_from`` / ``valid_until`` (POSIX seconds or aware datetimes) say when the fact
        holds in the world (default: from now, open-ended); ``kb.at(t)`` reads it at a time,
        and ``PreferNewer`` lets a later-starting value supersede it (docs/model.md, "Time
        and change").

        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> kb.assert_("capital:au", "Canberra", source="model:qwen", certainty=0.83)
        >>> round(kb.confidence("capital:au"), 3)            # 0.9 (a model's prior) x 0.83
        0.747
        """
        key, value, vid, source, origin, hl, tl = check_assertion(
            self._trust, key, value, source, origin, half_life, ttl)
        if certainty is not None:
            certainty = check_certainty(certainty)
        vf = vu = None
        if type(valid_from) is float and valid_until is None and valid_from - valid_from == 0.0:
            vf = valid_from  # a start in finite seconds: the common case, checked inline
        elif valid_from is not None or valid_until is not None:
            vf, vu = check_valid_time(valid_from, valid_until)
        now = self.clock()
        if type(now) is not float or now - now != 0.0:  # not a float, or NaN/inf: validate
            now = self.now()
        if vu is not None:
            check_span(vf, vu, now)
        engine = self._engine
        # with rules, the change is noted so that a rule failing undoes it (and its outcomes
        # are recorded after the rules, with it: all or nothing)
        batch = self._rules.batch() if self._rules.active else None
        items: list[Verdict] = []
        if key not in engine.keys:  # a new key: nothing to renew, replace or confirm
            if batch is not None:
                batch.runs.append(([(key,)], 0, 1))
            engine.add_premised(key, value, vid,
                                premise_record(source, origin, now, hl, tl, certainty, vf, vu))
        else:
            b = engine.find(key, vid)
            items = confirmations(self._lookup, b, key, value, source, origin, now)
            if batch is None:
                self._record(items)
            else:
                engine.save_key(batch, key)
            put(engine, b, key, value, vid, source, origin, hl, tl, now, certainty, vf, vu)
        if self._hooks:
            self._after_change(batch=batch, then=self._recorder(batch, items))

    @operation(subjects=named_rows, keep=keep_rows)
    def assert_many(self, rows: Iterable[Sequence[Any] | Mapping[str, Any]]) -> int:
        """Assert many rows at once, as repeated :meth:`assert_` would; return how many.

        A row holds :meth:`assert_`'s arguments: a tuple ``(key, value, source[, origin[,
        half_life[, ttl]]])`` or a dict with those names. Every row is checked before anything
        changes: a bad row raises the error :meth:`assert_` would, naming the row, and the base
        is left as it was. The rows then take effect in order, all at the clock's time now,
        with :meth:`assert_`'s meaning (renewals, replacements, a tool's declared half-life,
        ttl and origin), and the outcomes of confirmations are recorded as one ledger batch:
        if the ledger fails, no row takes effect. Written together, those outcomes keep the
        reliabilities of the batch's start in their confidences (one by one, a later
        confirmation would see the earlier ones' outcomes; see docs/model.md). With rules, or
        a policy that watches changes, the rows are asserted one by one (rules fire after each
        row, as after each :meth:`assert_`, each row with the rules' budget of its own); a
        rule failing on any row undoes every row, and the confirmations are recorded once all
        rows have fired.
        """
        if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
            raise InvalidTypeError("assert_many takes an iterable of rows (tuples or dicts)")
        with collector_paused():  # a bulk load allocates objects it keeps
            checked = check_rows(self._trust, rows)
            if not checked.rows:
                return 0
            if self._hooks:
                # a rule failing on any row undoes them all
                with self._rules.transaction() if self._rules.active else nullcontext():
                    for row in checked:
                        self.assert_(row.key, row.value, row.source, row.origin,  # noqa: UP005
                                     row.half_life, row.ttl, valid_from=row.valid_from,
                                     valid_until=row.valid_until)
                return len(checked)
            return assert_rows(self._engine, self._lookup, checked, self.now(), self._record)

    @operation(subjects=claimed)
    def claim(
        self,
        key: str,
        value: Any,
        source: str = "model:default",
        inputs: Sequence[str] | Mapping[str, str] = (),
        certainty: float | None = None,
        formula: str | None = None,
        citation: Any = None,
        *,
        unless: Sequence[str | tuple[str, Any]] = (),
        learn: bool | None = None,
        valid_from: Instant | None = None,
        valid_until: Instant | None = None,
    ) -> Any:
        """Record a model's claim ``key = value``, reasoned from the held ``inputs``.

        A ``formula`` over the inputs' names is re-executed: if it reproduces ``value`` the step
        is verified (``1.0 × certainty``), otherwise the re-executed value is believed instead
        and the model is wrong. A ``citation`` (document key and quote) is checked against the
        document's text. ``unless`` lists exceptions (keys, or ``(key, value)`` pairs): the
        claim holds only while none of them is held, and comes back by itself when they go.
        ``learn`` says whether the checks are outcomes of ``source`` for this claim (default
        ``None``: the base's ``learn_from_checks``). ``valid_from``/``valid_until`` (POSIX
        seconds or timezone-aware ``datetime``) say when the claimed value holds in the world:
        outside that interval the claim does not count, and under ``PreferNewer`` a claim with
        a ``valid_from`` is ordered in time as a premise with one is (docs/model.md, "Time and
        change"). Returns the value believed. See :mod:`corollary.reasons.claims`.
        """
        learn = self.learn_from_checks if learn is None else check_bool(learn, "learn")
        vf, vu = check_valid_time(valid_from, valid_until)
        source = plain_text(source)
        self._trust.check_source(source, "claims come from sources")
        exceptions = make_items(unless, "unless")
        checked = check_claim(key, value, source, inputs, certainty, formula, citation,
                              self._lookup.held_belief)
        strata.check_reason(self._engine, checked.key, checked.vid, checked.inputs, exceptions)
        items: list[Verdict] = []
        if learn and checked.checks:
            now = self._sync_engine.outcomes()
            rel, _ = self._trust.reliability(source, now)
            signal = rel * checked.certainty * min((b.conf for b in checked.inputs), default=1.0)
            items = [(source, ok, why, checked.key, signal) for ok, why in checked.checks]
        engine = self._engine
        batch = self._noting(checked.key)
        if batch is None:
            self._record(items)
        out = engine.belief(checked.key, checked.believed, checked.vid)
        if out.withdrawn is not None:  # a withdrawn value claimed afresh: its old evidence stays withdrawn
            engine.withdraw_reasons(out)
            engine.reinstate(out)
        info = checked.info
        if vf is not None or vu is not None:  # the claim's own valid time (kinds.VALID_TIME)
            info = {**info, **({} if vf is None else {"valid_from": vf}),
                    **({} if vu is None else {"valid_until": vu})}
        j = engine.add_justification(Justification(checked.kind, source, out, checked.inputs,
                                                   checked.certainty, info, exceptions))
        self._after_change(batch=batch, made=[j], then=self._recorder(batch, items))
        return checked.believed

    @operation(subjects=retracted)
    def retract(self, key: str, value: Any = None, reason: str | None = None,
                fault: str = "none", *, source: str | None = None) -> None:
        """Withdraw the held value of ``key`` (or ``value``), or one source's reasons for it.

        ``fault="source"`` says the value was wrong when given: every accountable source (the
        premise sources, or the model behind an unverified claim) gets a wrong outcome.
        ``fault="none"`` (the default) says the world changed, and records nothing.

        With ``source``, only that source's reasons are withdrawn: its premise, or the claims
        that model made for the value; the belief stays IN if other reasons hold it, and blame
        (``fault="source"``) falls on that source alone.
        """
        key = check_key(key)
        if type(fault) is not str or fault not in FAULTS:
            raise InvalidInputError(f"fault must be 'none' or 'source', got {fault!r}")
        if reason is not None:
            if not isinstance(reason, str):
                raise InvalidTypeError("reason must be a string")
            reason = check_text(plain_text(reason), "a reason")
        if source is not None:
            source = plain_text(source)
            self._trust.check_source(source, "only a source's reasons can be withdrawn")
        b = self._lookup.target(key, value)
        if value is None and self._oplog is not None:  # history names the value it took
            self._oplog.resolved("retracted", b.value)
        premise, claims = None, []
        if source is not None:
            premise = b.premise_from(source)
            claims = [j for j in b.justs if not j.kind.by_rule and j.name == source]
            if premise is None and not claims:
                raise UnknownBeliefError(f"{key} = {b.value!r} has no reason from {source}")
        items: list[Verdict] = []
        if fault == "source":
            blamed = blame(b, source, premise is not None, claims)
            conf = self._lookup.confidence_of(b)
            why = reason or f"{key} = {b.value!r} was wrong"
            items = [(s, False, why, key, conf) for s in blamed]
        batch = self._noting(key)
        if batch is None:
            self._record(items)
        if source is None:
            self._engine.withdraw(b, "retracted" + (f": {reason}" if reason else ""))
        else:
            if premise is not None:
                self._engine.drop_premise(b, source)
            for j in claims:
                self._engine.remove_justification(j)
        self._after_change(batch=batch, then=self._recorder(batch, items))

    def _noting(self, *keys: str) -> Batch | None:
        """With rules, a batch noting ``keys`` before the operation changes them, so that a
        rule failing after it undoes it (:meth:`_after_change`); ``None`` without rules."""
        if not self._rules.active:
            return None
        engine = self._engine
        batch = self._rules.batch()
        for key in keys:
            if key in engine.keys:
                engine.save_key(batch, key)
            else:
                batch.runs.append(([(key,)], 0, 1))
        return batch

    def _recorder(self, batch: Batch | None, items: Sequence[Verdict]
                  ) -> Callable[[], None] | None:
        """With a batch (rules), the operation's outcomes are recorded after its rules have
        fired, and a failing ledger undoes the change with them; without, they were recorded
        before the change."""
        if batch is None or not items:
            return None
        return lambda: self._record(items)

    def _after_change(self, extra_rules: Sequence[Rule] = (), batch: Batch | None = None,
                      made: Sequence[Justification] = (),
                      then: Callable[[], None] | None = None) -> None:
        self._rules.settle(extra_rules, batch, made, then)
        policy = self.conflict_policy
        if policy is not None and policy.watches_changes:
            try:
                policy.after_change(self)
            except BaseException:
                hook_failed(self)  # the change is made: undone, not taken for a refusal
                raise

    def __repr__(self) -> str:
        return f"<BeliefBase {len(self)} beliefs, {len(self._engine.keys)} keys>"

"""The :class:`BeliefBase`: what an agent runtime talks to.

A facade: it validates every input before touching anything, then delegates to the parts it
composes, and answers queries at the clock's current time.

- the TMS (:mod:`corollary.tms`) holds beliefs and reasons and labels them;
- the rule engine (:mod:`corollary.rule_engine`) fires rules on what the TMS holds;
- the trust view (:mod:`corollary.trust`) gives the TMS priors and learned reliabilities;
- the promises (:mod:`corollary.promises`) answer or abstain under statistical guarantees;
- proofs (:mod:`corollary.proof`) and snapshots (:mod:`corollary.snapshot`) read the TMS
  through its public API and the state the base hands over.

Operations that record outcomes hand the ledger one batch, before anything changes, so an
operation and its outcomes are all or nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import os
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ._collector import collector_paused
from ._validate import check_bool, check_int, check_unit, plain_text
from .assertions import check_assertion, check_rows
from .calls import CallMemory, Expired, PreparedCall, ToolCallRecord, expired, prepare_call
from .claims import check_claim
from .clock import Clock, Duration, system_clock
from .conflicts import Conflict, ConflictPolicy
from .errors import (
    AsyncToolError,
    BlameError,
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
)
from .ledger import TrustLedger
from .lookup import (
    EngineSync,
    Lookup,
    accountable,
    conflict_between,
    sources_of,
)
from .nogoods import conflict_of, describe_loss, give_up_target, make_nogood
from .policy import STEP_KINDS, TrustPolicy
from .promises import Answer, Promises, Replay, calibration_pairs
from .proof import Proof, build_proof
from .rule_engine import RuleEngine
from .rules import Rule
from .sensitivity import Check, what_to_check
from .snapshot import (
    BaseState,
    SnapshotPlan,
    read_file,
    read_session,
    read_snapshot,
    restore_engine,
    restore_ledger,
    save_session,
    state_to_dict,
    write_file,
)
from .tms import (
    IN,
    OUT,
    Belief,
    Engine,
    Justification,
    Premise,
    make_items,
    premise_record,
    strata,
)
from .tools import ToolSpec, is_async, spec_of
from .trust import TrustView
from .values import canon, check_key, check_text

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from .calibration import Platt
    from .guarantee import GroupedPromise, Promise

FAULTS = ("none", "source")

_KEEP: Any = object()
#: One outcome to record: ``(source, correct, reason, key, confidence)``.
_Verdict = tuple[str, bool, "str | None", "str | None", "float | None"]


@attrs.frozen(slots=True)
class Faded:
    """A held premise whose confidence has faded below a threshold."""

    key: str
    value: Any
    confidence: float
    sources: tuple[str, ...]


@attrs.frozen(slots=True)
class Held:
    """A held belief: key, value and confidence."""

    key: str
    value: Any
    confidence: float


class BeliefBase:
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
    conflicts : ConflictPolicy, optional
        How two held values of one key are settled; ``None`` leaves conflicts open.
    tools : iterable of @tool functions
        Their declared trust, half-life, ttl and origin apply to premises from ``tool:<name>``.
    rules : iterable of @rule functions
        Fired whenever their inputs are held.
    learn_from_checks : bool
        Whether re-executed formulas and checked citations record outcomes for the model.
    max_rule_firings : int
        How many times rules may fire within one operation (an assertion, a query...) before
        :class:`~corollary.errors.RuleLimitError` says they do not settle.

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
        conflicts: ConflictPolicy | None = None,
        tools: Iterable[Callable[..., Any]] = (),
        rules: Iterable[Rule] = (),
        learn_from_checks: bool = True,
        max_rule_firings: int = 10_000,
    ) -> None:
        if policy is not None and not isinstance(policy, TrustPolicy):
            raise InvalidTypeError("policy must be a TrustPolicy")
        if ledger is not None and not isinstance(ledger, TrustLedger):
            raise InvalidTypeError("ledger must be a TrustLedger")
        if clock is not None and not callable(clock):
            raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
        if conflicts is not None and not isinstance(conflicts, ConflictPolicy):
            raise InvalidTypeError("conflicts must be a conflict policy or None")
        check_bool(learn_from_checks, "learn_from_checks")
        self.max_rule_firings = check_int(max_rule_firings, "max_rule_firings", low=1, high=2**62)
        self.policy = policy or TrustPolicy()
        self.clock: Clock = clock or system_clock
        self.conflict_policy = conflicts
        self.learn_from_checks = learn_from_checks
        shared = ledger is not None
        if ledger is None:
            ledger = TrustLedger(policy=self.policy, clock=self.clock)
        self._trust = TrustView(self.policy, ledger, shared)
        self._engine = Engine(self._trust.reliability, self.policy.corroboration, conflicts)
        self._sync_engine = EngineSync(self.clock, self._trust, self._engine)
        self._rules = RuleEngine(self._engine, self._sync_engine.beliefs, self.max_rule_firings)
        self._lookup = Lookup(self.clock, self._trust, self._engine, self._rules,
                              self._sync_engine)
        self._promises = Promises()
        self._calls = CallMemory()
        # outcome event ids derive from this base and the operation count, so that retrying an
        # operation whose outcomes may have been stored records nothing twice
        self._uid = uuid.uuid4().hex
        self._ops = 0
        self._sessions: dict[str, int] = {}
        # whether anything must run after a change: rules, or a policy that watches changes
        self._hooks = conflicts is not None and conflicts.watches_changes
        for t in tools:
            self.add_tool(t)
        for r in rules:
            self.add_rule(r)

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
    def engine(self) -> Engine:
        """The TMS, for reading (tools, pictures, tests); change the base through its methods."""
        return self._engine

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in the order they were added."""
        return self._rules.rules

    @property
    def tools(self) -> dict[str, ToolSpec]:
        """The tools' declarations, by name."""
        return dict(self._trust.tools)

    @property
    def promises(self) -> dict[str, Promise | GroupedPromise]:
        """The attached promises, by name (see :meth:`guarantee`)."""
        return self._promises.promises

    @property
    def verdicts(self) -> dict[tuple[str, Any], dict[str, Any]]:
        """The verdict record of the last answer given for each belief, by ``(key, value
        identity)`` (:func:`corollary.values.canon` of the value)."""
        return dict(self._promises.verdicts)

    @property
    def calibrator(self) -> Platt | None:
        """The calibrator fitted by :meth:`fit_calibrator` (``None`` until then)."""
        return self._promises.calibrator

    def add_tool(self, fn: Callable[..., Any]) -> None:
        """Apply a tool's declared trust, half-life, ttl and origin to its premises."""
        spec = spec_of(fn)
        self._trust.add_tool(spec)
        self._engine.mark_source(spec.source)

    def add_rule(self, r: Rule) -> None:
        """Add a rule; it fires at once for inputs already held."""
        if not isinstance(r, Rule):
            raise InvalidTypeError("rules must be @rule functions")
        if self._rules.add(r):
            self._hooks = True
            self._after_change(extra_rules=[r])

    def remove_rule(self, r: Rule) -> None:
        """Remove a rule and every justification it made (what rested only on them goes OUT)."""
        if not isinstance(r, Rule):
            raise InvalidTypeError("remove_rule takes a @rule function")
        if r not in self._rules:
            raise InvalidInputError(f"rule {r.name} is not in this base")
        self._rules.remove(r)
        self._engine.remove_rule_reasons(r.name)
        self._hooks = self._rules.active or (
            self.conflict_policy is not None and self.conflict_policy.watches_changes)
        self._after_change()

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

    def record_outcome(self, source: str, correct: bool, reason: str | None = None, *,
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

    def _record(self, items: Sequence[_Verdict], *, at: float | None = None,
                topic: str | None = None) -> None:
        """Record one operation's outcomes at once, before the operation changes the base.

        The ledger stores the batch in one transaction (all or nothing), so a failing store
        leaves both unchanged. Event ids derive from this base, the operation's number and the
        outcome, so retrying an operation whose outcomes were stored (a store that committed,
        then failed to say so) stores nothing twice.
        """
        if not items:
            return
        when = self.now() if at is None else at
        op = self._ops
        batch = []
        for i, (source, correct, reason, key, conf) in enumerate(items):
            ident = repr((self._uid, op, i, source, correct, reason, key, topic))
            batch.append({
                "source": source, "correct": correct, "reason": reason, "at": when, "key": key,
                "topic": topic, "confidence": conf,
                "event_id": hashlib.blake2b(ident.encode(), digest_size=16).hexdigest(),
            })
        self.ledger.record_many(batch)
        self._ops = op + 1

    # -- changes ---------------------------------------------------------------------------
    def assert_(self, key: str, value: Any, source: str, origin: str | None = None,
                half_life: Duration | None = None, ttl: Duration | None = None) -> None:
        """Assert ``key = value`` on the word of ``source``.

        A source repeating a value renews its premise in place; a source giving a new value
        for a key replaces its earlier premise on that key. An independent origin asserting a
        value another origin already holds records a right outcome for both.
        """
        key, value, vid, source, origin, hl, tl = check_assertion(
            self._trust, key, value, source, origin, half_life, ttl)
        now = self.clock()
        if type(now) is not float or now - now != 0.0:  # not a float, or NaN/inf: validate
            now = self.now()
        engine = self._engine
        if key not in engine.keys:  # a new key: nothing to renew, replace or confirm
            engine.add_premised(key, value, vid, premise_record(source, origin, now, hl, tl))
        else:
            b = engine.find(key, vid)
            self._record(self._confirmations(b, key, value, source, origin, now))
            self._put(b, key, value, vid, source, origin, hl, tl, now)
        if self._hooks:
            self._after_change()

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
        row, as after each :meth:`assert_`) and a confirmation is recorded with its row.
        """
        if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
            raise InvalidTypeError("assert_many takes an iterable of rows (tuples or dicts)")
        with collector_paused():  # a bulk load allocates objects it keeps
            return self._assert_rows(*check_rows(self._trust, rows))

    def _assert_rows(self, checked: list[tuple[Any, ...]], uniform: bool) -> int:
        if not checked:
            return 0
        now = self.now()
        if self._hooks:
            for row in checked:
                if len(row) == 3:
                    self.assert_(*row)  # noqa: UP005 (our method)
                else:
                    key, value, _, source, origin, hl, tl = row
                    self.assert_(key, value, source, origin, hl, tl)  # noqa: UP005
            return len(checked)
        engine = self._engine
        batch = engine.begin_batch()
        verdicts: list[_Verdict] = []
        i = 0
        n = len(checked)
        try:
            while True:
                i = engine.add_premised_rows(checked, i, now, batch, uniform)
                if i == n:
                    break
                row = checked[i]
                key, value, vid, source, origin, hl, tl = (
                    row if len(row) == 7 else (row[0], row[1], row[1], row[2], row[2], None, None))
                b = engine.find(key, vid)
                verdicts.extend(self._confirmations(b, key, value, source, origin, now))
                engine.save_key(batch, key)
                self._put(b, key, value, vid, source, origin, hl, tl, now)
                i += 1
            self._record(verdicts)
        except BaseException:
            engine.rollback(batch)
            raise
        return n

    def _confirmations(self, b: Belief | None, key: str, value: Any, source: str, origin: str,
                       now: float) -> list[_Verdict]:
        """The outcomes asserting ``b`` from ``source`` and ``origin`` records: an independent
        origin confirming a held value is a right outcome for every source."""
        if b is None or b.withdrawn is not None or b.premise_from(source) is not None:
            return []
        confirmed = sorted({p.source for p in b.premises
                            if p.origin != origin and not p.expired(now)})
        if not confirmed or any(p.origin == origin for p in b.premises):
            return []
        conf = self._lookup.confidence_of(b)
        why = f"confirmed {key} = {value!r} from another origin"
        return [(s, True, why, key, conf) for s in [source, *confirmed]]

    def _put(self, b: Belief | None, key: str, value: Any, vid: Any, source: str, origin: str,
             hl: float | None, tl: float | None, now: float) -> None:
        """The change asserting a checked row on a known key makes."""
        engine = self._engine
        # a source's earlier premise on this key: renew it (same value) or replace it
        for other in engine.values_of(key):
            if other is not b and other.premise_from(source) is not None:
                engine.drop_premise(other, source)
                engine.forget_if_unused(other)
        if b is None:
            b = engine.belief(key, value, vid)
        if b.withdrawn is not None:  # a withdrawn value asserted afresh: its old evidence stays withdrawn
            engine.withdraw_reasons(b, keep_source=source)
            engine.reinstate(b)
        engine.set_premise(b, Premise(source, origin, now, hl, tl))

    def call(self, fn: Callable[..., Any], key: str | None, *args: Any, **kwargs: Any) -> Any:
        """Call a ``@tool`` and assert its result as ``key``; return the result.

        ``key=None`` uses the tool's key template (``@tool(key="price:{symbol}")``), else
        ``name(arg=value, ...)``. The call (tool and bound arguments, when they are plain data)
        is remembered with the premise it makes (:meth:`calls`), for a re-fetch. Arguments that
        do not fit the tool's signature raise ``InvalidTypeError`` before it runs; a tool that
        raises changes nothing. An ``async def`` tool raises
        :class:`~corollary.errors.AsyncToolError`: await :meth:`acall` instead.
        """
        call = prepare_call(fn, key, args, kwargs)
        if is_async(fn):
            raise AsyncToolError(f"{call.spec.name} is an async tool: use await kb.acall(...)")
        result = fn(*args, **kwargs)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()  # never awaited: close it so Python does not warn
            raise AsyncToolError(f"{call.spec.name} returned an awaitable, which is never "
                                 "asserted: use await kb.acall(...)")
        return self._called(fn, call, result)

    async def acall(self, fn: Callable[..., Any], key: str | None, *args: Any,
                    **kwargs: Any) -> Any:
        """:meth:`call` for ``async def`` tools: the result is awaited, then asserted. A plain
        tool runs in a worker thread (``asyncio.to_thread``), so it never blocks the event
        loop; the base itself is only touched from the caller's thread."""
        call = prepare_call(fn, key, args, kwargs)
        if is_async(fn):
            result = fn(*args, **kwargs)
        else:
            result = await asyncio.to_thread(fn, *args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return self._called(fn, call, result)

    def _called(self, fn: Callable[..., Any], call: PreparedCall, result: Any) -> Any:
        if call.spec.name not in self._trust.tools:
            canon(result)  # a result that cannot be a belief leaves the base as it was
            self.add_tool(fn)
        try:
            self.assert_(call.key, result, source=call.spec.source)  # noqa: UP005 (our method)
        finally:  # remembered whenever the premise stands (a rule that raised after it too)
            self._calls.remember(self._engine, call, result)
        return result

    def calls(self, key: str | None = None) -> list[ToolCallRecord]:
        """The tool calls remembered with the premises they made (of ``key`` only, if given),
        while those premises stand; see :mod:`corollary.calls`."""
        return self._calls.records(self._engine, None if key is None else check_key(key))

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
    ) -> Any:
        """Record a model's claim ``key = value``, reasoned from the held ``inputs``.

        A ``formula`` over the inputs' names is re-executed: if it reproduces ``value`` the step
        is verified (``1.0 × certainty``), otherwise the re-executed value is believed instead
        and the model is wrong. A ``citation`` (document key and quote) is checked against the
        document's text. ``unless`` lists exceptions (keys, or ``(key, value)`` pairs): the
        claim holds only while none of them is held, and comes back by itself when they go.
        Returns the value believed. See :mod:`corollary.claims`.
        """
        source = plain_text(source)
        self._trust.check_source(source, "claims come from sources")
        exceptions = make_items(unless, "unless")
        checked = check_claim(key, value, source, inputs, certainty, formula, citation,
                              self._lookup.held_belief)
        strata.check_reason(self._engine, checked.key, checked.vid, checked.inputs, exceptions)
        if self.learn_from_checks and checked.checks:
            now = self._sync_engine.outcomes()
            rel, _ = self._trust.reliability(source, now)
            signal = rel * checked.certainty * min((b.conf for b in checked.inputs), default=1.0)
            self._record([(source, ok, why, checked.key, signal) for ok, why in checked.checks])
        engine = self._engine
        out = engine.belief(checked.key, checked.believed, checked.vid)
        if out.withdrawn is not None:  # a withdrawn value claimed afresh: its old evidence stays withdrawn
            engine.withdraw_reasons(out)
            engine.reinstate(out)
        engine.add_justification(Justification(checked.kind, source, out, checked.inputs,
                                               checked.certainty, checked.info, exceptions))
        self._after_change()
        return checked.believed

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
        premise, claims = None, []
        if source is not None:
            premise = b.premise_from(source)
            claims = [j for j in b.justs if not j.kind.by_rule and j.name == source]
            if premise is None and not claims:
                raise UnknownBeliefError(f"{key} = {b.value!r} has no reason from {source}")
        if fault == "source":
            blamed = [source] if source is not None else sources_of(b)
            if source is not None and premise is None and not any(j.kind.accountable for j in claims):
                blamed = []  # only re-executed formulas by that model: never at fault
            if not blamed:
                steps = sorted({f"{j.kind.name} {j.name}" for j in (claims or b.justs)})
                raise BlameError(
                    f"{key} = {b.value!r} rests only on {', '.join(steps) or 'nothing'}: rules and "
                    "re-executed formulas are never at fault; retract the input that was wrong"
                )
            conf = self._lookup.confidence_of(b)
            why = reason or f"{key} = {b.value!r} was wrong"
            self._record([(s, False, why, key, conf) for s in blamed])
        if source is None:
            self._engine.withdraw(b, "retracted" + (f": {reason}" if reason else ""))
        else:
            if premise is not None:
                self._engine.drop_premise(b, source)
            for j in claims:
                self._engine.remove_justification(j)
        self._after_change()

    def nogood(self, *items: str | tuple[str, Any], name: str | None = None) -> str:
        """Say that ``items`` (keys, or ``(key, value)`` pairs) cannot all be held.

        While every item is held, the conflict policy settles it: a deciding policy gives up
        the least confident item (its proof names the nogood and the culprit premise); with
        no policy ``conflicts()`` lists it until :meth:`resolve` gives one up. Returns the
        nogood's name. See :mod:`corollary.nogoods`.
        """
        self._lookup.sync()
        ng = make_nogood(self._engine, items, name, len(self._engine.nogoods) + 1)
        self._engine.add_nogood(ng)
        self._after_change()
        return ng.name

    def conflicts(self) -> list[Conflict]:
        """Open conflicts: keys holding two or more values, and nogoods whose items are all
        held, that no policy has settled."""
        self._lookup.sync()
        found = []
        for key, values in self._engine.contested():
            held = [b for b in values if b.label is IN]
            if len(held) > 1:
                found.append(conflict_between(key, held))
        for ng, holders in self._engine.active_nogoods():
            found.append(conflict_of(self._engine, ng, holders, sources_of))
        return found

    def resolve(self, conflict: Conflict | str, winner: Any = None, learn: bool = True, *,
                give_up: Any = None) -> None:
        """Settle a conflict as a person would.

        For two values of a key: ``winner`` holds and the other values are rejected; with
        ``learn`` the winners' sources get right outcomes and the losers' wrong ones. For a
        nogood (its conflict, or its name): ``give_up`` (an item or a culprit premise, as a key
        or ``(key, value)``) is rejected; with ``learn`` its sources get a wrong outcome. Either
        resolution is final.
        """
        if not isinstance(learn, bool):
            raise InvalidTypeError("learn must be a bool")
        name = conflict.key if isinstance(conflict, Conflict) else plain_text(conflict)
        if (isinstance(conflict, Conflict) and conflict.nogood) or (
                isinstance(name, str) and name in self._engine.nogoods
                and not isinstance(conflict, Conflict)):
            self._resolve_nogood(name, give_up, learn)
            return
        if give_up is not None:
            raise InvalidInputError("give_up settles a nogood; for two values of a key pass winner")
        key = check_key(name)
        self._lookup.sync()
        win = self._engine.find(key, canon(winner))
        candidates = [b for b in self._engine.values_of(key)
                      if b.withdrawn is None and (b.label is IN or b.defeated_by is not None)]
        if win is None or win not in candidates:
            raise InvalidInputError(f"{winner!r} is not a standing value of {key!r}")
        losers = [b for b in candidates if b is not win]
        if learn:
            why = f"{key}: resolved for {winner!r} by a person"
            verdicts: list[_Verdict] = [
                (source, False, why, key, b.conf if b.label is IN else b.potential)
                for b in losers for source in sorted(accountable(b))]
            verdicts += [(source, True, why, key, win.conf) for source in sorted(accountable(win))]
            self._record(verdicts)
        for b in losers:
            self._engine.withdraw(b, f"rejected: {key} resolved for {winner!r}")
        self._after_change()

    def _resolve_nogood(self, name: str, give_up: Any, learn: bool) -> None:
        self._lookup.sync()
        active = {ng.name: (ng, holders) for ng, holders in self._engine.active_nogoods()}
        if name not in active:
            raise InvalidInputError(f"nogood {name!r} is not an open conflict (an item is OUT, "
                                    "or a policy settles it)")
        open_conflict = conflict_of(self._engine, *active[name], sources_of)
        b = give_up_target(self._engine, open_conflict, give_up)
        if learn:
            why = f"nogood {name}: {b.key} = {b.value!r} given up by a person"
            self._record([(s, False, why, b.key, b.conf) for s in sorted(accountable(b))])
        self._engine.withdraw(b, f"rejected: nogood {name} resolved by a person")
        self._after_change()

    def _after_change(self, extra_rules: Sequence[Rule] = ()) -> None:
        self._rules.settle(extra_rules)
        policy = self.conflict_policy
        if policy is not None and policy.watches_changes:
            policy.after_change(self)

    # -- queries ---------------------------------------------------------------------------
    def value(self, key: str) -> Any:
        """The value held for ``key``, or ``None`` if none is held.

        Raises ``UnknownBeliefError`` for a key never seen and ``AmbiguousValueError`` while a
        conflict over it is open.
        """
        b = self._lookup.current(key)
        if b is not None:
            return None if b.best is None else b.value
        b = self._lookup.one_held(key)
        return None if b is None else b.value

    def confidence(self, key: str, value: Any = None) -> float:
        """The confidence of the held value of ``key`` (or of ``value``) now; 0.0 when OUT."""
        b = self._lookup.current(key)
        if b is not None and (value is None or b.vid == canon(value)):
            return b.conf  # 0.0 when OUT
        if value is not None:
            return self._lookup.target(key, value).conf
        b = self._lookup.one_held(key)
        return 0.0 if b is None else b.conf

    def label(self, key: str, value: Any = None) -> str:
        """``"IN"`` if ``key`` (or ``key = value``) is held now, else ``"OUT"``."""
        b = self._lookup.current(key)
        if b is not None and (value is None or b.vid == canon(value)):
            return OUT if b.best is None else IN
        if value is not None:
            return self._lookup.target(key, value).label
        return IN if self._lookup.held(key) else OUT

    def beliefs(self, min_confidence: float | None = None) -> list[Held]:
        """Every held belief, optionally only those at or above ``min_confidence``."""
        floor = 0.0 if min_confidence is None else check_unit(min_confidence, "min_confidence")
        self._lookup.sync()
        return [Held(b.key, b.value, b.conf) for b in self._engine.beliefs()
                if b.label is IN and b.conf >= floor]

    def project(self) -> dict[str, Any]:
        """What a model should be shown: held values at or above ``policy.min_confidence``."""
        floor = self.policy.min_confidence
        return {h.key: h.value for h in self.beliefs() if h.confidence >= floor}

    def faded(self, threshold: float | None = None) -> list[Faded]:
        """Held premises whose evidence has faded below ``threshold`` (default: min_confidence)."""
        floor = self.policy.min_confidence if threshold is None else check_unit(threshold, "threshold")
        now = self._lookup.sync()
        found = []
        for b in self._engine.beliefs():
            if b.label is IN and b.premises:
                c, _, _ = self._engine.premise_confidence(b, now)
                if c is not None and c < floor:
                    valid = sorted(p.source for p in b.premises if not p.expired(now))
                    found.append(Faded(b.key, b.value, c, tuple(valid)))
        return found

    def expired(self) -> list[Expired]:
        """Premises whose ttl has passed, on beliefs not withdrawn: what to fetch again."""
        return expired(self._engine, self.now())

    def what_to_check(self, key: str, n: int | None = 5) -> list[Check]:
        """The stale premises under ``key``'s belief, ranked by how much refreshing each would
        raise its confidence now (``None``: all); see :mod:`corollary.sensitivity`."""
        held = self._lookup.one_held(key)
        root = held if held is not None else max(self._lookup.values(key), key=lambda b: b.seq)
        n = None if n is None else check_int(n, "n", low=1)
        return what_to_check(self._engine, root, self._lookup.catch_up(), n)

    def refresh(self) -> int:
        """Bring every label and confidence up to the clock's time now; return how many were stale.

        Queries do this lazily for what they read; call it to pay the cost up front (before a
        snapshot, say). The return value counts the beliefs that were recomputed.
        """
        now = self.now()
        self._trust.poll()
        self._sync_engine.outcomes(now)  # outcomes first: what rests on their sources is stale too
        stale = self._engine.stale(now)
        self._lookup.sync()
        return stale

    def keys(self) -> list[str]:
        """Every key the base has heard of."""
        return list(self._engine.keys)

    def __len__(self) -> int:
        return len(self._engine)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._engine.keys

    def explain(self, key: str, value: Any = None) -> Proof:
        """The proof of ``key`` (or ``key = value``): print it, or ``.to_dict()`` it."""
        if value is not None:
            roots = [self._lookup.target(key, value)]
        else:
            roots = self._lookup.values(key)
            held = [b for b in roots if b.label is IN]
            roots = held if held else sorted(roots, key=lambda b: -b.seq)[:1]
        now = self._lookup.sync()
        return build_proof(self._engine, roots[0] if len(roots) == 1 else roots, now,
                           self._trust.prior, self._promises.verdict_of,
                           lost=lambda b: describe_loss(self._engine, b, sources_of))

    # -- promises (corollary.promises) -----------------------------------------------------
    def calibration_pairs(self, source: str | None = None, topic: str | None = None
                          ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(confidences, correct)`` arrays from the ledger's outcomes that carry a
        confidence; see :func:`corollary.promises.calibration_pairs`."""
        return calibration_pairs(self.ledger, source, topic)

    def guarantee(self, name: str = "default", examples: Any = None, *,
                  max_error: float | None = None, max_risk: float | None = None,
                  method: str | None = None, delta: float | None = 0.1, min_support: int = 10,
                  weak: str = "raise", source: str | None = None, topic: str | None = None,
                  signal: str | Callable[[BeliefBase, str], float] | None = None,
                  groups: str | Callable[[BeliefBase, str], Any] | None = None,
                  answer: Any = None, correct: Callable[[Any, Any], bool] | None = None,
                  folds: int | None = None) -> Promise | GroupedPromise | None:
        """Attach a promise (``kb.guarantee(name, False)`` removes it); returns the promise.

        Calibrated on ``examples`` or on the base's own ``(confidence, correct)`` pairs, on the
        belief's confidence or another ``signal``, optionally per ``groups``, one-sided
        (``answer``), with a ``correct`` judge, cross-fitted (``folds``). See
        :meth:`corollary.promises.Promises.guarantee` and ``docs/guarantees.md``.
        """
        return self._promises.guarantee(
            self.ledger, name, examples, max_error=max_error, max_risk=max_risk, method=method,
            delta=delta, min_support=min_support, weak=weak, source=source, topic=topic,
            signal=signal, groups=groups, answer=answer, correct=correct, folds=folds)

    def remove_guarantee(self, name: str = "default") -> Promise | GroupedPromise | None:
        """Detach the promise ``name``; return it (``None`` if there was none)."""
        return self._promises.remove(name)

    def fit_calibrator(self, examples: Any = None, *, source: str | None = None,
                       topic: str | None = None) -> Platt:
        """Fit a Platt calibrator (``kb.calibrator``) on ``examples`` or the base's own pairs.

        See :meth:`corollary.promises.Promises.fit_calibrator`.
        """
        return self._promises.fit_calibrator(self.ledger, examples, source=source, topic=topic)

    def calibrate(self, examples: Any = None, *, source: str | None = None,
                  topic: str | None = None) -> Platt:
        """Deprecated name of :meth:`fit_calibrator` (a promise is :meth:`guarantee`)."""
        warnings.warn("kb.calibrate() fits a Platt calibrator and is now called "
                      "kb.fit_calibrator(); for a promise use kb.guarantee()",
                      DeprecationWarning, stacklevel=2)
        return self.fit_calibrator(examples, source=source, topic=topic)

    def answer(self, key: str, promise: str | None = "default", *, group: Any = None) -> Answer:
        """Answer ``key`` alone (``ok``) or abstain, under a promise; see
        :meth:`corollary.promises.Promises.answer`."""
        key = check_key(key)
        self._promises.check_request(promise, group)  # fails before the key is read
        held = self._lookup.held(key)
        return self._promises.answer(key, held, self.now(), conflict_between, promise, group=group,
                                     held_of=self._lookup.held, base=self)

    def replay(self, record: Any, *, live: bool = False) -> Replay:
        """Re-derive a verdict record against the current promise; see
        :meth:`corollary.promises.Promises.replay`."""
        return self._promises.replay(record, self._lookup.held, live=live, base=self)

    # -- snapshots (corollary.snapshot) ----------------------------------------------------
    def _state(self) -> BaseState:
        return BaseState(
            taken_at=self.now(), policy=self.policy, conflicts=self.conflict_policy,
            learn_from_checks=self.learn_from_checks, shared_ledger=self.shared_ledger,
            ledger=self.ledger, tools=sorted(self._trust.tools),
            rules=[r.name for r in self._rules.rules], fired=self._rules.fired,
            engine=self._engine, promises=self._promises, calls=self._calls)

    def to_dict(self) -> dict[str, Any]:
        """The whole base as plain data (schema-versioned); see :mod:`corollary.snapshot`."""
        return state_to_dict(self._state())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], ledger: TrustLedger | None = None,
                  clock: Clock | None = None, *, rules: Iterable[Rule] = (),
                  tools: Iterable[Callable[..., Any]] = (), conflicts: Any = _KEEP,
                  functions: Iterable[Callable[..., Any]] = (),
                  path: object = None) -> BeliefBase:
        """Rebuild a base from :meth:`to_dict` output, re-binding rules and tools by name, and
        the signal and group functions of promises from ``functions`` (by qualified name).

        The document is checked field by field first (:func:`corollary.snapshot.read_snapshot`);
        nothing is built from a document that fails.
        """
        if clock is not None and not callable(clock):
            raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
        with collector_paused():  # a restore allocates millions of objects and frees none
            options = {} if conflicts is _KEEP else {"conflicts": conflicts}
            plan = read_snapshot(data, path, ledger=ledger, rules=rules, tools=tools,
                                 functions=functions, **options)
            if plan.missing_ledger:
                warnings.warn("this snapshot was taken with a shared ledger; pass ledger= to "
                              "attach it (using an empty one)", stacklevel=2)
            return cls._from_plan(plan, clock)

    @classmethod
    def _from_plan(cls, plan: SnapshotPlan, clock: Clock | None) -> BeliefBase:
        """Build a base from a checked snapshot, through each part's explicit restore."""
        own = plan.own_ledger
        kb = cls(policy=plan.policy, ledger=restore_ledger(plan, clock), clock=clock,
                 conflicts=plan.conflicts, tools=plan.tools,
                 learn_from_checks=plan.learn_from_checks)
        kb._trust.shared = own is None and plan.ledger is not None
        beliefs = restore_engine(kb._engine, plan)
        for r in plan.rules:
            kb._rules.add(r)
            kb._hooks = True
        kb._rules.restore(plan.fired)
        kb._promises.restore(plan.promises, plan.bindings, plan.verdicts, plan.calibrator)
        kb._calls.restore((beliefs[i], source, arguments) for i, source, arguments in plan.calls)
        # rules and tools passed in that the snapshot did not use join the restored base
        for t in plan.extra_tools:
            kb.add_tool(t)
        for r in plan.extra_rules:
            kb.add_rule(r)
        if kb._engine.touched:
            kb._engine.touched.clear()
        return kb

    def save(self, path: str | os.PathLike[str], *, format: str | None = None) -> None:
        """Write a snapshot atomically (msgpack by default, JSON for ``.json``)."""
        write_file(self._state(), path, format=format)

    @classmethod
    def load(cls, path: str | os.PathLike[str], ledger: TrustLedger | None = None,
             clock: Clock | None = None, **options: Any) -> BeliefBase:
        """Read a snapshot written by :meth:`save`; a corrupt, truncated, foreign or newer file
        raises ``SnapshotError``."""
        return cls.from_dict(read_file(path), ledger=ledger, clock=clock, path=path, **options)

    def save_session(self, session_id: str, *, overwrite: bool = False) -> int:
        """Save a snapshot under ``session_id`` in the ledger's store (beside a shared ledger).

        Saves are versioned, so that two processes that load, change and save one session
        cannot silently lose a change: the save succeeds only if the stored session is the
        version this base loaded or last saved (or, for a base that never did either, if there
        is none yet). Otherwise it raises :class:`~corollary.errors.ConcurrentWriteError` and
        writes nothing: reload the session with :meth:`load_session` and reapply the change.
        ``overwrite=True`` replaces whatever is stored. Returns the session's new version.
        """
        check_bool(overwrite, "overwrite")
        expected = None if overwrite else self._sessions.get(session_id, 0)
        version = save_session(self._state(), self.ledger.store, session_id, expected)
        self._sessions[session_id] = version
        return version

    @classmethod
    def load_session(cls, ledger: TrustLedger, session_id: str, clock: Clock | None = None,
                     **options: Any) -> BeliefBase:
        """Resume the base saved under ``session_id`` in ``ledger``'s store, attached to it.

        The base remembers the version it loaded, for its next :meth:`save_session`.
        """
        if not isinstance(ledger, TrustLedger):
            raise InvalidTypeError("ledger must be a TrustLedger")
        data, version = read_session(ledger.store, session_id)
        kb = cls.from_dict(data, ledger=ledger, clock=clock, path=f"session {session_id!r}",
                           **options)
        kb._sessions[session_id] = version
        return kb

    def __repr__(self) -> str:
        return f"<BeliefBase {len(self)} beliefs, {len(self._engine.keys)} keys>"

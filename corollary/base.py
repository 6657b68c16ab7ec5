"""The :class:`BeliefBase`: what an agent runtime talks to.

It validates every input before touching anything, turns assertions, claims and retractions
into changes of the justification graph (:mod:`corollary.graph`), records outcomes in the trust
ledger, runs rules through hooks, and answers queries at the clock's current time.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import threading
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from . import citation as citations
from . import formula as formulas
from .clock import Clock, Duration, system_clock, to_seconds
from .confidence import self_consistency as _self_consistency
from .conflicts import AskHuman, Candidate, Conflict, ConflictPolicy, PreferSource
from .errors import (
    AmbiguousValueError,
    BlameError,
    CorollaryError,
    FormulaError,
    InvalidInputError,
    InvalidTypeError,
    RuleError,
    RuleLimitError,
    UnknownBeliefError,
)
from .graph import BY_CONFIDENCE, BY_RANK, IN, OPEN, OUT, Belief, Engine, Justification, Premise
from .ledger import TrustLedger
from .policy import STEP_KINDS, TrustPolicy, check_unit
from .rules import Rule
from .tools import ToolSpec, spec_of
from .values import canon, check_key, check_text

FAULTS = ("none", "source")


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


def self_consistency(agreeing: int, k: int) -> float:
    """Certainty from asking ``k`` times: ``(agreeing + 1) / (k + 1)``.

    ``agreeing`` of the ``k`` samples agree, the original included.

    >>> [round(self_consistency(a, 5), 2) for a in (5, 4, 3, 1)]
    [1.0, 0.83, 0.67, 0.33]
    """
    for name, n in (("agreeing", agreeing), ("k", k)):
        if isinstance(n, bool) or not isinstance(n, int):
            raise InvalidTypeError(f"{name} must be an integer")
    if k < 1 or not 1 <= agreeing <= k:
        raise InvalidInputError(f"need 1 <= agreeing <= k, got agreeing={agreeing}, k={k}")
    return _self_consistency(agreeing, k)


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
        if not isinstance(learn_from_checks, bool):
            raise InvalidTypeError("learn_from_checks must be a bool")
        if isinstance(max_rule_firings, bool) or not isinstance(max_rule_firings, int):
            raise InvalidTypeError("max_rule_firings must be an int")
        if not 1 <= max_rule_firings <= 2**62:
            raise InvalidInputError(f"max_rule_firings must be >= 1, got {max_rule_firings!r}")
        self.max_rule_firings = max_rule_firings
        self._firings_left = max_rule_firings
        # outcome event ids derive from this base and the operation count, so that retrying an
        # operation whose outcomes may have been stored records nothing twice
        self._uid = uuid.uuid4().hex
        self._ops = 0
        self.policy = policy or TrustPolicy()
        self.clock: Clock = clock or system_clock
        self.shared_ledger = ledger is not None
        self.ledger = ledger if ledger is not None else TrustLedger(policy=self.policy, clock=self.clock)
        self.conflict_policy = conflicts
        self.learn_from_checks = learn_from_checks
        self._tools: dict[str, ToolSpec] = {}
        self._rules: list[Rule] = []
        self._rules_by_key: dict[str, list[Rule]] = {}
        self._fired: dict[str, set[tuple[int, ...]]] = {}
        self._rule_last: dict[str, dict[str, set[int]]] = {}
        self._source_ok: dict[str, str] = {}
        self._priors: dict[str, float] = {}
        self._rel_cache: dict[str, tuple[float, float, bool]] = {}
        self._rule_time: float | None = None
        self._hooks = isinstance(conflicts, AskHuman)
        self._pending_sources: set[str] = set()
        self._pending_lock = threading.Lock()
        mode = OPEN
        rank = None
        if conflicts is not None and conflicts.mode == "confidence":
            mode = BY_CONFIDENCE
        elif isinstance(conflicts, PreferSource):
            mode = BY_RANK
            rank = self._rank
        self._engine = Engine(self._reliability, self.policy.corroboration, mode, rank)
        self._verdicts: dict[tuple[str, Any], Any] = {}
        self.promises: dict[str, Any] = {}
        for t in tools:
            self.add_tool(t)
        for r in rules:
            self.add_rule(r)
        self.ledger.subscribe(self._on_outcomes)

    # -- configuration ---------------------------------------------------------------------
    def add_tool(self, fn: Callable[..., Any]) -> None:
        """Apply a tool's declared trust, half-life, ttl and origin to its premises."""
        spec = spec_of(fn)
        prior = self.policy.prior(spec.source, spec.trust)  # an unknown trust level fails here
        if spec.trust is not None:
            self.ledger.declare_prior(spec.source, prior)  # so the ledger's own answers agree
        self._tools[spec.name] = spec
        self._priors.pop(spec.source, None)
        self._rel_cache.pop(spec.source, None)
        self._engine.mark_source(spec.source)

    def add_rule(self, r: Rule) -> None:
        """Add a rule; it fires at once for inputs already held."""
        if not isinstance(r, Rule):
            raise InvalidTypeError("rules must be @rule functions")
        if r in self._rules:
            return
        self._rules.append(r)
        self._engine.track_touched = True
        self._hooks = True
        for key in set(r.inputs):
            self._rules_by_key.setdefault(key, []).append(r)
        self._fired.setdefault(r.name, set())
        self._after_change(extra_rules=[r])

    @property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(self._rules)

    @property
    def tools(self) -> dict[str, ToolSpec]:
        return dict(self._tools)

    def now(self) -> float:
        """The clock's current time."""
        t = self.clock()
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
            raise InvalidInputError(f"the clock returned {t!r}, not finite POSIX seconds")
        return float(t)

    # -- trust -----------------------------------------------------------------------------
    def _source(self, source: object) -> str:
        kind = self._source_ok.get(source) if isinstance(source, str) else None
        if kind is None:
            kind = self.policy.kind_of(source)  # type: ignore[arg-type]
            self._source_ok[source] = kind  # type: ignore[index]
        return kind

    def _prior(self, source: str) -> float:
        prior = self._priors.get(source)
        if prior is None:
            kind, _, name = source.partition(":")
            spec = self._tools.get(name) if kind == "tool" else None
            prior = self.policy.prior(source, spec.trust if spec is not None else None)
            self._priors[source] = prior
        return prior

    def _reliability(self, source: str, now: float) -> tuple[float, bool]:
        cached = self._rel_cache.get(source)
        if cached is not None and (not cached[2] or cached[0] == now):
            return cached[1], cached[2]
        value = self.ledger.reliability(source, at=now, prior=self._prior(source))
        timed = self.ledger.is_time_dependent(source)
        self._rel_cache[source] = (now, value, timed)
        return value, timed

    def _on_outcomes(self, sources: set[str]) -> None:
        # The ledger may call from another thread (a base sharing it): only queue the sources,
        # and apply them at this base's next evaluation, in this base's own thread.
        with self._pending_lock:
            self._pending_sources.update(sources)

    def _apply_outcomes(self) -> None:
        with self._pending_lock:
            sources, self._pending_sources = self._pending_sources, set()
        for source in sources:
            self._rel_cache.pop(source, None)
            self._engine.mark_source(source)

    def _engine_sync(self, now: float, targets: Iterable[Belief] | None) -> None:
        if self._pending_sources:
            self._apply_outcomes()
        self._engine.sync(now, targets)

    def reliability(self, source: str) -> float:
        """``source``'s learned reliability now (its prior until outcomes come in)."""
        source = _text(source)
        self._source(source)
        if source.partition(":")[0] in STEP_KINDS:
            raise InvalidInputError(f"{source!r} is a reasoning step, not a source")
        self.ledger.poll()
        if self._pending_sources:
            self._apply_outcomes()
        return self._reliability(source, self.now())[0]

    def record_outcome(self, source: str, correct: bool, reason: str | None = None, *,
                       at: float | None = None, topic: str | None = None,
                       key: str | None = None) -> None:
        """Record your own ground truth about ``source`` (an audit, a ticket) in the ledger.

        With ``key``, the outcome keeps that belief's confidence now, for calibration. A call
        that raised (a store that failed) may be repeated: it never records twice.
        """
        source = _text(source)
        kind = self._source(source)
        if kind in STEP_KINDS:
            raise BlameError(f"{source!r} is a reasoning step: outcomes belong to sources")
        conf = None
        if key is not None:
            key = check_key(key)
            conf = self._held_confidence(key)
        self._record([(source, correct, reason, key, conf)], at=at, topic=topic)

    def _record(self, items: Sequence[tuple[str, bool, str | None, str | None, float | None]],
                *, at: float | None = None, topic: str | None = None) -> None:
        """Record one operation's outcomes ``(source, correct, reason, key, confidence)`` at once.

        The ledger stores the batch in one transaction (all or nothing), before the operation
        changes the base, so a failing store leaves both unchanged. Event ids derive from this
        base, the operation's number and the outcome, so retrying an operation whose outcomes
        were stored (a store that committed, then failed to say so) stores nothing twice.
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

    # -- assertions ------------------------------------------------------------------------
    def assert_(self, key: str, value: Any, source: str, origin: str | None = None,
                half_life: Duration | None = None, ttl: Duration | None = None) -> None:
        """Assert ``key = value`` on the word of ``source``.

        A source repeating a value renews its premise in place; a source giving a new value
        for a key replaces its earlier premise on that key. An independent origin asserting a
        value another origin already holds records a right outcome for both.
        """
        if type(key) is not str or not key or key.isspace() or not key.isascii():
            key = check_key(key)
        vid = value if type(value) is str and value.isascii() else canon(value)
        kind = self._source_ok.get(source) if type(source) is str else None
        if kind is None:
            source = _text(source)
            kind = self._source(source)
        if kind in STEP_KINDS:
            raise InvalidInputError(f"{source!r} is a reasoning step: rules derive, they don't assert")
        spec = self._tools.get(source[5:]) if kind == "tool" and self._tools else None
        if origin is None:
            origin = spec.origin if spec is not None and spec.origin else source
        elif not isinstance(origin, str) or not origin:
            raise InvalidInputError(f"origin must be a non-empty string, got {origin!r}")
        else:
            origin = check_text(_text(origin), "origin")
        hl = None if half_life is None else _positive(half_life, "half_life")
        tl = None if ttl is None else _positive(ttl, "ttl")
        if spec is not None:
            hl = spec.half_life if hl is None else hl
            tl = spec.ttl if tl is None else tl
        now = self.clock()
        if type(now) is not float or now - now != 0.0:  # not a float, or NaN/inf: validate
            now = self.now()
        engine = self._engine
        if key not in engine.keys:  # a new key: nothing to renew, replace or confirm
            engine.set_premise(engine.belief(key, value, vid), Premise(source, origin, now, hl, tl))
            if self._hooks:
                self._after_change()
            return
        b = engine.find(key, vid)
        if b is not None and b.blocked is None and b.premise_from(source) is None:
            # an independent origin confirming a held value: a right outcome for every source
            # (recorded first: if the ledger fails, the base is left as it was)
            confirmed = sorted({p.source for p in b.premises
                                if p.origin != origin and not p.expired(now)})
            if confirmed and not any(p.origin == origin for p in b.premises):
                conf = self._held_confidence_of(b)
                why = f"confirmed {key} = {value!r} from another origin"
                self._record([(s, True, why, key, conf) for s in [source, *confirmed]])
        # a source's earlier premise on this key: renew it (same value) or replace it
        for other in engine.values_of(key):
            if other is not b and other.premise_from(source) is not None:
                engine.drop_premise(other, source)
                engine.forget_if_unused(other)
        if b is None:
            b = engine.belief(key, value, vid)
        if b.blocked is not None:  # a withdrawn value asserted afresh: its old evidence stays withdrawn
            for p in b.premises:
                if p.source != source:
                    engine.drop_premise(b, p.source)
            engine.unblock(b)
        engine.set_premise(b, Premise(source, origin, now, hl, tl))
        if self._hooks:
            self._after_change()

    def call(self, fn: Callable[..., Any], key: str, *args: Any, **kwargs: Any) -> Any:
        """Call a ``@tool`` and assert its result as ``key``; return the result."""
        spec = spec_of(fn)
        if spec.name not in self._tools:
            self.add_tool(fn)
        result = fn(*args, **kwargs)
        self.assert_(key, result, source=spec.source)  # noqa: UP005 (our method, not unittest)
        return result

    def claim(
        self,
        key: str,
        value: Any,
        source: str = "model:default",
        inputs: Sequence[str] | Mapping[str, str] = (),
        certainty: float | None = None,
        formula: str | None = None,
        citation: Any = None,
    ) -> Any:
        """Record a model's claim ``key = value``, reasoned from the held ``inputs``.

        A ``formula`` over the inputs' names is re-executed: if it reproduces ``value`` the step
        is verified (``1.0 × certainty``), otherwise the re-executed value is believed instead
        and the model is wrong. A ``citation`` (document key and quote) is checked against the
        document's text. Returns the value believed.
        """
        key = check_key(key)
        canon(value)
        source = _text(source)
        kind = self._source(source)
        if kind in STEP_KINDS:
            raise InvalidInputError(f"{source!r} is a reasoning step; claims come from sources")
        cert = 1.0 if certainty is None else check_unit("certainty", certainty)
        if isinstance(inputs, Mapping):
            named = dict(inputs)
        elif isinstance(inputs, (list, tuple)):
            named = {check_key(k): k for k in inputs}
        else:
            raise InvalidTypeError("inputs must be a list of keys or a dict name -> key")
        for name in named:
            if not isinstance(name, str) or not name:
                raise InvalidInputError(f"input names must be non-empty strings, got {name!r}")
        named = {check_text(_text(name), "an input name"): check_key(k) for name, k in named.items()}
        cited = citations.Citation.coerce(citation) if citation is not None else None
        if cited is not None:
            check_text(cited.quote, "a quote")
        nodes = {name: self._held_belief(k, "input") for name, k in named.items()}
        doc_node = self._held_belief(cited.document, "cited document") if cited else None
        if formula is not None:
            if not isinstance(formula, str):
                raise InvalidTypeError("formula must be a string")
            formula = _text(formula)
            missing = formulas.names(formula) - set(nodes)
            if missing:
                raise FormulaError(f"formula reads {sorted(missing)}, which are not among the inputs")
            variables = {n: nodes[n].value for n in formulas.names(formula)}
            for n, v in variables.items():
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise FormulaError(f"input {n!r} holds {v!r}, not a number")
            computed = formulas.evaluate(formula, variables)
            stated_ok = not isinstance(value, bool) and isinstance(value, (int, float))
            reproduced = stated_ok and math.isclose(computed, value, rel_tol=1e-9, abs_tol=1e-9)
        if cited is not None:
            if not isinstance(doc_node.value, str):  # type: ignore[union-attr]
                raise InvalidTypeError(f"cited document {cited.document!r} does not hold text")
            found = citations.check_quote(doc_node.value, cited.quote).found  # type: ignore[union-attr]
        believed = value if formula is None or reproduced else computed
        believed_vid = canon(believed)  # a re-executed value must be a valid value too
        # everything is valid: change the base
        now = self.now()
        input_nodes = tuple(nodes.values())
        all_inputs = input_nodes + ((doc_node,) if doc_node is not None and doc_node not in input_nodes else ())
        if self._pending_sources:
            self._apply_outcomes()
        rel, _ = self._reliability(source, now)
        signal = rel * cert * min((b.conf for b in all_inputs), default=1.0)
        info: dict[str, Any] = {"names": list(nodes), "certainty": cert, "model": source}
        checks: list[tuple[str, bool, str | None, str | None, float | None]] = []
        if formula is not None:
            info.update(formula=formula, stated=value, computed=computed, reproduced=reproduced)
            verdict = "reproduced" if reproduced else f"gave {computed!r}"
            checks.append((source, reproduced, f"formula {formula} for {key} {verdict}", key, signal))
        if cited is not None:
            info.update(document=cited.document, quote=cited.quote, citation_found=found)
            checks.append((source, found, f"citation in {cited.document} for {key} "
                           + ("found" if found else "not found"), key, signal))
        if self.learn_from_checks:
            self._record(checks)
        out = self._engine.belief(key, believed, believed_vid)
        if formula is not None:
            j = Justification("formula", source, out, all_inputs, cert, info)
        else:
            j = Justification("model", source, out, all_inputs, cert, info)
        if out.blocked is not None:  # a withdrawn value claimed afresh: its old evidence stays withdrawn
            for p in out.premises:
                self._engine.drop_premise(out, p.source)
            self._engine.unblock(out)
        self._engine.add_justification(j)
        self._after_change()
        return believed

    # -- retraction, outcomes, conflicts ---------------------------------------------------
    def retract(self, key: str, value: Any = None, reason: str | None = None,
                fault: str = "none") -> None:
        """Withdraw the held value of ``key`` (or ``value``).

        ``fault="source"`` says the value was wrong when given: every accountable source (the
        premise sources, or the model behind an unverified claim) gets a wrong outcome.
        ``fault="none"`` (the default) says the world changed, and records nothing.
        """
        key = check_key(key)
        if type(fault) is not str or fault not in FAULTS:
            raise InvalidInputError(f"fault must be 'none' or 'source', got {fault!r}")
        if reason is not None:
            if not isinstance(reason, str):
                raise InvalidTypeError("reason must be a string")
            reason = check_text(_text(reason), "a reason")
        b = self._target(key, value)
        if fault == "source":
            accountable = sorted(self._accountable(b))
            if not accountable:
                steps = sorted({f"{j.kind} {j.name}" for j in b.justs})
                raise BlameError(
                    f"{key} = {b.value!r} rests only on {', '.join(steps) or 'nothing'}: rules and "
                    "re-executed formulas are never at fault; retract the input that was wrong"
                )
            conf = self._held_confidence_of(b)
            why = reason or f"{key} = {b.value!r} was wrong"
            self._record([(source, False, why, key, conf) for source in accountable])
        self._engine.block(b, "retracted" + (f": {reason}" if reason else ""))
        self._after_change()

    def _accountable(self, b: Belief) -> set[str]:
        found = {p.source for p in b.premises}
        for j in b.justs:
            if j.kind == "model":
                found.add(j.name)
        return found

    def conflicts(self) -> list[Conflict]:
        """Open conflicts: keys holding two or more values that no policy has settled."""
        self._sync()
        found = []
        for key, slot in self._engine.keys.items():
            if not isinstance(slot, dict):
                continue
            held = [b for b in slot.values() if b.label is IN]
            if len(held) > 1:
                found.append(self._conflict(key, held))
        return found

    def _conflict(self, key: str, held: list[Belief]) -> Conflict:
        held = sorted(held, key=lambda b: (-b.conf, b.seq))
        return Conflict(key, tuple(
            Candidate(b.value, b.conf, tuple(sorted(self._accountable(b)))) for b in held))

    def resolve(self, conflict: Conflict | str, winner: Any, learn: bool = True) -> None:
        """Settle a conflict as a person would: ``winner`` holds, the other values are rejected.

        The resolution is final; with ``learn`` the winners' sources get right outcomes and the
        losers' wrong ones.
        """
        key = conflict.key if isinstance(conflict, Conflict) else conflict
        key = check_key(key)
        if not isinstance(learn, bool):
            raise InvalidTypeError("learn must be a bool")
        self._sync()
        win = self._engine.find(key, canon(winner))
        candidates = [b for b in self._engine.values_of(key)
                      if b.blocked is None and (b.label is IN or b.defeated_by is not None)]
        if win is None or win not in candidates:
            raise InvalidInputError(f"{winner!r} is not a standing value of {key!r}")
        losers = [b for b in candidates if b is not win]
        if learn:
            why = f"{key}: resolved for {winner!r} by a person"
            verdicts = [(source, False, why, key, b.conf if b.label is IN else b.potential)
                        for b in losers for source in sorted(self._accountable(b))]
            verdicts += [(source, True, why, key, win.conf)
                         for source in sorted(self._accountable(win))]
            self._record(verdicts)
        for b in losers:
            self._engine.block(b, f"rejected: {key} resolved for {winner!r}")
        self._after_change()

    # -- queries ---------------------------------------------------------------------------
    def _sync(self, targets: Iterable[Belief] | None = None) -> float:
        now = self.now()
        self.ledger.poll()
        if self._pending_sources:
            # outcomes first: they can bring a rule's inputs IN (a conflict flips), and the
            # rules below must see that before this query is answered
            self._apply_outcomes()
        if self._rules:
            # rules fire when their inputs come IN, and inputs can come IN without an assertion:
            # an outcome flips a conflict, another base's outcome arrives, time passes
            self._firings_left = self.max_rule_firings
            if self._rule_time != now:
                self._fire_rules(self._rules)
                self._rule_time = now
            if self._engine.touched:
                self._fire_touched(())
        self._engine_sync(now, targets)
        return now

    def _values(self, key: str) -> list[Belief]:
        key = check_key(key)
        if self._rules:
            self._sync(())  # rules due now (after an outcome or a clock move) may add values of key
        values = self._engine.values_of(key)
        if not values:
            raise UnknownBeliefError(f"no belief about {key!r}")
        self._sync(values)
        return values

    def _held(self, key: str) -> list[Belief]:
        return [b for b in self._values(key) if b.label is IN]

    def _held_belief(self, key: str, what: str) -> Belief:
        held = self._held(key)
        if not held:
            raise UnknownBeliefError(f"{what} {key!r} holds no value")
        if len(held) > 1:
            raise AmbiguousValueError(f"{what} {key!r} is in an open conflict: {self._conflict(key, held)}")
        return held[0]

    def _held_confidence(self, key: str) -> float | None:
        if not self._engine.values_of(key):
            return None
        held = self._held(key)
        return max((b.conf for b in held), default=0.0)

    def _held_confidence_of(self, b: Belief) -> float:
        self._sync([b])
        return b.conf

    def _target(self, key: str, value: Any) -> Belief:
        if value is not None:
            key = check_key(key)
            vid = canon(value)
            if self._rules:
                self._sync(())  # rules due now may derive this very value
            b = self._engine.find(key, vid)
            if b is None:
                raise UnknownBeliefError(f"no belief {key} = {value!r}")
            self._sync([b])
            return b
        return self._held_belief(key, "key")

    def value(self, key: str) -> Any:
        """The value held for ``key``, or ``None`` if none is held.

        Raises ``UnknownBeliefError`` for a key never seen and ``AmbiguousValueError`` while a
        conflict over it is open.
        """
        held = self._held(key)
        if not held:
            return None
        if len(held) > 1:
            raise AmbiguousValueError(f"{key!r} is in an open conflict: {self._conflict(key, held)}")
        return held[0].value

    def confidence(self, key: str, value: Any = None) -> float:
        """The confidence of the held value of ``key`` (or of ``value``) now; 0.0 when OUT."""
        if value is not None:
            return self._target(key, value).conf
        held = self._held(key)
        if len(held) > 1:
            raise AmbiguousValueError(f"{key!r} is in an open conflict: {self._conflict(key, held)}")
        return held[0].conf if held else 0.0

    def label(self, key: str, value: Any = None) -> str:
        """``"IN"`` if ``key`` (or ``key = value``) is held now, else ``"OUT"``."""
        if value is not None:
            return self._target(key, value).label
        return IN if self._held(key) else OUT

    def beliefs(self, min_confidence: float | None = None) -> list[Held]:
        """Every held belief, optionally only those at or above ``min_confidence``."""
        floor = 0.0 if min_confidence is None else check_unit("min_confidence", min_confidence)
        self._sync()
        return [Held(b.key, b.value, b.conf) for b in self._engine.beliefs()
                if b.label is IN and b.conf >= floor]

    def project(self) -> dict[str, Any]:
        """What a model should be shown: held values at or above ``policy.min_confidence``."""
        floor = self.policy.min_confidence
        return {h.key: h.value for h in self.beliefs() if h.confidence >= floor}

    def faded(self, threshold: float | None = None) -> list[Faded]:
        """Held premises whose evidence has faded below ``threshold`` (default: min_confidence)."""
        floor = self.policy.min_confidence if threshold is None else check_unit("threshold", threshold)
        now = self._sync()
        found = []
        for b in self._engine.beliefs():
            if b.label is IN and b.premises:
                c, _, _ = self._engine.premise_confidence(b, now)
                if c is not None and c < floor:
                    valid = sorted(p.source for p in b.premises if not p.expired(now))
                    found.append(Faded(b.key, b.value, c, tuple(valid)))
        return found

    def refresh(self) -> int:
        """Bring every label and confidence up to the clock's time now; return how many were stale.

        Queries do this lazily for what they read; call it to pay the cost up front (before a
        snapshot, say). The return value counts the beliefs that were recomputed.
        """
        engine = self._engine
        stale = len(engine.dirty) + sum(1 for b in engine.timed if b.stamp != self.clock())
        self._sync()
        return stale

    def keys(self) -> list[str]:
        """Every key the base has heard of."""
        return list(self._engine.keys)

    def __len__(self) -> int:
        return len(self._engine)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._engine.keys

    def explain(self, key: str, value: Any = None) -> Any:
        """The proof of ``key`` (or ``key = value``): print it, or ``.to_dict()`` it."""
        from .proof import build_proof

        if value is not None:
            b = self._target(key, value)
            roots = [b]
        else:
            roots = self._values(key)
            held = [b for b in roots if b.label is IN]
            roots = held if held else sorted(roots, key=lambda b: -b.seq)[:1]
        self._sync()
        return build_proof(self, roots[0] if len(roots) == 1 else roots)

    # -- promises and answers (corollary.answers) ------------------------------------------
    #: The Platt calibrator fitted by :meth:`calibrate` (``None`` until then).
    calibrator: Any = None

    def calibration_pairs(self, source: str | None = None, topic: str | None = None) -> Any:
        """``(confidences, correct)`` arrays from the ledger's outcomes that carry a confidence.

        See :func:`corollary.answers.calibration_pairs`.
        """
        from .answers import calibration_pairs

        return calibration_pairs(self, source, topic)

    def guarantee(self, name: str = "default", examples: Any = None, *,
                  max_error: float | None = None, max_risk: float | None = None,
                  method: str | None = None, delta: float | None = 0.1, min_support: int = 10,
                  weak: str = "raise", source: str | None = None,
                  topic: str | None = None) -> Any:
        """Attach a promise (``kb.guarantee(name, False)`` removes it); returns the promise.

        Calibrated on ``examples`` ((confidence, correct) pairs) or on the base's own pairs.
        See :func:`corollary.answers.guarantee`.
        """
        from .answers import guarantee

        return guarantee(self, name, examples, max_error=max_error, max_risk=max_risk,
                         method=method, delta=delta, min_support=min_support, weak=weak,
                         source=source, topic=topic)

    def remove_guarantee(self, name: str = "default") -> Any:
        """Detach the promise ``name``; return it (``None`` if there was none)."""
        from .answers import remove_guarantee

        return remove_guarantee(self, name)

    def calibrate(self, examples: Any = None, *, source: str | None = None,
                  topic: str | None = None) -> Any:
        """Fit a Platt calibrator (``self.calibrator``) on ``examples`` or the base's own pairs.

        See :func:`corollary.answers.calibrate`.
        """
        from .answers import calibrate

        return calibrate(self, examples, source=source, topic=topic)

    def answer(self, key: str, promise: str | None = "default", *, group: Any = None) -> Any:
        """Answer ``key`` alone (``ok``) or abstain, under a promise; see
        :func:`corollary.answers.answer`."""
        from .answers import answer

        return answer(self, key, promise, group=group)

    def replay(self, record: Any, *, live: bool = False) -> Any:
        """Re-derive a verdict record against the current promise; see
        :func:`corollary.answers.replay`."""
        from .answers import replay

        return replay(self, record, live=live)

    # -- hooks -----------------------------------------------------------------------------
    def _after_change(self, extra_rules: Sequence[Rule] = ()) -> None:
        if self._rules:
            self._firings_left = self.max_rule_firings
            self._fire_touched(extra_rules)
        else:
            self._engine.touched.clear()
        if isinstance(self.conflict_policy, AskHuman):
            self._ask_humans(self.conflict_policy)

    def _fire_touched(self, extra_rules: Sequence[Rule]) -> None:
        """Fire the rules reading any key whose beliefs changed, until nothing new changes."""
        engine = self._engine
        while True:
            touched = engine.touched
            engine.touched = set()
            due = list(extra_rules)
            extra_rules = ()
            for key in touched:
                due.extend(self._rules_by_key.get(key, ()))
            if not due:
                return
            try:
                self._fire_rules(due)
            except BaseException:
                # a rule that raised or a spent budget: keep these rules due, so the next
                # operation tries again instead of leaving the base short of a fixed point
                engine.touched.update(touched)
                engine.touched.update(k for r in due for k in r.inputs)
                raise

    def _fire_rules(self, due: Iterable[Rule]) -> None:
        seen = set()
        for r in due:
            if r.name in seen:
                continue
            seen.add(r.name)
            held: dict[str, list[Belief]] = {}
            for key in set(r.inputs):
                values = self._engine.values_of(key)
                if values:
                    self._sync_quiet(values)
                held[key] = [b for b in values if b.label is IN]
                if not held[key]:
                    break
            else:
                self._fire_new(r, held)

    def _fire_new(self, r: Rule, held: dict[str, list[Belief]]) -> None:
        """Fire ``r`` on the combinations of held inputs that include a newly held one.

        Every combination of values held at the rule's last complete firing was enumerated
        then (or before), so only those with a value held since are new (semi-naive
        evaluation): a rule over open conflicts does not re-enumerate its whole product.
        """
        last = self._rule_last.get(r.name, {})
        fired = self._fired.setdefault(r.name, set())
        inputs = r.inputs
        for i in range(len(inputs)):
            new_i = [b for b in held[inputs[i]] if b.seq not in last.get(inputs[i], ())]
            if not new_i:
                continue
            lists = [[b for b in held[k] if b.seq in last.get(k, ())] for k in inputs[:i]]
            lists.append(new_i)
            lists.extend(held[k] for k in inputs[i + 1:])
            for combo in itertools.product(*lists):
                ident = tuple(b.seq for b in combo)
                if ident in fired:
                    continue
                self._spend_firing(r)
                try:
                    result = r.fn(*(b.value for b in combo))
                    vid = None if result is None else canon(result)
                except Exception as exc:
                    # the change that brought the inputs IN stands; this combination is
                    # not marked fired, so the rule is tried again at the next change
                    raise RuleError(f"rule {r.name} failed on "
                                    f"{[b.value for b in combo]!r}: {exc!r}") from exc
                fired.add(ident)
                if result is None:
                    continue
                out = self._engine.belief(r.output, result, vid)
                self._engine.add_justification(
                    Justification("rule", r.name, out, tuple(combo), r.confidence,
                                  {"names": list(r.params)}))
        self._rule_last[r.name] = {k: {b.seq for b in bs} for k, bs in held.items()}

    def _spend_firing(self, r: Rule) -> None:
        if self._firings_left <= 0:
            raise RuleLimitError(
                f"rules fired {self.max_rule_firings:,} times in one operation without reaching "
                f"a fixed point (last: {r.name}); rules that keep deriving new values from each "
                "other, or a rule over many conflicting input values, never settle. Resolve the "
                "conflicts, fix the rules, or raise BeliefBase(max_rule_firings=...)")
        self._firings_left -= 1

    def _sync_quiet(self, targets: Iterable[Belief]) -> None:
        self._engine_sync(self.now(), targets)

    def _ask_humans(self, policy: AskHuman) -> None:
        for _ in range(1000):
            open_conflicts = self.conflicts()
            if not open_conflicts:
                return
            progressed = False
            for conflict in open_conflicts:
                # The change that raised this conflict has already been made and is valid: a
                # failing or wrong answer must not undo it, so it leaves the conflict open.
                try:
                    winner = policy.ask(conflict)
                except Exception as exc:  # a person's callback: report it, keep the base sound
                    warnings.warn(f"AskHuman: ask() raised {exc!r}; the conflict over "
                                  f"{conflict.key!r} stays open", RuntimeWarning, stacklevel=4)
                    continue
                if winner is None:
                    continue
                try:
                    known = canon(winner) in {canon(v) for v in conflict.values}
                except CorollaryError:
                    known = False
                if not known:
                    warnings.warn(f"AskHuman: ask() answered {winner!r}, not one of "
                                  f"{conflict.values}; the conflict over {conflict.key!r} stays open",
                                  RuntimeWarning, stacklevel=4)
                    continue
                self.resolve(conflict, winner, learn=policy.learn)
                progressed = True
            if not progressed:
                return

    def _rank(self, b: Belief, now: float) -> int:
        policy = self.conflict_policy
        assert isinstance(policy, PreferSource)
        return min((policy.rank_of(p.source) for p in b.premises if not p.expired(now)),
                   default=len(policy.order))

    # -- snapshots -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The whole base as plain data (schema-versioned); see :mod:`corollary.snapshot`."""
        from .snapshot import base_to_dict

        return base_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], ledger: TrustLedger | None = None,
                  clock: Clock | None = None, **options: Any) -> BeliefBase:
        """Rebuild a base from :meth:`to_dict` output, re-binding rules and tools by name."""
        from .snapshot import base_from_dict

        return base_from_dict(data, ledger=ledger, clock=clock, **options)

    def save(self, path: str | os.PathLike[str], *, format: str | None = None) -> None:
        """Write a snapshot atomically (msgpack by default, JSON for ``.json``)."""
        from .snapshot import save

        save(self, path, format=format)

    @classmethod
    def load(cls, path: str | os.PathLike[str], ledger: TrustLedger | None = None,
             clock: Clock | None = None, **options: Any) -> BeliefBase:
        """Read a snapshot written by :meth:`save`."""
        from .snapshot import load

        return load(path, ledger=ledger, clock=clock, **options)

    def save_session(self, session_id: str, *, overwrite: bool = False) -> int:
        """Save a snapshot under ``session_id`` in the ledger's store (beside a shared ledger).

        Saves are versioned, so that two processes that load, change and save one session
        cannot silently lose a change: the save succeeds only if the stored session is the
        version this base loaded or last saved (or does not exist yet, for a base that never
        loaded or saved it). Otherwise it raises
        :class:`~corollary.errors.ConcurrentWriteError` and writes nothing: reload the session
        with :meth:`load_session` and reapply the change. ``overwrite=True`` replaces whatever
        is stored. Returns the session's new version.
        """
        from .snapshot import save_session

        return save_session(self, session_id, overwrite=overwrite)

    @classmethod
    def load_session(cls, ledger: TrustLedger, session_id: str, clock: Clock | None = None,
                     **options: Any) -> BeliefBase:
        """Resume the base saved under ``session_id`` in ``ledger``'s store.

        The base remembers the version it loaded, for its next :meth:`save_session`.
        """
        from .snapshot import load_session

        return load_session(ledger, session_id, clock=clock, **options)

    def __repr__(self) -> str:
        return f"<BeliefBase {len(self)} beliefs, {len(self._engine.keys)} keys>"


def _positive(value: Duration | None, name: str) -> float | None:
    seconds = to_seconds(value, name)
    if seconds is not None and seconds <= 0:
        raise InvalidInputError(f"{name} must be > 0, got {value!r}")
    return seconds


def _text(text: Any) -> Any:
    """A ``str`` subclass as a plain ``str`` (its own hash and eq are not trusted)."""
    return str.__str__(text) if isinstance(text, str) and type(text) is not str else text

"""The trust ledger: every right/wrong outcome per source, and the reliability learned from it.

The ledger keeps its outcomes in a store (:mod:`corollary.storage`); the in-memory store is the
default, and :func:`open_ledger` opens one on a file or a database. Reliability is ``(n0·p0 + Σ w·right) / (n0 + Σ w)`` with ``w = 1``, or
``2^(-age/memory_half_life)`` when the ledger forgets.

Besides the prior-weighted reliability, the ledger answers a *sample-gated* query
(:meth:`TrustLedger.track_record`): the plain share of right outcomes, withheld (``None``) until a
source has at least ``min_samples`` of them. It is a source's empirical track record, not a
belief's confidence (:meth:`corollary.BeliefBase.confidence`). Callers below the gate fall back to
:data:`DEFAULT_PRIOR` or to a signal of their own.

Routing -- which model or tool to ask for a kind of decision -- is :meth:`TrustLedger.route`: it
ranks candidates in tiers of trust (measured, exploring, declared), explores with Thompson
sampling, and says why each candidate stands where it does. :meth:`TrustLedger.rank_sources` is
the older ranking that compares scores across tiers.
"""

from __future__ import annotations

import os
import threading
import types
import uuid
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import attrs

from ..evidence import confidence as formulas
from ..foundations._io import (
    LEDGER_FORMAT,
    LEDGER_VERSION,
    atomic_write,
    decode_file,
    encode,
    format_for,
)
from ..foundations._validate import check_int, check_number, check_unit, exact_str
from ..foundations.clock import Clock, Duration, system_clock, to_seconds
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..sources.outcomes import (
    LedgerDocument,
    Outcome,
    Totals,
    check_correct,
    check_source,
    fold_totals,
    totals_rows,
    validate_ledger_document,
)
from ..sources.policy import TrustPolicy
from ..storage.backends import open_at
from ..storage.base import keeps_journals
from ..storage.memory import MemoryStore
from ..storage.protocols import JournalStore, LedgerStore, OutcomeStore, SessionStore
from ..storage.targets import resolve_target

__all__ = ["CAPABILITY_TIERS", "DEFAULT_MIN_SAMPLES", "DEFAULT_PRIOR", "FUTURE_SKEW",
           "MIN_SAMPLES_ENV", "ROUTE_PRIOR_WEIGHT", "ROUTE_TIERS",
           "GatedConfidence", "LedgerDocument", "MemoryStore", "Outcome", "OutcomeStore",
           "RankedSource", "Route", "SourceRecord", "Totals", "TrustLedger", "check_correct",
           "check_source", "fold_totals", "open_ledger", "resolve_min_samples", "totals_rows",
           "validate_ledger_document"]

#: How far past the ledger's clock an outcome's timestamp may lie (clock skew between hosts).
FUTURE_SKEW = 86_400.0
#: The uniform prior a caller should fall back to when :meth:`TrustLedger.track_record` reports
#: ``insufficient_data`` and it has no better signal (a policy prior, say).
DEFAULT_PRIOR = 0.5
#: Outcomes a source needs before :meth:`TrustLedger.track_record` reports a value.
DEFAULT_MIN_SAMPLES = 5
#: Environment variable overriding :data:`DEFAULT_MIN_SAMPLES` (a positive integer).
MIN_SAMPLES_ENV = "COROLLARY_MIN_SAMPLES"
#: The tiers of :meth:`TrustLedger.route`, in its order of trust.
ROUTE_TIERS = ("measured", "exploring", "declared")
#: Capability tiers a source may declare (:meth:`TrustLedger.declare_tier`), and the score each
#: gives a source with no outcomes; it is also the prior of the source's routing posterior.
CAPABILITY_TIERS: Mapping[str, float] = types.MappingProxyType(
    {"high": 0.8, "medium": 0.6, "low": 0.4})
#: How many outcomes the prior of a routing posterior is worth: enough to order untried
#: sources by their tier, little enough that one declared "low" still gets tried.
ROUTE_PRIOR_WEIGHT = 2.0


@attrs.frozen(slots=True)
class SourceRecord:
    """A source's track record as the ledger sees it at one time."""

    source: str
    correct: int
    wrong: int
    weighted_correct: float
    weighted_total: float
    prior: float
    reliability: float
    last_at: float | None


@attrs.frozen(slots=True)
class GatedConfidence:
    """The sample-gated answer of :meth:`TrustLedger.track_record`.

    Attributes
    ----------
    value : float or None
        The share of right outcomes, in [0, 1]; ``None`` when there are fewer than
        ``min_samples`` of them.
    samples : int
        How many outcomes were counted.
    insufficient_data : bool
        ``True`` when ``samples < min_samples`` (and so ``value`` is ``None``).
    min_samples : int
        The gate used for this answer.
    """

    value: float | None
    samples: int
    insufficient_data: bool
    min_samples: int


@attrs.frozen(slots=True)
class RankedSource:
    """One candidate in :meth:`TrustLedger.rank_sources`, with the tier that scored it.

    Attributes
    ----------
    source : str
        The candidate.
    score : float
        What it was ranked by: the gated share of right outcomes (tier ``"empirical"``), the
        prior-weighted reliability (``"estimate"``), or the policy prior (``"prior"``).
    tier : str
        Which tier decided: ``"empirical"``, ``"estimate"`` or ``"prior"``.
    samples : int
        Outcomes on record for the candidate (in the topic, if one was given).
    """

    source: str
    score: float
    tier: str
    samples: int


@attrs.frozen(slots=True)
class Route:
    """One candidate in :meth:`TrustLedger.route`: where it stands, and why.

    Attributes
    ----------
    source : str
        The candidate.
    score : float
        What it was ranked by: in an exploitation round the measured share of right outcomes
        (tier ``"measured"``), the posterior mean (``"exploring"``) or the declared score
        (``"declared"``); in an exploration round a draw from its Beta posterior.
    tier : {"measured", "exploring", "declared"}
        How much is known of it: at least ``min_samples`` outcomes, some, or none.
    samples : int
        Outcomes on record for the candidate (in the topic, if one was given).
    why : str
        One line saying where the score came from.

    Examples
    --------
    >>> Route("model:a", 0.8, "declared", 0, "declared: tier 'high' (0.8); no outcomes yet").tier
    'declared'
    """

    source: str
    score: float
    tier: str
    samples: int
    why: str


def _beta(prior: float, weight: float, right: int, total: int) -> tuple[float, float]:
    """The Beta posterior of a source: ``prior`` worth ``weight`` outcomes, then its record.

    A prior of exactly 0 or 1 is kept off the edge so that the posterior stays a distribution.
    """
    a = weight * prior + right
    b = weight * (1.0 - prior) + (total - right)
    return max(a, 1e-9), max(b, 1e-9)


def _generator(seed: Any) -> Any:
    import numpy as np

    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng() if seed is None else seed
    return np.random.default_rng(check_int(seed, "seed", low=0))


def _candidates(candidates: Iterable[str]) -> list[str]:
    """The checked sources of :meth:`TrustLedger.route`, each once, in their first order."""
    if isinstance(candidates, str):
        raise InvalidTypeError("candidates must be an iterable of sources, not one string")
    sources: list[str] = []
    for source in candidates:
        source = check_source(source)
        if source not in sources:
            sources.append(source)
    return sources


def _thompson(routes: list[Route], posteriors: list[tuple[float, float]],
              rng: Any) -> list[Route]:
    """An exploration round: every route scored by one draw from its Beta posterior."""
    draws = rng.beta([a for a, _ in posteriors], [b for _, b in posteriors])
    drawn = [attrs.evolve(r, score=float(d), why=(
        f"explored: Thompson draw {float(d):.3g} from Beta({a:.3g}, {b:.3g}); {r.why}"))
        for r, d, (a, b) in zip(routes, draws, posteriors, strict=True)]
    return sorted(drawn, key=lambda r: (-r.score, -r.samples, r.source))


def resolve_min_samples(min_samples: object = None) -> int:
    """The sample gate: the argument, else ``$COROLLARY_MIN_SAMPLES``, else 5.

    An invalid argument raises; an invalid environment value warns and falls back to
    :data:`DEFAULT_MIN_SAMPLES`, so a typo in a deployment's environment never stops a query.

    >>> resolve_min_samples(3)
    3
    """
    if min_samples is not None:
        return check_int(min_samples, "min_samples", low=1)
    raw = os.environ.get(MIN_SAMPLES_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_MIN_SAMPLES
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if value < 1:
        warnings.warn(
            f"ignoring {MIN_SAMPLES_ENV}={raw!r} (not a positive integer); "
            f"using {DEFAULT_MIN_SAMPLES}",
            RuntimeWarning,
            stacklevel=3,
        )
        return DEFAULT_MIN_SAMPLES
    return value


def _check_topic(topic: object) -> str | None:
    if topic is not None and (not isinstance(topic, str) or not topic):
        raise InvalidInputError(f"topic must be a non-empty string or None, got {topic!r}")
    return topic


#: The largest ``max_history``: outcomes kept per source in memory (2**31 is far past RAM).
MAX_HISTORY = 2**31
#: What a ledger calls on its store.
_STORE_METHODS = ("add", "totals", "topics", "outcomes", "export", "sources", "changed_sources",
                  "save_session", "read_session", "load_session", "list_sessions",
                  "delete_session", "close")


def _check_prior_weight(value: object) -> float:
    weight = check_number(value, "prior_weight")
    if weight <= 0:
        raise InvalidInputError(f"prior_weight must be finite and > 0, got {value!r}")
    return weight


_OUTCOME_FIELDS = frozenset({"source", "correct", "topic", "at", "event_id", "evidence", "reason",
                             "key", "confidence"})


class TrustLedger:
    """Learned reliability of sources, from their right/wrong outcomes.

    Parameters
    ----------
    prior_weight : float
        How many outcomes the prior is worth (``n0``); must be > 0.
    memory_half_life : timedelta or seconds, optional
        Each outcome's weight halves every this long; ``None`` never forgets.
    max_history : int
        Outcomes kept per source for audit and calibration (counts include all of them).
    policy : TrustPolicy, optional
        Where priors come from when a caller does not pass one.
    clock : callable, optional
        Time source for outcomes recorded without ``at`` and for decay.
    store : LedgerStore, optional
        Where outcomes live; in memory by default. See :meth:`open` for files and databases.

    Examples
    --------
    >>> ledger = TrustLedger()
    >>> for i in range(100):
    ...     _ = ledger.record_outcome("tool:scraper", i < 70, at=0)
    >>> round(ledger.reliability("tool:scraper"), 2)
    0.72
    """

    def __init__(
        self,
        prior_weight: float = 10,
        memory_half_life: Duration | None = None,
        max_history: int = 10_000,
        policy: TrustPolicy | None = None,
        clock: Clock | None = None,
        store: LedgerStore | None = None,
    ) -> None:
        weight = _check_prior_weight(prior_weight)
        half_life = to_seconds(memory_half_life, "memory_half_life")
        if half_life is not None and half_life <= 0:
            raise InvalidInputError("memory_half_life must be > 0 (or None to never forget)")
        history = check_int(max_history, "max_history", low=1, high=MAX_HISTORY)
        if policy is not None and not isinstance(policy, TrustPolicy):
            raise InvalidTypeError("policy must be a TrustPolicy")
        if clock is not None and not callable(clock):
            raise InvalidTypeError(f"clock must be a callable returning POSIX seconds, not "
                                   f"{type(clock).__name__}")
        if store is not None:
            missing = [name for name in _STORE_METHODS if not callable(getattr(store, name, None))]
            if missing:
                raise InvalidTypeError(f"store must be an outcome store (see corollary.storage); "
                                       f"{type(store).__name__} has no {', '.join(missing)}")
        self.prior_weight = weight
        self.memory_half_life = half_life
        self.max_history = history
        self.policy = policy or TrustPolicy()
        self.clock: Clock = clock or system_clock
        self.store: LedgerStore = store if store is not None else MemoryStore(half_life, history)
        if getattr(self.store, "half_life", half_life) != half_life:
            raise InvalidInputError("the store was opened with a different memory half-life")
        self._declared: dict[str, float] = {}
        self._tiers: dict[str, str] = {}
        self._listeners: list[Callable[[], Any]] = []
        # bases in other threads subscribe while outcomes are announced
        self._listeners_lock = threading.Lock()
        # shared stores may pick up other writers' outcomes while writing: report them too
        self._shared = not isinstance(self.store, MemoryStore)
        self._journals: bool | None = None  # whether the store keeps journals (asked once)

    # -- opening ---------------------------------------------------------------------------

    # -- recording -------------------------------------------------------------------------
    def record_outcome(
        self,
        source: str,
        correct: bool,
        *,
        topic: str | None = None,
        at: float | None = None,
        event_id: str | None = None,
        evidence: str | None = None,
        reason: str | None = None,
        key: str | None = None,
        confidence: float | None = None,
    ) -> Outcome:
        """Record that ``source`` was right (``True``) or wrong (``False``).

        ``at`` is when the outcome was observed (default: now); a late or replayed outcome keeps
        its original time, and an ``event_id`` already recorded is ignored, so replays never
        double-count. Returns the outcome built from these arguments (a replay of a known
        event id stores nothing new).
        """
        outcome = self.make_outcome(
            source, correct, topic=topic, at=at, event_id=event_id, evidence=evidence,
            reason=reason, key=key, confidence=confidence,
        )
        self._announce(self.store.add([outcome]))
        return outcome

    def record_many(self, outcomes: Iterable[Mapping[str, Any] | Outcome]) -> int:
        """Record a batch (dicts of :meth:`record_outcome`'s arguments); all are validated first.

        Returns how many were new.
        """
        try:
            items = iter(outcomes)
        except TypeError:
            raise InvalidTypeError(
                f"record_many takes an iterable of outcomes, not {type(outcomes).__name__}"
            ) from None
        batch = []
        for o in items:
            if isinstance(o, Outcome):
                batch.append(o)
            elif isinstance(o, Mapping):
                fields = dict(o)
                unknown = [k for k in fields if k not in _OUTCOME_FIELDS]
                if unknown or "source" not in fields or "correct" not in fields:
                    raise InvalidInputError(
                        f"an outcome dict needs 'source' and 'correct' and takes only "
                        f"{sorted(_OUTCOME_FIELDS)}; got {sorted(map(repr, fields))}")
                batch.append(self.make_outcome(**fields))
            else:
                raise InvalidTypeError(f"record_many takes dicts or Outcomes, not {type(o).__name__}")
        if not batch:
            return 0
        added = self.store.add(batch)
        self._announce(added)
        return len(added)

    def _announce(self, added: list[Outcome]) -> None:
        """Tell listeners which sources the outcomes just added changed."""
        # others' outcomes picked up with ours are news too (only worth asking with listeners)
        changed = self.store.changed_sources() if self._shared and self._listeners else set()
        changed.update(o.source for o in added)
        if changed:
            self._notify(changed)

    def make_outcome(
        self,
        source: str,
        correct: bool,
        *,
        topic: str | None = None,
        at: float | None = None,
        event_id: str | None = None,
        evidence: str | None = None,
        reason: str | None = None,
        key: str | None = None,
        confidence: float | None = None,
    ) -> Outcome:
        """Validate the arguments of an outcome and build it, without recording it."""
        source = check_source(source)
        correct = check_correct(correct)
        now = float(self.clock())
        at = now if at is None else check_number(at, "at (POSIX seconds)")
        if at > now + FUTURE_SKEW:
            raise InvalidInputError(f"at={at} lies in the future of the ledger's clock ({now})")
        texts = {}
        for name, text in (("topic", topic), ("event_id", event_id), ("evidence", evidence),
                           ("reason", reason), ("key", key)):
            if text is not None and (not isinstance(text, str) or not text):
                raise InvalidInputError(f"{name} must be a non-empty string or None, got {text!r}")
            if text is not None:
                text = exact_str(text)
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    raise InvalidInputError(f"{name} holds characters that cannot be stored") from None
            texts[name] = text
        topic, event_id, evidence, reason, key = (texts["topic"], texts["event_id"],
                                                  texts["evidence"], texts["reason"], texts["key"])
        if confidence is not None:
            confidence = check_unit(confidence, "confidence")
        return Outcome(
            source=source, correct=correct, at=at, recorded_at=now,
            event_id=event_id or uuid.uuid4().hex, topic=topic, reason=reason,
            evidence=evidence, key=key, confidence=confidence,
        )

    # -- reading ---------------------------------------------------------------------------
    def reliability(
        self,
        source: str,
        *,
        at: float | None = None,
        prior: float | None = None,
        topic: str | None = None,
    ) -> float:
        """The prior-weighted reliability of ``source`` at time ``at`` (default: now)."""
        if prior is None:
            prior = self.prior_of(check_source(source))
        else:
            prior = check_unit(prior, "prior")
        totals = self.store.totals(source, topic)
        if totals.total == 0:
            return prior
        right, total = totals.weighted_at(self.clock() if at is None else at, self.memory_half_life)
        return formulas.reliability(prior, self.prior_weight, right, total)

    def declare_prior(self, source: str, prior: float) -> None:
        """Use ``prior`` for ``source`` when no caller passes one (a tool's declared trust).

        A base registers the trust of the ``@tool`` functions it is given, so the ledger's own
        answers (``reliability``, ``record_of``, routing) agree with the base's.
        """
        check_source(source)
        self._declared[source] = check_unit(prior, "a prior")

    def prior_of(self, source: str) -> float:
        """The prior of ``source``: a declared one, else the policy's."""
        declared = self._declared.get(source)
        return declared if declared is not None else self.policy.prior(source)

    def declare_tier(self, source: str, tier: str | None) -> None:
        """Declare the capability tier of ``source`` for routing (``None`` withdraws it).

        A tier -- ``"high"``, ``"medium"`` or ``"low"`` (:data:`CAPABILITY_TIERS`: 0.8, 0.6,
        0.4) -- is what :meth:`route` scores a source by before it has any outcome, and the
        prior of its routing posterior after. Models declare theirs here; a ``@tool`` declared
        with ``trust="high"``, ``"medium"`` or ``"low"`` declares that tier when a base is given
        it. Declarations are configuration: they live in this process, not in the store.

        Examples
        --------
        >>> ledger = TrustLedger()
        >>> ledger.declare_tier("model:large", "high")
        >>> ledger.tier_of("model:large"), ledger.tier_of("model:small")
        ('high', None)
        """
        check_source(source)
        if tier is None:
            self._tiers.pop(source, None)
            return
        if type(tier) is not str:
            raise InvalidTypeError(f"a capability tier is a string, not {type(tier).__name__}")
        if tier not in CAPABILITY_TIERS:
            raise InvalidInputError(f"unknown capability tier {tier!r} "
                                    f"(known: {', '.join(CAPABILITY_TIERS)})")
        self._tiers[source] = tier

    def tier_of(self, source: str) -> str | None:
        """The capability tier declared for ``source`` (:meth:`declare_tier`), if any."""
        return self._tiers.get(source)

    def declarations(self) -> tuple[dict[str, float], dict[str, str]]:
        """Copies of the declared priors and capability tiers, by source (what
        :meth:`declare_prior` and :meth:`declare_tier` set: this process's configuration).

        >>> ledger = TrustLedger()
        >>> ledger.declare_tier("model:large", "high")
        >>> ledger.declarations()
        ({}, {'model:large': 'high'})
        """
        return dict(self._declared), dict(self._tiers)

    def is_time_dependent(self, source: str) -> bool:
        """Whether ``source``'s reliability moves with time (it has outcomes and the ledger forgets)."""
        return self.memory_half_life is not None and self.store.totals(source).total > 0

    def record_of(self, source: str, *, at: float | None = None, prior: float | None = None,
                  topic: str | None = None) -> SourceRecord:
        """The track record of ``source``: counts, weighted sums, prior and reliability."""
        if prior is None:
            prior = self.prior_of(check_source(source))
        else:
            prior = check_unit(prior, "prior")
        now = self.clock() if at is None else at
        totals = self.store.totals(source, topic)
        right, total = totals.weighted_at(now, self.memory_half_life)
        return SourceRecord(
            source=source,
            correct=totals.right,
            wrong=totals.total - totals.right,
            weighted_correct=right,
            weighted_total=total,
            prior=prior,
            reliability=formulas.reliability(prior, self.prior_weight, right, total)
            if totals.total else prior,
            last_at=totals.anchor if totals.total else None,
        )

    def track_record(
        self, source: str, topic: str | None = None, min_samples: int | None = None
    ) -> GatedConfidence:
        """The sample-gated share of right outcomes of ``source`` (in ``topic``, if given).

        Unlike :meth:`reliability` there is no prior and no decay: ``value`` is the plain mean
        outcome, and it is ``None`` (``insufficient_data``) until at least ``min_samples``
        outcomes are on record. Callers below the gate fall back to :data:`DEFAULT_PRIOR` or to
        another signal (see :meth:`rank_sources`).

        Parameters
        ----------
        source : str
            A ``kind:name`` source.
        topic : str, optional
            Count only outcomes recorded with this topic.
        min_samples : int, optional
            The gate; default ``$COROLLARY_MIN_SAMPLES`` or :data:`DEFAULT_MIN_SAMPLES` (5).

        Examples
        --------
        >>> ledger = TrustLedger()
        >>> _ = ledger.record_many([{"source": "model:m", "correct": i % 4 != 0, "at": 0}
        ...                         for i in range(8)])
        >>> ledger.track_record("model:m")
        GatedConfidence(value=0.75, samples=8, insufficient_data=False, min_samples=5)
        >>> ledger.track_record("model:m", min_samples=10).value is None
        True
        """
        gate = resolve_min_samples(min_samples)
        check_source(source)
        totals = self.store.totals(source, _check_topic(topic))
        if totals.total < gate:
            return GatedConfidence(None, totals.total, True, gate)
        return GatedConfidence(totals.right / totals.total, totals.total, False, gate)

    def rank_sources(
        self,
        candidates: Iterable[str],
        topic: str | None = None,
        *,
        min_samples: int | None = None,
        at: float | None = None,
        priors: Mapping[str, float] | None = None,
    ) -> list[RankedSource]:
        """Rank candidate sources (models, tools...) for a task, best first (the older ranking).

        Scores from different tiers are compared directly, so a source with three right
        outcomes (its prior-weighted estimate 0.923) outranks one measured at 0.90 over forty.
        :meth:`route` ranks in tiers of trust instead, and explores; prefer it for routing.

        Each candidate is scored by the first tier that can speak for it:

        1. ``"empirical"``: its gated share of right outcomes (:meth:`track_record`), once it has
           at least ``min_samples`` outcomes (in ``topic``, if given);
        2. ``"estimate"``: with fewer outcomes, the prior-weighted :meth:`reliability`, which
           leans on the prior in proportion to how little is known;
        3. ``"prior"``: with no outcome at all, the policy prior (or ``priors[source]``).

        Candidates are then sorted by score (ties: more samples first, then by name), and each
        answer names the tier that scored it.

        Examples
        --------
        >>> ledger = TrustLedger()
        >>> _ = ledger.record_many([{"source": "model:a", "correct": i < 6, "at": 0}
        ...                         for i in range(10)])
        >>> _ = ledger.record_outcome("model:b", True, at=0)
        >>> [(r.source, r.tier, round(r.score, 3))
        ...  for r in ledger.rank_sources(["model:a", "model:b", "human:c"])]
        [('human:c', 'prior', 0.99), ('model:b', 'estimate', 0.909), ('model:a', 'empirical', 0.6)]
        """
        if isinstance(candidates, str):
            raise InvalidTypeError("candidates must be an iterable of sources, not one string")
        gate = resolve_min_samples(min_samples)
        topic = _check_topic(topic)
        now = self.clock() if at is None else at
        ranked: list[RankedSource] = []
        seen: set[str] = set()
        for source in candidates:
            check_source(source)
            if source in seen:
                continue
            seen.add(source)
            prior = None if priors is None or source not in priors else priors[source]
            if prior is None:
                prior = self.prior_of(source)
            else:  # NaN gave NaN scores, "x" an untyped ValueError
                prior = check_unit(prior, f"priors[{source!r}]")
            totals = self.store.totals(source, topic)
            if totals.total >= gate:
                ranked.append(RankedSource(source, totals.right / totals.total, "empirical",
                                           totals.total))
            elif totals.total:
                score = self.reliability(source, at=now, prior=prior, topic=topic)
                ranked.append(RankedSource(source, score, "estimate", totals.total))
            else:
                ranked.append(RankedSource(source, float(prior), "prior", 0))
        ranked.sort(key=lambda r: (-r.score, -r.samples, r.source))
        return ranked

    def route(
        self,
        candidates: Iterable[str],
        topic: str | None = None,
        *,
        explore: float = 0.1,
        seed: Any = None,
        min_samples: int | None = None,
        prior_weight: float = ROUTE_PRIOR_WEIGHT,
    ) -> list[Route]:
        """Rank candidate sources for a kind of decision (``topic``) by their track record.

        A candidate is ``"measured"`` (``min_samples`` outcomes in ``topic``: its share of
        right ones), ``"exploring"`` (fewer: its Beta posterior mean, its declared score worth
        ``prior_weight`` outcomes) or ``"declared"`` (none: its tier, else its prior). A call
        ranks by tier then score or, with probability ``explore``, by one draw from each
        posterior (Thompson sampling). No decay. docs/ledger.md, "Routing", says why.

        Parameters
        ----------
        candidates : iterable of str
            ``kind:name`` sources; repeats are ranked once.
        topic : str, optional
            The kind of decision; outcomes of other topics are not counted.
        explore : float in [0, 1], default 0.1
            The probability that this call explores. ``0`` draws nothing (greedy and
            deterministic); ``1`` is pure Thompson sampling.
        seed : int or numpy.random.Generator, optional
            An int seeds this call; one generator over many calls makes them reproducible.
        min_samples : int, optional
            The gate of the measured tier; default ``$COROLLARY_MIN_SAMPLES`` or 5.
        prior_weight : float, default :data:`ROUTE_PRIOR_WEIGHT` (2)
            How many outcomes the prior of a posterior is worth (> 0).

        Returns
        -------
        list of Route
            Best first; ties go to more samples, then to the name.

        Raises
        ------
        InvalidTypeError
            One string as ``candidates``; ``explore``, ``seed``, ``prior_weight`` mistyped.
        InvalidInputError
            A malformed source or a reasoning step, an empty topic, ``explore`` outside [0, 1],
            a negative seed, ``prior_weight <= 0``.

        Examples
        --------
        >>> ledger = TrustLedger()
        >>> for i in range(40):
        ...     _ = ledger.record_outcome("model:big", i < 36, topic="code", at=0)
        >>> for i in range(3):
        ...     _ = ledger.record_outcome("model:new", True, topic="code", at=0)
        >>> ledger.declare_tier("model:next", "high")
        >>> for r in ledger.route(["model:new", "model:next", "model:big"], "code", explore=0):
        ...     print(r.source, r.tier, round(r.score, 3), r.samples)
        model:big measured 0.9 40
        model:new exploring 0.96 3
        model:next declared 0.8 0
        >>> print(ledger.route(["model:new", "model:big"], "code", explore=0)[1].why)
        exploring: 3 right of 3 outcomes on topic 'code', posterior mean 0.96 (prior 0.9 worth 2 outcomes)
        >>> [r.source for r in ledger.route(["model:new", "model:big"], "code", explore=1, seed=4)]
        ['model:new', 'model:big']
        """
        sources = _candidates(candidates)
        gate = resolve_min_samples(min_samples)
        topic = _check_topic(topic)
        rate = check_unit(explore, "explore")
        weight = check_number(prior_weight, "prior_weight")
        if weight <= 0:
            raise InvalidInputError(f"prior_weight must be > 0, got {prior_weight!r}")
        rng = _generator(seed) if rate > 0 else None
        placed = [self._place(source, topic, weight, gate) for source in sources]
        routes = [route for route, _ in placed]
        if rng is not None and float(rng.random()) < rate:  # an exploration round ([0, 1))
            return _thompson(routes, [posterior for _, posterior in placed], rng)
        rank = {t: i for i, t in enumerate(ROUTE_TIERS)}
        return sorted(routes, key=lambda r: (rank[r.tier], -r.score, -r.samples, r.source))

    def _place(self, source: str, topic: str | None, weight: float,
               gate: int) -> tuple[Route, tuple[float, float]]:
        """Where ``source`` stands for :meth:`route` (its exploitation score), and its Beta
        posterior ``(a, b)``."""
        where = f" on topic {topic!r}" if topic is not None else ""
        totals = self.store.totals(source, topic)
        n, k = totals.total, totals.right
        tier_name = self._tiers.get(source)
        p0 = CAPABILITY_TIERS[tier_name] if tier_name is not None else self.prior_of(source)
        declared = (f"tier {tier_name!r} ({p0:.3g})" if tier_name is not None
                    else f"prior {p0:.3g}")
        a, b = _beta(p0, weight, k, n)
        if n >= gate:
            score = k / n
            return Route(source, score, "measured", n,
                         f"measured: {k} right of {n} outcomes{where} ({score:.3g})"), (a, b)
        if n:
            score = a / (a + b)
            return Route(source, score, "exploring", n, (
                f"exploring: {k} right of {n} outcome{'s' if n > 1 else ''}{where}, "
                f"posterior mean {score:.3g} ({declared} worth {weight:g} outcomes)")), (a, b)
        return Route(source, p0, "declared", 0,
                     f"declared: {declared}; no outcomes yet{where}"), (a, b)

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """The outcomes kept (up to ``max_history`` per source), oldest first."""
        return self.store.outcomes(source, topic)

    def sources(self) -> list[str]:
        """Every source with a track record."""
        return self.store.sources()

    # -- change notification -------------------------------------------------------------
    def subscribe(self, callback: Callable[[set[str]], None]) -> None:
        """Call ``callback(sources)`` after outcomes change those sources' reliability.

        Bound methods are held weakly, so a base that is dropped stops listening.
        """
        if not callable(callback):
            raise InvalidTypeError("a listener must be callable")
        ref: Callable[[], Any]
        if isinstance(callback, types.MethodType):
            ref = weakref.WeakMethod(callback)
        else:  # functions, lambdas, builtins: held as given

            def ref(callback: Callable[[set[str]], None] = callback) -> Any:
                return callback

        with self._listeners_lock:
            self._listeners.append(ref)

    @property
    def polled(self) -> bool:
        """Whether :meth:`poll` can find anything: the store is one other processes may write
        (SQLite, PostgreSQL, a JSON file). An in-memory store changes only through this
        process, whose writes notify listeners as they are recorded."""
        return self._shared

    def poll(self) -> set[str]:
        """Pick up outcomes that other processes added to a shared store, and tell listeners."""
        changed = self.store.changed_sources()
        if changed:
            self._notify(changed)
        return changed

    def _notify(self, sources: set[str]) -> None:
        # call outside the lock (a listener may subscribe another); drop only the dead refs
        # seen here, so a listener subscribed meanwhile stays
        with self._listeners_lock:
            listeners = list(self._listeners)
        dead = []
        for ref in listeners:
            callback = ref()
            if callback is None:
                dead.append(ref)
            else:
                callback(sources)
        if dead:
            with self._listeners_lock:
                self._listeners = [r for r in self._listeners if all(r is not d for d in dead)]

    # -- persistence -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain data: settings, the totals behind every reliability, and the kept outcomes."""
        totals, outcomes = self.store.export()  # one moment's, while other threads write
        return {
            "format": LEDGER_FORMAT,
            "version": LEDGER_VERSION,
            "prior_weight": self.prior_weight,
            "memory_half_life": self.memory_half_life,
            "max_history": self.max_history,
            "policy": self.policy.to_dict(),
            "totals": totals,
            "outcomes": [o.to_dict() for o in outcomes],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, clock: Clock | None = None,
                  path: object = None) -> TrustLedger:
        """Rebuild a ledger from :meth:`to_dict` output (in memory).

        The whole document is checked first (:func:`validate_ledger_document`); a malformed
        one raises ``SnapshotError`` naming ``path`` and the field, and builds nothing.
        """
        doc = validate_ledger_document(data, path)
        ledger = cls(prior_weight=doc.prior_weight, memory_half_life=doc.memory_half_life,
                     max_history=doc.max_history, policy=doc.policy, clock=clock)
        store = ledger.store
        assert isinstance(store, MemoryStore)
        store.restore(doc.totals, doc.outcomes)
        return ledger

    def save(self, path: str | os.PathLike[str], *, format: str | None = None) -> None:
        """Write the ledger atomically (JSON for ``.json``, else msgpack unless ``format``)."""
        fmt = format_for(path, format, "json")
        atomic_write(path, encode(self.to_dict(), fmt))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, clock: Clock | None = None) -> TrustLedger:
        """Read a ledger written by :meth:`save`; a corrupt file raises ``SnapshotError``."""
        return cls.from_dict(decode_file(path, "ledger"), clock=clock, path=path)

    # -- the concern stores ----------------------------------------------------------------
    @property
    def sessions(self) -> SessionStore:
        """Where bases beside this ledger keep whole snapshots
        (:class:`~corollary.storage.protocols.SessionStore`; docs/ledger.md, "Storage").

        >>> TrustLedger().sessions.list_sessions()
        []
        """
        return self.store

    @property
    def journals(self) -> JournalStore | None:
        """Where journaled sessions beside this ledger are kept
        (:class:`~corollary.storage.protocols.JournalStore`), or ``None`` when its store keeps
        no journals (a JSON file: whole-snapshot sessions only).

        >>> TrustLedger().journals.journal_head("s")
        0
        """
        if self._journals is None:
            self._journals = keeps_journals(self.store)
        return cast(JournalStore, self.store) if self._journals else None

    def close(self) -> None:
        """Release the store's resources."""
        self.store.close()

    def __enter__(self) -> TrustLedger:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: types.TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"TrustLedger(prior_weight={self.prior_weight:g}, "
                f"memory_half_life={self.memory_half_life!r}, sources={len(self.sources())})")


# -- reading ledger documents ----------------------------------------------------------------


_UNSET: Any = object()


def open_ledger(
    target: str | os.PathLike[str] | None = None,
    *,
    prior_weight: float | None = None,
    memory_half_life: Duration | None = _UNSET,
    max_history: int = 10_000,
    policy: TrustPolicy | None = None,
    clock: Clock | None = None,
    **options: Any,
) -> TrustLedger:
    """A :class:`~corollary.trust.ledger.TrustLedger` on durable storage (the one way to open one).

    Parameters
    ----------
    target : str or path-like, optional
        ``*.db`` / ``*.sqlite`` or ``sqlite:///path`` (SQLite), ``*.json`` (JSON file),
        ``postgresql://...`` (PostgreSQL), ``":memory:"``, or a target of a backend registered
        in :mod:`corollary.storage.backends`. Default: ``$COROLLARY_LEDGER``, else
        :func:`~corollary.storage.targets.default_ledger_path`.
    prior_weight, memory_half_life : optional
        As for :class:`~corollary.trust.ledger.TrustLedger`. The first process to open a store
        records them in it; later openers that pass nothing use the recorded values, so a
        fleet agrees on them.
    max_history, policy, clock : optional
        As for :class:`~corollary.trust.ledger.TrustLedger` (the JSON file also records the policy).
    **options
        Backend options: SQLite ``timeout``, ``synchronous``; PostgreSQL ``namespace``,
        ``min_size``, ``max_size``, ``timeout``.

    Returns
    -------
    TrustLedger
        Close it with :meth:`~corollary.trust.ledger.TrustLedger.close` when done.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "trust.json")
    >>> with open_ledger(path, prior_weight=4) as ledger:
    ...     _ = ledger.record_outcome("tool:scraper", True, at=0)
    >>> open_ledger(path).prior_weight  # kept in the file for later openers
    4.0
    """
    backend, location = resolve_target(target)
    given: dict[str, Any] = {"max_history": max_history}
    if memory_half_life is not _UNSET:
        given["memory_half_life"] = to_seconds(memory_half_life, "memory_half_life")
    # validate every setting before a file or table is created
    TrustLedger(prior_weight=10 if prior_weight is None else prior_weight,
                memory_half_life=given.get("memory_half_life"), max_history=max_history,
                policy=policy, clock=clock)
    store = open_at(backend, location, given, options)
    try:
        stored = backend.read_settings(store)
        if prior_weight is None:
            prior_weight = stored.get("prior_weight", 10)
        if policy is None:
            policy = stored.get("policy")
        ledger = TrustLedger(prior_weight=prior_weight, memory_half_life=store.half_life,
                             max_history=max_history, policy=policy, clock=clock, store=store)
        backend.write_defaults(store, {"prior_weight": ledger.prior_weight,
                                       "memory_half_life": ledger.memory_half_life,
                                       "max_history": ledger.max_history,
                                       "policy": ledger.policy})
        return ledger
    except BaseException:
        store.close()
        raise


# the rank_sources tiers were never read by name; route's are ROUTE_TIERS

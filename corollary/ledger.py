"""The trust ledger: every right/wrong outcome per source, and the reliability learned from it.

The ledger keeps its outcomes in a store (:mod:`corollary.stores`); the in-memory store here
is the default. Reliability is ``(n0·p0 + Σ w·right) / (n0 + Σ w)`` with ``w = 1``, or
``2^(-age/memory_half_life)`` when the ledger forgets.

Besides the prior-weighted reliability, the ledger answers a *sample-gated* query
(:meth:`TrustLedger.confidence`): the plain share of right outcomes, withheld (``None``) until a
source has at least ``min_samples`` of them. Callers below the gate fall back to
:data:`DEFAULT_PRIOR` or to a signal of their own; :meth:`TrustLedger.rank_sources` does that
fallback in tiers for routing.
"""

from __future__ import annotations

import math
import numbers
import os
import threading
import types
import uuid
import warnings
import weakref
from collections import ChainMap, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

import attrs

from . import confidence as formulas
from ._fields import Fields, policy_fields
from ._io import LEDGER_FORMAT, LEDGER_VERSION, atomic_write, decode_file, encode, format_for
from .clock import Clock, Duration, system_clock, to_seconds
from .errors import InvalidInputError, InvalidTypeError, SnapshotError
from .policy import STEP_KINDS, TrustPolicy, split_source

#: How far past the ledger's clock an outcome's timestamp may lie (clock skew between hosts).
FUTURE_SKEW = 86_400.0
#: The uniform prior a caller should fall back to when :meth:`TrustLedger.confidence` reports
#: ``insufficient_data`` and it has no better signal (a policy prior, say).
DEFAULT_PRIOR = 0.5
#: Outcomes a source needs before :meth:`TrustLedger.confidence` reports a value.
DEFAULT_MIN_SAMPLES = 5
#: Environment variable overriding :data:`DEFAULT_MIN_SAMPLES` (a positive integer).
MIN_SAMPLES_ENV = "COROLLARY_MIN_SAMPLES"
#: The tiers of :meth:`TrustLedger.rank_sources`, in the order they are tried.
ROUTING_TIERS = ("empirical", "estimate", "prior")


def check_source(source: object) -> str:
    """Validate a ledger source: a ``kind:name`` string that is not a reasoning step."""
    kind, name = split_source(source)
    if kind in STEP_KINDS:
        raise InvalidInputError(f"{source!r} is a reasoning step; only sources have track records")
    return f"{kind}:{name}"  # a plain str, whatever subclass came in


def check_correct(correct: object) -> bool:
    """Accept exactly right/wrong: ``True``/``False`` (numpy bools too) or the integers 1/0."""
    if isinstance(correct, bool):
        return correct
    if type(correct).__name__ == "bool_":  # numpy.bool_ without importing numpy here
        return bool(correct)
    if isinstance(correct, int) and correct in (0, 1):
        return bool(correct)
    raise InvalidInputError(f"an outcome is right (True) or wrong (False), not {correct!r}")


@attrs.frozen(slots=True)
class Outcome:
    """One verdict on a source. ``at`` is when it was observed, ``recorded_at`` when stored."""

    source: str
    correct: bool
    at: float
    recorded_at: float
    event_id: str
    topic: str | None = None
    reason: str | None = None
    evidence: str | None = None
    key: str | None = None
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Rebuild an outcome from :meth:`to_dict` output, checking every field.

        Raises ``SnapshotError`` (a ``ValueError``) naming the field that is wrong.
        """
        return _read_outcome(Fields(None, "outcome"), data, "outcome")


@attrs.frozen(slots=True)
class Totals:
    """Aggregates of a source's outcomes: plain counts, and decayed sums anchored at ``anchor``."""

    right: int = 0
    total: int = 0
    anchor: float = 0.0
    weighted_right: float = 0.0
    weighted_total: float = 0.0

    def add(self, correct: bool, at: float, half_life: float | None) -> Totals:
        if half_life is None:
            r = self.right + correct
            return Totals(r, self.total + 1, max(self.anchor, at) if self.total else at, r, self.total + 1)
        if self.total == 0:
            return Totals(int(correct), 1, at, float(correct), 1.0)
        if at >= self.anchor:
            shrink = formulas.decay_weight(at - self.anchor, half_life)
            return Totals(
                self.right + correct,
                self.total + 1,
                at,
                self.weighted_right * shrink + correct,
                self.weighted_total * shrink + 1.0,
            )
        w = formulas.decay_weight(self.anchor - at, half_life)
        return Totals(
            self.right + correct,
            self.total + 1,
            self.anchor,
            self.weighted_right + w * correct,
            self.weighted_total + w,
        )

    def weighted_at(self, now: float, half_life: float | None) -> tuple[float, float]:
        """(Σ w·right, Σ w) at time ``now``; outcomes later than ``now`` count as fresh."""
        if half_life is None:
            return float(self.right), float(self.total)
        factor = formulas.decay_weight(max(now - self.anchor, 0.0), half_life)
        return self.weighted_right * factor, self.weighted_total * factor


_EMPTY = Totals()


def fold_totals(totals: dict[tuple[str, str | None], Totals], source: str, topic: str | None,
                correct: bool, at: float, half_life: float | None) -> None:
    """Fold one outcome into ``source``'s totals over all topics and, if it has one, its topic's.

    Every store folds with this, in its outcomes' order, so all give the same aggregates.
    """
    slot: tuple[str, str | None] = (source, None)
    totals[slot] = totals.get(slot, _EMPTY).add(correct, at, half_life)
    if topic is not None:
        slot = (source, topic)
        totals[slot] = totals.get(slot, _EMPTY).add(correct, at, half_life)


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
    """The sample-gated answer of :meth:`TrustLedger.confidence`.

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


def resolve_min_samples(min_samples: object = None) -> int:
    """The sample gate: the argument, else ``$COROLLARY_MIN_SAMPLES``, else 5.

    An invalid argument raises; an invalid environment value warns and falls back to
    :data:`DEFAULT_MIN_SAMPLES`, so a typo in a deployment's environment never stops a query.

    >>> resolve_min_samples(3)
    3
    """
    if min_samples is not None:
        if isinstance(min_samples, bool) or not isinstance(min_samples, int):
            raise InvalidTypeError(f"min_samples must be an int, not {type(min_samples).__name__}")
        if min_samples < 1:
            raise InvalidInputError(f"min_samples must be >= 1, got {min_samples}")
        return min_samples
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


class OutcomeStore(Protocol):
    """Where a ledger keeps outcomes. Implementations live in :mod:`corollary.stores`."""

    half_life: float | None

    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Store new outcomes; return those actually added (event ids already seen are skipped)."""

    def totals(self, source: str, topic: str | None = None) -> Totals:
        """The aggregates of ``source`` (in ``topic``, or over all topics)."""

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Stored outcomes, oldest first."""

    def sources(self) -> list[str]:
        """Every source with at least one outcome."""

    def changed_sources(self) -> set[str]:
        """Sources with outcomes added by someone else since the last call (shared stores)."""

    def close(self) -> None:
        """Release resources."""


class MemoryStore:
    """The default store: dictionaries in this process.

    Aggregates count every outcome; the outcomes themselves are kept up to ``max_history``
    per source, for audit and calibration. Safe to share between threads: writes and
    listings hold a lock, and a read of one source's totals is a single dictionary lookup
    of an immutable value.
    """

    def __init__(self, half_life: float | None = None, max_history: int = 10_000) -> None:
        self.half_life = half_life
        self.max_history = max_history
        self._totals: dict[tuple[str, str | None], Totals] = {}
        self._history: dict[str, deque[Outcome]] = {}
        self._event_ids: set[str] = set()
        self._sessions: dict[str, bytes] = {}
        # folding an outcome into the totals is a read-modify-write of a dict entry, and the
        # event-id check before it must see every earlier add: one writer at a time
        self._lock = threading.RLock()

    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        with self._lock:
            added = self._new(outcomes)
            for o in added:
                fold_totals(self._totals, o.source, o.topic, o.correct, o.at, self.half_life)
            self._remember(added)
        return added

    def stage(self, outcomes: list[Outcome]) -> tuple[list[Outcome], dict[tuple[str, str | None],
                                                                            Totals]]:
        """The outcomes new to the store and the totals they change, without changing anything.

        For stores that must write the result somewhere before they take it: :meth:`commit`
        it afterwards, under the same hold of the store's lock.
        """
        changed: dict[tuple[str, str | None], Totals] = {}
        # reads fall through to the current totals, writes land in ``changed``
        view = cast("dict[tuple[str, str | None], Totals]", ChainMap(changed, self._totals))
        added = self._new(outcomes)
        for o in added:
            fold_totals(view, o.source, o.topic, o.correct, o.at, self.half_life)
        return added, changed

    def commit(self, added: list[Outcome], totals: Mapping[tuple[str, str | None], Totals]) -> None:
        """Take what :meth:`stage` returned."""
        with self._lock:
            self._totals.update(totals)
            self._remember(added)

    def _new(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        """The outcomes whose event ids the store has not seen (the first of repeats)."""
        known = self._event_ids
        seen: set[str] = set()
        new = []
        for o in outcomes:
            if o.event_id not in known and o.event_id not in seen:
                seen.add(o.event_id)
                new.append(o)
        return new

    def _remember(self, added: list[Outcome]) -> None:
        for outcome in added:
            self._event_ids.add(outcome.event_id)
            self._keep(outcome)

    def _keep(self, outcome: Outcome) -> None:
        history = self._history.get(outcome.source)
        if history is None:
            history = self._history[outcome.source] = deque(maxlen=self.max_history)
        history.append(outcome)

    def restore(self, totals: Iterable[Sequence[Any]], outcomes: Iterable[Outcome]) -> None:
        """Take saved totals rows and kept outcomes as they are (nothing is folded again).

        The totals may cover more outcomes than are kept (history beyond ``max_history``).
        """
        rows = {(s, t): Totals(int(r), int(n), float(a), float(wr), float(wt))
                for s, t, r, n, a, wr, wt in totals}
        with self._lock:
            self._remember(list(outcomes))
            self.load_totals(rows)

    def totals(self, source: str, topic: str | None = None) -> Totals:
        # no lock: one lookup of an immutable value, on the belief engine's hot path
        return self._totals.get((source, topic), _EMPTY)

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        with self._lock:
            if source is None:
                found = [o for h in self._history.values() for o in h]
            else:
                found = list(self._history.get(source, ()))
        if source is None:
            found.sort(key=lambda o: (o.recorded_at, o.at))
        if topic is not None:
            found = [o for o in found if o.topic == topic]
        return found

    def sources(self) -> list[str]:
        with self._lock:
            return sorted({s for s, _ in self._totals})

    def topics(self, source: str) -> list[str]:
        """The topics ``source`` has outcomes in."""
        with self._lock:
            return sorted(t for s, t in self._totals if s == source and t is not None)

    def export(self) -> tuple[list[list[Any]], list[Outcome]]:
        """Totals rows (see :func:`totals_rows`) and kept outcomes, taken at one moment."""
        with self._lock:
            return totals_rows(self._totals), self.outcomes()

    def changed_sources(self) -> set[str]:
        return set()

    # sessions: base snapshots kept beside the ledger (in this process only), versioned
    def _session_state(self) -> tuple[Any, dict[str, int]]:
        """The lock and version table of the sessions (made on first use; ``setdefault`` on
        the instance dict is atomic, so two threads cannot make two)."""
        state = self.__dict__.get("_session_sync")
        if state is None:
            import threading

            state = self.__dict__.setdefault("_session_sync", (threading.Lock(), {}))
        return state  # type: ignore[no-any-return]

    def save_session(self, session_id: str, data: bytes, *,
                     expected_version: int | None = None) -> int:
        """Keep ``data`` (a base's snapshot) under ``session_id``; return its new version.

        ``expected_version``: ``None`` writes unconditionally; ``0`` requires that there is
        no such session yet; ``n > 0`` requires the stored version to be exactly ``n``.
        Otherwise :class:`~corollary.errors.ConcurrentWriteError` is raised and nothing is
        written.
        """
        from .stores.base import check_expected_version, check_session, session_conflict

        check_session(session_id, data)
        expected = check_expected_version(expected_version)
        lock, versions = self._session_state()
        with lock:
            current = versions.get(session_id, 1) if session_id in self._sessions else 0
            if expected is not None and current != expected:
                raise session_conflict(session_id, expected, current, "memory")
            self._sessions[session_id] = bytes(data)
            versions[session_id] = current + 1
            return current + 1

    def read_session(self, session_id: str) -> tuple[bytes, int]:
        """``(data, version)`` of the session; ``SessionNotFoundError`` if there is none."""
        from .stores.base import SessionNotFoundError, check_session

        check_session(session_id)
        lock, versions = self._session_state()
        with lock:
            if session_id not in self._sessions:
                raise SessionNotFoundError(f"no session {session_id!r}", "memory")
            return self._sessions[session_id], versions.get(session_id, 1)

    def load_session(self, session_id: str) -> bytes:
        """The snapshot saved under ``session_id``; ``SessionNotFoundError`` if there is none."""
        return self.read_session(session_id)[0]

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""
        return sorted(self._sessions)

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""
        from .stores.base import check_session

        check_session(session_id)
        lock, versions = self._session_state()
        with lock:
            versions.pop(session_id, None)
            return self._sessions.pop(session_id, None) is not None

    def close(self) -> None:
        return None

    def load_totals(self, totals: Mapping[tuple[str, str | None], Totals]) -> None:
        with self._lock:
            self._totals.update(totals)


def totals_rows(totals: Mapping[tuple[str, str | None], Totals]) -> list[list[Any]]:
    """``[source, topic, right, total, anchor, weighted_right, weighted_total]`` rows, sorted
    by source, then the all-topics row, then topics: the ``totals`` of a saved ledger."""
    rows = []
    for (source, topic), t in sorted(totals.items(), key=lambda kv: (
            kv[0][0], kv[0][1] is not None, kv[0][1] or "")):
        if t.total:
            rows.append([source, topic, t.right, t.total, t.anchor, t.weighted_right,
                         t.weighted_total])
    return rows


#: The largest ``max_history``: outcomes kept per source in memory (2**31 is far past RAM).
MAX_HISTORY = 2**31
#: What a ledger calls on its store.
_STORE_METHODS = ("add", "totals", "outcomes", "sources", "changed_sources", "close")


def _check_prior_weight(value: object) -> float:
    if isinstance(value, bool) or type(value).__name__ == "bool_" or not isinstance(
            value, numbers.Real):
        raise InvalidTypeError(f"prior_weight must be a number, not {type(value).__name__}")
    try:
        weight = float(value)
    except OverflowError:
        raise InvalidInputError("prior_weight is too large to be a float") from None
    if not math.isfinite(weight) or weight <= 0:
        raise InvalidInputError(f"prior_weight must be finite and > 0, got {value!r}")
    return weight


def _check_max_history(value: object) -> int:
    if isinstance(value, bool) or type(value).__name__ == "bool_" or not isinstance(
            value, numbers.Integral):
        raise InvalidTypeError(f"max_history must be an int, not {type(value).__name__}")
    history = int(value)
    if not 1 <= history <= MAX_HISTORY:
        raise InvalidInputError(f"max_history must be an integer in [1, 2**31], got {value!r}")
    return history


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
    store : OutcomeStore, optional
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
        store: OutcomeStore | None = None,
    ) -> None:
        weight = _check_prior_weight(prior_weight)
        half_life = to_seconds(memory_half_life, "memory_half_life")
        if half_life is not None and half_life <= 0:
            raise InvalidInputError("memory_half_life must be > 0 (or None to never forget)")
        history = _check_max_history(max_history)
        if policy is not None and not isinstance(policy, TrustPolicy):
            raise InvalidTypeError("policy must be a TrustPolicy")
        if clock is not None and not callable(clock):
            raise InvalidTypeError(f"clock must be a callable returning POSIX seconds, not "
                                   f"{type(clock).__name__}")
        if store is not None:
            missing = [name for name in _STORE_METHODS if not callable(getattr(store, name, None))]
            if missing:
                raise InvalidTypeError(f"store must be an outcome store (see corollary.stores); "
                                       f"{type(store).__name__} has no {', '.join(missing)}")
        self.prior_weight = weight
        self.memory_half_life = half_life
        self.max_history = history
        self.policy = policy or TrustPolicy()
        self.clock: Clock = clock or system_clock
        self.store: OutcomeStore = store if store is not None else MemoryStore(half_life, history)
        if getattr(self.store, "half_life", half_life) != half_life:
            raise InvalidInputError("the store was opened with a different memory half-life")
        self._declared: dict[str, float] = {}
        self._listeners: list[Callable[[], Any]] = []
        # bases in other threads subscribe while outcomes are announced
        self._listeners_lock = threading.Lock()
        # shared stores may pick up other writers' outcomes while writing: report them too
        self._shared = not isinstance(self.store, MemoryStore)

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, target: str | os.PathLike[str] | None = None, **options: Any) -> TrustLedger:
        """A ledger on durable storage: a path (``.db``/``.sqlite``, ``.json``) or a URL."""
        from .stores import open_ledger

        return open_ledger(target, **options)

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
        if at is None:
            at = now
        elif isinstance(at, bool) or not isinstance(at, (int, float)):
            raise InvalidTypeError(f"at must be POSIX seconds, not {type(at).__name__}")
        try:
            at = float(at)
        except OverflowError:
            raise InvalidInputError("at is too large to be POSIX seconds") from None
        if not math.isfinite(at):
            raise InvalidInputError(f"at must be finite, got {at!r}")
        if at > now + FUTURE_SKEW:
            raise InvalidInputError(f"at={at} lies in the future of the ledger's clock ({now})")
        texts = {}
        for name, text in (("topic", topic), ("event_id", event_id), ("evidence", evidence),
                           ("reason", reason), ("key", key)):
            if text is not None and (not isinstance(text, str) or not text):
                raise InvalidInputError(f"{name} must be a non-empty string or None, got {text!r}")
            if text is not None:
                text = text if type(text) is str else str.__str__(text)
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    raise InvalidInputError(f"{name} holds characters that cannot be stored") from None
            texts[name] = text
        topic, event_id, evidence, reason, key = (texts["topic"], texts["event_id"],
                                                  texts["evidence"], texts["reason"], texts["key"])
        if confidence is not None:
            if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
                0.0 <= confidence <= 1.0
            ):
                raise InvalidInputError(f"confidence must be in [0, 1], got {confidence!r}")
            confidence = float(confidence)
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
        if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not 0 <= prior <= 1:
            raise InvalidInputError(f"a prior is a number in [0, 1], got {prior!r}")
        self._declared[source] = float(prior)

    def prior_of(self, source: str) -> float:
        """The prior of ``source``: a declared one, else the policy's."""
        declared = self._declared.get(source)
        return declared if declared is not None else self.policy.prior(source)

    def is_time_dependent(self, source: str) -> bool:
        """Whether ``source``'s reliability moves with time (it has outcomes and the ledger forgets)."""
        return self.memory_half_life is not None and self.store.totals(source).total > 0

    def record_of(self, source: str, *, at: float | None = None, prior: float | None = None,
                  topic: str | None = None) -> SourceRecord:
        """The track record of ``source``: counts, weighted sums, prior and reliability."""
        if prior is None:
            prior = self.prior_of(check_source(source))
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

    def confidence(
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
        >>> ledger.confidence("model:m")
        GatedConfidence(value=0.75, samples=8, insufficient_data=False, min_samples=5)
        >>> ledger.confidence("model:m", min_samples=10).value is None
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
        """Rank candidate sources (models, tools...) for a task, best first.

        Each candidate is scored by the first tier that can speak for it:

        1. ``"empirical"``: its gated share of right outcomes (:meth:`confidence`), once it has
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
        export = getattr(self.store, "export", None)
        if export is not None:  # totals and outcomes of one moment, while other threads write
            totals, outcomes = export()
        else:
            totals, outcomes = self._totals_rows(), self.store.outcomes()
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

    def _totals_rows(self) -> list[list[Any]]:
        totals = []
        topics_of = getattr(self.store, "topics", None)
        for source in self.store.sources():
            if topics_of is not None:
                topics = {None, *topics_of(source)}
            else:
                topics = {None} | {o.topic for o in self.store.outcomes(source)
                                   if o.topic is not None}
            for topic in sorted(topics, key=lambda t: (t is not None, t or "")):
                t = self.store.totals(source, topic)
                if t.total:
                    totals.append([source, topic, t.right, t.total, t.anchor, t.weighted_right,
                                   t.weighted_total])
        return totals

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
_OUTCOME_KEYS = ("source", "correct", "at", "recorded_at", "event_id", "topic", "reason",
                 "evidence", "key", "confidence")
_LEDGER_KEYS = ("format", "version", "prior_weight", "memory_half_life", "max_history", "policy",
                "totals", "outcomes")
#: Header fields the JSON-file store adds to the documents it writes.
_STORE_KEYS = {"store": "text", "generation": "count"}
#: Slack for the float sums of decayed totals (a sum of weights <= 1 may round a hair over).
_SLACK = 1e-9


@attrs.frozen(slots=True)
class LedgerDocument:
    """A checked ledger document (:func:`validate_ledger_document`): settings, totals rows
    ``[source, topic, right, total, anchor, weighted_right, weighted_total]`` and outcomes, ready
    for :meth:`MemoryStore.restore`; ``header`` holds the other top-level fields present."""

    version: int
    prior_weight: float
    memory_half_life: float | None
    max_history: int
    policy: TrustPolicy
    totals: list[list[Any]]
    outcomes: list[Outcome]
    header: dict[str, Any]


def _read_outcome(f: Fields, data: Any, field: str) -> Outcome:
    d = f.mapping(data, field, _OUTCOME_KEYS)
    return Outcome(
        source=f.source(d["source"], f"{field}.source"),
        correct=f.boolean(d["correct"], f"{field}.correct"),
        at=f.number(d["at"], f"{field}.at"),
        recorded_at=f.number(d["recorded_at"], f"{field}.recorded_at"),
        event_id=f.text(d["event_id"], f"{field}.event_id"),
        topic=f.maybe_text(d["topic"], f"{field}.topic"),
        reason=f.maybe_text(d["reason"], f"{field}.reason"),
        evidence=f.maybe_text(d["evidence"], f"{field}.evidence"),
        key=None if d["key"] is None else f.key(d["key"], f"{field}.key"),
        confidence=f.maybe_unit(d["confidence"], f"{field}.confidence"),
    )


def validate_ledger_document(data: Any, where: object = None, *, extra: Iterable[str] = (),
                             prefix: str = "", what: str = "ledger") -> LedgerDocument:
    """Check a ledger document (:meth:`TrustLedger.to_dict`, a ledger file, the JSON-file
    store's file) field by field; build nothing, change nothing.

    Parameters
    ----------
    data : object
        The decoded document.
    where : object, optional
        What to name in errors (a path, a session).
    extra : iterable of str
        Further top-level fields the caller allows (and checks itself); ``"store"`` (a string)
        and ``"generation"`` (a count), which the JSON-file store writes, are always allowed.
    prefix : str
        Prepended to field names in errors (``"ledger."`` inside a snapshot).

    Returns
    -------
    LedgerDocument

    Raises
    ------
    SnapshotError
        Naming ``where`` and the first field that is not what :meth:`TrustLedger.to_dict`
        writes: wrong types, NaN or infinite times, a confidence outside [0, 1], counts that
        contradict each other (more right than total, weighted sums above the counts), a
        source that is not ``kind:name``, repeated totals rows or event ids, outcomes of a
        source without totals, unknown or missing fields, a newer format version.
    """
    f = Fields(where, what)
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        raise SnapshotError(f"not a corollary ledger{f' ({prefix[:-1]})' if prefix else ''}",
                            where)
    version = f.integer(data.get("version"), f"{prefix}version", 1, 2**31)
    if version > LEDGER_VERSION:
        raise SnapshotError(f"ledger format version {version} is newer than this corollary "
                            f"reads ({LEDGER_VERSION}); upgrade corollary", where)
    allowed = set(_STORE_KEYS) | set(extra)
    f.mapping(data, prefix.rstrip(".") or "the document", _LEDGER_KEYS, allowed)
    header = {k: v for k, v in data.items() if k not in _LEDGER_KEYS}
    for name, kind in _STORE_KEYS.items():
        if name in header:
            if kind == "text":
                f.text(header[name], f"{prefix}{name}")
            else:
                f.integer(header[name], f"{prefix}{name}", 0, 2**63 - 1)
    prior_weight = f.number(data["prior_weight"], f"{prefix}prior_weight", above=0.0)
    half_life = f.duration(data["memory_half_life"], f"{prefix}memory_half_life")
    max_history = f.integer(data["max_history"], f"{prefix}max_history", 1, 2**62)
    policy = policy_fields(f, data["policy"], f"{prefix}policy")

    totals: list[list[Any]] = []
    seen: dict[tuple[str, str | None], int] = {}
    for i, row in enumerate(f.items(data["totals"], f"{prefix}totals")):
        field = f"{prefix}totals[{i}]"
        source, topic, right, total, anchor, wr, wt = f.items(row, field, 7)
        source = f.source(source, f"{field}[0] (source)")
        topic = f.maybe_text(topic, f"{field}[1] (topic)")
        if (source, topic) in seen:
            f.fail(field, f"repeats the totals of {source!r}, topic {topic!r}")
        total = f.integer(total, f"{field}[3] (total)", 1, 2**63 - 1)
        right = f.integer(right, f"{field}[2] (right)", 0, total)
        anchor = f.number(anchor, f"{field}[4] (anchor)")
        wt = f.number(wt, f"{field}[6] (weighted total)", lo=0.0, hi=total * (1 + _SLACK))
        wr = f.number(wr, f"{field}[5] (weighted right)", lo=0.0,
                      hi=min(wt, right) * (1 + _SLACK))
        if half_life is None and (wr != right or wt != total):
            f.fail(field, "has weighted sums other than its counts in a ledger that never "
                          "forgets")
        seen[(source, topic)] = total
        totals.append([source, topic, right, total, anchor, wr, wt])
    for (source, topic), total in seen.items():
        if topic is not None and seen.get((source, None), 0) < total:
            f.fail(f"{prefix}totals", f"count more outcomes of {source!r} in topic {topic!r} "
                                      "than over all topics")

    outcomes = []
    events: set[str] = set()
    kept: dict[tuple[str, str | None], int] = {}
    for i, item in enumerate(f.items(data["outcomes"], f"{prefix}outcomes")):
        field = f"{prefix}outcomes[{i}]"
        outcome = _read_outcome(f, item, field)
        if outcome.event_id in events:
            f.fail(f"{field}.event_id", f"repeats event {outcome.event_id!r}")
        events.add(outcome.event_id)
        slots: list[tuple[str, str | None]] = [(outcome.source, None)]
        if outcome.topic is not None:
            slots.append((outcome.source, outcome.topic))
        for slot in slots:
            count = kept[slot] = kept.get(slot, 0) + 1
            if count > seen.get(slot, 0):
                topic_text = "" if slot[1] is None else f" in topic {slot[1]!r}"
                f.fail(field, f"is one more outcome of {slot[0]!r}{topic_text} than its totals "
                              "count")
        outcomes.append(outcome)
    return LedgerDocument(version, prior_weight, half_life, max_history, policy, totals,
                          outcomes, header)

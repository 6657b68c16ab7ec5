"""Promises inside a belief base: calibrate on its own outcomes, answer or abstain, replay.

Every outcome the ledger records about a belief keeps the confidence that belief had when the
outcome was recorded (:class:`corollary.outcomes.Outcome` ``confidence``). This module turns
those outcomes into ``(confidence, correct)`` pairs (:func:`calibration_pairs`), and holds a
base's promises: :class:`Promises` is the component a :class:`~corollary.BeliefBase` owns,
with the promises from :mod:`corollary.guarantee` attached by name, a
:class:`~corollary.calibration.Platt` calibrator, and the verdicts of the answers given under
them. :meth:`Promises.answer` gives the held value alone when its confidence clears the
promise's threshold, and otherwise abstains, saying what it would have answered.

Each answer leaves a *verdict*: a plain-data record of the signal, its value, the threshold,
the promise's fingerprint and parameters, the status and the reason, sealed with a SHA-256
over a canonical JSON of those fields. The verdict is kept by the component (``explain`` shows
it and snapshots carry it) and :meth:`Promises.replay` checks a record against the promise
attached *now*: a promise recalibrated since is a mismatch ("the promise changed"), and a record
whose hash no longer verifies was tampered with.

The component reads the base only through what it is handed (the held beliefs of a key, the
time, the ledger), and imports the statistics (numpy, scipy) only when a promise is made, so a
base that never promises anything starts fast. The methods of the same names on
:class:`~corollary.BeliefBase` delegate here.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .errors import InvalidInputError, InvalidTypeError, UnknownPromiseError
from .values import canon, check_key, plain

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from .calibration import Platt
    from .guarantee import GroupedPromise, Promise
    from .ledger import TrustLedger
    from .tms import Belief

__all__ = [
    "OK",
    "ABSTAIN",
    "SIGNAL",
    "VERDICT_FIELDS",
    "Answer",
    "Replay",
    "Promises",
    "UnknownPromiseError",
    "calibration_pairs",
    "record_hash",
]

OK = "ok"
ABSTAIN = "abstain"
#: The signal a base's promises are set on: the belief's (raw) confidence.
SIGNAL = "confidence"
#: The fields of a verdict record, besides ``hash``.
VERDICT_FIELDS = (
    "key", "value", "signal", "signal_value", "calibrated", "threshold", "promise",
    "fingerprint", "method", "parameters", "group", "held", "status", "why", "warnings", "at",
)
#: Reasons :func:`replay` gives for a mismatch.
PROMISE_CHANGED = "the promise changed"
PROMISE_REMOVED = "the promise was removed"
TAMPERED = "the record was tampered with"
SIGNAL_CHANGED = "the signal changed"
VALUE_CHANGED = "the value changed"
NOT_DERIVED = "the verdict does not follow from its signal"


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@attrs.frozen
class Answer:
    """What :meth:`BeliefBase.answer` decided for one key.

    Attributes
    ----------
    key : str
    status : {"ok", "abstain"}
        ``"ok"``: answer ``value`` alone; ``"abstain"``: escalate.
    value : object
        The value the base holds and would give (``None`` when nothing single is held).
    confidence : float
        The belief's raw confidence now (0.0 when nothing is held).
    calibrated : float or None
        The confidence mapped by the base's calibrator, if one was fitted.
    threshold : float or None
        The promise's threshold (``inf``: it answers nothing alone); ``None`` without one.
    why : str
        The reason, in words.
    record : dict
        The hashed verdict record (see :func:`replay`).

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("hq", "Austin", source="tool:registry")
    >>> a = kb.answer("hq")
    >>> a.status, a.value, a.why
    ('ok', 'Austin', 'no promise attached: answered at confidence 0.95')
    """

    key: str
    status: str
    value: Any
    confidence: float
    calibrated: float | None
    threshold: float | None
    why: str
    record: dict[str, Any] = attrs.field(repr=False, eq=False)

    @property
    def ok(self) -> bool:
        """Whether the answer may be given alone."""
        return self.status == OK


@attrs.frozen
class Replay:
    """The result of replaying a verdict record against the current promise.

    Attributes
    ----------
    match : bool
        Whether the verdict re-derives unchanged.
    reason : str or None
        Why not: ``"the record was tampered with"``, ``"the promise changed"``,
        ``"the promise was removed"``, ``"the verdict does not follow from its signal"``, and
        with ``live=True`` also ``"the value changed"`` / ``"the signal changed"``.
    status : str or None
        The status re-derived now (``None`` when it could not be re-derived).
    recorded_status : str or None
        The status in the record.
    detail : str
        More words on the comparison.

    Examples
    --------
    >>> Replay(True, None, "ok", "ok", "").match
    True
    """

    match: bool
    reason: str | None
    status: str | None
    recorded_status: str | None
    detail: str = ""

    def __bool__(self) -> bool:
        return self.match


# ---------------------------------------------------------------------------------------------
# Pairs
# ---------------------------------------------------------------------------------------------


def calibration_pairs(
    ledger: TrustLedger, source: str | None = None, topic: str | None = None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """``(confidences, correct)`` from the ledger's outcomes that carry a confidence.

    One outcome *event* gives one pair. The base records some events as several outcomes --
    a retraction blames every accountable source, a confirmation credits the new source and
    each source that already held the value -- all with the same key, time, reason, verdict
    and confidence. Such outcomes are counted once: within a group of outcomes agreeing on
    those fields, the number of pairs is the largest number of outcomes any single source has
    in it (two separate events about the same source stay two pairs). With ``source`` every
    outcome of that source is its own pair.

    Parameters
    ----------
    ledger : TrustLedger
        The base's ledger (``kb.ledger``).
    source : str, optional
        Only this source's outcomes.
    topic : str, optional
        Only outcomes recorded with this topic.

    Returns
    -------
    confidences : numpy.ndarray of float
        The confidence the belief had when each outcome was recorded, oldest first.
    correct : numpy.ndarray of bool
        Whether it turned out right.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("ceo", "Ann", source="tool:a")
    >>> kb.assert_("ceo", "Ann", source="tool:b")     # a confirmation: one event, two sources
    >>> kb.retract("ceo", fault="source")             # one event, blames both sources
    >>> conf, right = calibration_pairs(kb.ledger)
    >>> [round(float(c), 3) for c in conf], right.tolist()
    ([0.95, 0.998], [True, False])
    >>> len(calibration_pairs(kb.ledger, source="tool:a")[0])
    2
    """
    import numpy as np

    outcomes = ledger.outcomes(source, topic)
    groups: dict[tuple[Any, ...], Counter[str]] = {}
    for o in outcomes:
        if o.confidence is None:
            continue
        ident = (o.key, o.at, o.recorded_at, o.reason, o.correct, o.confidence, o.topic)
        groups.setdefault(ident, Counter())[o.source] += 1
    # oldest recorded first (ties: in the order first seen; the sort is stable)
    order = sorted(groups, key=lambda ident: (ident[2], ident[1]))
    conf: list[float] = []
    right: list[bool] = []
    for ident in order:
        repeat = max(groups[ident].values())
        conf.extend([float(ident[5])] * repeat)
        right.extend([bool(ident[4])] * repeat)
    return np.asarray(conf, dtype=np.float64), np.asarray(right, dtype=np.bool_)




def _examples(
    ledger: TrustLedger, examples: Iterable[Any] | None, source: str | None, topic: str | None
) -> tuple[NDArray[np.float64], Any]:
    """The pairs to calibrate on: ``examples`` validated, or the base's own."""
    import numpy as np

    from .calibration import _check_confidences

    if examples is None:
        conf, right = calibration_pairs(ledger, source, topic)
        if conf.size == 0:
            raise InvalidInputError(
                "the base has no outcomes with a confidence yet: record some (retract with "
                "fault='source', record_outcome(..., key=...), claims with checks) or pass examples="
            )
        return conf, right
    if source is not None or topic is not None:
        raise InvalidInputError("source= and topic= select the base's own pairs; not with examples=")
    if isinstance(examples, (str, bytes, Mapping)) or not isinstance(examples, Iterable):
        raise InvalidTypeError(
            f"examples must be (confidence, correct) pairs, not {type(examples).__name__}"
        )
    confs: list[float] = []
    labels: list[Any] = []
    for i, ex in enumerate(examples):
        if isinstance(ex, (str, bytes)) or not hasattr(ex, "__len__") or len(ex) != 2:
            raise InvalidInputError(f"example {i} is not a (confidence, correct) pair: {ex!r}")
        c, y = ex[0], ex[1]
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (numbers.Real, np.number)):
            raise InvalidTypeError(f"example {i}: a confidence is a number, not {c!r}")
        confs.append(float(c))
        labels.append(y)
    if not confs:
        raise InvalidInputError("examples is empty")
    # confidences in [0, 1] here; the labels are checked by the calibrators (booleans or 0 / 1)
    return _check_confidences(confs, "confidences"), labels


def _canonical(x: Any) -> Any:
    """Plain, strictly-JSON data with a single spelling (non-finite floats as strings)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else repr(x)
    if isinstance(x, Mapping):
        return {str(k): _canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    if type(x).__module__ == "numpy" and hasattr(x, "item"):  # numpy scalars
        return _canonical(x.item())
    return x


def record_hash(record: Mapping[str, Any]) -> str:
    """SHA-256 over the canonical JSON of a verdict record's fields (all but ``hash``).

    Examples
    --------
    >>> record_hash({"key": "k", "b": 1.0}) == record_hash({"b": 1.0, "key": "k", "hash": "x"})
    True
    """
    body = {k: v for k, v in record.items() if k != "hash"}
    blob = json.dumps(_canonical(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _fmt(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.4g}"


def _decide(name: str | None, promise: Promise | None, signal: float, held: int = 1) -> str:
    """``abstain`` unless one value is ``held``; then ``ok`` without a promise, and under one
    ``ok`` iff the signal clears its threshold."""
    if held != 1:
        return ABSTAIN
    if name is None:
        return OK
    return OK if promise is not None and promise.allows(signal) else ABSTAIN


def _why(name: str | None, promise: Promise | None, none_reason: str | None, status: str,
         signal: float, value: Any, group: Any) -> str:
    """The reason of a verdict, in words."""
    if promise is None:
        if none_reason is not None:
            return f"{none_reason}: answered at confidence {_fmt(signal)}"
        return (f"promise {name!r} has no threshold for group {group!r}: abstained; "
                f"would have answered {value!r} (confidence {_fmt(signal)})")
    label = f"promise {name!r}" + (f", group {group!r}" if group is not None else "")
    words = promise.promise or promise.method
    if status == OK:
        return f"confidence {_fmt(signal)} >= {_fmt(promise.threshold)} (threshold of {label}: {words})"
    if math.isinf(promise.threshold):
        because = promise.report.get("why") or "the target cannot be certified"
        return (f"{label} answers nothing alone (threshold inf: {because}); "
                f"would have answered {value!r} (confidence {_fmt(signal)})")
    return (f"confidence {_fmt(signal)} < {_fmt(promise.threshold)} (threshold of {label}: "
            f"{words}); would have answered {value!r}")


def _record(key: str, value: Any, signal: float, calibrated: float | None,
            promise: Promise | None, name: str | None, group: Any, held: int, status: str,
            why: str, at: float) -> dict[str, Any]:
    threshold = None if promise is None else float(promise.threshold)
    record: dict[str, Any] = {  # made canonical below (an infinite threshold as "inf")
        "key": key,
        "value": plain(value),
        "signal": SIGNAL,
        "signal_value": float(signal),
        "calibrated": calibrated,
        "threshold": threshold,
        "promise": name,
        "fingerprint": None if promise is None else promise.fingerprint,
        "method": None if promise is None else promise.method,
        "parameters": None if promise is None else {
            "max_error": promise.max_error, "max_risk": promise.max_risk,
            "delta": promise.delta, "min_support": int(promise.min_support), "n": int(promise.n),
        },
        "group": plain(group) if group is not None else None,
        "held": int(held),
        "status": status,
        "why": why,
        "warnings": [] if promise is None else [str(w) for w in promise.report.get("warnings") or []],
        "at": float(at),
    }
    record = _canonical(record)
    record["hash"] = record_hash(record)
    return record


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name or name.isspace():
        raise InvalidTypeError(f"a promise name must be a non-empty string, got {name!r}")
    return name


class Promises:
    """A base's promises, its calibrator and the verdicts of its answers.

    Attributes
    ----------
    promises : dict
        Attached promises by name (:class:`~corollary.guarantee.Promise` or
        :class:`~corollary.guarantee.GroupedPromise`).
    calibrator : Platt or None
        The fitted calibrator (:meth:`fit_calibrator`).
    verdicts : dict
        The last verdict record of each answered belief, by ``(key, value identity)``.
    """

    def __init__(self) -> None:
        self.promises: dict[str, Promise | GroupedPromise] = {}
        self.calibrator: Platt | None = None
        self.verdicts: dict[tuple[str, Any], dict[str, Any]] = {}

    def verdict_of(self, key: str, vid: Any) -> dict[str, Any] | None:
        """The verdict of the last answer that gave ``key`` = the value ``vid``."""
        return self.verdicts.get((key, vid)) if self.verdicts else None

    # -- promises and the calibrator -----------------------------------------------------
    def guarantee(
        self,
        ledger: TrustLedger,
        name: str = "default",
        examples: Iterable[Any] | bool | None = None,
        *,
        max_error: float | None = None,
        max_risk: float | None = None,
        method: str | None = None,
        delta: float | None = 0.1,
        min_support: int = 10,
        weak: str = "raise",
        source: str | None = None,
        topic: str | None = None,
    ) -> Promise | None:
        """Attach a promise named ``name``, calibrated on examples or the base's own pairs.

        Parameters
        ----------
        ledger : TrustLedger
            The base's ledger, whose outcomes give the pairs when ``examples`` is ``None``.
        name : str, default "default"
            The promise's name; :meth:`answer` uses ``"default"`` unless told otherwise.
            Attaching under an existing name replaces that promise (its earlier verdicts then
            replay as "the promise changed").
        examples : iterable of (confidence, correct), or False, optional
            Held-out examples; ``None`` uses :func:`calibration_pairs` of the ledger
            (optionally of one ``source`` / ``topic``); ``False`` removes the promise.
        max_error, max_risk, method, delta, min_support, weak
            As :func:`corollary.guarantee.calibrate`: exactly one of ``max_error`` (default
            method ``"ltt"``) and ``max_risk`` (``"crc"``).
        source, topic : str, optional
            Which of the base's own outcomes to calibrate on (only without ``examples``).

        Returns
        -------
        Promise or None
            The attached promise (``None`` when removing).

        Raises
        ------
        InvalidInputError
            Both or neither target, no examples, confidences outside [0, 1], malformed pairs;
            :class:`~corollary.guarantee.WeakSignalError` for a signal that does not separate.
        InvalidTypeError
            A correctness label that is not a boolean or 0 / 1, a bad name.

        Examples
        --------
        >>> import numpy as np
        >>> from corollary import BeliefBase, ManualClock
        >>> rng = np.random.default_rng(0)
        >>> s = rng.random(1000)
        >>> examples = list(zip(s, rng.random(1000) < s))
        >>> kb = BeliefBase(clock=ManualClock(0))
        >>> p = kb.guarantee(examples=examples, max_risk=0.1)
        >>> kb.promises["default"] is p, round(p.threshold, 2)
        (True, 0.57)
        >>> kb.guarantee("default", False) is None, kb.promises
        (True, {})
        """
        from .guarantee import Promise
        from .guarantee import calibrate as _calibrate

        _check_name(name)
        if examples is False:
            if any(x is not None for x in (max_error, max_risk, method, source, topic)):
                raise InvalidInputError("guarantee(name, False) removes a promise: give no target")
            self.remove(name)
            return None
        if examples is True:
            raise InvalidInputError("examples is True: pass examples, None (the base's own) or False")
        if (max_error is None) == (max_risk is None):
            raise InvalidInputError("give exactly one of max_error= and max_risk=")
        conf, right = _examples(ledger, examples, source, topic)
        promise = _calibrate(conf, right, max_error=max_error, max_risk=max_risk, method=method,
                             delta=delta, min_support=min_support, weak=weak)
        assert isinstance(promise, Promise)
        self.promises[name] = promise
        return promise

    def remove(self, name: str = "default") -> Promise | GroupedPromise | None:
        """Detach the promise ``name``; return it (``None`` if there was none).

        Its verdicts stay; replaying them reports "the promise was removed".

        >>> Promises().remove("none-here") is None
        True
        """
        _check_name(name)
        return self.promises.pop(name, None)

    def fit_calibrator(self, ledger: TrustLedger, examples: Iterable[Any] | None = None, *,
                       source: str | None = None, topic: str | None = None) -> Platt:
        """Fit a :class:`~corollary.calibration.Platt` calibrator and keep it.

        :meth:`answer` then shows the calibrated confidence beside the raw one (the promise's
        threshold stays on the raw confidence).

        Parameters
        ----------
        ledger : TrustLedger
            The base's ledger (its pairs are used when ``examples`` is ``None``).
        examples : iterable of (confidence, correct), optional
            Default: the base's own pairs (:func:`calibration_pairs`, of ``source`` /
            ``topic``).

        Returns
        -------
        Platt
            The fitted calibrator (a constant with fewer than 10 pairs, all right or all
            wrong).

        Examples
        --------
        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> kb.fit_calibrator([(0.9, True), (0.9, True), (0.9, False), (0.9, True)]).predict(0.9)
        0.75
        """
        from .calibration import Platt

        conf, right = _examples(ledger, examples, source, topic)
        self.calibrator = Platt().fit(conf, right)
        return self.calibrator

    # -- answers and replays -------------------------------------------------------------
    def _pick(self, name: str | None, group: Any) -> tuple[Promise | None, str | None]:
        """The promise to answer under, and a reason when there is none to apply."""
        from .guarantee import GroupedPromise

        if name is None:
            return None, "no promise asked for"
        _check_name(name)
        found = self.promises.get(name)
        if found is None:
            if name == "default" and not self.promises:
                return None, "no promise attached"
            known = ", ".join(repr(n) for n in sorted(self.promises)) or "none"
            raise UnknownPromiseError(f"no promise named {name!r} (attached: {known})")
        if isinstance(found, GroupedPromise):
            if group is None:
                raise InvalidInputError(f"promise {name!r} has a threshold per group: pass group=")
            return found.promises.get(group), None
        if group is not None:
            raise InvalidInputError(f"promise {name!r} has no groups; do not pass group=")
        return found, None

    def answer(self, key: str, held: list[Belief], now: float,
               conflict: Callable[[str, list[Belief]], object], promise: str | None = "default",
               *, group: Any = None) -> Answer:
        """Answer ``key`` under a promise: its held value alone, or an abstention.

        The signal is the held belief's confidence now. It is answered alone (``"ok"``) when
        the confidence is at or above the promise's threshold and abstains below it, saying
        what it would have answered; nothing held (every value retracted or defeated) or an
        open conflict abstains with ``value=None``. The verdict record is kept under the
        belief (so ``explain`` shows it and snapshots keep it) and returned.

        Parameters
        ----------
        key : str
        held : list of Belief
            The values of ``key`` held now (the base reads them).
        now : float
            The time of the answer.
        conflict : callable
            ``conflict(key, held)``: the open conflict, for the reason.
        promise : str or None, default "default"
            The name of the promise to answer under. When the base carries no promise at all,
            ``"default"`` answers unguarded (``ok``, and ``why`` says there is no promise);
            ``None`` always answers unguarded.
        group : object, optional
            For a grouped promise (:class:`~corollary.guarantee.GroupedPromise`), the group
            whose threshold applies; a group never calibrated abstains.

        Returns
        -------
        Answer

        Raises
        ------
        UnknownPromiseError
            No promise of that name is attached (while others are).

        Examples
        --------
        >>> from corollary import BeliefBase, ManualClock
        >>> kb = BeliefBase(clock=ManualClock(0))
        >>> kb.assert_("hq", "Austin", source="tool:registry")            # confidence 0.95
        >>> _ = kb.guarantee(examples=[(0.97, True)] * 40 + [(0.5, False)] * 10, max_risk=0.1)
        >>> a = kb.answer("hq")
        >>> a.status, a.value, a.threshold
        ('abstain', 'Austin', 0.97)
        >>> a.why.endswith("would have answered 'Austin'")
        True
        >>> kb.replay(a.record).match
        True
        """
        key = check_key(key)
        chosen, none_reason = self._pick(promise, group)
        name = None if none_reason is not None else promise  # the promise the verdict is under
        threshold = None if name is None else (math.inf if chosen is None else float(chosen.threshold))
        signal = max((float(b.conf) for b in held), default=0.0)
        calibrated = None if self.calibrator is None else float(self.calibrator.predict(signal))
        if len(held) != 1:
            if held:
                why = f"{key!r} is in an open conflict ({conflict(key, held)}): abstained"
            else:
                why = f"nothing is held for {key!r}: abstained"
            rec = _record(key, None, signal, calibrated, chosen, name, group, len(held), ABSTAIN,
                          why, now)
            return Answer(key, ABSTAIN, None, signal, calibrated, threshold, why, rec)
        b = held[0]
        status = _decide(name, chosen, signal)
        why = _why(name, chosen, none_reason, status, signal, b.value, group)
        rec = _record(key, b.value, signal, calibrated, chosen, name, group, 1, status, why, now)
        self.verdicts[(key, b.vid)] = rec
        return Answer(key, status, b.value, signal, calibrated, threshold, why, rec)

    def replay(self, record: Mapping[str, Any] | Answer, held_of: Callable[[str], list[Belief]],
               *, live: bool = False) -> Replay:
        """Re-derive a verdict record against the promise attached now.

        In order: the record's hash must verify (else "the record was tampered with"); the
        promise it was given under must still be attached ("the promise was removed") with the
        same fingerprint ("the promise changed": recalibrated or replaced since); the recorded
        status must follow from the recorded signal under that promise. With ``live=True`` the
        base's current state is compared too: the value held now ("the value changed") and its
        confidence ("the signal changed").

        Parameters
        ----------
        record : dict or Answer
            A verdict record (``Answer.record``, or one read back from a snapshot).
        held_of : callable
            ``held_of(key)``: the values of ``key`` held now (only with ``live``).
        live : bool, default False
            Also compare with what the base holds now.

        Returns
        -------
        Replay

        Raises
        ------
        InvalidTypeError
            ``record`` is not a mapping (or an :class:`Answer`).
        InvalidInputError
            ``record`` lacks the fields of a verdict.

        Examples
        --------
        >>> from corollary import BeliefBase, ManualClock
        >>> kb = BeliefBase(clock=ManualClock(0))
        >>> kb.assert_("hq", "Austin", source="tool:registry")
        >>> _ = kb.guarantee(examples=[(0.9, True)] * 40 + [(0.5, False)] * 10, max_risk=0.1)
        >>> a = kb.answer("hq")                                      # 0.95 >= 0.9: ok
        >>> _ = kb.guarantee(examples=[(0.97, True)] * 40 + [(0.5, False)] * 10, max_risk=0.1)
        >>> r = kb.replay(a.record)
        >>> r.match, r.reason, r.recorded_status, r.status
        (False, 'the promise changed', 'ok', 'abstain')
        """
        from .guarantee import GroupedPromise

        if isinstance(record, Answer):
            record = record.record
        if not isinstance(record, Mapping):
            raise InvalidTypeError(f"replay takes a verdict record (dict), not {type(record).__name__}")
        missing = [f for f in (*VERDICT_FIELDS, "hash") if f not in record]
        if missing:
            raise InvalidInputError(f"not a verdict record: it lacks {missing}")
        recorded = record["status"]
        try:
            sealed = record_hash(record) == record["hash"]
        except (TypeError, ValueError):
            sealed = False
        if not sealed:
            return Replay(False, TAMPERED, None, recorded,
                          "the SHA-256 of the record's fields does not match its hash")
        name = record["promise"]
        signal = float(record["signal_value"])
        current: Promise | None = None
        if name is not None:
            found = self.promises.get(name)
            if found is None:
                return Replay(False, PROMISE_REMOVED, None, recorded,
                              f"no promise named {name!r} is attached now")
            if isinstance(found, GroupedPromise):
                current = found.promises.get(record["group"])
            else:
                current = found
            now_print = None if current is None else current.fingerprint
            if now_print != record["fingerprint"]:
                status = _decide(name, current, signal, record["held"])
                now_t = None if current is None else _fmt(current.threshold)
                return Replay(False, PROMISE_CHANGED, status, recorded,
                              f"fingerprint {str(record['fingerprint'])[:12]} then, "
                              f"{str(now_print)[:12]} now; threshold {record['threshold']} then, "
                              f"{now_t} now")
        status = _decide(name, current, signal, record["held"])
        if status != recorded:
            return Replay(False, NOT_DERIVED, status, recorded,
                          f"signal {_fmt(signal)} under the promise gives {status}, not {recorded}")
        if live:
            key = record["key"]
            held = held_of(key)
            now_value = held[0].value if len(held) == 1 else None
            if len(held) != record["held"] or canon(plain(now_value)) != canon(record["value"]):
                return Replay(False, VALUE_CHANGED, None, recorded,
                              f"{key!r} held {record['value']!r} then, {now_value!r} now")
            now_signal = max((float(b.conf) for b in held), default=0.0)
            if not math.isclose(now_signal, signal, rel_tol=1e-12, abs_tol=1e-12):
                now_status = _decide(name, current, now_signal, len(held))
                return Replay(False, SIGNAL_CHANGED, now_status, recorded,
                              f"confidence {_fmt(signal)} then, {_fmt(now_signal)} now "
                              f"(the verdict would be {now_status})")
        return Replay(True, None, status, recorded, "the verdict re-derives unchanged")

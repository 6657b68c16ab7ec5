"""Promises inside a belief base: calibrate on its own outcomes, answer or abstain, replay.

Every outcome the ledger records about a belief keeps the confidence that belief had when the
outcome was recorded (:class:`corollary.trust.outcomes.Outcome` ``confidence``). This module turns
those outcomes into ``(confidence, correct)`` pairs (:func:`calibration_pairs`), and holds a
base's promises: :class:`PromiseBook` is the component a :class:`~corollary.BeliefBase` owns,
with the promises from :mod:`corollary.promises.guarantee` attached by name, how each is applied (a
:class:`~corollary.promises.bindings.Binding`: the signal it is on -- the confidence, a key computed for
the same subject, a function of the base -- its groups, a one-sided answer, the judge of its
examples), a :class:`~corollary.promises.calibration.Platt` calibrator, and the verdicts of the answers
given under them. :meth:`PromiseBook.answer` gives the held value alone when its signal clears the
threshold of its promise (and group), and otherwise abstains, saying what it would have answered.

Each answer leaves a *verdict*: a plain-data record of the signal, its value, the group, the
threshold, the promise's fingerprint, parameters and binding, the judge, the status and the
reason, sealed with a SHA-256 over a canonical JSON of those fields. The verdict is kept by the
component (``explain`` shows it and snapshots carry it) and :meth:`PromiseBook.replay` checks a
record against the promise attached *now*: a promise recalibrated or re-bound since is a
mismatch ("the promise changed"), and a record whose hash no longer verifies was tampered with.

The component reads the base only through what it is handed (the held beliefs of a key and a
reader of other keys, the base itself for signal functions, the time, the ledger), and imports
the statistics (numpy, scipy) only when a promise is made, so a base that never promises
anything starts fast. The methods of the same names on :class:`~corollary.BeliefBase` delegate
here.
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

from ..foundations._validate import check_int
from ..foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
    UnknownPromiseError,
)
from ..foundations.values import canon, check_key, plain
from .bindings import (
    CONFIDENCE,
    DEFAULT,
    SIGNAL,
    Binding,
    Examples,
    HeldOf,
    check_label,
    group_reader,
    read_examples,
    same_value,
    signal_reader,
)
from .options import GuaranteeOptions

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from ..tms import Belief
    from ..trust.ledger import TrustLedger
    from .calibration import Platt
    from .guarantee import GroupedPromise, Promise

__all__ = [
    "OK",
    "ABSTAIN",
    "SIGNAL",
    "VERDICT_EXTRA",
    "VERDICT_FIELDS",
    "Answer",
    "Replay",
    "PromiseBook",
    "UnknownPromiseError",
    "calibration_pairs",
    "record_hash",
]

OK = "ok"
ABSTAIN = "abstain"
#: The fields of a verdict record, besides ``hash``.
VERDICT_FIELDS = (
    "key", "value", "signal", "signal_value", "calibrated", "threshold", "promise",
    "fingerprint", "method", "parameters", "group", "held", "status", "why", "warnings", "at",
)
#: Fields a verdict carries when its promise is bound to more than the confidence (records on
#: the confidence alone, and those written before, lack them): how the group was found, the
#: judge of the examples, and the SHA-256 of the binding.
VERDICT_EXTRA = ("grouping", "judge", "spec")
#: Reasons :func:`replay` gives for a mismatch.
PROMISE_CHANGED = "the promise changed"
PROMISE_REMOVED = "the promise was removed"
TAMPERED = "the record was tampered with"
SIGNAL_CHANGED = "the signal changed"
VALUE_CHANGED = "the value changed"
NOT_DERIVED = "the verdict does not follow from its signal"
GROUP_CHANGED = "the group changed"


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
        The threshold that applied (``inf``: it answers nothing alone); ``None`` without a
        promise.
    why : str
        The reason, in words.
    record : dict
        The hashed verdict record (see :func:`replay`).
    signal : str
        What the threshold was on: ``"confidence"``, ``"key:<the key read>"``,
        ``"function:<module.name>"``, prefixed ``"platt:"`` when a promise's calibrator maps it.
    signal_value : float or None
        Its value (``None`` when it could not be read).
    group : object
        The group whose threshold applied (grouped promises), else ``None``.
    promise : str or None
        The promise answered under (``None``: unguarded).

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
    signal: str = SIGNAL
    signal_value: float | None = None
    group: Any = None
    promise: str | None = None

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
        with ``live=True`` also ``"the value changed"`` / ``"the signal changed"`` / ``"the
        group changed"``.
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

    for name, given in (("source", source), ("topic", topic)):
        if given is not None and not isinstance(given, str):  # hashed to select the pairs
            raise InvalidTypeError(f"{name} must be a string, got {type(given).__name__}")

    from .checks import check_confidences

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
    return check_confidences(confs, "confidences"), labels


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


def _decide(name: str | None, promise: Promise | None, signal: float | None, held: int = 1,
            value: Any = None) -> str:
    """``abstain`` unless one value is ``held``; then ``ok`` without a promise, and under one
    ``ok`` iff the signal was read and clears its threshold (and, for a one-sided promise, the
    value is its answer)."""
    if held != 1:
        return ABSTAIN
    if name is None:
        return OK
    if promise is None or signal is None:
        return ABSTAIN
    if promise.answer is not None and not same_value(value, promise.answer):
        return ABSTAIN
    return OK if promise.allows(signal) else ABSTAIN


def _why(name: str | None, promise: Promise | None, none_reason: str | None, status: str,
         signal: float | None, shown: str, value: Any, group: Any, problem: str | None) -> str:
    """The reason of a verdict, in words (``shown`` names the signal: "confidence", ...)."""
    if none_reason is not None:
        return f"{none_reason}: answered at {shown} {_fmt(signal or 0.0)}"
    label = f"promise {name!r}" + (f", group {group!r}" if group is not None else "")
    if problem is not None:
        return f"{problem}: {label} abstained; would have answered {value!r}"
    assert signal is not None
    if promise is None:
        return (f"promise {name!r} has no threshold for group {group!r}: abstained; "
                f"would have answered {value!r} ({shown} {_fmt(signal)})")
    if promise.answer is not None and not same_value(value, promise.answer):
        return (f"{label} gives only {promise.answer!r} alone: abstained; would have answered "
                f"{value!r} ({shown} {_fmt(signal)})")
    words = (promise.promise or promise.method) + _trace(promise)
    if status == OK:
        return f"{shown} {_fmt(signal)} >= {_fmt(promise.threshold)} (threshold of {label}: {words})"
    if math.isinf(promise.threshold):
        because = promise.report.get("why") or "the target cannot be certified"
        return (f"{label} answers nothing alone (threshold inf: {because}); "
                f"would have answered {value!r} ({shown} {_fmt(signal)})")
    return (f"{shown} {_fmt(signal)} < {_fmt(promise.threshold)} (threshold of {label}: "
            f"{words}); would have answered {value!r}")


def _trace(promise: Promise) -> str:
    """Which test chose a learn-then-test threshold and where it started ("" for a promise
    saved before reports said so, whose verdicts read as they did)."""
    by = promise.report.get("chosen_by")
    if by is None:
        return ""
    start = promise.report.get("start")
    return f"; chosen by {by}" + ("" if start is None else f", tested from {_fmt(float(start))}")


def _record(key: str, value: Any, signal: float | None, calibrated: float | None,
            promise: Promise | None, name: str | None, group: Any, held: int, status: str,
            why: str, at: float, binding: Binding) -> dict[str, Any]:
    threshold = None if promise is None else float(promise.threshold)
    record: dict[str, Any] = {  # made canonical below (an infinite threshold as "inf")
        "key": key,
        "value": plain(value),
        "signal": binding.signal_name(key),
        "signal_value": None if signal is None else float(signal),
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
    if not binding.is_default:  # a record on the confidence alone keeps its earlier fields
        record.update(grouping=binding.grouping, judge=binding.judge, spec=binding.spec)
    record = _canonical(record)
    record["hash"] = record_hash(record)
    return record


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name or name.isspace():
        raise InvalidTypeError(f"a promise name must be a non-empty string, got {name!r}")
    return name


def _no_reader(key: str) -> list[Belief]:
    raise UnknownBeliefError(f"no belief about {key!r} (no reader was given)")


def _shown(binding: Binding, key: str) -> str:
    name = binding.signal_name(key)
    return name if name == SIGNAL else f"signal {name}"


def _binding_of(options: GuaranteeOptions) -> tuple[Binding, Any]:
    """How the promise will be applied (signal, groups, judge; no calibrator yet), and its
    one-sided answer, checked."""
    sig = signal_reader(options.signal)
    grp = group_reader(options.groups)
    judge = None
    correct = options.correct
    if correct is not None:
        if not callable(correct):
            raise InvalidTypeError("correct= is a judge, a function (given, expected) -> bool")
        # only called while calibrating: its name is a label, so a lambda will do
        judge = (f"{getattr(correct, '__module__', '?')}."
                 f"{getattr(correct, '__qualname__', type(correct).__name__)}")
    answer = options.answer
    if answer is not None:
        if grp is not None:
            raise InvalidInputError("answer= (one-sided) and groups= cannot be combined")
        answer = check_label(answer, "answer=")
    if options.folds is not None:
        check_int(options.folds, "folds", low=2)
    return Binding(sig, grp, judge, None), answer


def _examples_for(ledger: TrustLedger, examples: Iterable[Any] | None,
                  options: GuaranteeOptions, binding: Binding, answer: Any) -> Examples:
    """The examples to calibrate on: those given, or the base's own pairs."""
    sig, grp = binding.signal, binding.groups
    if examples is None:
        if (sig is not CONFIDENCE or grp is not None or answer is not None
                or options.correct is not None):
            raise InvalidInputError(
                "the base's own outcomes keep only the confidence a belief had, not its "
                "value or another signal: pass examples= to calibrate with signal=, "
                "groups=, answer= or correct=")
        conf, right = calibration_pairs(ledger, options.source, options.topic)
        if conf.size == 0:
            raise InvalidInputError(
                "the base has no outcomes with a confidence yet: record some (retract with "
                "fault='source', record_outcome(..., key=...), claims with checks) or pass "
                "examples=")
        return Examples(conf, right)
    if options.source is not None or options.topic is not None:
        raise InvalidInputError("source= and topic= select the base's own pairs; not with "
                                "examples=")
    return read_examples(examples, signal=sig, groups=grp, answer=answer, judge=options.correct,
                         unit=sig.kind == "confidence" or options.folds is not None)


def _calibrated(ex: Examples, options: GuaranteeOptions, binding: Binding, answer: Any
                ) -> tuple[Promise | GroupedPromise, dict[str, Any] | None]:
    """The promise calibrated on ``ex``, and the Platt map of the signal it was cross-fitted
    on (``folds``; as plain data, for the binding), else ``None``."""
    import numpy as np

    from .guarantee import calibrate

    grp = binding.groups
    scores, right = ex.signals, ex.correct
    labels = ex.answers if grp is not None and grp.kind == "answer" else ex.groups
    if answer is not None and ex.answers is not None:  # only the examples giving the answer
        keep = np.fromiter((same_value(a, answer) for a in ex.answers), bool, len(ex.answers))
        if not keep.any():
            raise InvalidInputError(f"no example gave the answer {answer!r}")
        scores, right = scores[keep], right[keep]
    kwargs: dict[str, Any] = dict(options.calibration(), answer=answer)
    if grp is not None:
        assert labels is not None
        column = np.empty(len(labels), dtype=object)
        column[:] = labels
        if grp.kind == "answer":
            kwargs.update(groups="answer", answers=column)
        else:
            kwargs["groups"] = column
    if options.folds is None:
        return calibrate(scores, right, **kwargs), None
    from .calibration import Platt

    def fit(train: NDArray[np.int64]) -> Callable[[NDArray[np.int64]], Any]:
        platt = Platt().fit(scores[train], right[train])
        return lambda held: platt.predict(scores[held])

    promise = calibrate(None, right, folds=options.folds, fit=fit, **kwargs)
    return promise, Platt().fit(scores, right).to_dict()


class PromiseBook:
    """A base's promises, how it applies each, its calibrator and the verdicts of its answers.

    Attributes
    ----------
    promises : dict
        Attached promises by name (:class:`~corollary.promises.guarantee.Promise` or
        :class:`~corollary.promises.guarantee.GroupedPromise`).
    bindings : dict
        How each promise that is not on the confidence alone is applied
        (:class:`~corollary.promises.bindings.Binding`: its signal, groups, judge, calibrator).
    calibrator : Platt or None
        The fitted calibrator (:meth:`fit_calibrator`).
    verdicts : dict
        The last verdict record of each answered belief, by ``(key, value identity)``.
    """

    def __init__(self) -> None:
        self.promises: dict[str, Promise | GroupedPromise] = {}
        self.bindings: dict[str, Binding] = {}
        self.calibrator: Platt | None = None
        self.verdicts: dict[tuple[str, Any], dict[str, Any]] = {}

    def verdict_of(self, key: str, vid: Any) -> dict[str, Any] | None:
        """The verdict of the last answer that gave ``key`` = the value ``vid``."""
        return self.verdicts.get((key, vid)) if self.verdicts else None

    def binding(self, name: str) -> Binding:
        """How the promise ``name`` is applied (the confidence alone unless it was told more).

        >>> PromiseBook().binding("default").signal_name("hq")
        'confidence'
        """
        return self.bindings.get(name, DEFAULT)

    # -- promises and the calibrator -----------------------------------------------------
    def guarantee(self, ledger: TrustLedger, name: str = "default",
                  examples: Iterable[Any] | bool | None = None,
                  options: GuaranteeOptions | None = None) -> Promise | GroupedPromise | None:
        """Attach a promise named ``name``, calibrated on examples or the base's own pairs.

        Parameters
        ----------
        ledger : TrustLedger
            The base's ledger, whose outcomes give the pairs when ``examples`` is ``None``.
        name : str, default "default"
            The promise's name; :meth:`answer` uses ``"default"`` unless told otherwise.
            Attaching under an existing name replaces that promise (its earlier verdicts then
            replay as "the promise changed").
        examples : iterable, or False, optional
            Held-out examples, ``(signal, correct)`` pairs or the longer shapes ``groups``,
            ``answer`` and ``correct`` call for (:func:`corollary.promises.bindings.read_examples`);
            ``None`` uses :func:`calibration_pairs` of the ledger (optionally of one
            ``source`` / ``topic``): the confidence each belief had when it was found right or
            wrong. ``False`` is refused: :meth:`remove` removes a promise.
        options : GuaranteeOptions
            The target, the test and how the promise is applied, as one value (``kb.guarantee``
            builds it from its keyword arguments): each option is described on
            :class:`~corollary.promises.options.GuaranteeOptions`.

        Returns
        -------
        Promise, GroupedPromise or None
            The attached promise (``None`` when removing).

        Raises
        ------
        InvalidInputError
            Both or neither target, no examples, confidences outside [0, 1], examples of the
            wrong shape, options the base's own pairs cannot serve (a signal other than the
            confidence, groups, ``answer`` or ``correct`` without ``examples``), ``answer``
            with ``groups``, a lambda as signal or group function;
            :class:`~corollary.promises.guarantee.WeakSignalError` for a signal that does not separate.
        InvalidTypeError
            A correctness label (or a judge's verdict) that is not a boolean or 0 / 1, a bad
            name, a signal or group of the wrong type.

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
        >>> kb.remove_guarantee("default") is p, kb.promises
        (True, {})
        """
        _check_name(name)
        if options is None:
            options = GuaranteeOptions()
        elif not isinstance(options, GuaranteeOptions):
            raise InvalidTypeError("options must be a GuaranteeOptions")
        if examples is False:  # the spelling of remove_guarantee before 0.1.0
            raise InvalidInputError("guarantee(name, False) is not a promise: remove one with "
                                    "remove_guarantee(name)")
        if examples is True:
            raise InvalidInputError("examples is True: pass examples, None (the base's own) or False")
        if (options.max_error is None) == (options.max_risk is None):
            raise InvalidInputError("give exactly one of max_error= and max_risk=")
        binding, answer = _binding_of(options)
        ex = _examples_for(ledger, examples, options, binding, answer)
        promise, calibrator = _calibrated(ex, options, binding, answer)
        binding = attrs.evolve(binding, calibrator=calibrator)
        self.promises[name] = promise
        if binding.is_default:
            self.bindings.pop(name, None)
        else:
            self.bindings[name] = binding
        return promise

    def remove(self, name: str = "default") -> Promise | GroupedPromise | None:
        """Detach the promise ``name``; return it (``None`` if there was none).

        Its verdicts stay; replaying them reports "the promise was removed".

        >>> PromiseBook().remove("none-here") is None
        True
        """
        _check_name(name)
        self.bindings.pop(name, None)
        return self.promises.pop(name, None)

    def fit_calibrator(self, ledger: TrustLedger, examples: Iterable[Any] | None = None, *,
                       source: str | None = None, topic: str | None = None) -> Platt:
        """Fit a :class:`~corollary.promises.calibration.Platt` calibrator and keep it.

        :meth:`answer` then shows the calibrated confidence beside the raw one (the promise's
        threshold stays on its own signal).

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

    # -- snapshots -----------------------------------------------------------------------
    def saved(self) -> dict[str, Any]:
        """The promises as plain data, each with its binding when it has one beyond the
        confidence (a snapshot's ``promises`` field)."""
        out = {}
        for name, promise in self.promises.items():
            d = promise.to_dict()
            binding = self.bindings.get(name)
            if binding is not None and not binding.is_default:
                d["binding"] = binding.to_dict()
            out[name] = d
        return out

    def restore(self, promises: Mapping[str, Promise | GroupedPromise],
                bindings: Mapping[str, Binding], verdicts: Mapping[tuple[str, Any], Any],
                calibrator: Platt | None) -> None:
        """Take back what a snapshot kept (checked by :func:`corollary.snapshot.read_snapshot`)."""
        self.promises.update(promises)
        self.bindings.update(bindings)
        self.verdicts.update(verdicts)
        self.calibrator = calibrator

    # -- answers and replays -------------------------------------------------------------
    def check_request(self, name: str | None, group: Any = None) -> None:
        """Refuse an answer request before anything is read: an unknown promise name
        (:class:`~corollary.foundations.errors.UnknownPromiseError`), or a ``group`` where none applies."""
        self._pick(name, group)

    def _pick(self, name: str | None, group: Any
              ) -> tuple[Promise | GroupedPromise | None, Binding, str | None]:
        """The promise to answer under, how it applies, and a reason when there is none."""
        from .guarantee import GroupedPromise

        if name is None:
            return None, DEFAULT, "no promise asked for"
        _check_name(name)
        found = self.promises.get(name)
        if found is None:
            if name == "default" and not self.promises:
                return None, DEFAULT, "no promise attached"
            known = ", ".join(repr(n) for n in sorted(self.promises)) or "none"
            raise UnknownPromiseError(f"no promise named {name!r} (attached: {known})")
        binding = self.binding(name)
        if isinstance(found, GroupedPromise):
            if binding.groups is None and group is None:
                raise InvalidInputError(f"promise {name!r} has a threshold per group: pass group=")
            if binding.groups is not None and group is not None:
                raise InvalidInputError(f"promise {name!r} finds the group itself "
                                        f"({binding.grouping}); do not pass group=")
        elif group is not None:
            raise InvalidInputError(f"promise {name!r} has no groups; do not pass group=")
        return found, binding, None

    def _signal(self, binding: Binding, guarded: bool, key: str, held: list[Belief],
                held_of: HeldOf, base: Any) -> tuple[float | None, str | None]:
        """The signal an answer reads: the confidence when nothing single is held or nothing
        is promised, else what the binding says."""
        if len(held) != 1 or not guarded:
            conf = max((float(b.conf) for b in held), default=0.0)
            return (conf if binding.is_default or not guarded else None), None
        return binding.read_signal(key, held, held_of, base)

    def answer(self, key: str, held: list[Belief], now: float,
               conflict: Callable[[str, list[Belief]], object], promise: str | None = "default",
               *, group: Any = None, held_of: HeldOf | None = None, base: Any = None) -> Answer:
        """Answer ``key`` under a promise: its held value alone, or an abstention.

        The promise's signal is read for ``key`` (the held belief's confidence unless the
        promise was calibrated on another: a key for the same subject, a function of the base),
        and its group found (a grouped promise). The value is answered alone (``"ok"``) when
        the signal is at or above the group's threshold -- and, for a one-sided promise, the
        value is its answer -- and abstains otherwise, saying what it would have answered. A
        signal or group that cannot be read, nothing held (every value retracted or defeated)
        or an open conflict abstains. The verdict record is kept under the belief (so
        ``explain`` shows it and snapshots keep it) and returned.

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
            For a grouped promise attached without a way to find groups (by hand), the group
            whose threshold applies; a group never calibrated abstains.
        held_of : callable, optional
            ``held_of(key)``: the held values of another key (signal and group keys).
        base : BeliefBase, optional
            Handed to signal and group functions, ``fn(base, key)``.

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
        found, binding, none_reason = self._pick(promise, group)
        name = None if none_reason is not None else promise  # the promise the verdict is under
        reader = held_of or _no_reader
        confidence = max((float(b.conf) for b in held), default=0.0)
        calibrated = None if self.calibrator is None else float(self.calibrator.predict(confidence))
        signal, problem = self._signal(binding, name is not None, key, held, reader, base)
        chosen, label, trouble = _chosen(found, binding, group, key, held, reader, base)
        problem = problem or trouble
        threshold = None if name is None else (math.inf if chosen is None else float(chosen.threshold))
        fields = dict(signal=binding.signal_name(key), signal_value=signal, group=label,
                      promise=name)
        value, status = None, ABSTAIN
        if len(held) != 1:  # nothing held, or an open conflict
            why = (f"{key!r} is in an open conflict ({conflict(key, held)}): abstained" if held
                   else f"nothing is held for {key!r}: abstained")
        else:
            value = held[0].value
            status = ABSTAIN if problem is not None else _decide(name, chosen, signal, 1, value)
            why = _why(name, chosen, none_reason, status, signal, _shown(binding, key), value,
                       label, problem)
        rec = _record(key, value, signal, calibrated, chosen, name, label, len(held), status,
                      why, now, binding)
        if len(held) == 1:
            self.verdicts[(key, held[0].vid)] = rec
        return Answer(key, status, value, confidence, calibrated, threshold, why, rec, **fields)

    def replay(self, record: Mapping[str, Any] | Answer, held_of: HeldOf, *, live: bool = False,
               base: Any = None) -> Replay:
        """Re-derive a verdict record against the promise attached now.

        In order: the record's hash must verify (else "the record was tampered with"); the
        promise it was given under must still be attached ("the promise was removed") with the
        same fingerprint and the same signal, groups and judge ("the promise changed":
        recalibrated, replaced or re-bound since); the recorded status must follow from the
        recorded signal, value and group under that promise. With ``live=True`` the base's
        current state is compared too: the value held now ("the value changed"), its signal
        ("the signal changed") and its group ("the group changed").

        Parameters
        ----------
        record : dict or Answer
            A verdict record (``Answer.record``, or one read back from a snapshot).
        held_of : callable
            ``held_of(key)``: the values of ``key`` held now (only with ``live``).
        live : bool, default False
            Also compare with what the base holds now.
        base : BeliefBase, optional
            Handed to signal and group functions (only with ``live``).

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
        record = _verdict_record(record)
        recorded = record["status"]
        try:
            sealed = record_hash(record) == record["hash"]
        except (TypeError, ValueError):
            sealed = False
        if not sealed:
            return Replay(False, TAMPERED, None, recorded,
                          "the SHA-256 of the record's fields does not match its hash")
        then = self._promise_then(record)
        if isinstance(then, Replay):
            return then
        current, binding = then
        raw = record["signal_value"]
        signal = None if raw is None else float(raw)
        status = _decide(record["promise"], current, signal, record["held"], record["value"])
        if status != recorded:
            shown = "none" if signal is None else _fmt(signal)
            return Replay(False, NOT_DERIVED, status, recorded,
                          f"signal {shown} under the promise gives {status}, not {recorded}")
        if live:
            changed = self._changed_since(record, current, binding, held_of, base)
            if changed is not None:
                return changed
        return Replay(True, None, status, recorded, "the verdict re-derives unchanged")

    def _promise_then(self, record: Mapping[str, Any]) -> Replay | tuple[Promise | None, Binding]:
        """The promise a verdict was given under, as attached now, with its binding; or the
        replay that says it was removed or changed since."""
        from .guarantee import GroupedPromise

        name, recorded = record["promise"], record["status"]
        if name is None:
            return None, DEFAULT
        found = self.promises.get(name)
        if found is None:
            return Replay(False, PROMISE_REMOVED, None, recorded,
                          f"no promise named {name!r} is attached now")
        binding = self.binding(name)
        current = found.promises.get(record["group"]) if isinstance(found, GroupedPromise) \
            else found
        now_print = None if current is None else current.fingerprint
        if now_print != record["fingerprint"]:
            raw = record["signal_value"]
            status = _decide(name, current, None if raw is None else float(raw), record["held"],
                             record["value"])
            now_t = None if current is None else _fmt(current.threshold)
            return Replay(False, PROMISE_CHANGED, status, recorded,
                          f"fingerprint {str(record['fingerprint'])[:12]} then, "
                          f"{str(now_print)[:12]} now; threshold {record['threshold']} then, "
                          f"{now_t} now")
        if record.get("spec", DEFAULT.spec) != binding.spec:
            return Replay(False, PROMISE_CHANGED, None, recorded,
                          f"its signal, groups or judge changed: signal "
                          f"{record['signal']} then, {binding.signal_name(record['key'])} "
                          f"now; groups {record.get('grouping')} then, {binding.grouping} "
                          f"now; judge {record.get('judge')} then, {binding.judge} now")
        return current, binding

    def _changed_since(self, record: Mapping[str, Any], current: Promise | None,
                       binding: Binding, held_of: HeldOf, base: Any) -> Replay | None:
        """What differs between a verdict and the base now: the value held, its signal, its
        group (``None``: nothing)."""
        key, recorded, name = record["key"], record["status"], record["promise"]
        raw = record["signal_value"]
        signal = None if raw is None else float(raw)
        held = held_of(key)
        now_value = held[0].value if len(held) == 1 else None
        if len(held) != record["held"] or canon(plain(now_value)) != canon(record["value"]):
            return Replay(False, VALUE_CHANGED, None, recorded,
                          f"{key!r} held {record['value']!r} then, {now_value!r} now")
        now_signal, _ = self._signal(binding, name is not None, key, held, held_of, base)
        if (now_signal is None) != (signal is None) or (
                now_signal is not None and signal is not None
                and not math.isclose(now_signal, signal, rel_tol=1e-12, abs_tol=1e-12)):
            now_status = _decide(name, current, now_signal, len(held), now_value)
            then = "none" if signal is None else _fmt(signal)
            now_shown = "none" if now_signal is None else _fmt(now_signal)
            return Replay(False, SIGNAL_CHANGED, now_status, recorded,
                          f"{_shown(binding, key)} {then} then, {now_shown} now "
                          f"(the verdict would be {now_status})")
        if name is not None and binding.groups is not None and len(held) == 1:
            now_group, _ = binding.read_group(key, held, held_of, base)
            if now_group != record["group"]:
                return Replay(False, GROUP_CHANGED, None, recorded,
                              f"group {record['group']!r} then, {now_group!r} now")
        return None


def _verdict_record(record: Any) -> Mapping[str, Any]:
    """A verdict record (an :class:`Answer`'s), its type and fields checked."""
    if isinstance(record, Answer):
        record = record.record
    if not isinstance(record, Mapping):
        raise InvalidTypeError(f"replay takes a verdict record (dict), not {type(record).__name__}")
    missing = [f for f in (*VERDICT_FIELDS, "hash") if f not in record]
    if missing:
        raise InvalidInputError(f"not a verdict record: it lacks {missing}")
    return record


# the component was called Promises beside guarantee.Promise, the promise value itself


def _chosen(found: Any, binding: Binding, group: Any, key: str, held: list[Belief],
            reader: HeldOf, base: Any) -> tuple[Any, Any, str | None]:
    """``(promise, group, problem)`` an answer is under: a plain promise itself; of a grouped
    one, the group's (read from the base when one value is held, else the group given), or
    ``None`` for a group never calibrated; ``problem`` says why the group could not be read."""
    from .guarantee import GroupedPromise

    if not isinstance(found, GroupedPromise):
        return found, group, None
    label, problem = group, None
    if binding.groups is not None and len(held) == 1:
        label, problem = binding.read_group(key, held, reader, base)
    return (None if label is None else found.promises.get(label)), label, problem

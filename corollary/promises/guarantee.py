"""Thresholds that come with a promise: answer alone above them, escalate below.

:func:`calibrate` takes a signal (any number where higher should mean "more likely right":
a confidence, a trust score, a head's probability) and, for held-out examples, whether the
answer given was right. It returns a :class:`Promise`: a threshold, the statement it
guarantees for new inputs exchangeable with the examples, and a report of what was checked.

Three methods, two of them with a real guarantee:

``"crc"`` (conformal risk control, ``max_risk=r``)
    The share of *all* inputs that are answered alone and wrong is at most ``r`` on average
    over calibration sets. Threshold: the lowest one with ``W + 1 <= r (n + 1)``, ``W`` the
    wrong answers at or above it among the ``n`` examples, decided in exact integer arithmetic.
``"ltt"`` (learn then test, ``max_error=e``)
    The error among the answers given alone is at most ``e`` with probability at least
    ``1 - delta`` over the calibration set. Exact binomial p-values tested from the highest
    threshold down under a multiple-testing procedure (by default a start learned on a share
    of the examples, beside Wiens' fallback; see :mod:`corollary.promises.calibrators`).
``"empirical"`` (``max_error=e, method="empirical"``)
    The lowest threshold whose error among the answered was at most ``e`` on the examples --
    which promises nothing about new inputs.

Before any threshold is set, the signal must rank the right answers above the wrong ones (a
one-sided Mann-Whitney test at 5%), a threshold must rest on at least ``min_support``
examples, and a target the data cannot certify gives an infinite threshold with the reason:
everything escalates, which keeps any promise.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import warnings
from typing import Any

import attrs
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import mannwhitneyu

from corollary.foundations.errors import InvalidInputError, InvalidTypeError, WeakSignalError
from corollary.promises.calibrators import (
    METHODS,
    PROCEDURES,
    Choice,
    Counts,
    Method,
    fmt,
    fmt_t,
    method_for,
)
from corollary.promises.checks import as_1d, check_correct, check_numbers
from corollary.promises.options import CalibrationOptions

__all__ = [
    "METHODS",
    "CalibrationOptions",
    "PROCEDURES",
    "SEPARATION_ALPHA",
    "GroupedPromise",
    "Promise",
    "WeakSignalError",
    "WeakSignalWarning",
    "calibrate",
    "promise_from_dict",
]

#: Level of the one-sided Mann-Whitney test a signal must pass.
SEPARATION_ALPHA = 0.05


class WeakSignalWarning(UserWarning):
    """A promise was set on a weak signal because ``weak="warn"`` was passed."""


# ---------------------------------------------------------------------------------------------
# Promises
# ---------------------------------------------------------------------------------------------


def _num_json(x: float | None) -> Any:
    if x is None:
        return None
    x = float(x)
    return repr(x) if not math.isfinite(x) else x


def _py(v: Any) -> Any:
    """A numpy scalar as the plain Python value (group labels, answers)."""
    return v.item() if isinstance(v, np.generic) else v


def _ndim(x: Any) -> int:
    """The dimensions of ``x`` as numpy reads it; a ragged sequence is refused."""
    try:
        return int(np.ndim(x))
    except (ValueError, TypeError) as exc:
        raise InvalidInputError(f"scores must be a flat sequence of numbers ({exc})") from None


def _score_scalar(score: Any) -> float:
    """One score, checked: a real number (not a bool)."""
    if isinstance(score, (bool, np.bool_)) or not isinstance(score, (numbers.Real, np.number)):
        raise InvalidTypeError(f"a score must be a real number, not {type(score).__name__}")
    return float(score)


def _score_array(score: Any) -> NDArray[np.float64]:
    """Scores as a float array, checked: real numbers (not booleans), not ragged."""
    if isinstance(score, (str, bytes)):
        raise InvalidTypeError(f"scores must be real numbers, not {type(score).__name__}")
    try:
        arr = np.asarray(score)
    except (ValueError, TypeError) as exc:
        raise InvalidInputError(f"scores must be a flat sequence of numbers ({exc})") from None
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) \
            or np.issubdtype(arr.dtype, np.complexfloating):
        raise InvalidTypeError(f"scores must be real numbers, got dtype {arr.dtype}")
    return np.asarray(arr, dtype=np.float64)


def _is_group_array(group: Any, known: dict[Any, Any]) -> bool:
    """Whether ``group`` is many labels (an array or a list; a tuple that is not itself a
    calibrated label) rather than one."""
    if isinstance(group, (np.ndarray, list)):
        return True
    if isinstance(group, tuple):
        try:
            return group not in known
        except TypeError:
            return True
    return False


@attrs.frozen(eq=False)
class Promise:
    """A threshold on a signal and the promise it carries.

    Built by :func:`calibrate`; not meant to be constructed by hand.

    Attributes
    ----------
    threshold : float
        Answer alone when ``score >= threshold``; ``inf`` means everything escalates.
    method : {"crc", "ltt", "empirical"}
    max_error, max_risk : float or None
        The target (one of the two is set).
    delta : float or None
        The allowed failure probability (``"ltt"`` only).
    min_support : int
    n : int
        The number of calibration examples.
    answer : object or None
        For a one-sided promise, the answer given alone above the threshold.
    group : object or None
        The group this promise belongs to, inside a :class:`GroupedPromise`.
    procedure : {"learned_start", "fallback", "fixed_sequence"} or None
        The multiple-testing procedure of ``"ltt"`` (``None`` for the other methods).
    report : dict
        What was checked and measured on the calibration examples (see :func:`calibrate`).

    Examples
    --------
    >>> p = calibrate([0.9] * 30 + [0.1] * 10, [True] * 30 + [False] * 10, max_risk=0.1)
    >>> p.threshold, p.allows(0.95), p.allows(0.5)
    (0.9, True, False)
    >>> Promise.from_dict(p.to_dict()).fingerprint == p.fingerprint
    True
    """

    threshold: float
    method: str
    max_error: float | None
    max_risk: float | None
    delta: float | None
    min_support: int
    n: int
    answer: Any = None
    group: Any = None
    report: dict[str, Any] = attrs.field(factory=dict, repr=False)
    procedure: str | None = None

    def allows(self, score: Any) -> Any:
        """Whether ``score`` clears the threshold (``score >= threshold``).

        Parameters
        ----------
        score : float or array-like of float
            NaN never clears a threshold.

        Returns
        -------
        bool or numpy.ndarray of bool
            One answer per score, element-wise equal to the scalar answers.

        Raises
        ------
        InvalidTypeError
            A score that is not a real number (booleans, strings, ``None``).
        InvalidInputError
            A ragged sequence numpy cannot read as an array.

        Examples
        --------
        >>> p = calibrate([0.9] * 30 + [0.1] * 10, [True] * 30 + [False] * 10, max_risk=0.1)
        >>> p.allows([0.89, 0.9, 1.0]).tolist()
        [False, True, True]
        """
        if _ndim(score) == 0:
            return bool(_score_scalar(score) >= self.threshold)
        with np.errstate(invalid="ignore"):
            return _score_array(score) >= self.threshold

    def decide(self, score: float) -> Any:
        """The one-sided answer when ``score`` clears the threshold, else ``None`` (abstain).

        Examples
        --------
        >>> p = calibrate([0.9] * 30 + [0.1] * 10, [True] * 30 + [False] * 10,
        ...               max_risk=0.1, answer="yes")
        >>> p.decide(0.95), p.decide(0.2)
        ('yes', None)
        """
        return self.answer if self.allows(score) else None

    @property
    def promise(self) -> str:
        """The promise in words."""
        return str(self.report.get("promise", ""))

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the promise's parameters and threshold: equal promises, equal prints."""
        payload = {
            "method": self.method,
            "max_error": _num_json(self.max_error),
            "max_risk": _num_json(self.max_risk),
            "delta": _num_json(self.delta),
            "min_support": int(self.min_support),
            "n": int(self.n),
            "threshold": _num_json(self.threshold),
            "answer": repr(self.answer),
            "group": repr(self.group),
            "approximate": self.report.get("cross_fitted") is not None,
        }
        if self.procedure not in (None, "fixed_sequence"):  # the prints made before it stand
            payload["procedure"] = self.procedure
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (``inf`` stays a float; msgpack and :meth:`from_dict` take it)."""
        return {
            "threshold": float(self.threshold),
            "method": self.method,
            "max_error": self.max_error,
            "max_risk": self.max_risk,
            "delta": self.delta,
            "min_support": int(self.min_support),
            "n": int(self.n),
            "answer": self.answer,
            "group": self.group,
            "procedure": self.procedure,
            "report": dict(self.report),
            "fingerprint": self.fingerprint,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Promise:
        """Rebuild a :class:`Promise` from :meth:`to_dict` output (the fingerprint is checked)."""
        if not isinstance(d, dict):
            raise InvalidTypeError(f"from_dict takes a dict, not {type(d).__name__}")
        try:
            p = cls(
                threshold=float(d["threshold"]),
                method=str(d["method"]),
                max_error=d.get("max_error"),
                max_risk=d.get("max_risk"),
                delta=d.get("delta"),
                min_support=int(d["min_support"]),
                n=int(d["n"]),
                answer=d.get("answer"),
                group=d.get("group"),
                report=dict(d.get("report") or {}),
                # a learn-then-test promise saved before the procedure was a choice: one sequence
                procedure=d["procedure"] if "procedure" in d else (
                    "fixed_sequence" if d.get("method") == "ltt" else None),
            )
        except KeyError as exc:
            raise InvalidInputError(f"promise dict lacks {exc.args[0]!r}") from None
        if p.method not in METHODS:
            raise InvalidInputError(f"unknown method {p.method!r} in promise dict")
        if p.procedure is not None and (p.method != "ltt" or p.procedure not in PROCEDURES):
            raise InvalidInputError(f"procedure {p.procedure!r} in a {p.method!r} promise dict")
        if "fingerprint" in d and d["fingerprint"] != p.fingerprint:
            raise InvalidInputError("promise dict does not match its fingerprint")
        return p


@attrs.frozen(eq=False)
class GroupedPromise:
    """One :class:`Promise` per group (a label, or the answer each example would give).

    Examples
    --------
    >>> scores = [0.9] * 20 + [0.1] * 5 + [0.8] * 20 + [0.2] * 5
    >>> right = [True] * 20 + [False] * 5 + [True] * 20 + [False] * 5
    >>> g = calibrate(scores, right, max_risk=0.1, groups=["a"] * 25 + ["b"] * 25)
    >>> g.threshold
    {'a': 0.9, 'b': 0.8}
    >>> g.allows(0.85, "a"), g.allows(0.85, "b"), g.allows(0.99, "unseen")
    (False, True, False)
    """

    promises: dict[Any, Promise]
    by: str = "label"

    def __getitem__(self, group: Any) -> Promise:
        return self.promises[group]

    @property
    def groups(self) -> list[Any]:
        """The groups, in the order they were calibrated."""
        return list(self.promises)

    @property
    def threshold(self) -> dict[Any, float]:
        """The threshold of each group."""
        return {g: p.threshold for g, p in self.promises.items()}

    @property
    def report(self) -> dict[Any, dict[str, Any]]:
        """The report of each group."""
        return {g: p.report for g, p in self.promises.items()}

    def allows(self, score: Any, group: Any) -> Any:
        """Whether ``score`` clears the threshold of ``group``; a group never calibrated abstains.

        Parameters
        ----------
        score : float or array-like of float
            NaN never clears a threshold.
        group : label, or array-like of labels
            An array (or list) of labels is read element-wise; a single score or label is
            repeated along the other argument.

        Returns
        -------
        bool, or numpy.ndarray of bool when either argument is an array
            Element-wise equal to the answers for one score and one label.

        Raises
        ------
        InvalidTypeError
            Scores that are not real numbers; labels that cannot be hashed.
        InvalidInputError
            Scores and labels of different lengths, or not one-dimensional, or ragged.

        Examples
        --------
        >>> scores = [0.9] * 20 + [0.1] * 5 + [0.8] * 20 + [0.2] * 5
        >>> right = [True] * 20 + [False] * 5 + [True] * 20 + [False] * 5
        >>> g = calibrate(scores, right, max_risk=0.1, groups=["a"] * 25 + ["b"] * 25)
        >>> g.allows([0.85, 0.85, 0.99], ["a", "b", "unseen"]).tolist()
        [False, True, False]
        >>> g.allows(0.85, ["a", "b"]).tolist(), g.allows([0.85, 0.95], "a").tolist()
        ([False, True], [False, True])
        """
        many = _is_group_array(group, self.promises)
        if not many:
            try:
                p = self.promises.get(_py(group))
            except TypeError:
                raise InvalidTypeError(f"a group label must be hashable, not "
                                       f"{type(group).__name__}") from None
            if _ndim(score) == 0:
                s = _score_scalar(score)
                return False if p is None else bool(s >= p.threshold)
            arr = _score_array(score)
            return np.zeros(arr.shape, dtype=bool) if p is None else p.allows(arr)
        labels = as_1d(group, "groups")
        if not isinstance(group, np.ndarray):  # keep each label's own type (2 is not "2")
            labels = np.empty(len(group), dtype=object)
            for i, v in enumerate(group):
                labels[i] = v
        if _ndim(score) == 0:
            arr = np.full(labels.size, _score_scalar(score))
        else:
            arr = _score_array(score)
            if arr.ndim != 1 or arr.size != labels.size:
                raise InvalidInputError(f"scores of shape {arr.shape} and {labels.size} group "
                                        "labels: give one score per label (or one score)")
        thr, known = self._thresholds_of(labels)
        with np.errstate(invalid="ignore"):
            return known & (arr >= thr)

    def _thresholds_of(self, labels: NDArray[Any]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """The threshold of each label and whether it was calibrated at all."""
        def lookup(values: list[Any]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
            got = []
            for v in values:
                try:
                    got.append(self.promises.get(_py(v)))
                except TypeError:
                    raise InvalidTypeError(f"group labels must be hashable, got "
                                           f"{type(v).__name__}") from None
            return (np.array([np.inf if p is None else p.threshold for p in got], dtype=float),
                    np.array([p is not None for p in got], dtype=bool))

        try:
            uniq, inverse = np.unique(labels, return_inverse=True)
        except TypeError:  # labels that cannot be sorted together: one at a time
            return lookup(labels.tolist())
        thr, known = lookup(list(uniq))
        return thr[inverse.reshape(-1)], known[inverse.reshape(-1)]

    @property
    def fingerprint(self) -> str:
        """SHA-256 over the groups' fingerprints."""
        blob = json.dumps(
            sorted([repr(g), p.fingerprint] for g, p in self.promises.items()),
            separators=(",", ":"),
        )
        return hashlib.sha256((self.by + blob).encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values; :meth:`from_dict` rebuilds it."""
        return {"by": self.by, "promises": [p.to_dict() for p in self.promises.values()]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GroupedPromise:
        """Rebuild from :meth:`to_dict` output."""
        if not isinstance(d, dict) or "promises" not in d:
            raise InvalidInputError("a grouped promise dict needs 'promises'")
        ps = [Promise.from_dict(x) for x in d["promises"]]
        return cls({p.group: p for p in ps}, by=str(d.get("by", "label")))


def promise_from_dict(d: dict[str, Any]) -> Promise | GroupedPromise:
    """Rebuild a :class:`Promise` or a :class:`GroupedPromise` from its ``to_dict()`` output.

    Examples
    --------
    >>> g = calibrate([0.9] * 20 + [0.1] * 5, [True] * 20 + [False] * 5,
    ...               max_risk=0.1, groups=["a"] * 25)
    >>> type(promise_from_dict(g.to_dict())).__name__, type(promise_from_dict(g["a"].to_dict())).__name__
    ('GroupedPromise', 'Promise')
    """
    if not isinstance(d, dict):
        raise InvalidTypeError(f"promise_from_dict takes a dict, not {type(d).__name__}")
    return GroupedPromise.from_dict(d) if "promises" in d else Promise.from_dict(d)


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------


def _check_scores(scores: Any) -> NDArray[np.float64]:
    arr = check_numbers(scores, "scores")
    if np.isinf(arr).any():
        raise InvalidInputError(
            "scores must be finite (an infinite score would clear even an infinite threshold)"
        )
    return arr


# ---------------------------------------------------------------------------------------------
# The computation for one set of examples
# ---------------------------------------------------------------------------------------------


def _separation(scores: NDArray[np.float64], wrong: NDArray[np.bool_]) -> dict[str, Any]:
    n_wrong = int(wrong.sum())
    n_right = int(wrong.size - n_wrong)
    sep: dict[str, Any] = {
        "test": "one-sided Mann-Whitney U (right above wrong), asymptotic",
        "alpha": SEPARATION_ALPHA,
        "auroc": None,
        "p": None,
        "tested": False,
    }
    if n_right == 0 or n_wrong == 0:
        sep["note"] = (
            "every example is " + ("wrong" if n_right == 0 else "right")
            + ": separation cannot be tested"
        )
        return sep
    res = mannwhitneyu(scores[~wrong], scores[wrong], alternative="greater", method="asymptotic")
    sep["auroc"] = float(res.statistic) / (n_right * n_wrong)
    sep["p"] = float(res.pvalue)
    sep["tested"] = True
    return sep


def _weak_signal(sep: dict[str, Any], n: int, n_wrong: int, settings: _Settings,
                 label: str, notes: list[str]) -> None:
    """Check 1, separation: a signal that does not rank right above wrong is refused (or, with
    ``weak="warn"``, warned about and noted); too few examples for any threshold: noted."""
    if "note" in sep:
        notes.append(sep["note"])
    if not sep["tested"] or sep["p"] < SEPARATION_ALPHA:
        return
    msg = (
        f"{label}the signal does not rank right answers above wrong ones: "
        f"one-sided Mann-Whitney p = {fmt(sep['p'])} >= {SEPARATION_ALPHA} "
        f"(AUROC {sep['auroc']:.3f}, {n - n_wrong} right, {n_wrong} wrong)"
    )
    if n < settings.min_support:
        notes.append(msg + "; not refused: too few examples for any threshold anyway")
    elif settings.weak == "raise":
        raise WeakSignalError(msg + '; pass weak="warn" to set a threshold anyway')
    else:
        warnings.warn(msg, WeakSignalWarning, stacklevel=4)
        notes.append(msg)


def _supported(choice: Choice, counts: Counts, min_support: int) -> Choice:
    """Check 2, support: a threshold resting on fewer than ``min_support`` examples is none."""
    idx = choice.idx
    if idx is not None and counts.N[idx] < min_support:
        return attrs.evolve(choice, idx=None, why=(
            f"the threshold {fmt_t(float(counts.thr[idx]))} would rest on "
            f"{int(counts.N[idx])} example(s), fewer than min_support = {min_support}: "
            "everything escalates"))
    return choice


def _statement(method: Method, n: int, threshold: float, answer: Any, folds: int | None,
               notes: list[str]) -> str:
    """The promise in words: the method's, for whom it holds, and what escalates."""
    text = method.statement(n)
    if method.promises:
        text += ", for inputs exchangeable with the calibration examples"
    if math.isinf(threshold):
        text = "everything escalates (nothing is answered alone, so " + (
            "the promise holds trivially): " + text + ")" if method.promises
            else "nothing is promised)")
    if answer is not None:
        text = f"answers {answer!r} alone when the score >= threshold, else abstains; " + text
    if folds is not None:
        text += f"; approximate: scores cross-fitted over {folds} folds"
        notes.append(
            f"scores are cross-fitted ({folds} folds: each example scored by a refit that left "
            "it out), so the promise is approximate"
        )
    return text


def _one(scores: NDArray[np.float64], wrong: NDArray[np.bool_], method: Method,
         settings: _Settings, *, answer: Any, group: Any, label: str) -> Promise:
    """The promise of one set of examples: the shared checks around the method's choice."""
    n = int(scores.size)
    notes: list[str] = []
    sep = _separation(scores, wrong)
    counts = Counts.of(scores, wrong)
    _weak_signal(sep, n, counts.n_wrong, settings, label, notes)
    choice = _supported(method.choose(counts, settings.min_support), counts,
                        settings.min_support)
    idx, why = choice.idx, choice.why
    threshold = math.inf if idx is None else float(counts.thr[idx])
    answered_n = 0 if idx is None else int(counts.N[idx])
    wrong_n = 0 if idx is None else int(counts.W[idx])
    if idx is None and not why.endswith("everything escalates"):  # check 3: feasibility
        why += "; threshold inf: everything escalates"
    text = _statement(method, n, threshold, answer, settings.folds, notes)
    max_error = None if method.bounds_risk else method.target
    max_risk = method.target if method.bounds_risk else None
    procedure = getattr(method, "procedure", None)
    report: dict[str, Any] = {
        "method": method.name,
        "promise": text,
        "threshold": threshold,
        "n": n,
        "answered": answered_n / n,
        "error": (wrong_n / answered_n) if answered_n else None,
        "risk": wrong_n / n,
        "support": answered_n,
        "separation": sep,
        "base_error": counts.n_wrong / n,
        "must_escalate_at_least": method.must_escalate(counts),
        "p_value": choice.p_value,
        "why": why,
        "warnings": notes,
        "delta": method.delta,
        "procedure": procedure,
        "max_error": max_error,
        "max_risk": max_risk,
        "min_support": settings.min_support,
        "answer": answer,
        "group": group,
        "cross_fitted": settings.folds,
    }
    if procedure is not None:  # which test chose the threshold, and where it started
        report.update(chosen_by=choice.chosen_by, start=choice.start)
    return Promise(threshold=threshold, method=method.name, max_error=max_error,
                   max_risk=max_risk, delta=method.delta, min_support=settings.min_support,
                   n=n, answer=answer, group=group, report=report, procedure=procedure)


@attrs.frozen(slots=True)
class _Settings:
    """What every method shares: the support a threshold needs, what a weak signal does, and
    the folds the scores were cross-fitted over."""

    min_support: int
    weak: str
    folds: int | None

    @classmethod
    def checked(cls, min_support: Any, weak: Any, folds: Any) -> _Settings:
        if isinstance(min_support, (bool, np.bool_)) or not isinstance(
                min_support, (numbers.Integral, np.integer)):
            raise InvalidTypeError(f"min_support must be an integer, not {type(min_support).__name__}")
        if int(min_support) < 1:
            raise InvalidInputError(f"min_support must be at least 1, got {int(min_support)}")
        if type(weak) is not str or weak not in ("raise", "warn"):
            raise InvalidInputError(f'weak must be "raise" or "warn", got {weak!r}')
        return cls(int(min_support), weak, None if folds is None else int(folds))


def _cross_fit(n: int, folds: Any, fit: Any) -> NDArray[np.float64]:
    if isinstance(folds, (bool, np.bool_)) or not isinstance(folds, (numbers.Integral, np.integer)):
        raise InvalidTypeError(f"folds must be an integer, not {type(folds).__name__}")
    k = int(folds)
    if not 2 <= k <= n:
        raise InvalidInputError(f"folds must be between 2 and the number of examples ({n}), got {k}")
    if not callable(fit):
        raise InvalidTypeError("folds needs fit=, a callable(train_idx) -> scorer(held_out_idx)")
    out = np.empty(n, dtype=np.float64)
    all_idx = np.arange(n)
    for f in range(k):
        held = all_idx[all_idx % k == f]
        train = all_idx[all_idx % k != f]
        scorer = fit(train)
        if not callable(scorer):
            raise InvalidTypeError("fit(train_idx) must return a callable scorer(held_out_idx)")
        got = _check_scores(np.asarray(scorer(held)).reshape(-1))
        if got.size != held.size:
            raise InvalidInputError(
                f"the scorer of fold {f} returned {got.size} scores for {held.size} examples"
            )
        out[held] = got
    return out


def calibrate(scores: ArrayLike | None, correct: ArrayLike, *,
              options: CalibrationOptions | None = None, **kwargs: Any) -> Promise | GroupedPromise:
    """Set a threshold on a signal that carries a promise for new inputs.

    Parameters
    ----------
    scores : array-like of float, or None
        The signal for each calibration example; higher should mean more likely right.
        Finite numbers. ``None`` only with ``folds`` (the scores then come from ``fit``).
    correct : array-like of bool (or 0 / 1)
        Whether the answer given for each example was right.
    options : CalibrationOptions, optional
        What is promised and how it is tested, as one value; or, instead, its fields as
        keyword arguments: exactly one of ``max_error`` (``"ltt"``, or ``"empirical"``) and
        ``max_risk`` (``"crc"``), ``method``, ``delta`` (default 0.1), ``procedure``,
        ``min_support`` (default 10), ``weak`` (default ``"raise"``), ``groups``, ``answer``,
        ``answers``, ``folds`` and ``fit`` (see :class:`CalibrationOptions`).

    Returns
    -------
    Promise or GroupedPromise
        ``.threshold`` (``inf``: nothing is answered alone), ``.allows(score)`` and
        ``.report``, what was checked and measured (docs/guarantees.md, "The report"): for
        ltt also ``procedure``, ``p_value`` (at the threshold), ``chosen_by`` (the test that
        chose it) and ``start`` (where that test started).

    Raises
    ------
    InvalidInputError
        Lengths that differ, no examples, NaN or infinite scores, a target or delta outside
        (0, 1), both or neither target, a method that does not match it, a bad ``weak``.
    InvalidTypeError
        Labels not booleans or 0 / 1, non-numeric scores or targets, an unknown option.
    WeakSignalError
        The separation test failed and ``weak="raise"``.

    Notes
    -----
    Candidate thresholds are the distinct scores (ties are answered together). All right: the
    separation test is skipped and the methods decide alone; all wrong: nothing is answered.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> s = rng.random(2000)
    >>> right = rng.random(2000) >= 0.6 * (1 - s) ** 2
    >>> p = calibrate(s, right, max_error=0.05)          # learn-then-test
    >>> round(p.threshold, 3), round(p.report["error"], 3), round(p.report["answered"], 3)
    (0.572, 0.037, 0.428)
    >>> q = calibrate(s, right, max_risk=0.02)           # conformal risk control
    >>> round(q.threshold, 3), round(q.report["risk"], 4)
    (0.544, 0.0195)
    >>> q.allows(0.9), q.allows(0.1)
    (True, False)
    """
    o = CalibrationOptions.given(options, kwargs)
    # the method and the shared settings are checked before the examples are read
    chosen = method_for(o.max_error, o.max_risk, o.method, o.delta, o.procedure)
    settings = _Settings.checked(o.min_support, o.weak, None)
    right = check_correct(correct)
    n = int(right.size)
    if n == 0:
        raise InvalidInputError("no calibration examples")
    s = _scores_of(scores, n, o.folds, o.fit)
    if o.folds is not None:
        settings = attrs.evolve(settings, folds=int(o.folds))
    return _calibrated(s, ~right, n, chosen, settings, o)


def _calibrated(s: NDArray[np.float64], wrong: NDArray[np.bool_], n: int, chosen: Any,
                settings: _Settings, o: CalibrationOptions) -> Promise | GroupedPromise:
    """The promise :func:`calibrate` sets on checked scores: one, or one per group."""
    if o.groups is None:
        if o.answers is not None:
            raise InvalidInputError('answers= is only used with groups="answer"')
        return _one(s, wrong, chosen, settings, answer=_py(o.answer), group=None, label="")
    if o.answer is not None:
        raise InvalidInputError("answer= (one-sided) and groups= cannot be combined")
    by, members = _groups_of(o.groups, o.answers, n)
    promises: dict[Any, Promise] = {}
    for g, ix in members.items():
        ix_arr = np.asarray(ix, dtype=np.int64)
        promises[g] = _one(s[ix_arr], wrong[ix_arr], chosen, settings,
                           answer=g if by == "answer" else None, group=g, label=f"group {g!r}: ")
    return GroupedPromise(promises, by=by)


def _scores_of(scores: Any, n: int, folds: Any, fit: Any) -> NDArray[np.float64]:
    """The scores given, checked, or (``folds``) those cross-fitted by ``fit``."""
    if folds is not None:
        if scores is not None:
            raise InvalidInputError("with folds= the scores come from fit=: pass scores=None")
        return _cross_fit(n, folds, fit)
    if fit is not None:
        raise InvalidInputError("fit= is only used with folds=")
    if scores is None:
        raise InvalidInputError("scores are required (None only with folds=)")
    s = _check_scores(scores)
    if s.size != n:
        raise InvalidInputError(f"scores and correct differ in length: {s.size} != {n}")
    return s


def _groups_of(groups: Any, answers: Any, n: int) -> tuple[str, dict[Any, Any]]:
    """How the examples are grouped (``"answer"`` or ``"label"``) and the indices of each
    group's members, by label."""
    if isinstance(groups, str):
        if type(groups) is not str or groups != "answer":
            raise InvalidInputError(f'groups must be an array of labels or "answer", got {groups!r}')
        if answers is None:
            raise InvalidInputError('groups="answer" needs answers=, the answer of each example')
        labels = as_1d(answers, "answers")
        by = "answer"
    else:
        if answers is not None:
            raise InvalidInputError('answers= is only used with groups="answer"')
        labels = as_1d(groups, "groups")
        by = "label"
    if labels.size != n:
        raise InvalidInputError(f"{by}s and correct differ in length: {labels.size} != {n}")
    members: dict[Any, Any] = {}
    try:
        uniq, inverse = np.unique(labels, return_inverse=True)
        buckets = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[buckets], np.arange(uniq.size + 1))
        for k, u in enumerate(uniq):
            members[_py(u)] = buckets[bounds[k] : bounds[k + 1]]
    except TypeError:  # labels that cannot be sorted together
        members = {}
        for i, v in enumerate(labels.tolist()):
            try:
                members.setdefault(v, []).append(i)
            except TypeError:
                raise InvalidTypeError(f"group labels must be hashable, got {type(v).__name__}") from None
    return by, members

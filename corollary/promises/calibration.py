"""Platt scaling of the confidence a belief had when it was given.

A confidence is calibrated when, among the answers given with confidence ``c``, a share
``c`` turns out right. Raw confidences (the minimum over a rule's inputs, a head's
probability) rarely are. :class:`Platt` learns a monotone map ``c -> sigmoid(a * logit(c) + b)``
from held-out examples whose correctness is known, using Platt's smoothed targets so that a
perfectly separable history does not drive the parameters to infinity.

When the examples cannot support two parameters -- fewer than 10 of them, all right, all
wrong, or every confidence the same (a rule over plain inputs always says 1.0) -- only a
constant is fitted: the calibrated confidence is then the share of right answers.
"""

from __future__ import annotations

import math
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from corollary.foundations.errors import InvalidInputError, InvalidTypeError, NotFittedError

from .checks import check_confidences, check_correct

__all__ = ["MIN_EXAMPLES", "NotFittedError", "Platt"]

#: Fewer usable examples than this and only a constant is fitted.
MIN_EXAMPLES = 10
#: Confidences are clipped to ``[_EPS, 1 - _EPS]`` before the logit.
_EPS = 1e-6
_MAX_ITER = 100
_MIN_STEP = 1e-10
_RIDGE = 1e-12


def _logit(c: NDArray[np.float64]) -> NDArray[np.float64]:
    c = np.clip(c, _EPS, 1.0 - _EPS)
    return np.log(c) - np.log1p(-c)


def _sigmoid(z: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = np.exp(-np.logaddexp(0.0, -z))
    return out


def _loss(a: float, b: float, f: NDArray[np.float64], t: NDArray[np.float64]) -> float:
    """Cross-entropy of targets ``t`` against ``sigmoid(a f + b)``, computed without overflow."""
    z = a * f + b
    # -[t log p + (1 - t) log(1 - p)] = t log(1 + e^-z) + (1 - t) log(1 + e^z)
    return float(np.sum(t * np.logaddexp(0.0, -z) + (1.0 - t) * np.logaddexp(0.0, z)))


# ---------------------------------------------------------------------------------------------
# Platt
# ---------------------------------------------------------------------------------------------


class Platt:
    """Platt scaling on the logit of a confidence, with a constant fallback.

    The calibrated confidence is ``sigmoid(a_ * logit(c) + b_)`` with ``c`` clipped to
    ``[1e-6, 1 - 1e-6]``. ``a_`` and ``b_`` minimise the cross-entropy against Platt's
    smoothed targets ``(N+ + 1) / (N+ + 2)`` for a right answer and ``1 / (N- + 2)`` for a
    wrong one (``N+`` right and ``N-`` wrong examples), found by Newton's method with a
    backtracking line search.

    With fewer than 10 examples, when all are right or all wrong, or when every confidence is
    the same, the fit is a constant: :meth:`predict` returns the share of right answers.

    Attributes
    ----------
    kind_ : {"platt", "constant"}
        Which model was fitted.
    a_, b_ : float or None
        Slope and intercept on the logit scale (``None`` for a constant fit).
    constant_ : float
        The share of right answers among the fitted examples (always set).
    n_ : int
        The number of examples fitted.

    Examples
    --------
    An over-confident source: it says 0.9 but is right about 70% of the time.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> conf = np.full(200, 0.9)
    >>> conf[100:] = 0.6
    >>> right = np.r_[rng.random(100) < 0.7, rng.random(100) < 0.55]
    >>> p = Platt().fit(conf, right)
    >>> p.kind_
    'platt'
    >>> float(right[:100].mean()), float(right[100:].mean())   # how often each level was right
    (0.63, 0.49)
    >>> [round(float(x), 3) for x in p.predict([0.9, 0.6])]   # (smoothed) shares of right answers
    [0.629, 0.491]

    Constant confidences can only be shifted to the share of right answers:

    >>> q = Platt().fit([1.0] * 20, [True] * 15 + [False] * 5)
    >>> q.kind_, q.constant_, q.predict(1.0)
    ('constant', 0.75, 0.75)
    """

    def __init__(self) -> None:
        self.kind_: str | None = None
        self.a_: float | None = None
        self.b_: float | None = None
        self.constant_: float | None = None
        self.n_: int = 0
        self.n_iter_: int = 0

    def __repr__(self) -> str:
        if self.kind_ is None:
            return "Platt(unfitted)"
        if self.kind_ == "constant":
            return f"Platt(constant={self.constant_:.6g}, n={self.n_})"
        return f"Platt(a={self.a_:.6g}, b={self.b_:.6g}, n={self.n_})"

    def fit(self, confidences: ArrayLike, correct: ArrayLike) -> Platt:
        """Fit the calibration map on held-out examples.

        Parameters
        ----------
        confidences : array-like of float in [0, 1]
            The confidence each example had when it was given.
        correct : array-like of bool (or 0 / 1)
            Whether each example turned out right.

        Returns
        -------
        Platt
            ``self``, fitted.

        Raises
        ------
        InvalidInputError
            Empty input, lengths that differ, NaN or a confidence outside ``[0, 1]``.
        InvalidTypeError
            A correctness label that is not a boolean or 0 / 1 (``0.5``, ``"yes"``, ``None``).

        Examples
        --------
        >>> Platt().fit([0.2, 0.9], [False, True]).kind_   # too few examples for two parameters
        'constant'
        """
        conf = check_confidences(confidences)
        y = check_correct(correct)
        if conf.size != y.size:
            raise InvalidInputError(
                f"confidences and correct differ in length: {conf.size} != {y.size}"
            )
        if conf.size == 0:
            raise InvalidInputError("cannot fit a calibration on no examples")
        n = int(conf.size)
        n_pos = int(y.sum())
        n_neg = n - n_pos
        self.n_ = n
        self.constant_ = n_pos / n
        f = _logit(conf)
        if n < MIN_EXAMPLES or n_pos == 0 or n_neg == 0 or float(np.ptp(f)) == 0.0:
            self.kind_, self.a_, self.b_, self.n_iter_ = "constant", None, None, 0
            return self
        t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
        a, b = 0.0, math.log((n_pos + 1.0) / (n_neg + 1.0))
        loss = _loss(a, b, f, t)
        it = 0
        for it in range(1, _MAX_ITER + 1):  # noqa: B007 - the count is kept in n_iter_
            p = _sigmoid(a * f + b)
            d = p - t
            g1, g2 = float(np.dot(d, f)), float(d.sum())
            if max(abs(g1), abs(g2)) < 1e-9 * n + 1e-12:
                break
            w = p * (1.0 - p)
            h11 = float(np.dot(w, f * f)) + _RIDGE
            h22 = float(w.sum()) + _RIDGE
            h21 = float(np.dot(w, f))
            det = h11 * h22 - h21 * h21
            da = -(h22 * g1 - h21 * g2) / det
            db = -(-h21 * g1 + h11 * g2) / det
            slope = g1 * da + g2 * db  # directional derivative (< 0 for a descent step)
            step = 1.0
            while step >= _MIN_STEP:
                na, nb = a + step * da, b + step * db
                nloss = _loss(na, nb, f, t)
                if nloss <= loss + 1e-4 * step * slope:
                    break
                step /= 2.0
            else:  # no step decreases the loss any further: at the optimum up to rounding
                break
            a, b, loss = na, nb, nloss
        self.kind_, self.a_, self.b_, self.n_iter_ = "platt", a, b, it
        return self

    @overload
    def predict(self, confidences: float) -> float: ...

    @overload
    def predict(self, confidences: ArrayLike) -> NDArray[np.float64]: ...

    def predict(self, confidences: Any) -> Any:
        """Calibrated confidences.

        Parameters
        ----------
        confidences : float or array-like of float in [0, 1]

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar input, an array of the same shape otherwise.

        Raises
        ------
        NotFittedError
            :meth:`fit` was not called.

        Examples
        --------
        >>> p = Platt.from_dict({"kind": "platt", "a": 1.0, "b": 0.0, "constant": 0.5, "n": 50})
        >>> round(p.predict(0.8), 12)   # the identity map
        0.8
        """
        if self.kind_ is None:
            raise NotFittedError("Platt.predict called before fit")
        scalar = np.ndim(confidences) == 0
        if scalar and isinstance(confidences, (bool, np.bool_)):
            raise InvalidTypeError("a confidence must be a number, not a boolean")
        arr = np.asarray(confidences)
        flat = check_confidences(arr.reshape(-1))
        if self.kind_ == "constant":
            out = np.full(flat.shape, float(self.constant_))  # type: ignore[arg-type]
        else:
            out = _sigmoid(float(self.a_) * _logit(flat) + float(self.b_))  # type: ignore[arg-type]
        if scalar:
            return float(out[0])
        return out.reshape(arr.shape)

    def to_dict(self) -> dict[str, Any]:
        """The fitted parameters as plain Python values (JSON / msgpack friendly).

        Examples
        --------
        >>> Platt().fit([0.5] * 4, [True, True, False, True]).to_dict()
        {'kind': 'constant', 'a': None, 'b': None, 'constant': 0.75, 'n': 4}
        """
        if self.kind_ is None:
            raise NotFittedError("Platt.to_dict called before fit")
        return {"kind": self.kind_, "a": self.a_, "b": self.b_, "constant": self.constant_, "n": self.n_}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Platt:
        """Rebuild a fitted :class:`Platt` from :meth:`to_dict` output.

        Examples
        --------
        >>> p = Platt().fit([0.1, 0.9] * 10, [False, True] * 9 + [True, False])
        >>> Platt.from_dict(p.to_dict()).predict(0.9) == p.predict(0.9)
        True
        """
        if not isinstance(d, dict):
            raise InvalidTypeError(f"from_dict takes a dict, not {type(d).__name__}")
        missing = {"kind", "constant", "n"} - set(d)
        if missing:
            raise InvalidInputError(f"Platt dict lacks {sorted(missing)}")
        kind = d["kind"]
        if kind not in ("platt", "constant"):
            raise InvalidInputError(f"unknown Platt kind {kind!r}")
        self = cls()
        self.kind_ = kind
        try:
            self.constant_ = float(d["constant"])
            self.n_ = int(d["n"])
            if kind == "platt":
                if d.get("a") is None or d.get("b") is None:
                    raise InvalidInputError("a Platt fit needs finite 'a' and 'b'")
                a, b = float(d["a"]), float(d["b"])
                if not (math.isfinite(a) and math.isfinite(b)):
                    raise InvalidInputError("a Platt fit needs finite 'a' and 'b'")
                self.a_, self.b_ = a, b
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, InvalidInputError):
                raise
            raise InvalidInputError(f"malformed Platt dict ({exc})") from None
        return self

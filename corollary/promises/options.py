"""How a promise is made: the options of ``kb.guarantee``, as one value.

``kb.guarantee(name, examples, max_error=..., ...)`` builds a :class:`GuaranteeOptions` from its
keyword arguments once; :meth:`corollary.promises.PromiseBook.guarantee` reads it. The
statistical options are those of :func:`corollary.promises.guarantee.calibrate`; the others say where
the examples come from and how the promise is applied to a belief.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..foundations._validate import options_given
from ..foundations.errors import InvalidTypeError

__all__ = ["CalibrationOptions", "GuaranteeOptions"]


@attrs.frozen(slots=True, kw_only=True)
class CalibrationOptions:
    """What :func:`corollary.promises.guarantee.calibrate` promises and how it tests it, as one
    value (``calibrate`` also takes the fields as keyword arguments). Checked by ``calibrate``.

    Attributes
    ----------
    max_error : float in (0, 1), optional
        Bound on the error among the answers given alone (``"ltt"``, or ``"empirical"``).
    max_risk : float in (0, 1), optional
        Bound on the share of all inputs answered alone and wrong (``"crc"``). Exactly one of
        the two targets is given; they are read as the decimal written (``0.3`` is 3/10), a
        :class:`~fractions.Fraction` as is.
    method : {"crc", "ltt", "empirical"}, optional
        Default ``"crc"`` for ``max_risk``, ``"ltt"`` for ``max_error``.
    delta : float in (0, 1), default 0.1
        ``"ltt"``: the promise may fail with probability at most ``delta`` over the draw of
        the calibration set. Ignored (and may be ``None``) for the other methods.
    procedure : {"learned_start", "fallback", "fixed_sequence"}, optional
        ``"ltt"`` only: the multiple-testing procedure, ``"learned_start"`` by default (a share
        of the examples chooses where one chain starts, the others test it, the fallback runs
        on all at the rest of ``delta``; the fallback alone under 1,000 examples or 20 distinct
        scores). ``"fallback"`` splits ``delta`` over start points down the thresholds;
        ``"fixed_sequence"`` tests one chain from the top. All keep the family-wise error at
        most ``delta`` (docs/guarantees.md).
    min_support : int, default 10
        A threshold needs at least this many calibration examples at or above it.
    weak : {"raise", "warn"}, default "raise"
        A signal that fails the separation test raises ``WeakSignalError``, or (``"warn"``)
        warns, is noted in ``report["warnings"]`` and gets a threshold anyway.
    groups : array-like or "answer", optional
        A label per example: one promise per label, as a ``GroupedPromise``; ``"answer"``
        groups by ``answers``, the answer each example would give.
    answer : object, optional
        One-sided: the scores are the probability of this one answer, ``correct`` says
        whether it was right; the promise answers it alone above the threshold.
    answers : array-like, optional
        With ``groups="answer"``: the answer each example would give.
    folds : int, optional
        Cross-fitting: each example is scored by ``fit(train_idx)``, a scorer built without
        it (example ``i`` is in fold ``i % folds``); the promise is then approximate.
    fit : callable, optional
        ``fit(train_idx) -> scorer``, ``scorer(held_out_idx) -> scores``; with ``folds``.

    Examples
    --------
    >>> CalibrationOptions.given(None, {"max_error": 0.05}).delta
    0.1
    >>> CalibrationOptions.given(None, {"max_error": 0.05, "thershold": 0.5})
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidTypeError: calibrate() got unknown options ['thershold']
    """

    max_error: Any = None
    max_risk: Any = None
    method: Any = None
    delta: Any = 0.1
    procedure: Any = None
    min_support: Any = 10
    weak: Any = "raise"
    groups: Any = None
    answer: Any = None
    answers: Any = None
    folds: Any = None
    fit: Callable[..., Any] | None = None

    @classmethod
    def given(cls, options: CalibrationOptions | None, keywords: Mapping[str, Any]
              ) -> CalibrationOptions:
        """``options``, or the options named in ``keywords`` (the others by default)."""
        return options_given(cls, options, keywords, "calibrate()")  # type: ignore[no-any-return]


@attrs.frozen(slots=True, kw_only=True)
class GuaranteeOptions:
    """The options of a promise (every field as in :meth:`corollary.BeliefBase.guarantee`).

    Attributes
    ----------
    max_error, max_risk, method, delta, procedure, min_support, weak
        As :class:`CalibrationOptions`: exactly one of ``max_error`` (default method
        ``"ltt"``) and ``max_risk`` (``"crc"``); ``procedure`` is learn-then-test's
        multiple-testing procedure (``"learned_start"`` by default, ``"fallback"``,
        ``"fixed_sequence"``).
    source, topic : str, optional
        Which of the base's own outcomes to calibrate on (only without examples).
    signal : str or callable, optional
        What the threshold is on: ``"confidence"`` (the default: the held belief's
        confidence), a key whose held value is a number for the same subject (``{key}`` in it
        stands for the answered key: ``"margin:{key}"``), or a function ``fn(kb, key) ->
        float`` (defined with ``def``: it is saved by name).
    groups : str or callable, optional
        One threshold per group: ``"answer"`` (per answered value), a key holding the group
        label (``{key}`` as for ``signal``), or a function ``fn(kb, key) -> label``. The
        promise is then a ``GroupedPromise``; a group with too little support gets an infinite
        threshold, and its answers abstain saying so.
    answer : str, number or bool, optional
        One-sided: only this value is ever given alone (its threshold may be below 0.5).
        Examples that carry their answer count only when it is this one.
    correct : callable, optional
        A judge ``(given, expected) -> bool`` for answers not compared by equality; the
        examples then carry the answer given and the one expected instead of a bool.
    folds : int, optional
        The signal is mapped by a Platt calibrator fitted on these very examples; each example
        is scored by a fit that left its fold out, and the promise is approximate (as
        ``calibrate`` with ``folds``). Signals in [0, 1].

    Examples
    --------
    >>> GuaranteeOptions.of({"max_risk": 0.1}).max_risk
    0.1
    >>> GuaranteeOptions.of({"max_risk": 0.1, "threshold": 0.5})
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidTypeError: guarantee() got unknown options ['threshold']
    """

    max_error: float | None = None
    max_risk: float | None = None
    method: str | None = None
    delta: float | None = 0.1
    procedure: str | None = None
    min_support: int = 10
    weak: str = "raise"
    source: str | None = None
    topic: str | None = None
    signal: str | Callable[[Any, str], float] | None = None
    groups: str | Callable[[Any, str], Any] | None = None
    answer: Any = None
    correct: Callable[[Any, Any], bool] | None = None
    folds: int | None = None

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> GuaranteeOptions:
        """The options named in ``options`` (keyword arguments), the others by default."""
        unknown = sorted(set(options) - set(attrs.fields_dict(cls)))
        if unknown:
            raise InvalidTypeError(f"guarantee() got unknown options {unknown}")
        return cls(**options)

    def calibration(self) -> dict[str, Any]:
        """The options :func:`corollary.promises.guarantee.calibrate` takes as they are."""
        return {"max_error": self.max_error, "max_risk": self.max_risk, "method": self.method,
                "delta": self.delta, "procedure": self.procedure, "min_support": self.min_support,
                "weak": self.weak}

    @property
    def targets_anything(self) -> bool:
        """Whether any option beyond the defaults of a removal is set (a target, a method, a
        selection or a binding)."""
        return any(x is not None for x in (
            self.max_error, self.max_risk, self.method, self.procedure, self.source, self.topic, self.signal,
            self.groups, self.answer, self.correct, self.folds))

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

from ..foundations.errors import InvalidTypeError

__all__ = ["GuaranteeOptions"]


@attrs.frozen(slots=True, kw_only=True)
class GuaranteeOptions:
    """The options of a promise (every field as in :meth:`corollary.BeliefBase.guarantee`).

    Attributes
    ----------
    max_error, max_risk, method, delta, procedure, min_support, weak
        As :func:`corollary.promises.guarantee.calibrate`: exactly one of ``max_error`` (default
        method ``"ltt"``) and ``max_risk`` (``"crc"``); ``procedure`` is learn-then-test's
        multiple-testing procedure (``"fallback"`` by default, ``"fixed_sequence"``).
    source, topic : str, optional
        Which of the base's own outcomes to calibrate on (only without examples).
    signal : str or callable, optional
        What the threshold is on (the confidence by default).
    groups : str or callable, optional
        One threshold per group.
    answer : str, number or bool, optional
        One-sided: only this value is ever given alone.
    correct : callable, optional
        A judge ``(given, expected) -> bool`` of the examples.
    folds : int, optional
        Cross-fitting of a Platt map of the signal.

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

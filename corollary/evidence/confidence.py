"""The pure formulas of the confidence model (`docs/model.md`).

Nothing here knows about graphs, ledgers or time sources: every function takes numbers and
returns a number, so each formula can be checked on its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..foundations._validate import check_int
from ..foundations.errors import InvalidInputError


def reliability(prior: float, prior_weight: float, right: float, total: float) -> float:
    """Prior-weighted reliability ``(n0·p0 + Σ w·right) / (n0 + Σ w)``.

    ``right`` and ``total`` are the (possibly half-life weighted) sums of right outcomes and
    of all outcomes.

    >>> round(reliability(0.95, 10, 70, 100), 2)
    0.72
    """
    return (prior_weight * prior + right) / (prior_weight + total)


def decay_weight(age: float, half_life: float | None) -> float:
    """The weight ``2^(-age/half_life)`` of something ``age`` seconds old (1 without a half-life).

    >>> decay_weight(60, 60)
    0.5
    >>> decay_weight(1e9, None)
    1.0
    """
    if half_life is None:
        return 1.0
    if half_life == 0:
        return 1.0 if age <= 0 else 0.0
    return float(2.0 ** (-age / half_life))


def premise(reliability_value: float, age: float, half_life: float | None) -> float:
    """A premise's confidence: the source's reliability times its evidence's freshness.

    >>> round(premise(0.95, 30, 60), 2)
    0.67
    """
    return reliability_value * decay_weight(max(age, 0.0), half_life)


def noisy_or(confidences: Iterable[float]) -> float:
    """``1 − Π(1 − c)``: how likely at least one independent origin is right.

    >>> round(noisy_or([10.5 / 11, 10 / 11]), 4)
    0.9959
    """
    miss = 1.0
    for c in confidences:
        miss *= 1.0 - c
    return 1.0 - miss


def agreement(by_origin: dict[str, float], corroboration: bool = True) -> float:
    """Combine the best premise of each origin: noisy-OR, or the single best one.

    Origins are combined in sorted order so that the same premises always give the same
    floating-point result.

    >>> agreement({"a": 0.5, "b": 0.5})
    0.75
    >>> agreement({"a": 0.5, "b": 0.5}, corroboration=False)
    0.5
    """
    if not by_origin:
        return 0.0
    if len(by_origin) == 1:  # exactly its value: 1 − (1 − c) is not always c in binary
        return next(iter(by_origin.values()))
    if not corroboration:
        return max(by_origin.values())
    return noisy_or(by_origin[o] for o in sorted(by_origin))


def derived(step: float, inputs: Iterable[float]) -> float:
    """The chain rule: ``step × min(inputs)`` (``step`` alone with no inputs).

    >>> round(derived(0.9, [0.99, 0.891]), 3)
    0.802
    """
    weakest = 1.0
    for c in inputs:
        if c < weakest:
            weakest = c
    return step * weakest


class SelfConsistency(float):
    """A certainty from self-consistency: a float that remembers how many samples agreed.

    A claim made with one (``kb.claim(..., certainty=self_consistency(4, 5))``) shows "5
    samples, 4 agreed" in its proof. Arithmetic on it gives a plain float.

    >>> c = self_consistency(4, 5)
    >>> round(c, 2), c.agreeing, c.k
    (0.83, 4, 5)
    """

    __slots__ = ("agreeing", "k")
    agreeing: int
    k: int

    def __new__(cls, agreeing: int, k: int) -> SelfConsistency:
        obj = super().__new__(cls, (agreeing + 1) / (k + 1))
        obj.agreeing = agreeing
        obj.k = k
        return obj

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return (type(self), (self.agreeing, self.k))


def self_consistency(agreeing: int, k: int) -> SelfConsistency:
    """Certainty from asking ``k`` times: ``(agreeing + 1) / (k + 1)``.

    ``agreeing`` of the ``k`` samples agree, the original included, so it runs from 1 (only
    the original) to ``k``. The result is a float that also keeps ``agreeing`` and ``k``
    (:class:`SelfConsistency`), so a claim made with it says so in its proof.

    >>> [round(self_consistency(a, 5), 2) for a in (5, 4, 3, 1)]
    [1.0, 0.83, 0.67, 0.33]
    """
    k = check_int(k, "k", low=1)
    agreeing = check_int(agreeing, "agreeing")
    if not 1 <= agreeing <= k:
        raise InvalidInputError(f"need 1 <= agreeing <= k, got agreeing={agreeing}, k={k}")
    return SelfConsistency(agreeing, k)

"""The three ways :func:`corollary.promises.guarantee.calibrate` picks a threshold, one object each.

As scikit-learn's calibrators, each method is a small value built from its parameters (checked
when it is built, :func:`method_for`) that does one thing: given the counts of a calibration
set at every candidate threshold (:class:`Counts`), :meth:`~Method.choose` the threshold and
say why, and state the promise it carries. The checks every method shares -- the signal must
separate right from wrong, a threshold needs support, a target the data cannot certify
escalates everything -- are made once, by :func:`corollary.promises.guarantee.calibrate`.

- :class:`ConformalRiskControl` (``"crc"``, ``max_risk``): the lowest threshold with
  ``W + 1 <= r (n + 1)``, decided in exact integer arithmetic.
- :class:`LearnThenTest` (``"ltt"``, ``max_error``, ``delta`` and ``procedure``): exact binomial
  p-values from the highest threshold down, under the fallback procedure (several start points,
  the default) or one fixed sequence stopping at the first not rejected. Its multiple-testing
  procedures are this class alone.
- :class:`Empirical` (``"empirical"``, ``max_error``): the lowest threshold whose error among
  the answered was at most the target on the examples; it promises nothing for new inputs.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

import attrs
import numpy as np
from numpy.typing import NDArray
from scipy.special import xlogy
from scipy.stats import binom

from ..foundations.errors import InvalidInputError, InvalidTypeError

__all__ = ["METHODS", "PROCEDURES", "Choice", "ConformalRiskControl", "Counts", "Empirical",
           "LearnThenTest", "Method", "method_for"]

def fmt(x: float) -> str:
    """A measured number in a reason."""
    return f"{x:.6g}"


def fmt_t(x: float) -> str:
    """A threshold: enough digits to tell neighbouring scores apart."""
    return f"{x:.12g}"


def _exact(x: Any) -> Fraction:
    """The decimal the user wrote (``0.3`` is 3/10, not the nearest binary float)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, Decimal):
        return Fraction(x)
    return Fraction(repr(float(x)))


def check_level(x: Any, name: str) -> float:
    """A level strictly between 0 and 1 (a target, ``delta``)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.number)):
        raise InvalidTypeError(f"{name} must be a number in (0, 1), not {type(x).__name__}")
    try:
        v = float(x)
    except OverflowError:
        raise InvalidInputError(f"{name} must lie strictly between 0 and 1, got a huge number") from None
    if not (0.0 < v < 1.0):
        raise InvalidInputError(f"{name} must lie strictly between 0 and 1, got {x!r}")
    return v


@attrs.frozen(slots=True)
class Counts:
    """A calibration set counted at every distinct score, from the highest down: ``thr`` the
    distinct scores (descending), ``N`` the examples at or above each, ``W`` the wrong ones
    among them; ``n`` examples in all, ``n_wrong`` of them wrong. ``scores`` and ``wrong`` are
    the examples themselves, in their order, and ``order`` their sort by score (a procedure
    that splits them reads these: :meth:`part`)."""

    thr: NDArray[np.float64]
    N: NDArray[np.int64]
    W: NDArray[np.int64]
    n: int
    n_wrong: int
    scores: NDArray[np.float64] | None = attrs.field(default=None, repr=False)
    wrong: NDArray[np.bool_] | None = attrs.field(default=None, repr=False)
    order: NDArray[np.intp] | None = attrs.field(default=None, repr=False)

    @classmethod
    def of(cls, scores: NDArray[np.float64], wrong: NDArray[np.bool_]) -> Counts:
        order = np.argsort(scores, kind="stable")
        return attrs.evolve(cls._sorted(scores[order], wrong[order]), scores=scores,
                            wrong=wrong, order=order)

    @classmethod
    def _sorted(cls, s: NDArray[np.float64], wrong_sorted: NDArray[np.bool_]) -> Counts:
        """The counts of examples already sorted by score (ascending)."""
        n = int(s.size)
        n_wrong = int(wrong_sorted.sum())
        cum_wrong = np.empty(n + 1, dtype=np.int64)
        cum_wrong[0] = 0
        np.cumsum(wrong_sorted, out=cum_wrong[1:])
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])[::-1]
        return cls(thr=s[starts], N=(n - starts).astype(np.int64),
                   W=(n_wrong - cum_wrong[starts]).astype(np.int64), n=n, n_wrong=n_wrong)

    def part(self, members: NDArray[np.int64]) -> Counts:
        """The counts of the examples at positions ``members`` alone, read off this set's sort
        (the same as :meth:`of` on them, without sorting again)."""
        assert self.scores is not None and self.wrong is not None and self.order is not None
        keep = np.zeros(self.n, dtype=bool)
        keep[members] = True
        order = self.order[keep[self.order]]
        return self._sorted(self.scores[order], self.wrong[order])

    def index_of(self, threshold: float) -> int:
        """The position of ``threshold``, one of the distinct scores, in :attr:`thr`."""
        return int(np.searchsorted(-self.thr, -threshold, side="left"))


@attrs.frozen(slots=True)
class Choice:
    """A method's pick: the position in :attr:`Counts.thr` of the threshold (``None``: no
    threshold meets the target), why, and the p-value at it (learn-then-test); for
    learn-then-test also which procedure's test chose it (``chosen_by``) and the threshold that
    test started from (``start``)."""

    idx: int | None
    why: str
    p_value: float | None = None
    chosen_by: str | None = None
    start: float | None = None


@attrs.frozen(slots=True)
class Method:
    """A calibration method with its checked parameters (see :func:`method_for`)."""

    #: The name ``calibrate(method=...)`` knows it by.
    name: ClassVar[str] = ""
    #: Whether the method bounds a risk (``max_risk``) rather than an error (``max_error``).
    bounds_risk: ClassVar[bool] = False
    #: Whether the promise holds for new inputs (exchangeable with the examples).
    promises: ClassVar[bool] = True

    target: float
    target_exact: Fraction

    @property
    def delta(self) -> float | None:
        """The allowed failure probability over the calibration set (learn-then-test)."""
        return None

    def choose(self, counts: Counts, min_support: int) -> Choice:
        """The threshold this method picks on ``counts``."""
        raise NotImplementedError

    def statement(self, n: int) -> str:
        """The promise, in words, for a calibration set of ``n``."""
        raise NotImplementedError

    def must_escalate(self, counts: Counts) -> float | None:
        """The smallest share any threshold meeting the bound must escalate (``None``: not
        defined for this method)."""
        return None


@attrs.frozen(slots=True)
class ConformalRiskControl(Method):
    """``P(answered alone and wrong) <= max_risk`` on average over calibration sets.

    >>> c = Counts.of(np.array([0.9, 0.8, 0.2]), np.array([False, False, True]))
    >>> ConformalRiskControl(0.5, Fraction(1, 2)).choose(c, 1).idx
    2
    """

    name: ClassVar[str] = "crc"
    bounds_risk: ClassVar[bool] = True

    def _k(self, n: int) -> int:
        return math.floor(self.target_exact * (n + 1))  # W + 1 <= r (n + 1) <=> W + 1 <= K

    def choose(self, counts: Counts, min_support: int) -> Choice:
        n, thr, W, N = counts.n, counts.thr, counts.W, counts.N
        K = self._k(n)
        if counts.n_wrong == n:
            return Choice(None, "every calibration example is wrong: nothing can be answered alone")
        if K < 1:
            return Choice(None, f"conformal risk control cannot certify a risk below 1/(n + 1) = "
                                f"{fmt(1 / (n + 1))} with n = {n} examples (max_risk = {self.target})")
        m = int(np.searchsorted(W, K - 1, side="right"))  # W is non-decreasing downwards
        if m == 0:
            return Choice(None, f"even the highest score {fmt_t(float(thr[0]))} answers "
                                f"{int(W[0])} wrong: W + 1 = {int(W[0]) + 1} > r(n + 1) = "
                                f"{fmt(self.target * (n + 1))}")
        idx = m - 1
        nxt = (f"; one step lower ({fmt_t(float(thr[m]))}) would have W = {int(W[m])}"
               if m < thr.size else "; every example is answered")
        return Choice(idx, f"lowest threshold with W + 1 <= r(n + 1): W = {int(W[idx])} wrong "
                           f"among {int(N[idx])} answered, {int(W[idx]) + 1} <= "
                           f"{fmt(self.target)} x {n + 1} = {fmt(self.target * (n + 1))}{nxt}")

    def statement(self, n: int) -> str:
        return (f"P(answered alone and wrong) <= {self.target} on average over calibration sets "
                f"(conformal risk control on n = {n})")

    def must_escalate(self, counts: Counts) -> float | None:
        return max(0, counts.n_wrong - max(self._k(counts.n) - 1, 0)) / counts.n


#: The multiple-testing procedures of learn-then-test, by name (the first is the default).
PROCEDURES = ("learned_start", "fallback", "fixed_sequence")


@attrs.frozen(slots=True)
class LearnThenTest(Method):
    """Error among the answered ``<= max_error`` with probability ``>= 1 - delta`` over the
    calibration set: exact binomial tests of every candidate threshold, from the highest down,
    under a multiple-testing procedure that keeps the family-wise error at most ``delta``.

    ``procedure="fixed_sequence"`` tests one chain from the highest threshold answering enough
    examples and stops at the first that cannot be rejected. ``"fallback"`` spreads ``delta``
    over several start points down the chain (Wiens' fallback procedure, a graph-based
    procedure of learn-then-test): a chain that fails stops only until the next start, and a
    chain that gets there passes its level on, so one confidently wrong pocket at the top does
    not stop every lower threshold. ``"learned_start"`` (the default) lets a fixed share of the
    examples choose where one chain starts, tests the others from there at most of ``delta``
    and runs the fallback on all of them at the rest; with fewer than ``LEARNED_MIN_N``
    examples or ``LEARNED_MIN_DISTINCT`` distinct scores it is the fallback alone (see
    docs/guarantees.md).

    >>> c = Counts.of(np.linspace(0, 1, 200), np.arange(200) < 20)   # the 20 lowest wrong
    >>> pick = LearnThenTest(0.1, Fraction(1, 10), 0.1, "fixed_sequence").choose(c, 10)
    >>> int(c.N[pick.idx]), int(c.W[pick.idx]), round(pick.p_value, 3)
    (193, 13, 0.077)
    >>> bad_top = np.arange(200) < 20
    >>> bad_top[190:] = True                                          # the 10 highest wrong too
    >>> c = Counts.of(np.linspace(0, 1, 200), bad_top)
    >>> LearnThenTest(0.2, Fraction(1, 5), 0.1, "fixed_sequence").choose(c, 10).idx is None
    True
    >>> int(c.N[LearnThenTest(0.2, Fraction(1, 5), 0.1, "fallback").choose(c, 10).idx])
    198
    """

    name: ClassVar[str] = "ltt"
    level: float = 0.1
    procedure: str = PROCEDURES[0]

    @property
    def delta(self) -> float | None:
        return self.level

    def choose(self, counts: Counts, min_support: int) -> Choice:
        if self.procedure == "fixed_sequence":
            return self._fixed_sequence(counts, min_support)
        if self.procedure == "fallback":
            return self._fallback(counts, min_support, self.level)
        return self._learned_start(counts, min_support)

    def _too_few(self, counts: Counts, min_support: int, delta: float) -> Choice:
        m_delta = min_rejectable(self.target, delta)
        return Choice(None, f"learn-then-test needs at least {max(min_support, m_delta)} "
                            f"answered examples to reject (max(min_support = {min_support}, "
                            f"{m_delta} for error {self.target} at delta {fmt(delta)})) and "
                            f"there are only {counts.n}")

    def _fixed_sequence(self, counts: Counts, min_support: int) -> Choice:
        thr, W, N, e, delta = counts.thr, counts.W, counts.N, self.target, self.level
        m0 = max(min_support, min_rejectable(e, delta))
        start = int(np.searchsorted(N, m0, side="left"))
        if start >= thr.size:
            return self._too_few(counts, min_support, delta)
        j, p_fail = first_failure(W[start:], N[start:], e, delta)
        top = float(thr[start])
        if j == 0:
            return Choice(None, f"the first testable threshold {fmt_t(top)} "
                                f"({int(W[start])} wrong of {int(N[start])}) has binomial p = "
                                f"{fmt(p_fail or 1.0)} > delta = {delta}: nothing can be "
                                "answered alone", None, "fixed_sequence", top)
        idx = start + j - 1
        p_value = float(binom.cdf(W[idx], N[idx], e))
        tail = (f"; the next ({fmt_t(float(thr[start + j]))}: {int(W[start + j])} wrong of "
                f"{int(N[start + j])}) has p = {fmt(p_fail or 1.0)} > delta"
                if start + j < thr.size else "; every threshold down to the lowest score rejected")
        return Choice(idx, f"fixed-sequence test from the highest threshold answering >= {m0} "
                           f"examples: last rejected {fmt_t(float(thr[idx]))} ({int(W[idx])} "
                           f"wrong of {int(N[idx])}, p = {fmt(p_value)} <= delta = {delta})"
                           f"{tail}", p_value, "fixed_sequence", top)

    def _fallback(self, counts: Counts, min_support: int, delta: float) -> Choice:
        thr, W, N, e = counts.thr, counts.W, counts.N, self.target
        starts = fallback_starts(N, counts.n, e, delta, min_support)
        if not starts:
            return self._too_few(counts, min_support, delta)
        best: tuple[int, float, int] | None = None
        failed: list[str] = []
        carry, chain_top = 0.0, starts[0][0]
        for k, (s, w) in enumerate(starts):
            end = starts[k + 1][0] if k + 1 < len(starts) else int(thr.size)
            level = carry + delta * w
            chain_top = chain_top if carry else s  # a chain passing its level on goes on
            j, p_fail = first_failure(W[s:end], N[s:end], e, level)
            if j:
                best = (s + j - 1, level, chain_top)
            if j < end - s:
                failed.append(f"{fmt_t(float(thr[s + j]))} ({int(W[s + j])} wrong of "
                              f"{int(N[s + j])}, p = {fmt(p_fail or 1.0)} > {fmt(level)})")
            carry = level if j == end - s else 0.0
        plan = (f"fallback procedure over {len(starts)} start point(s) answering >= "
                f"{', '.join(str(int(N[s])) for s, _ in starts)} examples, delta = {fmt(delta)} "
                f"split as {', '.join(fmt(delta * w) for _, w in starts)}")
        stopped = f"; not rejected: {'; '.join(failed)}" if failed else \
            "; every threshold down to the lowest score rejected"
        if best is None:
            return Choice(None, f"{plan}: no threshold rejected{stopped}: nothing can be "
                                "answered alone", None, "fallback")
        idx, level, top = best
        p_value = float(binom.cdf(W[idx], N[idx], e))
        return Choice(idx, f"{plan}: lowest rejected {fmt_t(float(thr[idx]))} ({int(W[idx])} "
                           f"wrong of {int(N[idx])}, p = {fmt(p_value)} <= {fmt(level)})"
                           f"{stopped}", p_value, "fallback", float(thr[top]))

    def _learned_start(self, counts: Counts, min_support: int) -> Choice:
        n, delta = counts.n, self.level
        distinct = int(counts.thr.size)
        if n < LEARNED_MIN_N or distinct < LEARNED_MIN_DISTINCT or counts.order is None:
            alone = self._fallback(counts, min_support, delta)
            return attrs.evolve(alone, why=(
                f"learned start needs n >= {LEARNED_MIN_N} examples and >= "
                f"{LEARNED_MIN_DISTINCT} distinct scores (n = {n}, {distinct} distinct): the "
                f"fallback procedure alone; {alone.why}"))
        pick, rest = learned_split(n)
        test = counts.part(rest)
        level = delta * LEARNED_LEVEL
        start = learned_start(counts.part(pick), test.n, self.target, level, min_support)
        chain, said = self._chain_from(test, start, level)
        fb = self._fallback(counts, min_support, delta - level)
        first = (f"learned start: {pick.size} of the {n} examples (a fixed seeded split) chose "
                 + ("no start" if start is None else f"the start {fmt_t(start)}")
                 + f"; a fixed-sequence test of the other {test.n} from there at "
                   f"{fmt(level)} {said}; the fallback on all {n} at {fmt(delta - level)}: ")
        if chain is not None and (fb.idx is None or counts.index_of(chain[0]) > fb.idx):
            idx = counts.index_of(chain[0])
            return Choice(idx, f"{first}{fb.why}; the lower, the learned start's, is the "
                               f"threshold", chain[1], "learned start", start)
        if fb.idx is None:
            return attrs.evolve(fb, why=first + fb.why, chosen_by="learned start", start=start)
        return attrs.evolve(fb, why=f"{first}{fb.why}; the lower, the fallback's, is the "
                                    "threshold")

    def _chain_from(self, test: Counts, start: float | None,
                    level: float) -> tuple[tuple[float, float] | None, str]:
        """The last threshold a fixed sequence rejects on ``test`` from ``start`` down (and
        its p-value), and what it did, in words."""
        e = self.target
        s0 = test.thr.size if start is None else test.index_of(start)
        if s0 >= test.thr.size:
            return None, "tested nothing"
        j, p_fail = first_failure(test.W[s0:], test.N[s0:], e, level)
        if j == 0:
            return None, (f"rejected nothing ({fmt_t(float(test.thr[s0]))}: {int(test.W[s0])} "
                          f"wrong of {int(test.N[s0])}, p = {fmt(p_fail or 1.0)})")
        i = s0 + j - 1
        p_value = float(binom.cdf(test.W[i], test.N[i], e))
        return (float(test.thr[i]), p_value), (
            f"rejected down to {fmt_t(float(test.thr[i]))} ({int(test.W[i])} wrong of "
            f"{int(test.N[i])}, p = {fmt(p_value)})")

    def statement(self, n: int) -> str:
        return (f"error among the answers given alone <= {self.target} with probability >= "
                f"{fmt(1 - self.level)} over the calibration set (learn-then-test on n = {n})")


@attrs.frozen(slots=True)
class Empirical(Method):
    """The lowest threshold whose error among the answered was ``<= max_error`` on the
    examples: nothing is promised for new inputs.

    >>> c = Counts.of(np.array([0.9, 0.8, 0.2]), np.array([False, True, True]))
    >>> Empirical(0.5, Fraction(1, 2)).choose(c, 1).idx
    1
    """

    name: ClassVar[str] = "empirical"
    promises: ClassVar[bool] = False

    def choose(self, counts: Counts, min_support: int) -> Choice:
        ok = np.flatnonzero(le_frac(counts.W, self.target_exact, counts.N))
        if ok.size == 0:
            return Choice(None, "no threshold has an error among the answered <= "
                                f"{self.target} on the examples")
        idx = int(ok[-1])
        return Choice(idx, f"lowest threshold with error among the answered <= {self.target} "
                           f"on the examples: {int(counts.W[idx])} wrong of {int(counts.N[idx])}")

    def statement(self, n: int) -> str:
        return (f"none: the error among the answered was <= {self.target} on the {n} "
                "calibration examples only, nothing is promised for new inputs")


_BY_NAME: dict[str, type[Method]] = {m.name: m for m in (ConformalRiskControl, LearnThenTest,
                                                         Empirical)}
#: The methods :func:`method_for` knows, by name.
METHODS = tuple(_BY_NAME)


def method_for(max_error: Any, max_risk: Any, method: Any, delta: Any,
               procedure: Any = None) -> Method:
    """The calibration method ``calibrate``'s arguments ask for, its parameters checked.

    >>> method_for(None, 0.1, None, 0.1)
    ConformalRiskControl(target=0.1, target_exact=Fraction(1, 10))
    >>> method_for(0.05, None, None, 0.2).delta
    0.2
    >>> method_for(0.05, None, None, 0.2, "fixed_sequence").procedure
    'fixed_sequence'
    """
    if (max_error is None) == (max_risk is None):
        raise InvalidInputError("give exactly one of max_error= and max_risk=")
    if method is None:
        method = "crc" if max_risk is not None else "ltt"
    if type(method) is not str or method not in METHODS:
        raise InvalidInputError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    cls = _BY_NAME[method]
    if cls.bounds_risk and max_risk is None:
        raise InvalidInputError(f'method "{method}" bounds a risk: give max_risk=, not max_error=')
    if not cls.bounds_risk and max_error is None:
        raise InvalidInputError(f'method "{method}" bounds an error: give max_error=, not max_risk=')
    raw = max_risk if cls.bounds_risk else max_error
    target = check_level(raw, "max_risk" if cls.bounds_risk else "max_error")
    if cls is LearnThenTest:
        if delta is None:
            raise InvalidInputError('method "ltt" needs delta in (0, 1)')
        if procedure is None:
            procedure = PROCEDURES[0]
        if type(procedure) is not str or procedure not in PROCEDURES:
            raise InvalidInputError(f"unknown procedure {procedure!r}; choose one of "
                                    f"{', '.join(PROCEDURES)}")
        return LearnThenTest(target, _exact(raw), check_level(delta, "delta"), procedure)
    if procedure is not None:
        raise InvalidInputError(f'procedure= is a learn-then-test option; method "{method}" '
                                "takes none")
    if delta is not None:
        check_level(delta, "delta")  # ignored by this method, but never wrong
    return cls(target, _exact(raw))


# ---------------------------------------------------------------------------------------------
# Exact arithmetic and the binomial tests
# ---------------------------------------------------------------------------------------------


def le_frac(a: NDArray[np.int64], frac: Fraction, b: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Exactly ``a <= frac * b`` elementwise, for non-negative integer arrays."""
    num, den = frac.numerator, frac.denominator
    amax = int(a.max()) if a.size else 0
    bmax = int(b.max()) if b.size else 0
    if amax * den < 2**62 and bmax * num < 2**62:
        return a * den <= num * b
    return np.array([int(x) * den <= num * int(y) for x, y in zip(a, b, strict=True)], dtype=bool)


def min_rejectable(e: float, delta: float) -> int:
    """Smallest ``m`` with ``(1 - e) ** m <= delta``: fewer answered examples can never reject."""
    m = max(1, math.ceil(math.log(delta) / math.log1p(-e)))
    while m > 1 and (1.0 - e) ** (m - 1) <= delta:
        m -= 1
    while (1.0 - e) ** m > delta:
        m += 1
    return m


#: Start points of the fallback procedure: the k-th answers at least ``FALLBACK_SPACING ** k``
#: times what the first does.
FALLBACK_SPACING = 2


def fallback_starts(N: NDArray[np.int64], n: int, e: float, delta: float,
                    min_support: int) -> list[tuple[int, float]]:
    """Start points of the fallback procedure and the share of ``delta`` each gets.

    ``K`` starts with equal shares ``1 / K``: start ``k`` is the highest threshold answering at
    least ``m * FALLBACK_SPACING ** k`` examples, ``m = max(min_support, min_rejectable(e,
    delta / K))`` the fewest that can reject at a share, and ``K`` the most starts that fit in
    ``n`` examples. Starts on the same threshold (ties) are merged, their shares added; the share
    of a start below the lowest threshold goes to the last start made. The points depend on
    ``n`` and on the counts answered only, never on which examples are wrong.

    >>> N = np.arange(1, 1001)
    >>> [(int(N[s]), round(w, 3)) for s, w in fallback_starts(N, 1000, 0.1, 0.1, 10)]
    [(38, 0.2), (76, 0.2), (152, 0.2), (304, 0.2), (608, 0.2)]
    """
    k = 1
    while (max(min_support, min_rejectable(e, delta / (k + 1))) * FALLBACK_SPACING ** k) <= n:
        k += 1
    m = max(min_support, min_rejectable(e, delta / k))
    out: list[tuple[int, float]] = []
    pending = 0.0
    for i in range(k):
        pending += 1.0 / k
        s = int(np.searchsorted(N, m * FALLBACK_SPACING ** i, side="left"))
        if s >= N.size:
            continue
        if out and out[-1][0] == s:
            out[-1] = (s, out[-1][1] + pending)
        else:
            out.append((s, pending))
        pending = 0.0
    if pending and out:
        out[-1] = (out[-1][0], out[-1][1] + pending)
    return out


#: The learned start: the share of the examples that chooses where its chain starts, the share
#: of ``delta`` that chain is tested at (the fallback on all the examples gets the rest), the
#: fewest examples and distinct scores it is used with (below either, the fallback alone: a
#: signal of a few steps leaves no room between the fallback's start points) and the seed of
#: its split. Both conditions read the scores alone, never which examples are wrong.
LEARNED_SHARE = 0.15
LEARNED_LEVEL = 0.9
LEARNED_MIN_N = 1000
LEARNED_MIN_DISTINCT = 20
LEARNED_SEED = 31
#: A start must rest on at least this many of the choosing examples: the smallest p-value
#: among a handful of them is mostly luck (on the GSM8K replays such starts sat in the
#: confidently wrong top and their chains rejected nothing).
LEARNED_MIN_CHOOSERS = 20


def learned_split(n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The positions of the examples that choose the learned start and of those that test it.

    A fixed seeded permutation: the same ``n`` always splits the same way, so a calibration
    repeats exactly, and the split depends on nothing but ``n``.

    >>> pick, rest = learned_split(1000)
    >>> pick.size, rest.size, bool(np.intersect1d(pick, rest).size)
    (150, 850, False)
    """
    perm = np.random.default_rng(LEARNED_SEED).permutation(n)
    k = math.ceil(LEARNED_SHARE * n)
    return np.sort(perm[:k]), np.sort(perm[k:])


def learned_start(chooser: Counts, n_test: int, e: float, delta: float,
                  min_support: int) -> float | None:
    """Where the learned start's chain begins: the threshold whose exact binomial p-value is
    the smallest on the choosing examples, their counts scaled to the ``n_test`` examples that
    will test it, among those answering at least ``LEARNED_MIN_CHOOSERS`` of the choosing
    examples (``None``: no threshold answers enough to reject at ``delta``).

    The most significant threshold is where a test on fresh examples is likeliest to reject,
    and the chain goes on down from there.

    >>> s = np.linspace(0, 1, 300)
    >>> wrong = (s > 0.9) | (s < 0.5)                 # wrong at the top and below the middle
    >>> round(learned_start(Counts.of(s, wrong), 700, 0.2, 0.09, 10), 3)
    0.502
    """
    scale = n_test / chooser.n
    N = np.round(chooser.N * scale)
    W = np.floor(chooser.W * scale)
    ok = (N >= max(min_support, min_rejectable(e, delta))) & (chooser.N >= LEARNED_MIN_CHOOSERS)
    if not ok.any():
        return None
    p = np.where(ok, binom.cdf(W, np.maximum(N, 1), e), np.inf)
    return float(chooser.thr[int(np.argmin(p))])


def first_failure(
    W: NDArray[np.int64], N: NDArray[np.int64], e: float, delta: float
) -> tuple[int, float | None]:
    """Index of the first ``P(Binomial(N, e) <= W) > delta`` (``len(W)`` if none) and its p.

    A Chernoff bound ``exp(-N KL(W/N || e))`` certifies most rejections cheaply; exact
    binomial p-values are computed, in order and in growing chunks, only where it cannot.
    """
    q = W / N
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = xlogy(q, q / e) + xlogy(1.0 - q, (1.0 - q) / (1.0 - e))
    certain = (q < e) & (N * kl >= math.log(1.0 / delta) * (1.0 + 1e-9) + 1e-9)
    todo = np.flatnonzero(~certain)
    chunk = 64
    pos = 0
    while pos < todo.size:
        idx = todo[pos : pos + chunk]
        p = binom.cdf(W[idx], N[idx], e)
        bad = np.flatnonzero(p > delta)
        if bad.size:
            return int(idx[bad[0]]), float(p[bad[0]])
        pos += chunk
        chunk *= 4
    return int(W.size), None

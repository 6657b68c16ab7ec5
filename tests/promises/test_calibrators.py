"""Each calibration method alone (corollary.promises.calibrators): its choice meets its own definition on
any counts, and method_for checks every parameter before any example is read."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from corollary import InvalidInputError, InvalidTypeError
from corollary.promises.calibrators import (
    METHODS,
    ConformalRiskControl,
    Counts,
    Empirical,
    LearnThenTest,
    fallback_starts,
    method_for,
)

examples = st.integers(1, 120).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 9), min_size=n, max_size=n),   # scores on a coarse grid: ties
    st.lists(st.booleans(), min_size=n, max_size=n)))
targets = st.sampled_from([Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)])


def counts_of(data: tuple[list[int], list[bool]]) -> Counts:
    scores, wrong = data
    return Counts.of(np.array(scores, dtype=float) / 10, np.array(wrong, dtype=bool))


@settings(max_examples=300, deadline=None)
@given(data=examples)
def test_counts_are_the_examples_at_or_above_each_distinct_score(data) -> None:
    c = counts_of(data)
    s = np.array(data[0], dtype=float) / 10
    w = np.array(data[1], dtype=bool)
    assert list(c.thr) == sorted(set(s.tolist()), reverse=True)
    for t, n_at, w_at in zip(c.thr, c.N, c.W, strict=True):
        assert n_at == (s >= t).sum() and w_at == (w & (s >= t)).sum()
    assert (c.n, c.n_wrong) == (len(s), int(w.sum()))


@settings(max_examples=300, deadline=None)
@given(data=examples, r=targets)
def test_crc_takes_the_lowest_threshold_with_w_plus_one_within_r_n_plus_one(data, r) -> None:
    c = counts_of(data)
    pick = ConformalRiskControl(float(r), r).choose(c, 1)
    ok = [i for i in range(c.thr.size) if c.W[i] + 1 <= r * (c.n + 1)]
    if c.n_wrong == c.n:
        assert pick.idx is None
    else:
        assert pick.idx == (max(ok) if ok else None)
    assert pick.why


@settings(max_examples=300, deadline=None)
@given(data=examples, e=targets)
def test_empirical_takes_the_lowest_threshold_within_the_error(data, e) -> None:
    c = counts_of(data)
    pick = Empirical(float(e), e).choose(c, 1)
    ok = [i for i in range(c.thr.size) if c.W[i] <= e * c.N[i]]
    assert pick.idx == (max(ok) if ok else None)


@settings(max_examples=200, deadline=None)
@given(data=examples, e=targets, delta=st.sampled_from([0.05, 0.1, 0.3]),
       support=st.integers(1, 20))
def test_ltt_rejects_every_threshold_down_to_its_choice_and_no_further(data, e, delta,
                                                                       support) -> None:
    c = counts_of(data)
    pick = LearnThenTest(float(e), e, delta, "fixed_sequence").choose(c, support)
    p = binom.cdf(c.W, c.N, float(e))
    testable = [i for i in range(c.thr.size) if c.N[i] >= support]
    if pick.idx is None:
        first = [i for i in testable if binom.cdf(0, c.N[i], float(e)) <= delta]
        assert not first or p[first[0]] > delta
        return
    assert c.N[pick.idx] >= support
    tested = [i for i in testable if i <= pick.idx and
              (1 - float(e)) ** c.N[i] <= delta]  # the sequence starts where a test can reject
    assert tested and all(p[i] <= delta for i in tested)
    assert pick.p_value == pytest.approx(p[pick.idx])
    if pick.idx + 1 < c.thr.size:
        assert p[pick.idx + 1] > delta


def _fallback_by_hand(c: Counts, e: float, delta: float, starts: list[tuple[int, float]]):
    """Wiens' fallback procedure, one hypothesis at a time with exact p-values: the level of a
    threshold is its own share of delta plus the level of the one above when that was rejected."""
    weight = dict(starts)
    first = starts[0][0] if starts else c.thr.size
    level_above, rejected_above, lowest = 0.0, False, None
    for i in range(first, c.thr.size):
        level = delta * weight.get(i, 0.0) + (level_above if rejected_above else 0.0)
        rejected_above = level > 0 and binom.cdf(c.W[i], c.N[i], e) <= level
        level_above = level
        if rejected_above:
            lowest = i
    return lowest


@settings(max_examples=300, deadline=None)
@given(data=examples, e=targets, delta=st.sampled_from([0.05, 0.1, 0.3]),
       support=st.integers(1, 20))
def test_ltt_fallback_is_the_procedure_done_by_hand(data, e, delta, support) -> None:
    c = counts_of(data)
    starts = fallback_starts(c.N, c.n, float(e), delta, support)
    assert sum(w for _, w in starts) == pytest.approx(1.0) or not starts
    assert all(c.N[s] >= support for s, _ in starts)
    assert [s for s, _ in starts] == sorted({s for s, _ in starts})  # distinct, top down
    pick = LearnThenTest(float(e), e, delta).choose(c, support)
    assert pick.idx == _fallback_by_hand(c, float(e), delta, starts)
    if pick.idx is not None:
        assert pick.p_value == pytest.approx(binom.cdf(c.W[pick.idx], c.N[pick.idx], float(e)))


def test_ltt_fallback_passes_a_confidently_wrong_top() -> None:
    # 1,000 scores; the 60 highest are 60% wrong, the rest 5%: one chain from the top stops at
    # once, the fallback's later start points reject down to the low scores
    rng = np.random.default_rng(0)
    s = np.arange(1000.0)
    wrong = rng.random(1000) < np.where(s >= 940, 0.6, 0.05)
    c = Counts.of(s, wrong)
    assert LearnThenTest(0.2, Fraction(1, 5), 0.1, "fixed_sequence").choose(c, 10).idx is None
    pick = LearnThenTest(0.2, Fraction(1, 5), 0.1).choose(c, 10)
    assert pick.idx is not None and c.N[pick.idx] > 900
    assert "not rejected" in pick.why and "fallback procedure" in pick.why


def test_method_for_checks_every_parameter_up_front() -> None:
    assert METHODS == ("crc", "ltt", "empirical")
    assert isinstance(method_for(None, 0.1, None, 0.1), ConformalRiskControl)
    assert isinstance(method_for(0.1, None, None, 0.1), LearnThenTest)
    assert isinstance(method_for(0.1, None, "empirical", None), Empirical)
    assert method_for(None, 0.1, "crc", None).delta is None
    assert method_for(0.3, None, "ltt", 0.2).target_exact == Fraction(3, 10)  # as written
    for bad, error in [((None, None, None, 0.1), InvalidInputError),
                       ((0.1, 0.1, None, 0.1), InvalidInputError),
                       ((0.1, None, "bayes", 0.1), InvalidInputError),
                       ((0.1, None, "crc", 0.1), InvalidInputError),
                       ((None, 0.1, "ltt", 0.1), InvalidInputError),
                       ((0.1, None, "ltt", None), InvalidInputError),
                       ((0.1, None, "ltt", 1.0), InvalidInputError),
                       ((None, 0.1, "crc", 2.0), InvalidInputError),
                       ((1.0, None, None, 0.1), InvalidInputError),
                       ((True, None, None, 0.1), InvalidTypeError),
                       ((None, "0.1", None, 0.1), InvalidTypeError)]:
        with pytest.raises(error):
            method_for(*bad)

"""calibrate(): hand-checked thresholds per method, the checks, groups, folds, and bad and hostile
input."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from support.hostile import DEEP, HUGE, SETTINGS, Raiser, hostile, hostile_or_raiser, raises_typed

from corollary.foundations.errors import CorollaryError, InvalidInputError, InvalidTypeError
from corollary.promises.guarantee import (
    GroupedPromise,
    Promise,
    WeakSignalError,
    WeakSignalWarning,
    calibrate,
    promise_from_dict,
)


def _ranked(n, wrong_at):
    """Scores 1..n; the examples whose score is in wrong_at are wrong."""
    s = np.arange(1, n + 1)
    return s, ~np.isin(s, list(wrong_at))


# ------------------------------------------------------------------------------------------------
# Reference implementations: plain loops over the distinct scores, straight from the definitions
# ------------------------------------------------------------------------------------------------


def _ref_crc(scores, right, r, min_support):
    n = len(scores)
    best = math.inf
    for t in sorted(set(scores.tolist()), reverse=True):
        ans = scores >= t
        w = int((ans & ~right).sum())
        if (w + 1) <= Fraction(str(r)) * (n + 1):
            best = t
        else:
            break
    if best != math.inf and (scores >= best).sum() < min_support:
        return math.inf
    if right.sum() == 0:
        return math.inf
    return best


def _ref_ltt(scores, right, e, delta, min_support):
    m_delta = next(m for m in range(1, 10**6) if (1 - e) ** m <= delta)
    best = math.inf
    for t in sorted(set(scores.tolist()), reverse=True):
        ans = scores >= t
        n_t = int(ans.sum())
        if n_t < max(min_support, m_delta):
            continue
        w = int((ans & ~right).sum())
        if binom.cdf(w, n_t, e) <= delta:
            best = t
        else:
            break
    return best


# ------------------------------------------------------------------------------------------------
# Conformal risk control
# ------------------------------------------------------------------------------------------------


def test_crc_hand_checked():
    # n = 39, r = 0.1: W + 1 <= 0.1 * 40 = 4, so at most 3 wrong answered.
    s, right = _ranked(39, [1, 2, 3, 4, 5, 10, 20, 30])
    p = calibrate(s, right, max_risk=0.1)
    assert isinstance(p, Promise) and p.method == "crc"
    assert p.threshold == 6.0  # wrong at or above 6: 10, 20, 30; at 5 there would be 4
    r = p.report
    assert r["support"] == 34
    assert r["answered"] == pytest.approx(34 / 39)
    assert r["risk"] == pytest.approx(3 / 39)
    assert r["error"] == pytest.approx(3 / 34)
    assert r["base_error"] == pytest.approx(8 / 39)
    assert r["must_escalate_at_least"] == pytest.approx(5 / 39)  # 8 wrong, at most 3 answered
    assert r["n"] == 39 and r["max_risk"] == 0.1 and r["max_error"] is None and r["delta"] is None
    assert "4 <= 0.1 x 40" in r["why"]
    assert r["promise"].startswith("P(answered alone and wrong) <= 0.1 on average")
    assert p.allows(6) and p.allows(6.5) and not p.allows(5.999)


def test_crc_decides_the_boundary_in_exact_decimal_arithmetic():
    # n = 19, r = 0.15: r(n + 1) = 3 exactly, so W = 2 is allowed. The binary float nearest
    # 0.15 is a hair below 3/20, and taken literally it would allow only W = 1.
    s, right = _ranked(19, [1, 2, 3, 4, 10, 15])
    p = calibrate(s, right, max_risk=0.15)
    assert p.threshold == 5.0 and p.report["support"] == 15
    assert calibrate(s, right, max_risk=Fraction(3, 20)).threshold == 5.0
    # The literal binary value: at most 1 wrong -> threshold 11, resting on 9 < 10 examples.
    q = calibrate(s, right, max_risk=Fraction(0.15))
    assert q.threshold == math.inf
    assert "min_support" in q.report["why"] and "9 example" in q.report["why"]


def test_crc_cannot_certify_below_one_over_n_plus_one():
    s, right = _ranked(19, [1, 2, 3, 4, 10, 15])
    p = calibrate(s, right, max_risk=0.04)  # 0.04 < 1/20
    assert p.threshold == math.inf
    assert "1/(n + 1) = 0.05" in p.report["why"]
    assert p.report["answered"] == 0.0 and p.report["error"] is None and p.report["risk"] == 0.0
    assert not p.allows(1e300)
    assert p.report["promise"].startswith("everything escalates")


def test_ties_are_answered_together():
    s = np.r_[[0.9] * 20, [0.5] * 5, [0.1] * 4]
    # n = 29, r = 0.1: W + 1 <= 3.
    one_wrong_at_half = np.r_[[True] * 19, [False], [True] * 4, [False], [False] * 4]
    p = calibrate(s, one_wrong_at_half, max_risk=0.1)
    assert p.threshold == 0.5 and p.report["support"] == 25 and p.report["risk"] == pytest.approx(2 / 29)
    # Two wrong in the 0.5 tie: the whole tie would bring W to 3, so none of it is answered,
    # although three of its five examples alone would have fitted.
    two_wrong_at_half = np.r_[[True] * 19, [False], [True] * 3, [False] * 2, [False] * 4]
    q = calibrate(s, two_wrong_at_half, max_risk=0.1)
    assert q.threshold == 0.9 and q.report["support"] == 20 and q.report["risk"] == pytest.approx(1 / 29)


def test_too_little_support_escalates_everything():
    # r = 0.05, n = 30: W + 1 <= 1.55, so no wrong answer; the lowest such threshold (23)
    # answers only 8 examples.
    s, right = _ranked(30, [1, 2, 3, 4, 5, 22])
    p = calibrate(s, right, max_risk=0.05)
    assert p.threshold == math.inf
    assert "8 example(s), fewer than min_support = 10" in p.report["why"]
    assert calibrate(s, right, max_risk=0.05, min_support=8).threshold == 23.0


def test_crc_matches_a_reference_loop_with_many_ties():
    rng = np.random.default_rng(11)
    for _ in range(25):
        n = int(rng.integers(40, 400))
        s = np.round(rng.random(n), 1)  # heavy ties
        right = rng.random(n) >= 0.7 * (1 - s) ** 2
        for r in (0.03, 0.07, 0.15):
            got = calibrate(s, right, max_risk=r, weak="warn").threshold
            assert got == _ref_crc(s, right, r, 10)


# ------------------------------------------------------------------------------------------------
# Learn then test
# ------------------------------------------------------------------------------------------------


def test_ltt_hand_checked():
    # e = 0.1, delta = 0.1: 0.9^22 = 0.0985 <= 0.1 < 0.9^21, so testing starts at 22 answered.
    s, right = _ranked(60, list(range(1, 11)) + [30])
    p = calibrate(s, right, max_error=0.1, procedure="fixed_sequence")
    assert p.method == "ltt" and p.delta == 0.1
    # thresholds 39 .. 31 answer 22 .. 30 with no wrong: p = 0.9^N <= 0.1, rejected.
    # threshold 30 answers 31 with 1 wrong: p = 0.9^31 + 31 * 0.1 * 0.9^30 = 0.1696 > 0.1: stop.
    assert p.threshold == 31.0
    assert p.report["support"] == 30 and p.report["error"] == 0.0
    assert p.report["p_value"] == pytest.approx(0.9**30)
    assert ">= 22 examples" in p.report["why"]
    assert "p = 0.169565" in p.report["why"]
    assert p.report["promise"].startswith(
        "error among the answers given alone <= 0.1 with probability >= 0.9"
    )


def test_ltt_needs_enough_examples_to_reject():
    s = np.linspace(0.1, 0.9, 15)
    p = calibrate(s, [True] * 15, max_error=0.1)  # all right, but 15 < 22
    assert p.threshold == math.inf
    assert "at least 22 answered examples" in p.report["why"]
    assert p.report["separation"]["tested"] is False


def test_ltt_first_test_fails():
    # The 22 highest hold 2 wrong: P(Bin(22, 0.1) <= 2) = 0.62 > 0.1.
    s, right = _ranked(60, list(range(1, 11)) + [50, 55])
    p = calibrate(s, right, max_error=0.1, procedure="fixed_sequence")
    assert p.threshold == math.inf
    assert "first testable threshold 39" in p.report["why"]
    assert f"p = {binom.cdf(2, 22, 0.1):.6g}" in p.report["why"]


def test_ltt_matches_a_reference_loop_with_many_ties():
    rng = np.random.default_rng(5)
    for _ in range(25):
        n = int(rng.integers(100, 600))
        s = np.round(rng.random(n), 2)
        right = rng.random(n) >= 0.6 * (1 - s) ** 2
        for e, d in ((0.05, 0.1), (0.1, 0.05), (0.2, 0.2)):
            got = calibrate(s, right, max_error=e, delta=d, procedure="fixed_sequence").threshold
            assert got == _ref_ltt(s, right, e, d, 10)


def test_ltt_fast_path_agrees_with_exact_p_values_on_a_large_set():
    rng = np.random.default_rng(2)
    s = rng.random(200_000)
    right = rng.random(s.size) >= 0.6 * (1 - s) ** 2
    p = calibrate(s, right, max_error=0.05, procedure="fixed_sequence")
    # every threshold from the start down to the chosen one is rejected, the next one is not
    order = np.argsort(-s)
    w = np.cumsum(~right[order])
    k = int(np.searchsorted(-s[order], -p.threshold, side="right"))  # answered count
    start = 45  # 0.95^45 <= 0.1 < 0.95^44
    pv = binom.cdf(w[start - 1 : k], np.arange(start, k + 1), 0.05)
    assert (pv <= 0.1).all()
    assert binom.cdf(w[k], k + 1, 0.05) > 0.1


# ------------------------------------------------------------------------------------------------
# Empirical
# ------------------------------------------------------------------------------------------------


def test_empirical_hand_checked_and_promises_nothing():
    s, right = _ranked(20, [1, 2, 3, 12])
    p = calibrate(s, right, max_error=0.1, method="empirical", min_support=5)
    # error at 12: 1/9 > 0.1; at 11: 1/10; at 4: 1/17 (lowest); at 3: 2/18 > 0.1
    assert p.threshold == 4.0 and p.report["error"] == pytest.approx(1 / 17)
    assert p.report["promise"].startswith("none:")
    assert p.report["delta"] is None


def test_empirical_boundary_is_exact():
    s, right = _ranked(10, [1, 2, 3])
    p = calibrate(s, right, max_error=0.3, method="empirical", min_support=5)
    assert p.threshold == 1.0 and p.report["error"] == pytest.approx(0.3)  # 3/10 <= 0.3
    q = calibrate(s, right, max_error=Fraction(0.3), method="empirical", min_support=5)
    assert q.threshold == 2.0  # the binary float is below 3/10


# ------------------------------------------------------------------------------------------------
# Separation and degenerate sets
# ------------------------------------------------------------------------------------------------


def test_a_signal_at_chance_is_refused():
    rng = np.random.default_rng(2)
    s = rng.random(500)
    right = rng.random(500) < 0.8  # independent of the score (this draw: p = 0.69)
    with pytest.raises(WeakSignalError, match="Mann-Whitney") as info:
        calibrate(s, right, max_risk=0.1)
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError):
        calibrate(np.arange(40.0), [True] * 30 + [False] * 10, max_error=0.2)  # reversed


def test_weak_warn_sets_the_threshold_and_records_the_warning():
    rng = np.random.default_rng(2)
    s = rng.random(500)
    right = rng.random(500) < 0.8
    with pytest.warns(WeakSignalWarning, match="does not rank"):
        p = calibrate(s, right, max_risk=0.1, weak="warn")
    assert len(p.report["warnings"]) == 1 and "Mann-Whitney" in p.report["warnings"][0]
    assert p.report["separation"]["p"] == pytest.approx(0.6945112479, rel=1e-8)
    # CRC still gives its (valid) threshold: at most floor(0.1 * 501) - 1 = 49 wrong answered
    assert p.report["risk"] * 500 <= 49


def test_separation_auroc_and_p_against_a_direct_computation():
    rng = np.random.default_rng(4)
    s = np.round(rng.random(300), 2)
    right = rng.random(300) >= 0.8 * (1 - s)
    sep = calibrate(s, right, max_risk=0.1).report["separation"]
    a, b = s[right], s[~right]
    pairs = (a[:, None] > b[None, :]).sum() + 0.5 * (a[:, None] == b[None, :]).sum()
    assert sep["auroc"] == pytest.approx(pairs / (a.size * b.size))
    # normal approximation with tie and continuity corrections, computed by hand
    n1, n2, n = a.size, b.size, a.size + b.size
    _, counts = np.unique(s, return_counts=True)
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - (counts**3 - counts).sum() / (n * (n - 1))))
    z = (pairs - n1 * n2 / 2 - 0.5) / sd
    assert sep["p"] == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-9)
    assert sep["tested"] is True


def test_all_right_is_not_refused_and_says_separation_was_not_tested():
    s = np.linspace(0.5, 1.0, 50)
    crc = calibrate(s, [True] * 50, max_risk=0.05)
    assert crc.threshold == 0.5 and crc.report["answered"] == 1.0  # W + 1 = 1 <= 2.55
    assert crc.report["separation"]["tested"] is False
    assert "every example is right" in crc.report["warnings"][0]
    ltt = calibrate(s, [True] * 50, max_error=0.05)  # 0.95^45 = 0.0994 <= 0.1
    assert ltt.threshold == 0.5 and ltt.report["p_value"] == pytest.approx(0.95**50)


@pytest.mark.parametrize("kw", [{"max_risk": 0.5}, {"max_error": 0.5}, {"max_error": 0.5, "method": "empirical"}])
def test_all_wrong_escalates_everything(kw):
    p = calibrate(np.linspace(0, 1, 100), [False] * 100, **kw)
    assert p.threshold == math.inf
    assert p.report["base_error"] == 1.0
    assert "every example is wrong" in p.report["warnings"][0]


def test_tiny_sets_note_a_weak_signal_instead_of_refusing():
    p = calibrate([0.2, 0.4, 0.6], [True, False, True], max_risk=0.5)
    assert p.threshold == math.inf
    assert "not refused: too few examples" in p.report["warnings"][0]
    assert "fewer than min_support" in p.report["why"]


# ------------------------------------------------------------------------------------------------
# One-sided, groups, folds
# ------------------------------------------------------------------------------------------------


def test_one_sided_answer():
    s, right = _ranked(39, [1, 2, 3, 4, 5, 10, 20, 30])
    p = calibrate(s / 40, right, max_risk=0.1, answer="yes")
    assert p.threshold == 6 / 40
    assert p.decide(0.5) == "yes" and p.decide(0.1) is None
    assert p.report["promise"].startswith("answers 'yes' alone when the score >= threshold")
    assert p.report["answer"] == "yes"


def test_groups_give_one_promise_per_label():
    s1, r1 = _ranked(39, [1, 2, 3, 4, 5, 10, 20, 30])
    s2, r2 = _ranked(60, list(range(1, 11)) + [30])
    s = np.r_[s1, s2].astype(float)
    right = np.r_[r1, r2]
    labels = np.array(["a"] * 39 + ["b"] * 60)
    g = calibrate(s, right, max_risk=0.1, groups=labels)
    assert isinstance(g, GroupedPromise) and g.groups == ["a", "b"]
    assert g.threshold["a"] == calibrate(s1, r1, max_risk=0.1).threshold == 6.0
    assert g.threshold["b"] == calibrate(s2, r2, max_risk=0.1).threshold
    assert g.report["a"]["n"] == 39 and g.report["b"]["n"] == 60
    assert g.allows(7, "a") and not g.allows(5, "a") and not g.allows(100, "c")
    assert g["a"].group == "a"
    back = GroupedPromise.from_dict(g.to_dict())
    assert back.fingerprint == g.fingerprint and back.threshold == g.threshold
    packed = msgpack.unpackb(msgpack.packb(g.to_dict()), strict_map_key=False)
    again = promise_from_dict(packed)
    assert isinstance(again, GroupedPromise) and again.fingerprint == g.fingerprint
    assert isinstance(promise_from_dict(g["b"].to_dict()), Promise)


def test_groups_by_answer():
    rng = np.random.default_rng(9)
    n = 800
    s = rng.random(n)
    answers = np.where(rng.random(n) < 0.5, "yes", "no")
    right = rng.random(n) >= np.where(answers == "yes", 0.5, 0.9) * (1 - s) ** 2
    g = calibrate(s, right, max_risk=0.05, groups="answer", answers=answers, delta=None)
    assert g.by == "answer" and sorted(g.groups) == ["no", "yes"]
    for a in ("yes", "no"):
        m = answers == a
        assert g.threshold[a] == calibrate(s[m], right[m], max_risk=0.05).threshold
        assert g[a].decide(0.999) == a
    assert g.threshold["no"] > g.threshold["yes"]  # the noisier answer needs a higher bar


def test_folds_score_each_example_with_a_refit_that_left_it_out():
    rng = np.random.default_rng(1)
    n = 300
    x = rng.random(n)
    right = rng.random(n) >= 0.6 * (1 - x) ** 2
    seen: list[tuple[set[int], set[int]]] = []

    def fit(train_idx):
        shift = float(x[train_idx].mean())  # anything learned from the training part

        def scorer(held_idx):
            seen.append((set(train_idx.tolist()), set(held_idx.tolist())))
            return x[held_idx] + 0.0 * shift

        return scorer

    p = calibrate(None, right, max_risk=0.05, folds=5, fit=fit)
    assert len(seen) == 5
    assert all(not (tr & he) for tr, he in seen)
    assert set().union(*(he for _, he in seen)) == set(range(n))
    assert seen[0][1] == set(range(0, n, 5))  # fold of example i is i % 5
    assert p.threshold == calibrate(x, right, max_risk=0.05).threshold
    assert p.report["cross_fitted"] == 5
    assert "approximate" in p.report["promise"] and "approximate" in p.report["warnings"][-1]
    assert p.fingerprint != calibrate(x, right, max_risk=0.05).fingerprint


# ------------------------------------------------------------------------------------------------
# Serialisation
# ------------------------------------------------------------------------------------------------


def test_round_trip_fingerprint_and_msgpack():
    s, right = _ranked(39, [1, 2, 3, 4, 5, 10, 20, 30])
    p = calibrate(s, right, max_risk=0.1)
    q = calibrate(s, right, max_risk=0.1)
    assert p.fingerprint == q.fingerprint and len(p.fingerprint) == 64
    assert calibrate(s, right, max_risk=0.11).fingerprint != p.fingerprint
    d = msgpack.unpackb(msgpack.packb(p.to_dict()), strict_map_key=False)
    back = Promise.from_dict(d)
    assert back.threshold == 6.0 and back.fingerprint == p.fingerprint
    assert back.report["why"] == p.report["why"]
    inf = calibrate(s, right, max_risk=0.01)
    assert Promise.from_dict(inf.to_dict()).threshold == math.inf
    tampered = p.to_dict() | {"threshold": 5.0}
    with pytest.raises(InvalidInputError, match="fingerprint"):
        Promise.from_dict(tampered)
    with pytest.raises(InvalidInputError, match="lacks"):
        Promise.from_dict({"method": "crc"})


# ------------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------------

GOOD_S = np.arange(1.0, 41.0)
GOOD_R = np.r_[[False] * 10, [True] * 30]


@pytest.mark.parametrize(
    ("args", "kw", "error", "match"),
    [
        ((GOOD_S[:-1], GOOD_R), {"max_risk": 0.1}, InvalidInputError, "differ in length"),
        ((np.r_[GOOD_S[:-1], np.nan], GOOD_R), {"max_risk": 0.1}, InvalidInputError, "NaN"),
        ((np.r_[GOOD_S[:-1], np.inf], GOOD_R), {"max_risk": 0.1}, InvalidInputError, "finite"),
        ((GOOD_S.astype(str), GOOD_R), {"max_risk": 0.1}, InvalidTypeError, "real numbers"),
        ((GOOD_S, np.where(GOOD_R, 1.0, 0.5)), {"max_risk": 0.1}, InvalidTypeError, "booleans"),
        ((GOOD_S, ["yes"] * 40), {"max_risk": 0.1}, InvalidTypeError, "booleans"),
        ((GOOD_S, [None] * 40), {"max_risk": 0.1}, InvalidTypeError, "booleans"),
        ((GOOD_S, np.r_[GOOD_R[:-1].astype(int), 2]), {"max_risk": 0.1}, InvalidInputError, "0 / 1"),
        (([], []), {"max_risk": 0.1}, InvalidInputError, "no calibration examples"),
        ((GOOD_S, GOOD_R), {}, InvalidInputError, "exactly one"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "max_error": 0.1}, InvalidInputError, "exactly one"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.0}, InvalidInputError, "between 0 and 1"),
        ((GOOD_S, GOOD_R), {"max_risk": 1.0}, InvalidInputError, "between 0 and 1"),
        ((GOOD_S, GOOD_R), {"max_error": -0.1}, InvalidInputError, "between 0 and 1"),
        ((GOOD_S, GOOD_R), {"max_error": float("nan")}, InvalidInputError, "between 0 and 1"),
        ((GOOD_S, GOOD_R), {"max_error": "0.1"}, InvalidTypeError, "number"),
        ((GOOD_S, GOOD_R), {"max_error": True}, InvalidTypeError, "number"),
        ((GOOD_S, GOOD_R), {"max_error": 0.1, "delta": 1.5}, InvalidInputError, "delta"),
        ((GOOD_S, GOOD_R), {"max_error": 0.1, "delta": 0}, InvalidInputError, "delta"),
        ((GOOD_S, GOOD_R), {"max_error": 0.1, "delta": None}, InvalidInputError, "delta"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "delta": 2.0}, InvalidInputError, "delta"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "method": "rcps"}, InvalidInputError, "unknown method"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "method": "ltt"}, InvalidInputError, "max_error"),
        ((GOOD_S, GOOD_R), {"max_error": 0.1, "method": "crc"}, InvalidInputError, "max_risk"),
        ((GOOD_S, GOOD_R), {"max_error": 0.1, "procedure": "holm"}, InvalidInputError, "procedure"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "procedure": "fallback"}, InvalidInputError, "procedure"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "weak": "ignore"}, InvalidInputError, "weak"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "min_support": 0}, InvalidInputError, "min_support"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "min_support": 2.5}, InvalidTypeError, "min_support"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "groups": ["a"] * 39}, InvalidInputError, "differ in length"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "groups": "answer"}, InvalidInputError, "answers="),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "groups": "label"}, InvalidInputError, "groups"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "answers": ["x"] * 40}, InvalidInputError, "answers="),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "answer": "y", "groups": ["a"] * 40}, InvalidInputError, "cannot be combined"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "folds": 5, "fit": lambda tr: None}, InvalidInputError, "scores=None"),
        ((None, GOOD_R), {"max_risk": 0.1}, InvalidInputError, "scores are required"),
        ((None, GOOD_R), {"max_risk": 0.1, "folds": 1, "fit": lambda tr: None}, InvalidInputError, "folds"),
        ((None, GOOD_R), {"max_risk": 0.1, "folds": 3}, InvalidTypeError, "fit="),
        ((None, GOOD_R), {"max_risk": 0.1, "folds": 3, "fit": lambda tr: (lambda h: h[:1] * 1.0)}, InvalidInputError, "returned 1 scores"),
        ((GOOD_S, GOOD_R), {"max_risk": 0.1, "fit": lambda tr: None}, InvalidInputError, "only used with folds"),
        (("abc", GOOD_R), {"max_risk": 0.1}, InvalidTypeError, "sequence"),
    ],
)
def test_bad_input_is_refused_with_a_typed_error(args, kw, error, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error, match=match):
            calibrate(*args, **kw)


def test_allows_refuses_non_numbers_and_never_clears_nan():
    p = calibrate(GOOD_S, GOOD_R, max_risk=0.1)
    assert p.threshold == 8.0  # W + 1 <= 0.1 * 41 = 4.1: the wrong at 8, 9 and 10 are answered
    assert p.allows(float("nan")) is False
    assert p.allows(np.array([np.nan, 12.0])).tolist() == [False, True]
    with pytest.raises(InvalidTypeError):
        p.allows("12")
    with pytest.raises(InvalidTypeError):
        p.allows(True)


# -- allows on arrays: element-wise the scalar answers ----------------------------------------------

_LABELS = np.empty(180, dtype=object)
_LABELS[:] = ["a"] * 60 + [2] * 60 + [3.5] * 60
_GROUPED = calibrate(np.r_[np.linspace(0, 1, 60), np.linspace(0, 1, 60), np.linspace(0, 1, 60)],
                     np.r_[np.linspace(0, 1, 60) > 0.3, np.linspace(0, 1, 60) > 0.6,
                           np.linspace(0, 1, 60) > 0.1],
                     max_risk=0.1, groups=_LABELS)
_score = st.one_of(st.floats(-0.5, 1.5), st.just(float("nan")), st.just(float("inf")),
                   st.just(float("-inf")), st.integers(-2, 2))
_label = st.sampled_from(["a", 2, 2.0, 3.5, "b", 7, None])


@settings(max_examples=150, deadline=None)
@given(pairs=st.lists(st.tuples(_score, _label), max_size=30), as_array=st.booleans())
def test_grouped_allows_on_arrays_is_the_scalar_answer_element_wise(pairs, as_array) -> None:
    assert set(_GROUPED.groups) == {"a", 2, 3.5}
    scores = [x for x, _ in pairs]
    labels = [g for _, g in pairs]
    expect = [_GROUPED.allows(x, g) for x, g in pairs]
    assert all(type(e) is bool for e in expect)
    if as_array:
        column = np.empty(len(labels), dtype=object)
        column[:] = labels
        got = _GROUPED.allows(np.array(scores, dtype=float), column)
    else:
        got = _GROUPED.allows(scores, labels)
    assert isinstance(got, np.ndarray) and got.dtype == np.bool_
    assert got.tolist() == expect
    # one label for many scores, one score for many labels
    for g in ("a", 2, "b"):
        assert _GROUPED.allows(scores, g).tolist() == [_GROUPED.allows(x, g) for x in scores]
    if scores:
        x = scores[0]
        assert _GROUPED.allows(x, labels).tolist() == [_GROUPED.allows(x, g) for g in labels]
    # a Promise on arrays, the same
    p = _GROUPED["a"]
    assert p.allows(np.array(scores, dtype=float)).tolist() == [p.allows(x) for x in scores]


@settings(max_examples=100, deadline=None)
@given(scores=st.lists(st.floats(0, 1), min_size=1, max_size=20),
       labels=st.lists(st.sampled_from(["a", "x", "y"]), min_size=1, max_size=20))
def test_grouped_allows_on_string_labels_is_the_scalar_answer(scores, labels) -> None:
    n = min(len(scores), len(labels))
    got = _GROUPED.allows(np.array(scores[:n]), np.array(labels[:n]))  # a '<U1' array of labels
    assert got.tolist() == [_GROUPED.allows(s, g) for s, g in zip(scores[:n], labels[:n],
                                                                   strict=True)]


@pytest.mark.parametrize(("score", "group", "error", "match"), [
    ([0.1, 0.2], ["a"], InvalidInputError, "one score per label"),
    ([[0.1]], ["a"], InvalidInputError, "one score per label"),
    ([0.1], [["a", 2]], InvalidInputError, "one-dimensional"),
    ([1, [2]], ["a", 2], InvalidInputError, "flat sequence"),
    ("0.5", ["a"], InvalidTypeError, "real number"),
    ([True, False], ["a", 2], InvalidTypeError, "real numbers"),
    (["0.5"], ["a"], InvalidTypeError, "real numbers"),
    ([0.5], [{}], InvalidTypeError, "hashable"),
    (0.5, {}, InvalidTypeError, "hashable"),
    (None, "a", InvalidTypeError, "real number"),
    (True, "b", InvalidTypeError, "real number"),  # checked even for a group never calibrated
    ([0.5j], ["a"], InvalidTypeError, "real numbers"),
])
def test_grouped_allows_refuses_bad_shapes_and_types(score, group, error, match) -> None:
    with pytest.raises(error, match=match):
        _GROUPED.allows(score, group)


# -- hostile input to calibrate(): a typed error, never anything else (the API fuzzer) -------------


arrays = st.one_of(
    st.lists(st.floats(0, 1), min_size=0, max_size=40),
    st.lists(st.booleans(), max_size=40),
    st.lists(st.sampled_from([0, 1, 2, -1, 0.5, float("nan"), float("inf"), None, "x", True,
                              np.float64("nan"), np.bool_(True)]), max_size=30),
    st.just([[0.5], [0.1, 0.2]] * 10),
    st.builds(lambda: [Raiser()] * 20),
    st.sampled_from([None, "abc", b"abc", 0.5, True, [[0.5]] * 20, np.array([[0.1, 0.2]]),
                     np.array(["a"] * 20), np.zeros(20, dtype=complex), [HUGE] * 20,
                     [DEEP] * 3, {"a": 1}, {0.5, 0.7}]),
)


@SETTINGS
@given(st.data())
def test_fuzz_calibrate(data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 40))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    scores = data.draw(st.one_of(st.just(list(rng.random(n))), arrays))
    correct = data.draw(st.one_of(st.just(list(rng.random(n) < 0.7)), arrays))
    level = st.one_of(st.none(), st.floats(0, 1), st.sampled_from([0.1, 0.3]), hostile)
    kwargs: dict[str, Any] = {
        data.draw(st.sampled_from(["max_error", "max_risk"])): data.draw(level),
        "method": data.draw(st.one_of(st.none(), st.sampled_from(["crc", "ltt", "empirical",
                                                                  "CRC", ""]), hostile)),
        "delta": data.draw(level),
        "min_support": data.draw(st.one_of(st.sampled_from([1, 5, 10, HUGE]), hostile)),
        "weak": data.draw(st.one_of(st.sampled_from(["raise", "warn"]), hostile_or_raiser)),
    }
    if data.draw(st.booleans()):
        kwargs["groups"] = data.draw(st.one_of(
            st.just(["g1", "g2"] * (n // 2) + ["g1"] * (n % 2)),
            st.sampled_from([[1, "a"] * 20, [None] * 40, "abc", 3, [[1]] * 40]),
            st.builds(lambda: [{}] * 40),
        ))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            promise = calibrate(scores, correct, **kwargs)
        except CorollaryError:
            return
        except Exception as exc:  # pragma: no cover
            raise AssertionError(
                f"calibrate({scores!r:.80}, {correct!r:.80}, {kwargs!r}) raised "
                f"{type(exc).__name__}: {exc}") from exc
    assert promise is not None


@pytest.mark.parametrize("kwargs", [{"max_risk": HUGE}, {"max_error": HUGE},
                                    {"max_error": 0.1, "delta": HUGE}])
def test_calibrate_huge_int_level_is_typed_error(kwargs: dict[str, Any]) -> None:
    raises_typed(calibrate, [0.9, 0.1] * 10, [True, False] * 10, **kwargs)


def test_calibrate_ragged_input_is_typed_error() -> None:
    raises_typed(calibrate, [[0.5], [0.1, 0.2]], [True, False], max_risk=0.1)


@pytest.mark.parametrize("kwargs", [{"groups": [{}] * 20},
                                    {"groups": "answer", "answers": [{}] * 20}])
def test_calibrate_unhashable_groups_is_typed_error(kwargs: dict[str, Any]) -> None:
    raises_typed(calibrate, [0.9, 0.1] * 10, [True, False] * 10, max_risk=0.3, **kwargs)


def test_ltt_procedure_is_kept_in_the_dict_and_the_fingerprint() -> None:
    s = np.linspace(0, 1, 300)
    right = s > 0.2
    fb = calibrate(s, right, max_error=0.1, procedure="fallback")
    fs = calibrate(s, right, max_error=0.1, procedure="fixed_sequence")
    assert (fb.procedure, fs.procedure) == ("fallback", "fixed_sequence")
    assert calibrate(s, right, max_error=0.1).procedure == "learned_start"  # the default
    assert fb.report["procedure"] == "fallback" and fb.fingerprint != fs.fingerprint
    assert Promise.from_dict(fb.to_dict()).procedure == "fallback"
    # a learn-then-test promise saved before the choice existed was one fixed sequence, and its
    # fingerprint (made without the procedure) still matches
    old = fs.to_dict()
    del old["procedure"]
    assert Promise.from_dict(old).procedure == "fixed_sequence"
    assert calibrate(s, right, max_risk=0.1).procedure is None
    bad = fb.to_dict() | {"procedure": "holm"}
    with pytest.raises(InvalidInputError, match="procedure"):
        Promise.from_dict(bad)

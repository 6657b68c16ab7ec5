"""Learn-then-test's learned start (issue 31): a share of the examples chooses where one chain
starts, the others test it, the fallback runs on all at the rest of delta.

Counted over many calibration sets drawn from streams whose truth is known: the family-wise
error stays at most about delta, and on a stream whose only region within e lies between the
fallback's start points the learned start answers where the fallback cannot.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from corollary import BeliefBase, ManualClock, TrustPolicy
from corollary.promises.calibrators import (
    LEARNED_MIN_DISTINCT,
    LEARNED_MIN_N,
    LEARNED_SHARE,
    learned_split,
)
from corollary.promises.guarantee import calibrate

#: A stream like the replays of GSM8K (docs/guarantees.md): the top 5% of scores wrong half the
#: time, the next 20% wrong 4% of the time, everything below wrong 60% of the time.
BANDS = ((0.95, 0.5), (0.75, 0.04), (0.0, 0.6))


def _p_wrong(s):
    return np.select([s >= 0.95, s >= 0.75], [0.5, 0.04], 0.6)


def _window_error(t: float) -> float:
    """The error among the answered of threshold t on that stream, exactly."""
    if math.isinf(t):
        return 0.0
    wrong, top = 0.0, 1.0
    for lo, p in BANDS:
        if t < top:
            wrong += p * (top - max(t, lo))
        top = lo
    return wrong / (1.0 - t)


def _draw(rng, n, p_wrong):
    s = rng.random(n)
    return s, rng.random(n) >= p_wrong(s)


def _counted(e, delta, n, sets, seed, p_wrong, error, procedure):
    """Share of sets breaking e, and the mean answered share (1 - t on a uniform score)."""
    rng = np.random.default_rng(seed)
    broken, answered = 0, []
    for _ in range(sets):
        s, right = _draw(rng, n, p_wrong)
        t = calibrate(s, right, max_error=e, delta=delta, weak="warn",
                      procedure=procedure).threshold
        broken += error(t) > e
        answered.append(0.0 if math.isinf(t) else 1.0 - t)
    return broken / sets, float(np.mean(answered))


@pytest.mark.filterwarnings("ignore::corollary.promises.guarantee.WeakSignalWarning")
def test_the_learned_start_answers_a_window_between_the_fallbacks_start_points():
    e, delta, sets = 0.2, 0.1, 150
    best = 0.25 + 0.0425  # the lowest threshold within e answers the window and 4.25% below
    assert _window_error(1 - best) == pytest.approx(e)
    broken, learned = _counted(e, delta, 1000, sets, 31, _p_wrong, _window_error,
                               "learned_start")
    _, fallback = _counted(e, delta, 1000, sets, 31, _p_wrong, _window_error, "fallback")
    assert broken <= delta + 3 * math.sqrt(delta * (1 - delta) / sets)
    assert fallback < 0.05                # its starts sit above and below the window
    assert learned > 0.5 * best and learned > 4 * fallback


@pytest.mark.parametrize(("e", "delta", "stream"), [(0.1, 0.1, "smooth"), (0.05, 0.2, "smooth"),
                                                    (0.2, 0.1, "bad top")])
def test_the_learned_start_breaks_e_in_at_most_about_delta_of_the_sets(e, delta, stream):
    if stream == "smooth":
        def p_wrong(s):
            return 0.6 * (1.0 - s) ** 2

        def error(t):
            return 0.0 if math.isinf(t) else 0.2 * (1 - t) ** 2
    else:
        def p_wrong(s):
            return np.where(s >= 0.9, 0.5, 0.6 * (1.0 - s) ** 2)

        def error(t):
            if math.isinf(t):
                return 0.0
            return 0.5 if t >= 0.9 else (0.05 + 0.2 * ((1 - t) ** 3 - 0.1**3)) / (1 - t)
    sets = 200
    broken, answered = _counted(e, delta, 1000, sets, 700 + int(100 * e), p_wrong, error,
                                "learned_start")
    assert broken <= delta + 3 * math.sqrt(delta * (1 - delta) / sets)
    assert answered > 0.2  # not vacuous


def test_the_split_is_fixed_by_n_and_covers_every_example_once():
    pick, rest = learned_split(1000)
    again, _ = learned_split(1000)
    assert pick.tolist() == again.tolist()
    assert pick.size == math.ceil(LEARNED_SHARE * 1000)
    assert sorted(np.r_[pick, rest].tolist()) == list(range(1000))


def _stream(n, seed=3):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, rng.random(n) >= 0.6 * (1 - s) ** 2


def test_the_report_says_which_test_chose_the_threshold_and_where_it_started():
    s, right = _stream(2000)
    p = calibrate(s, right, max_error=0.1)
    r = p.report
    assert r["procedure"] == "learned_start" and r["chosen_by"] in ("learned start", "fallback")
    assert r["why"].startswith(f"learned start: {math.ceil(LEARNED_SHARE * 2000)} of the 2000")
    if r["chosen_by"] == "learned start":
        assert r["threshold"] <= r["start"] and "the lower, the learned start's" in r["why"]
    # the same examples repeat the same choice, and a promise says the same after a round trip
    assert calibrate(s, right, max_error=0.1).fingerprint == p.fingerprint
    fb = calibrate(s, right, max_error=0.1, procedure="fallback").report
    assert fb["chosen_by"] == "fallback" and fb["start"] >= fb["threshold"]
    fs = calibrate(s, right, max_error=0.1, procedure="fixed_sequence").report
    assert fs["chosen_by"] == "fixed_sequence" and fs["start"] >= fs["threshold"]


def test_below_the_fewest_examples_the_learned_start_is_the_fallback_alone():
    s, right = _stream(LEARNED_MIN_N - 1)
    p = calibrate(s, right, max_error=0.1)
    q = calibrate(s, right, max_error=0.1, procedure="fallback")
    assert p.threshold == q.threshold and p.report["chosen_by"] == "fallback"
    assert p.report["why"].startswith(
        f"learned start needs n >= {LEARNED_MIN_N} examples and >= {LEARNED_MIN_DISTINCT} "
        f"distinct scores (n = {LEARNED_MIN_N - 1}, {LEARNED_MIN_N - 1} distinct): the "
        "fallback procedure alone")
    assert p.procedure == "learned_start" and p.fingerprint != q.fingerprint


def test_a_signal_of_few_steps_is_tested_by_the_fallback_alone():
    """Agreement among a few arms takes a handful of values: the fallback's start points already
    sit on every step, and splitting the examples would only cost power."""
    s, right = _stream(3000)
    steps = np.floor(s * (LEARNED_MIN_DISTINCT - 1)) / (LEARNED_MIN_DISTINCT - 1)  # 19 values
    p = calibrate(steps, right, max_error=0.1)
    q = calibrate(steps, right, max_error=0.1, procedure="fallback")
    assert p.threshold == q.threshold and p.report["chosen_by"] == "fallback"
    assert f"(n = 3000, {LEARNED_MIN_DISTINCT - 1} distinct)" in p.report["why"]
    finer = np.floor(s * LEARNED_MIN_DISTINCT) / LEARNED_MIN_DISTINCT  # 20 values
    assert calibrate(finer, right, max_error=0.1).report["why"].startswith("learned start: ")


def test_an_answer_under_the_promise_names_the_test_and_its_start_in_its_trace():
    s, right = _stream(2000)
    kb = BeliefBase(policy=TrustPolicy(source_priors={"tool:a": 0.97, "tool:b": 0.2}),
                    clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("ceo", "Ann", source="tool:b")
    p = kb.guarantee(examples=list(zip(s.tolist(), right.tolist(), strict=True)), max_error=0.1)
    by, start = p.report["chosen_by"], p.report["start"]
    trace = f"; chosen by {by}, tested from {start:.4g})"
    ok, no = kb.answer("hq"), kb.answer("ceo")
    assert ok.status == "ok" and ok.why.endswith(trace)
    assert no.status == "abstain" and trace + "; would have answered 'Ann'" in no.why
    assert trace in str(kb.explain("hq"))
    assert kb.replay(ok.record).match


@pytest.mark.parametrize("seed", range(5))
def test_the_counts_of_a_part_read_off_the_whole_sort_equal_counting_it_afresh(seed):
    from corollary.promises.calibrators import Counts

    rng = np.random.default_rng(seed)
    s = np.round(rng.random(600), 2)  # ties, which a part must count as a fresh sort would
    wrong = rng.random(600) < 0.3
    whole = Counts.of(s, wrong)
    members = np.sort(rng.choice(600, 170, replace=False))
    part, fresh = whole.part(members), Counts.of(s[members], wrong[members])
    assert (part.n, part.n_wrong) == (fresh.n, fresh.n_wrong)
    assert part.thr.tolist() == fresh.thr.tolist()
    assert part.N.tolist() == fresh.N.tolist() and part.W.tolist() == fresh.W.tolist()


def test_each_group_learns_its_own_start_when_it_has_the_examples_for_it():
    s, right = _stream(1600, seed=8)
    groups = np.where(np.arange(1600) < 1200, "big", "small")
    g = calibrate(s, right, max_error=0.1, groups=groups)
    big, small = g["big"].report, g["small"].report
    assert big["why"].startswith("learned start: 180 of the 1200 examples")
    assert small["why"].startswith("learned start needs n >= 1000") and small["chosen_by"] == "fallback"
    ix = np.arange(1200)
    assert g["big"].threshold == calibrate(s[ix], right[ix], max_error=0.1).threshold

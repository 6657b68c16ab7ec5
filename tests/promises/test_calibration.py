"""Platt scaling: exact fits on hand-checkable data, fallbacks, validation, round trips."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from corollary.foundations.errors import InvalidInputError, InvalidTypeError
from corollary.promises.calibration import NotFittedError, Platt


def _logit(c):
    c = np.clip(np.asarray(c, dtype=float), 1e-6, 1 - 1e-6)
    return np.log(c / (1 - c))


def _targets(right):
    right = np.asarray(right, dtype=bool)
    npos, nneg = right.sum(), (~right).sum()
    return np.where(right, (npos + 1) / (npos + 2), 1 / (nneg + 2))


def test_two_levels_reproduce_the_smoothed_share_of_each_level():
    # Two distinct confidences, two parameters: the optimum reproduces each level's mean target.
    conf = [0.8] * 10 + [0.3] * 10
    right = [True] * 7 + [False] * 3 + [True] * 2 + [False] * 8
    # N+ = 9, N- = 11: right -> 10/11, wrong -> 1/13
    high = (7 * 10 / 11 + 3 * 1 / 13) / 10  # 0.659440...
    low = (2 * 10 / 11 + 8 * 1 / 13) / 10  # 0.243356...
    p = Platt().fit(conf, right)
    assert p.kind_ == "platt"
    assert p.n_ == 20 and p.constant_ == pytest.approx(0.45)
    assert p.predict(0.8) == pytest.approx(high, abs=1e-8)
    assert p.predict(0.3) == pytest.approx(low, abs=1e-8)
    # and so a_ = (logit(high) - logit(low)) / (logit(0.8) - logit(0.3))
    a = (math.log(high / (1 - high)) - math.log(low / (1 - low))) / (
        math.log(4) - math.log(0.3 / 0.7)
    )
    assert p.a_ == pytest.approx(a, abs=1e-7)


def test_matches_a_generic_optimiser_on_the_same_objective():
    rng = np.random.default_rng(7)
    conf = rng.random(300)
    right = rng.random(300) < 1 / (1 + np.exp(-(1.7 * _logit(conf) - 0.4)))
    f, t = _logit(conf), _targets(right)

    def loss(ab):
        z = ab[0] * f + ab[1]
        return np.sum(t * np.logaddexp(0, -z) + (1 - t) * np.logaddexp(0, z))

    ref = minimize(loss, [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000})
    p = Platt().fit(conf, right)
    assert p.a_ == pytest.approx(ref.x[0], abs=1e-5)
    assert p.b_ == pytest.approx(ref.x[1], abs=1e-5)
    assert loss([p.a_, p.b_]) <= ref.fun + 1e-9


def test_recovers_a_known_miscalibration_on_a_large_sample():
    rng = np.random.default_rng(3)
    conf = rng.uniform(0.05, 0.95, 40_000)
    truth = 1 / (1 + np.exp(-(2.0 * _logit(conf) - 0.5)))
    right = rng.random(conf.size) < truth
    p = Platt().fit(conf, right)
    assert p.a_ == pytest.approx(2.0, abs=0.06)
    assert p.b_ == pytest.approx(-0.5, abs=0.05)
    assert p.n_iter_ < 30


@pytest.mark.parametrize(
    ("conf", "right", "share"),
    [
        ([0.1, 0.5, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6], [0, 1, 1, 0, 1, 0, 1, 0, 1], 5 / 9),  # 9 < 10
        (list(np.linspace(0.1, 0.9, 12)), [True] * 12, 1.0),  # all right
        (list(np.linspace(0.1, 0.9, 12)), [False] * 12, 0.0),  # all wrong
        ([1.0] * 16, [True] * 12 + [False] * 4, 0.75),  # constant confidences
        ([0.0] * 5 + [1e-9] * 5 + [1e-7] * 4, [True] * 7 + [False] * 7, 0.5),  # equal after clipping
    ],
)
def test_constant_fallback_is_the_share_of_right_answers(conf, right, share):
    p = Platt().fit(conf, right)
    assert p.kind_ == "constant"
    assert p.a_ is None and p.b_ is None
    assert p.constant_ == pytest.approx(share)
    assert p.predict(0.37) == pytest.approx(share)
    assert p.predict([0.0, 1.0]).tolist() == pytest.approx([share, share])


def test_ten_varied_examples_are_enough_for_platt():
    p = Platt().fit([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95], [0, 0, 1, 0, 1, 0, 1, 1, 1, 1])
    assert p.kind_ == "platt"
    assert p.a_ > 0  # higher confidence, more often right
    assert 0.0 < p.predict(0.5) < p.predict(0.9) < 1.0


def test_separable_data_stay_finite_thanks_to_the_smoothed_targets():
    p = Platt().fit([0.1] * 10 + [0.9] * 10, [False] * 10 + [True] * 10)
    # each level's mean target: right 11/12, wrong 1/12
    assert p.predict(0.9) == pytest.approx(11 / 12, abs=1e-8)
    assert p.predict(0.1) == pytest.approx(1 / 12, abs=1e-8)
    assert math.isfinite(p.a_) and math.isfinite(p.b_)


def test_confidences_are_clipped_before_the_logit():
    p = Platt.from_dict({"kind": "platt", "a": 1.0, "b": 0.0, "constant": 0.5, "n": 10})
    assert p.predict(0.0) == pytest.approx(1e-6, rel=1e-9)
    assert p.predict(1.0) == pytest.approx(1 - 1e-6, rel=1e-12)
    assert p.predict(0.0) == p.predict(1e-9)


def test_scalar_in_float_out_and_shapes_kept():
    p = Platt().fit([0.2, 0.8] * 10, [False, True] * 9 + [True, False])
    out = p.predict(0.5)
    assert type(out) is float
    grid = p.predict(np.array([[0.2, 0.8], [0.5, 0.5]]))
    assert grid.shape == (2, 2)
    assert grid[0, 0] == pytest.approx(p.predict(0.2))
    assert p.predict(np.float32(0.8)) == pytest.approx(p.predict(0.8))


def test_correct_accepts_bools_numpy_bools_and_zero_one_ints():
    conf = [0.1, 0.9] * 6
    a = Platt().fit(conf, [False, True] * 5 + [True, False])
    b = Platt().fit(conf, np.array([0, 1] * 5 + [1, 0]))
    c = Platt().fit(conf, [np.False_, np.True_] * 5 + [np.True_, np.False_])
    d = Platt().fit(conf, [0, True] * 5 + [1, False])
    assert a.a_ == b.a_ == c.a_ == d.a_
    assert a.b_ == b.b_ == c.b_ == d.b_


@pytest.mark.parametrize(
    ("correct", "error"),
    [
        ([0.5, 1, 0], InvalidTypeError),
        ([1.0, 0.0, 1.0], InvalidTypeError),
        (["yes", "no", "yes"], InvalidTypeError),
        ([None, True, False], InvalidTypeError),
        (None, InvalidTypeError),
        ([2, 0, 1], InvalidInputError),
        ([True, False, 0.5], InvalidTypeError),
        ([[True, False, True]], InvalidInputError),
    ],
)
def test_bad_correctness_labels_are_refused(correct, error):
    with pytest.raises(error):
        Platt().fit([0.1, 0.5, 0.9], correct)


def test_bad_confidences_are_refused():
    with pytest.raises(InvalidInputError, match="differ in length"):
        Platt().fit([0.1, 0.2], [True])
    with pytest.raises(InvalidInputError, match="NaN"):
        Platt().fit([0.1, float("nan")], [True, False])
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        Platt().fit([0.1, 1.5], [True, False])
    with pytest.raises(InvalidInputError, match="no examples"):
        Platt().fit([], [])
    with pytest.raises(InvalidTypeError):
        Platt().fit(["0.1", "0.2"], [True, False])
    with pytest.raises(InvalidTypeError):
        Platt().fit([True, False], [True, False])
    p = Platt().fit([0.5] * 3, [True] * 3)
    with pytest.raises(InvalidInputError, match="NaN"):
        p.predict(float("nan"))
    with pytest.raises(InvalidTypeError):
        p.predict(True)
    with pytest.raises(ValueError):  # InvalidInputError is a ValueError
        p.predict(-0.1)


def test_predict_before_fit_is_an_error():
    with pytest.raises(NotFittedError):
        Platt().predict(0.5)
    with pytest.raises(ValueError):
        Platt().to_dict()


def test_dict_round_trip_and_refusals():
    rng = np.random.default_rng(0)
    conf = rng.random(50)
    p = Platt().fit(conf, rng.random(50) < conf)
    d = p.to_dict()
    assert set(d) == {"kind", "a", "b", "constant", "n"}
    q = Platt.from_dict(d)
    assert np.array_equal(q.predict(conf), p.predict(conf))
    assert repr(q).startswith("Platt(a=")
    c = Platt.from_dict(Platt().fit([1.0] * 4, [True, False, True, True]).to_dict())
    assert c.predict(0.2) == 0.75
    with pytest.raises(InvalidInputError, match="kind"):
        Platt.from_dict({"kind": "isotonic", "constant": 0.5, "n": 3})
    with pytest.raises(InvalidInputError, match="lacks"):
        Platt.from_dict({"kind": "platt"})
    with pytest.raises(InvalidInputError, match="finite"):
        Platt.from_dict({"kind": "platt", "a": None, "b": 0.0, "constant": 0.5, "n": 3})
    with pytest.raises(InvalidTypeError):
        Platt.from_dict([("kind", "platt")])  # type: ignore[arg-type]


def test_refit_replaces_the_parameters_with_a_fit_of_the_same_kind():
    p = Platt().fit([0.2, 0.8] * 10, [False, True] * 9 + [True, False])
    first = p.to_dict()
    p.fit([0.7] * 12, [True] * 9 + [False] * 3)
    assert p.kind_ == "constant" and p.constant_ == 0.75 and p.a_ is None
    p.fit([0.2, 0.8] * 10, [False, True] * 9 + [True, False])
    assert p.to_dict() == first

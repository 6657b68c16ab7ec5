"""Promises inside a belief base (corollary.promises): pairs from the ledger, guarantees,
answers that abstain below the threshold, verdicts in proofs and snapshots, and replay."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from corollary import (
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    TrustPolicy,
    UnknownBeliefError,
)
from corollary.promises.book import (
    NOT_DERIVED,
    PROMISE_CHANGED,
    PROMISE_REMOVED,
    SIGNAL_CHANGED,
    TAMPERED,
    VALUE_CHANGED,
    Answer,
    UnknownPromiseError,
    calibration_pairs,
    record_hash,
)
from corollary.promises.calibration import Platt
from corollary.promises.guarantee import Promise, WeakSignalError, calibrate


def synthetic(n: int = 2000, seed: int = 0) -> list[tuple[float, bool]]:
    """Confidence s ~ U(0, 1), right with probability s."""
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return list(zip(s.tolist(), (rng.random(n) < s).tolist(), strict=True))


def base(**priors: float) -> BeliefBase:
    """A base whose sources have the given priors (so beliefs have known confidences)."""
    return BeliefBase(policy=TrustPolicy(source_priors=priors), clock=ManualClock(1000.0))


@pytest.fixture
def guarded() -> tuple[BeliefBase, Promise]:
    kb = base(**{"tool:good": 0.97, "tool:poor": 0.3})
    kb.assert_("hq", "Austin", source="tool:good")
    kb.assert_("ceo", "Ann", source="tool:poor")
    promise = kb.guarantee(examples=synthetic(), max_error=0.1)
    return kb, promise


# -- pairs ------------------------------------------------------------------------------------


def test_pairs_from_retractions_confirmations_outcomes_and_formula_checks() -> None:
    kb = base(**{"tool:a": 0.8, "tool:b": 0.7, "model:m": 0.6, "human:h": 0.99})
    kb.assert_("x", 1, source="tool:a")
    kb.assert_("x", 1, source="tool:b")  # confirmation: one event crediting a and b
    c_confirm = 0.8  # x's confidence before b's premise arrived
    c_x = kb.confidence("x")
    kb.retract("x", fault="source")  # one event blaming a and b
    kb.assert_("y", 2, source="human:h")
    c_y = kb.confidence("y")
    kb.record_outcome("tool:a", True, key="y")  # your own ground truth, with the key
    kb.record_outcome("tool:a", True, key="y")  # a second, separate event
    kb.record_outcome("tool:a", False)  # no key: no confidence, no pair
    kb.assert_("p", 3, source="human:h")
    kb.assert_("q", 4, source="human:h")
    kb.claim("s", 8, source="model:m", inputs=["p", "q"], formula="p + q")  # wrong: computes 7
    signal = kb.reliability("model:m")  # reliability of m after the check, for the next claim
    kb.claim("t", 7, source="model:m", inputs=["p", "q"], formula="p + q")  # reproduced

    conf, right = kb.calibration_pairs()
    assert conf.dtype == np.float64 and right.dtype == np.bool_
    assert right.tolist() == [True, False, True, True, False, True]
    expected = [c_confirm, c_x, c_y, c_y, 0.99 * 0.6, 0.99 * signal]
    assert conf == pytest.approx(expected)

    # one source: each of its outcomes is a pair
    conf_a, right_a = calibration_pairs(kb.ledger, source="tool:a")
    assert right_a.tolist() == [True, False, True, True]
    assert conf_a == pytest.approx([c_confirm, c_x, c_y, c_y])
    # a topic nobody used
    assert calibration_pairs(kb.ledger, topic="none")[0].size == 0


def test_pairs_from_human_resolution() -> None:
    kb = base(**{"tool:a": 0.8, "tool:b": 0.6})
    kb.assert_("k", "one", source="tool:a")
    kb.assert_("k", "two", source="tool:b")
    kb.resolve("k", "two")
    conf, right = kb.calibration_pairs()
    assert sorted(zip(conf.tolist(), right.tolist(), strict=True)) == [(0.6, True), (0.8, False)]


def test_guarantee_on_the_bases_own_pairs() -> None:
    kb = base(**{"tool:a": 0.5})
    for i, (c, ok) in enumerate(synthetic(400, seed=3)):
        kb.ledger.record_outcome("tool:a", ok, key=f"k{i}", confidence=c, at=0.0)
    p = kb.guarantee(max_risk=0.2)
    assert p.n == 400 and math.isfinite(p.threshold)
    assert kb.fit_calibrator().n_ == 400
    with pytest.raises(InvalidInputError, match="no outcomes with a confidence"):
        base().guarantee(max_risk=0.2)


# -- guarantees and answers -------------------------------------------------------------------


def test_guarantee_matches_calibrate_on_the_same_examples(guarded) -> None:
    kb, promise = guarded
    ex = synthetic()
    direct = calibrate([c for c, _ in ex], [y for _, y in ex], max_error=0.1)
    assert kb.promises["default"] is promise
    assert promise.fingerprint == direct.fingerprint
    assert 0.3 < promise.threshold < 0.97


def test_answer_ok_above_and_abstain_below(guarded) -> None:
    kb, promise = guarded
    a = kb.answer("hq")
    assert isinstance(a, Answer) and a.ok
    assert (a.status, a.value, a.confidence, a.threshold) == ("ok", "Austin", 0.97, promise.threshold)
    assert a.calibrated is None
    assert ">=" in a.why and "promise 'default'" in a.why

    b = kb.answer("ceo")
    assert (b.status, b.value, b.confidence) == ("abstain", "Ann", 0.3)
    assert "0.3 <" in b.why and "would have answered 'Ann'" in b.why
    with pytest.raises(AttributeError):
        b.status = "ok"  # type: ignore[misc]


def test_nothing_held_abstains_and_no_promise_answers(guarded) -> None:
    kb, _ = guarded
    kb.retract("hq")
    a = kb.answer("hq")
    assert (a.status, a.value, a.confidence) == ("abstain", None, 0.0)
    assert "nothing is held" in a.why
    assert kb.replay(a).match

    free = base(**{"tool:poor": 0.3})
    free.assert_("ceo", "Ann", source="tool:poor")
    b = free.answer("ceo")
    assert (b.status, b.value, b.threshold) == ("ok", "Ann", None)
    assert "no promise" in b.why
    assert b.record["promise"] is None and free.replay(b).match
    # None asks for no promise even when one is attached
    assert kb.answer("ceo", promise=None).status == "ok"


def test_open_conflict_abstains() -> None:
    kb = base(**{"tool:a": 0.9, "tool:b": 0.8})
    kb.guarantee(examples=synthetic(), max_error=0.1)
    kb.assert_("k", 1, source="tool:a")
    kb.assert_("k", 2, source="tool:b")
    a = kb.answer("k")
    assert (a.status, a.value) == ("abstain", None) and "open conflict" in a.why


def test_named_promises_and_removal(guarded) -> None:
    kb, _ = guarded
    strict = kb.guarantee("strict", synthetic(seed=1), max_error=0.02)
    assert kb.answer("hq", "strict").threshold == strict.threshold
    assert kb.remove_guarantee("strict") is strict
    assert kb.remove_guarantee("strict") is None
    with pytest.raises(InvalidInputError, match="remove_guarantee"):  # the old spelling: gone
        kb.guarantee("default", False)
    assert kb.remove_guarantee("default") is not None and kb.promises == {}
    assert kb.answer("hq").status == "ok"  # nothing attached any more


def test_calibrated_confidence_beside_the_raw_one(guarded) -> None:
    kb, _ = guarded
    platt = kb.fit_calibrator(synthetic(seed=2))
    assert isinstance(platt, Platt) and kb.calibrator is platt and platt.kind_ == "platt"
    a = kb.answer("hq")
    assert a.confidence == 0.97
    assert a.calibrated == pytest.approx(platt.predict(0.97))
    assert a.record["calibrated"] == a.calibrated


def test_explain_shows_the_verdict(guarded) -> None:
    kb, _ = guarded
    a = kb.answer("ceo")
    text = str(kb.explain("ceo"))
    assert "{abstain: confidence 0.3 <" in text and "would have answered 'Ann'" in text
    assert kb.explain("ceo").to_dict()["verdict"] == a.record
    assert "{ok:" not in str(kb.explain("hq"))  # no answer asked for yet: no verdict
    kb.answer("hq")
    assert "hq = 'Austin' [IN 0.97]  {ok: confidence 0.97 >=" in str(kb.explain("hq"))


# -- records and replay -----------------------------------------------------------------------


def test_record_fields_and_hash(guarded) -> None:
    kb, promise = guarded
    rec = kb.answer("ceo").record
    assert rec["signal"] == "confidence" and rec["signal_value"] == 0.3
    assert rec["fingerprint"] == promise.fingerprint and rec["method"] == "ltt"
    assert rec["parameters"] == {"max_error": 0.1, "max_risk": None, "delta": 0.1,
                                 "min_support": 10, "n": 2000}
    assert rec["at"] == 1000.0 and rec["hash"] == record_hash(rec)
    assert kb.verdicts[("ceo", "Ann")] is rec
    assert kb.replay(rec).match


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_snapshot_keeps_promises_and_verdicts(guarded, tmp_path, fmt: str) -> None:
    kb, promise = guarded
    kb.answer("hq")
    kb.answer("ceo")
    path = tmp_path / f"kb.{fmt}"
    kb.save(path, format=fmt)
    for restored in (BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(1000.0)),
                     BeliefBase.load(path, clock=ManualClock(1000.0))):
        assert restored.promises["default"].fingerprint == promise.fingerprint
        assert restored.verdicts == kb.verdicts
        for rec in restored.verdicts.values():
            r = restored.replay(rec, live=True)
            assert r.match, r
        assert "{abstain:" in str(restored.explain("ceo"))
        assert restored.answer("ceo").status == "abstain"


def test_recalibrating_makes_replay_report_the_promise_changed(guarded) -> None:
    kb, _ = guarded
    rec = kb.answer("ceo").record
    kb.guarantee(examples=synthetic(seed=5), max_error=0.1)  # recalibrated since
    r = kb.replay(rec)
    assert not r.match and r.reason == PROMISE_CHANGED == "the promise changed"
    assert r.recorded_status == "abstain" and r.status == "abstain"
    kb.remove_guarantee()
    assert kb.replay(rec).reason == PROMISE_REMOVED


def test_a_tampered_record_is_detected(guarded) -> None:
    kb, _ = guarded
    rec = kb.answer("ceo").record
    forged = copy.deepcopy(rec)
    forged["signal_value"] = 0.99
    r = kb.replay(forged)
    assert not r.match and r.reason == TAMPERED
    forged = copy.deepcopy(rec)
    forged["status"] = "ok"
    assert kb.replay(forged).reason == TAMPERED
    # re-sealed by hand: the hash verifies but the verdict does not follow from the signal
    forged["hash"] = record_hash(forged)
    assert kb.replay(forged).reason == NOT_DERIVED


def test_live_replay_sees_the_base_change(guarded) -> None:
    kb, _ = guarded
    rec = kb.answer("ceo").record
    assert kb.replay(rec, live=True).match
    kb.assert_("ceo", "Ann", source="tool:good")  # corroborated: confidence rises
    r = kb.replay(rec, live=True)
    assert r.reason == SIGNAL_CHANGED and r.status == "ok"
    assert kb.replay(rec).match  # the record itself still re-derives
    kb.assert_("ceo", "Bob", source="tool:good")
    kb.assert_("ceo", "Bob", source="tool:poor")
    assert kb.replay(rec, live=True).reason == VALUE_CHANGED


# -- bad input --------------------------------------------------------------------------------


def test_bad_input_raises_typed_errors(guarded) -> None:
    kb, _ = guarded
    with pytest.raises(UnknownPromiseError, match="no promise named 'nope'"):
        kb.answer("hq", "nope")
    with pytest.raises(KeyError):
        kb.answer("hq", "nope")
    with pytest.raises(UnknownBeliefError):
        kb.answer("never-heard-of")
    with pytest.raises(InvalidInputError, match="exactly one"):
        kb.guarantee(examples=synthetic(), max_error=0.1, max_risk=0.1)
    with pytest.raises(InvalidInputError, match="exactly one"):
        kb.guarantee(examples=synthetic())
    with pytest.raises(InvalidTypeError):
        kb.guarantee(examples=[(0.5, 0.5)] * 20, max_risk=0.1)
    with pytest.raises(InvalidTypeError):
        kb.guarantee(examples=[(0.5, "yes")] * 20, max_risk=0.1)
    with pytest.raises(InvalidTypeError):
        kb.fit_calibrator([(0.5, None)] * 20)
    with pytest.raises(InvalidTypeError):
        kb.guarantee(examples=[(True, True)] * 20, max_risk=0.1)
    with pytest.raises(InvalidInputError, match="in \\[0, 1\\]"):
        kb.guarantee(examples=[(1.5, True)] * 20, max_risk=0.1)
    with pytest.raises(InvalidInputError, match="not a \\(confidence, correct\\) pair"):
        kb.guarantee(examples=[(0.5, True, 1)], max_risk=0.1)
    with pytest.raises(InvalidInputError, match="empty"):
        kb.guarantee(examples=[], max_risk=0.1)
    with pytest.raises(InvalidTypeError):
        kb.guarantee(examples="pairs", max_risk=0.1)
    with pytest.raises(InvalidTypeError):
        kb.guarantee(3, max_risk=0.1)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="remove_guarantee"):
        kb.guarantee("default", False, max_risk=0.1)
    at_chance = [(c, i % 2 == 0) for i, c in enumerate(np.linspace(0, 1, 200).tolist())]
    with pytest.raises(WeakSignalError):
        kb.guarantee("weak", at_chance, max_risk=0.3)
    with pytest.raises(InvalidTypeError):
        kb.replay("not a record")
    with pytest.raises(InvalidInputError, match="lacks"):
        kb.replay({"key": "hq"})
    # nothing changed
    assert set(kb.promises) == {"default"}


def test_fit_calibrator_is_the_one_name() -> None:
    pairs = [(0.9, True), (0.9, True), (0.9, False), (0.9, True)]
    kb = BeliefBase(clock=ManualClock(0))
    assert not hasattr(kb, "calibrate")  # its name before 0.1.0
    platt = kb.fit_calibrator(pairs)
    assert kb.calibrator is platt and platt.predict(0.9) == 0.75
    fresh = BeliefBase(clock=ManualClock(0))
    assert fresh.fit_calibrator(pairs).predict(0.9) == 0.75

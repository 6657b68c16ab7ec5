"""Promises inside a base on any signal (corollary.promises, corollary.promises.bindings): a key computed
for the same subject, a function of the base, groups, one-sided answers, judges, cross-fitted
calibrators; their verdicts, replays and snapshots (docs/guarantees.md)."""

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
    SnapshotError,
    TrustPolicy,
)
from corollary.promises.book import (
    GROUP_CHANGED,
    NOT_DERIVED,
    PROMISE_CHANGED,
    PROMISE_REMOVED,
    SIGNAL_CHANGED,
    TAMPERED,
    record_hash,
)
from corollary.promises.calibration import Platt
from corollary.promises.guarantee import GroupedPromise, Promise, WeakSignalError, calibrate


def stream(n: int, seed: int, wrongness: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """Scores s ~ U(0, 1), wrong with probability ``wrongness * (1 - s)^2``."""
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, rng.random(n) >= wrongness * (1.0 - s) ** 2


def base(**priors: float) -> BeliefBase:
    return BeliefBase(policy=TrustPolicy(source_priors=priors), clock=ManualClock(1000.0))


def margin_of(kb: BeliefBase, key: str) -> float:
    """A signal function: twice the margin a tool computed for the subject."""
    return 2 * kb.value(f"margin:{key}")


def sector_of(kb: BeliefBase, key: str) -> str:
    """A group function: the part of the key before '/'."""
    return key.split("/")[0]


def overlaps(given: list[str], expected: list[str]) -> bool:
    """A judge: an answer is right when it shares an item with the expected one."""
    return bool(set(given) & set(expected))


# -- signals ----------------------------------------------------------------------------------


def test_a_key_computed_for_the_subject_is_the_signal() -> None:
    s, ok = stream(2000, 1)
    margins = 6 * s - 3  # any real number, not a confidence
    kb = base()
    p = kb.guarantee("match", list(zip(margins.tolist(), ok.tolist(), strict=True)), max_error=0.05,
                     signal="margin:{key}")
    assert isinstance(p, Promise)
    assert p.fingerprint == calibrate(margins, ok, max_error=0.05).fingerprint
    t = p.threshold
    assert -3 < t < 3
    kb.assert_("acme", "match", source="tool:matcher")
    kb.assert_("margin:acme", t + 0.5, source="tool:matcher")
    kb.assert_("beta", "match", source="tool:matcher")
    kb.assert_("margin:beta", t - 0.5, source="tool:matcher")
    kb.assert_("gamma", "match", source="tool:matcher")          # no margin at all
    kb.assert_("delta", "match", source="tool:matcher")
    kb.assert_("margin:delta", "high", source="tool:matcher")    # not a number

    a = kb.answer("acme", "match")
    assert (a.status, a.value, a.signal, a.signal_value, a.promise, a.group) == (
        "ok", "match", "key:margin:acme", t + 0.5, "match", None)
    assert a.confidence == 0.95 and a.threshold == t
    assert a.why.startswith(f"signal key:margin:acme {t + 0.5:.4g} >= ")
    b = kb.answer("beta", "match")
    assert (b.status, b.signal_value) == ("abstain", t - 0.5)
    assert b.why.endswith("would have answered 'match'")
    c = kb.answer("gamma", "match")
    assert (c.status, c.signal_value) == ("abstain", None)
    assert c.why == ("the signal cannot be read: key 'margin:gamma' was never asserted: "
                     "promise 'match' abstained; would have answered 'match'")
    d = kb.answer("delta", "match")
    assert d.status == "abstain" and "not a finite number: key 'margin:delta' gave 'high'" in d.why
    kb.assert_("margin:gamma", 1.0, source="tool:a")
    kb.assert_("margin:gamma", 2.0, source="tool:b")            # an open conflict
    assert "key 'margin:gamma' is in an open conflict" in kb.answer("gamma", "match").why
    for answer in (a, b, c, d):
        assert answer.record["signal"] == answer.signal
        assert len(answer.record["spec"]) == 64
        assert kb.replay(answer).match
    # the confidence promise beside it is untouched
    kb.guarantee(examples=list(zip(s.tolist(), ok.tolist(), strict=True)), max_error=0.05)
    plain = kb.answer("acme")
    assert plain.signal == "confidence" and "spec" not in plain.record


def test_a_key_without_the_placeholder_is_read_as_it_is() -> None:
    s, ok = stream(1000, 2)
    kb = base()
    kb.guarantee("case", list(zip(s.tolist(), ok.tolist(), strict=True)), max_risk=0.05, signal="score")
    kb.assert_("verdict", "guilty", source="human:judge")
    kb.assert_("score", 0.99, source="model:scorer")
    a = kb.answer("verdict", "case")
    assert (a.status, a.signal) == ("ok", "key:score")


def test_a_function_of_the_base_is_the_signal() -> None:
    s, ok = stream(2000, 3)
    kb = base()
    p = kb.guarantee("f", list(zip((2 * s).tolist(), ok.tolist(), strict=True)), max_risk=0.02,
                     signal=margin_of)
    kb.assert_("acme", "match", source="tool:m")
    kb.assert_("margin:acme", 0.99, source="tool:m")
    a = kb.answer("acme", "f")
    name = f"{margin_of.__module__}.margin_of"
    assert (a.status, a.signal, a.signal_value) == ("ok", f"function:{name}", 1.98)
    assert a.threshold == p.threshold < 1.98
    with pytest.raises(InvalidInputError, match="define it with def"):
        kb.guarantee("g", list(zip(s.tolist(), ok.tolist(), strict=True)), max_risk=0.02,
                     signal=lambda kb, key: 0.5)
    assert set(kb.promises) == {"f"}


# -- groups -----------------------------------------------------------------------------------


def test_one_threshold_per_answer_and_thin_groups_abstain() -> None:
    s1, ok1 = stream(1500, 4, wrongness=0.3)   # "match": easier
    s2, ok2 = stream(1500, 5, wrongness=0.9)   # "no-match": harder
    examples = ([(c, "match", y) for c, y in zip(s1.tolist(), ok1.tolist(), strict=True)]
                + [(c, "no-match", y) for c, y in zip(s2.tolist(), ok2.tolist(), strict=True)]
                # a group whose only certified threshold answers 5 examples, under min_support
                + [(0.99, "unsure", True)] * 5 + [(0.1, "unsure", False)] * 55)
    kb = base(**{"tool:a": 0.5})
    g = kb.guarantee("by-answer", examples, max_risk=0.02, delta=None, groups="answer")
    assert isinstance(g, GroupedPromise) and g.groups == ["match", "no-match", "unsure"]
    direct = calibrate([e[0] for e in examples], [e[2] for e in examples], max_risk=0.02,
                       groups="answer", answers=[e[1] for e in examples])
    assert g.fingerprint == direct.fingerprint
    # risk within a group, 0.1 (1 - t)^3 and 0.3 (1 - t)^3 <= 0.02: about 0.42 and 0.6
    assert g.threshold["match"] < 0.5 < g.threshold["no-match"]
    assert math.isinf(g.threshold["unsure"])

    kb.assert_("p1", "match", source="tool:a")
    kb.assert_("p2", "no-match", source="tool:a")
    kb.assert_("p3", "unsure", source="tool:a")
    kb.assert_("p4", "other", source="tool:a")
    one, two, three, four = (kb.answer(k, "by-answer") for k in ("p1", "p2", "p3", "p4"))
    assert (one.status, one.group, one.threshold) == ("ok", "match", g.threshold["match"])
    assert (two.status, two.group, two.threshold) == ("abstain", "no-match",
                                                      g.threshold["no-match"])
    assert (three.status, three.group) == ("abstain", "unsure")
    assert "threshold inf" in three.why
    assert "would rest on 5 example(s), fewer than min_support = 10" in three.why
    assert (four.status, four.group, four.threshold) == ("abstain", "other", math.inf)
    assert "no threshold for group 'other'" in four.why
    assert one.record["grouping"] == "answer"
    assert all(kb.replay(x, live=True).match for x in (one, two, three, four))
    with pytest.raises(InvalidInputError, match="finds the group itself"):
        kb.answer("p1", "by-answer", group="match")


def test_groups_from_a_key_and_from_a_function() -> None:
    s1, ok1 = stream(1000, 6, wrongness=0.3)
    s2, ok2 = stream(1000, 7, wrongness=0.9)
    examples = ([(c, "retail", y) for c, y in zip(s1.tolist(), ok1.tolist(), strict=True)]
                + [(c, "energy", y) for c, y in zip(s2.tolist(), ok2.tolist(), strict=True)])
    kb = base(**{"tool:a": 0.9})
    # one chain from the top: the energy group's first tests fail and it answers nothing
    by_key = kb.guarantee("k", examples, max_error=0.1, groups="sector:{key}", procedure="fixed_sequence")
    by_fn = kb.guarantee("f", examples, max_error=0.1, groups=sector_of, procedure="fixed_sequence")
    assert isinstance(by_key, GroupedPromise) and isinstance(by_fn, GroupedPromise)
    assert by_key.threshold == by_fn.threshold
    t = by_key.threshold
    assert t["retail"] < 0.9 < t["energy"]
    kb.assert_("retail/acme", "buy", source="tool:a")
    kb.assert_("sector:retail/acme", "retail", source="tool:a")
    kb.assert_("energy/oilco", "buy", source="tool:a")
    kb.assert_("sector:energy/oilco", "energy", source="tool:a")
    a = kb.answer("retail/acme", "k")
    assert (a.status, a.group, a.threshold) == ("ok", "retail", t["retail"])
    assert a.record["grouping"] == "key:sector:{key}"
    b = kb.answer("energy/oilco", "f")
    assert (b.status, b.group) == ("abstain", "energy")
    assert b.record["grouping"] == f"function:{sector_of.__module__}.sector_of"
    kb.assert_("misc", "buy", source="tool:a")  # no sector key
    c = kb.answer("misc", "k")
    assert c.status == "abstain" and c.why.startswith(
        "the group cannot be found: key 'sector:misc' was never asserted")
    # the group moved since: a live replay says so
    kb.assert_("sector:retail/acme", "energy", source="tool:a")
    r = kb.replay(a, live=True)
    assert not r.match and r.reason == GROUP_CHANGED == "the group changed"
    assert kb.replay(a).match
    # examples without their group are refused
    with pytest.raises(InvalidInputError, match=r"\(confidence, group, correct\)"):
        kb.guarantee("k2", [(0.5, True)] * 20, max_error=0.1, groups="sector:{key}")


# -- one-sided and judged ----------------------------------------------------------------------


def test_a_one_sided_promise_gives_only_its_answer() -> None:
    # P("yes") from a scorer; answering "yes" alone is right mostly when the score is high
    rng = np.random.default_rng(8)
    p_yes = rng.random(3000)
    truth_yes = rng.random(3000) < np.clip(p_yes * 1.6, 0, 1)  # "yes" is common
    pairs = list(zip(p_yes.tolist(), truth_yes.tolist(), strict=True))
    kb = base(**{"model:m": 0.9})
    p = kb.guarantee("yes", pairs, max_error=0.3, answer="yes")
    assert p.answer == "yes" and p.threshold < 0.5
    assert p.fingerprint == calibrate(p_yes, truth_yes, max_error=0.3, answer="yes").fingerprint
    # triples carrying the answer each example gave: only those that gave "yes" count
    triples = [(c, "yes" if i % 3 else "no", y) for i, (c, y) in enumerate(pairs)]
    q = kb.guarantee("yes3", triples, max_error=0.3, answer="yes")
    assert q.n == 2000
    keep = np.arange(3000) % 3 != 0
    assert q.fingerprint == calibrate(p_yes[keep], truth_yes[keep], max_error=0.3,
                                      answer="yes").fingerprint

    kb.assert_("q1", "yes", source="model:m")
    kb.assert_("p:q1", 0.45, source="model:m")
    kb.assert_("q2", "no", source="model:m")
    kb.assert_("p:q2", 0.45, source="model:m")
    kb.guarantee("yes-p", pairs, max_error=0.3, answer="yes", signal="p:{key}")
    a = kb.answer("q1", "yes-p")
    assert (a.status, a.value) == ("ok", "yes")
    b = kb.answer("q2", "yes-p")
    assert (b.status, b.value) == ("abstain", "no")
    assert "gives only 'yes' alone: abstained; would have answered 'no'" in b.why
    assert kb.replay(a).match and kb.replay(b).match
    forged = copy.deepcopy(b.record)
    forged["status"] = "ok"
    forged["hash"] = record_hash(forged)
    assert kb.replay(forged).reason == NOT_DERIVED  # "no" is never given alone
    with pytest.raises(InvalidInputError, match="no example gave the answer 'maybe'"):
        kb.guarantee("m", triples, max_error=0.3, answer="maybe")
    with pytest.raises(InvalidInputError, match="cannot be combined"):
        kb.guarantee("m", triples, max_error=0.3, answer="yes", groups="answer")


def test_a_judge_decides_which_examples_were_right() -> None:
    rng = np.random.default_rng(9)
    n = 1500
    trust = rng.random(n)
    examples = []
    for i, t in enumerate(trust.tolist()):
        expected = [f"x{i}", f"y{i}"]
        right = rng.random() >= 0.6 * (1 - t) ** 2
        given = [f"y{i}", "z"] if right else ["z"]
        examples.append((t, given, expected))
    kb = base(**{"tool:act": 0.9})
    p = kb.guarantee("act", examples, max_risk=0.03, signal="trust:{key}", correct=overlaps)
    labels = [overlaps(g, e) for _, g, e in examples]
    assert p.fingerprint == calibrate(trust, labels, max_risk=0.03).fingerprint
    kb.assert_("task", ["y", "z"], source="tool:act")
    kb.assert_("trust:task", 0.97, source="tool:act")
    a = kb.answer("task", "act")
    judge = f"{overlaps.__module__}.overlaps"
    assert a.status == "ok" and a.record["judge"] == judge
    # a lambda judge is fine (it is never called again); its name says so
    kb.guarantee("act2", examples, max_risk=0.03, signal="trust:{key}",
                 correct=lambda given, expected: overlaps(given, expected))
    assert kb.answer("task", "act2").record["judge"].endswith("<lambda>")
    with pytest.raises(InvalidTypeError, match="the judge returned 'yes'"):
        kb.guarantee("bad", examples, max_risk=0.03, correct=lambda g, e: "yes")
    with pytest.raises(InvalidTypeError, match="correct= is a judge"):
        kb.guarantee("bad", examples, max_risk=0.03, correct=True)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"\(confidence, answer, expected\)"):
        kb.guarantee("bad", [(0.5, True)] * 20, max_risk=0.03, correct=overlaps)
    assert "bad" not in kb.promises


# -- folds ------------------------------------------------------------------------------------


def test_folds_cross_fit_the_calibrator_and_mark_the_promise_approximate() -> None:
    s, ok = stream(2000, 10)
    pairs = list(zip(s.tolist(), ok.tolist(), strict=True))
    kb = base(**{"model:m": 0.95})
    p = kb.guarantee("cal", pairs, max_error=0.05, folds=5)

    def fit(train):
        platt = Platt().fit(s[train], ok[train])
        return lambda held: platt.predict(s[held])

    direct = calibrate(None, ok, max_error=0.05, folds=5, fit=fit)
    assert p.fingerprint == direct.fingerprint
    assert p.report["cross_fitted"] == 5 and "approximate" in p.promise
    kb.assert_("k", "v", source="model:m")
    a = kb.answer("k", "cal")
    full = Platt().fit(s, ok)
    assert a.signal == "platt:confidence"
    assert a.signal_value == pytest.approx(full.predict(0.95), abs=1e-12)
    assert (a.status == "ok") == (a.signal_value >= p.threshold)
    assert "approximate" in a.why
    # one-sided and cross-fitted on the same examples, as the spec's form
    q = kb.guarantee("correct", [(c, "yes", y) for c, y in pairs], max_error=0.3, answer="yes",
                     folds=5)
    assert q.answer == "yes" and q.report["cross_fitted"] == 5
    # on the base's own pairs too
    own = base(**{"tool:a": 0.5})
    for i, (c, y) in enumerate(pairs[:400]):
        own.ledger.record_outcome("tool:a", y, key=f"k{i}", confidence=c, at=0.0)
    assert own.guarantee(max_risk=0.2, folds=4).report["cross_fitted"] == 4
    with pytest.raises(InvalidInputError, match=r"in \[0, 1\]"):
        kb.guarantee("m", [(3.0, True)] * 20, max_error=0.05, signal="m:{key}", folds=5)
    with pytest.raises(InvalidInputError, match="folds must be"):
        kb.guarantee("m", pairs, max_error=0.05, folds=1)


# -- removal, replay, the base's own pairs ----------------------------------------------------


def test_removal_and_rebinding_are_seen_by_replay() -> None:
    s, ok = stream(1000, 11)
    pairs = list(zip(s.tolist(), ok.tolist(), strict=True))
    kb = base()
    kb.guarantee("m", pairs, max_risk=0.05, signal="margin:{key}")
    kb.assert_("k", "v", source="tool:a")
    kb.assert_("margin:k", 0.99, source="tool:a")
    kb.assert_("other:k", 0.99, source="tool:a")
    rec = kb.answer("k", "m").record
    # the very same numbers on another key: the same fingerprint, another binding
    kb.guarantee("m", pairs, max_risk=0.05, signal="other:{key}")
    r = kb.replay(rec)
    assert not r.match and r.reason == PROMISE_CHANGED
    assert "signal key:margin:k then, key:other:k now" in r.detail
    forged = copy.deepcopy(rec)
    forged["spec"] = "0" * 64
    assert kb.replay(forged).reason == TAMPERED
    rec2 = kb.answer("k", "m").record
    kb.assert_("other:k", 0.01, source="tool:a")
    live = kb.replay(rec2, live=True)
    assert live.reason == SIGNAL_CHANGED and live.status == "abstain"
    assert kb.remove_guarantee("m") is not None
    assert kb.replay(rec2).reason == PROMISE_REMOVED
    assert kb.promises == {} and kb.answer("k").signal == "confidence"


def test_the_bases_own_pairs_serve_only_the_confidence() -> None:
    kb = base(**{"tool:a": 0.5})
    s, ok = stream(400, 12)
    for i, (c, y) in enumerate(zip(s.tolist(), ok.tolist(), strict=True)):
        kb.ledger.record_outcome("tool:a", y, key=f"k{i}", confidence=c, at=0.0)
    assert kb.guarantee(max_risk=0.2).n == 400
    for option in (dict(signal="margin:{key}"), dict(groups="answer"), dict(answer="yes"),
                   dict(correct=overlaps)):
        with pytest.raises(InvalidInputError, match="keep only the confidence"):
            kb.guarantee("x", max_risk=0.2, **option)
    assert set(kb.promises) == {"default"}


# -- snapshots --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_bindings_round_trip_through_snapshots(tmp_path, fmt: str) -> None:
    s, ok = stream(1500, 13)
    pairs = list(zip(s.tolist(), ok.tolist(), strict=True))
    kb = base(**{"tool:a": 0.9})
    kb.guarantee("key", pairs, max_error=0.1, signal="margin:{key}")
    kb.guarantee("fn", pairs, max_error=0.1, signal=margin_of)
    kb.guarantee("grouped", [(c, "retail" if i % 2 else "energy", y)
                             for i, (c, y) in enumerate(pairs)], max_error=0.1,
                 groups=sector_of)
    kb.guarantee("judged", [(c, ["a"], ["a"] if y else ["b"]) for c, y in pairs],
                 max_error=0.1, correct=overlaps)
    kb.guarantee("cal", pairs, max_error=0.1, folds=3)
    kb.assert_("retail/acme", "buy", source="tool:a")
    kb.assert_("margin:retail/acme", 0.45, source="tool:a")
    answers = {name: kb.answer("retail/acme", name) for name in kb.promises}
    assert len({a.record["spec"] for a in answers.values()}) == 5
    path = tmp_path / f"kb.{fmt}"
    kb.save(path, format=fmt)

    # the functions the promises read through must be passed again
    with pytest.raises(SnapshotError, match="margin_of") as err:
        BeliefBase.load(path, clock=ManualClock(1000.0))
    assert "functions=[margin_of]" in str(err.value)
    with pytest.raises(SnapshotError, match="sector_of"):
        BeliefBase.load(path, clock=ManualClock(1000.0), functions=[margin_of])
    restored = BeliefBase.load(path, clock=ManualClock(1000.0), functions=[margin_of, sector_of])
    assert set(restored.promises) == set(kb.promises)
    for name, a in answers.items():
        assert restored.promises[name].fingerprint == kb.promises[name].fingerprint
        assert restored.replay(a.record, live=True).match, name
        again = restored.answer("retail/acme", name)
        assert again.record == {**a.record}, name
    # the judge is kept by name; it is not needed to answer
    assert restored.answer("retail/acme", "judged").record["judge"] == \
        f"{overlaps.__module__}.overlaps"
    # and as a session in the ledger's store
    kb.save_session("bound")
    with pytest.raises(SnapshotError, match="margin_of"):
        BeliefBase.load_session(kb.ledger, "bound", clock=ManualClock(1000.0))
    resumed = BeliefBase.load_session(kb.ledger, "bound", clock=ManualClock(1000.0),
                                      functions=[margin_of, sector_of])
    assert all(resumed.replay(a.record, live=True).match for a in answers.values())
    # the same document as data
    doc = restored.to_dict()
    assert doc["promises"]["key"]["binding"]["signal"] == {"kind": "key", "name": "margin:{key}"}
    assert "binding" not in BeliefBase(clock=ManualClock(0)).to_dict()["promises"]


def test_a_malformed_binding_is_refused_naming_the_field() -> None:
    s, ok = stream(500, 14)
    kb = base()
    kb.guarantee("key", list(zip(s.tolist(), ok.tolist(), strict=True)), max_error=0.2, signal="m:{key}")
    doc = kb.to_dict()
    for edit, where in [
        (lambda d: d["promises"]["key"]["binding"]["signal"].update(kind="oracle"),
         "promises.key.binding"),
        (lambda d: d["promises"]["key"]["binding"].pop("judge"), "promises.key.binding"),
        (lambda d: d["promises"]["key"]["binding"].update(calibrator={"kind": "x"}),
         "promises.key.binding.calibrator"),
        (lambda d: d["promises"]["key"]["binding"]["signal"].update(name=3),
         "promises.key.binding.signal.name"),
    ]:
        bad = copy.deepcopy(doc)
        edit(bad)
        with pytest.raises(SnapshotError, match=where.replace(".", r"\.")):
            BeliefBase.from_dict(bad)


# -- bad input --------------------------------------------------------------------------------


def test_bad_input_raises_typed_errors_and_changes_nothing() -> None:
    s, ok = stream(300, 15)
    pairs = list(zip(s.tolist(), ok.tolist(), strict=True))
    kb = base()
    kb.guarantee("keep", pairs, max_risk=0.1)
    before = {n: p.fingerprint for n, p in kb.promises.items()}
    cases = [
        (dict(signal=3), InvalidTypeError),
        (dict(signal=""), InvalidInputError),
        (dict(groups=["a", "b"]), InvalidTypeError),
        (dict(groups=""), InvalidInputError),
        (dict(answer=["yes"]), InvalidTypeError),
        (dict(answer=math.nan), InvalidTypeError),
        (dict(folds=True), InvalidTypeError),
        (dict(groups=lambda kb, key: "g"), InvalidInputError),
        (dict(examples=[(0.5, "yes", True)] * 20), InvalidInputError),
        (dict(examples=[(0.5, True)] * 20, groups="answer"), InvalidInputError),
        (dict(examples=[(0.5, ["a"], True)] * 20, groups="answer"), InvalidTypeError),
        (dict(examples=[(math.inf, True)] * 20, signal="m"), InvalidInputError),
        (dict(examples=[("high", True)] * 20, signal="m"), InvalidTypeError),
        (dict(examples=[(0.5, "x")] * 20, signal="m"), InvalidTypeError),
        (dict(examples=[{"signal": 0.5}] * 20, signal="m"), InvalidInputError),
        (dict(examples=[{"signal": 0.5, "correct": True, "extra": 1}] * 20), InvalidInputError),
        (dict(examples=[(0.5, True)] * 5 + [(0.5, "yes", True)] * 5, answer="yes"),
         InvalidInputError),
        (dict(source="tool:a"), InvalidInputError),
    ]
    for kwargs, error in cases:
        args = {"examples": pairs, "max_risk": 0.1, **kwargs}
        with pytest.raises(error):
            kb.guarantee("new", **args)
    at_chance = [(c, "x", i % 2 == 0) for i, c in enumerate(np.linspace(0, 1, 200).tolist())]
    with pytest.raises(WeakSignalError, match="group 'x'"):
        kb.guarantee("new", at_chance, max_risk=0.3, groups="answer")
    assert {n: p.fingerprint for n, p in kb.promises.items()} == before
    # examples as mappings are read like tuples
    rows = [{"confidence": c, "correct": y} for c, y in pairs]
    assert kb.guarantee("rows", rows, max_risk=0.1).fingerprint == before["keep"]


def test_a_grouped_promise_attached_by_hand_still_takes_its_group() -> None:
    kb = base(**{"tool:a": 0.85})
    kb.promises["by-desk"] = calibrate([0.9] * 20 + [0.1] * 5 + [0.8] * 20 + [0.2] * 5,
                                       [True] * 20 + [False] * 5 + [True] * 20 + [False] * 5,
                                       max_risk=0.1, groups=["a"] * 25 + ["b"] * 25)
    kb.assert_("k", "v", source="tool:a")
    a, b = kb.answer("k", "by-desk", group="a"), kb.answer("k", "by-desk", group="b")
    assert (a.status, a.threshold, a.group) == ("abstain", 0.9, "a")
    assert (b.status, b.threshold, b.group) == ("ok", 0.8, "b")
    assert "spec" not in b.record and kb.replay(b).match
    with pytest.raises(InvalidInputError, match="pass group="):
        kb.answer("k", "by-desk")

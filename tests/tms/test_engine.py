"""The TMS engine (corollary/tms/engine.py) through its own methods, without a base.

A stub stands in for the trust view (``reliability(source, now) -> (value, time-dependent)``)
so every number is set by the test; the conflict policies are the real strategies of
corollary/tms/conflicts.py. The model (docs/model.md): a premise gives reliability × freshness, a
derived reason gives step × min(inputs), premises of one origin count once and origins combine
by noisy-OR; labels are computed on demand for the stale part of what is asked, and support is
well-founded (a cycle never holds itself up).
"""

from __future__ import annotations

import gc
from collections import Counter
from typing import Any

import pytest

from corollary.tms import IN, MODEL, OUT, PREMISES, RULE, Belief, Engine, Justification, Premise
from corollary.tms.conflicts import PreferHigherConfidence, PreferSource


class Stub:
    """Fixed reliabilities by source, some of them time-dependent; counts the calls and notes
    whether the cyclic garbage collector was on during each."""

    def __init__(self, values: dict[str, float], timed: tuple[str, ...] = ()) -> None:
        self.values = values
        self.timed = set(timed)
        self.calls: Counter[str] = Counter()
        self.gc_on: set[bool] = set()

    def __call__(self, source: str, now: float) -> tuple[float, bool]:
        self.calls[source] += 1
        self.gc_on.add(gc.isenabled())
        return self.values[source], source in self.timed


TRUST = {"tool:a": 0.9, "tool:b": 0.8, "document:d": 0.5, "model:m": 0.5}

POLICIES = {"open": None, "confidence": PreferHigherConfidence(), "source": PreferSource(["tool"])}


def engine(policy: Any = None, corroboration: bool = True, timed: tuple[str, ...] = ()) -> Engine:
    return Engine(Stub(dict(TRUST), timed), corroboration, policy)


def held(e: Engine, key: str, value: Any, source: str = "tool:a", at: float = 0.0,
         half_life: float | None = None, ttl: float | None = None,
         origin: str | None = None) -> Belief:
    """The belief ``key = value`` with a premise from ``source``."""
    b = e.belief(key, value, value)
    e.set_premise(b, Premise(source, origin or source, at, half_life, ttl))
    return b


def derive(e: Engine, out: Belief, *inputs: Belief, step: float = 1.0, name: str = "r",
           kind: Any = RULE) -> Justification:
    info: dict[str, Any] = {"names": [x.key for x in inputs]}
    if kind is MODEL:
        info.update(certainty=step, model=name)
    return e.add_justification(Justification(kind, name, out, inputs, step, info))


def chain(e: Engine) -> tuple[Belief, Belief, Belief]:
    """a (a premise from tool:a) -> b -> c, by rules of step 1."""
    a = held(e, "a", 1)
    b = e.belief("b", 1, 1)
    c = e.belief("c", 1, 1)
    derive(e, b, a, name="ab")
    derive(e, c, b, name="bc")
    return a, b, c


# -- structure -----------------------------------------------------------------------------


def test_a_belief_is_created_once_per_value_and_numbered_in_order() -> None:
    e = engine()
    a = e.belief("k", 1, 1)
    assert (a.label, a.conf, a.why, a.seq) == (OUT, 0.0, "unsupported", 1)
    assert e.belief("k", 1, 1) is a
    b = e.belief("k", 2, 2)
    c = e.belief("j", "v", "v")
    assert (b.seq, c.seq) == (2, 3)
    assert len(e) == 3
    assert list(e.beliefs()) == [a, b, c]
    assert e.values_of("k") == [a, b] and e.values_of("j") == [c] and e.values_of("x") == []
    assert e.rivals(a) == [b] and e.rivals(b) == [a] and e.rivals(c) == []
    assert list(e.contested()) == [("k", [a, b])]
    assert e.find("k", 2) is b and e.find("k", 3) is None and e.find("j", "v") is c
    assert e.find("j", "w") is None and e.find("x", 1) is None
    assert e.dirty == {a, b, c}


def test_set_premise_replaces_by_source_and_drop_premise_forgets_it() -> None:
    e = engine()
    b = e.belief("k", 1, 1)
    first = Premise("tool:a", "tool:a", 0.0, None, None)
    assert e.set_premise(b, first) is None
    again = Premise("tool:a", "tool:a", 5.0, None, None)
    assert e.set_premise(b, again) == first  # a view of the record replaced
    other = Premise("tool:b", "tool:b", 5.0, None, None)
    assert e.set_premise(b, other) is None
    assert b.premises == (again, other)
    assert (e.holders_of("tool:a"), e.holders_of("tool:b")) == ([b], [b])
    e.sync(5.0)
    assert (b.label, b.best, b.why) == (IN, PREMISES, "held")
    assert b.conf == pytest.approx(1 - 0.1 * 0.2)  # two origins: noisy-OR
    assert e.drop_premise(b, "tool:a") == again
    assert (e.holders_of("tool:a"), e.holders_of("tool:b")) == ([], [b])
    assert e.dirty == {b}
    e.sync(5.0)
    assert b.conf == pytest.approx(0.8)
    assert e.drop_premise(b, "tool:a") is None
    assert e.dirty == set()  # nothing changed, nothing to recompute
    assert e.drop_premise(b, "tool:b") == other
    e.sync(6.0)
    assert (b.label, b.conf, b.why) == (OUT, 0.0, "unsupported")
    assert (e.holders_of("tool:a"), e.holders_of("tool:b")) == ([], [])


@pytest.mark.parametrize(("corroboration", "expected"), [(True, 1 - 0.1 * 0.5), (False, 0.9)])
def test_premises_of_one_origin_count_once(corroboration: bool, expected: float) -> None:
    e = engine(corroboration=corroboration)
    b = held(e, "k", 1, "tool:a", origin="db")
    held(e, "k", 1, "tool:b", origin="db")  # the same origin: the best of the two, 0.9
    e.sync(0.0)
    assert b.conf == pytest.approx(0.9)
    held(e, "k", 1, "document:d")  # an independent origin
    e.sync(0.0)
    assert b.conf == pytest.approx(expected)


def test_a_justification_is_added_once_and_gives_step_times_the_weakest_input() -> None:
    e = engine()
    x = held(e, "x", 1, "tool:a")
    y = held(e, "y", 1, "tool:b")
    out = e.belief("z", 2, 2)
    j = derive(e, out, x, y, step=0.8)
    assert j.seq == 4  # x, y, out were 1 to 3
    assert derive(e, out, x, y, step=0.1) is j  # same kind, name and inputs: the same reason
    assert out.justs == (j,)
    assert set(e.graph.predecessors(j)) == {x, y} and list(e.graph.successors(j)) == [out]
    e.sync(0.0)
    assert out.conf == pytest.approx(0.8 * 0.8) and out.best is j
    # a model's judgement reads the model's reliability: 0.5 × 0.9 × 0.9 < 0.64
    m = derive(e, out, x, step=0.9, name="model:m", kind=MODEL)
    assert e.by_step_source == {"model:m": {m}}
    e.sync(0.0)
    assert out.conf == pytest.approx(0.64) and out.best is j
    e.drop_premise(y, "tool:b")
    e.sync(0.0)
    assert out.conf == pytest.approx(0.5 * 0.9 * 0.9) and out.best is m


def test_an_input_named_twice_is_waited_for_once() -> None:
    e = engine()
    x = e.belief("x", 1, 1)
    out = e.belief("out", 1, 1)
    j = derive(e, out, x, x, step=0.5)
    assert j.distinct == (x,)
    e.set_premise(x, Premise("tool:a", "tool:a", 0.0, None, None))
    e.sync(0.0)  # x is in the region: the sweep counts down one input, not two
    assert out.label == IN and out.conf == pytest.approx(0.45)


def test_more_than_sixteen_reasons_on_one_belief() -> None:
    e = engine()
    inputs = [held(e, f"in{i}", i) for i in range(40)]
    out = e.belief("out", 0, 0)
    reasons = []
    for i in range(40):
        j = derive(e, out, inputs[i], step=0.5 + i / 100)
        reasons.append(j)
        # a tuple while small, a list (with an index of duplicates) from 16 reasons on
        assert type(out.justs) is (tuple if i + 1 < 16 else list)
        # a repeat of the first and of the newest reason is found at every size
        assert derive(e, out, inputs[0], step=0.1) is reasons[0]
        assert derive(e, out, inputs[i], step=0.1) is j
        assert len(out.justs) == i + 1
    assert list(out.justs) == reasons
    assert e.graph.in_degree(out) == 40
    e.sync(0.0)
    assert out.conf == pytest.approx(0.89 * 0.9) and out.best is reasons[-1]


def test_block_and_unblock() -> None:
    e = engine()
    a, b, c = chain(e)
    e.sync(0.0)
    e.withdraw(a, "retracted: wrong")
    assert e.dirty == {a, b, c}
    e.sync(0.0)
    assert (a.label, a.conf, a.why) == (OUT, 0.0, "retracted: wrong")
    assert (c.label, c.why) == (OUT, "unsupported")
    e.reinstate(a)
    e.sync(0.0)
    assert a.withdrawn is None and a.label == c.label == IN and c.conf == pytest.approx(0.9)
    e.reinstate(a)  # not withdrawn: nothing to do
    assert e.dirty == set()


def test_restore_belief_and_continue_numbering() -> None:
    e = engine()
    b = e.restore_belief("k", 1, 1, 7, "retracted")
    assert (b.seq, b.withdrawn) == (7, "retracted")
    e.continue_numbering(100)
    c = held(e, "j", 1)
    assert c.seq == 100
    assert derive(e, e.belief("out", 1, 1), c).seq == 102
    e.set_premise(b, Premise("tool:a", "tool:a", 0.0, None, None))
    e.sync(0.0)
    assert (b.label, b.why) == (OUT, "retracted")


def test_forget_if_unused_drops_only_a_bare_superseded_value() -> None:
    e = engine()
    old = held(e, "k", 1)
    new = held(e, "k", 2, "tool:b")
    read = held(e, "r", 1)
    derive(e, e.belief("s", 1, 1), read)
    withdrawn = e.belief("w", 1, 1)
    e.withdraw(withdrawn, "retracted")
    e.sync(0.0)
    assert e.forget_if_unused(old) is False  # it has a premise
    e.drop_premise(old, "tool:a")
    e.sync(0.0)
    assert e.forget_if_unused(old) is True
    assert e.values_of("k") == [new] and e.rivals(new) == [] and list(e.contested()) == []
    assert e.dirty == {new}  # its rivalry changed
    assert len(e) == 4
    e.drop_premise(read, "tool:a")
    assert e.forget_if_unused(read) is False  # a reason reads it
    assert e.forget_if_unused(withdrawn) is False  # it was withdrawn
    assert len(e) == 4


def test_watch_records_the_keys_that_change() -> None:
    e = engine()
    b = held(e, "k", 1)
    assert e.touched is None  # nothing watches: nothing recorded
    e.sync(0.0)
    e.feed.subscribe(lambda changes: None, labels=False)  # a listener of touched keys
    touched = e.touched  # the feed's buffer, until it publishes
    assert touched == set()
    c = e.belief("c", 1, 1)
    derive(e, c, b)
    assert touched == {"c"}
    e.set_premise(b, Premise("tool:b", "tool:b", 0.0, None, None))
    assert touched == {"c", "k"}


# -- invalidation --------------------------------------------------------------------------


def test_a_dirty_cone_stops_at_dirty_nodes() -> None:
    e = engine()
    a, b, c = chain(e)
    d = held(e, "d", 1)
    e.sync(0.0)
    e.feed.subscribe(lambda changes: None, labels=False)
    touched = e.touched
    assert touched is not None
    e.mark(b)
    assert e.dirty == {b, c} and touched == {"b", "c"}
    touched.clear()
    e.mark(a)
    assert e.dirty == {a, b, c}
    assert touched == {"a"}  # b was dirty already: the walk stopped there
    e.mark(c)
    assert touched == {"a"}
    assert d not in e.dirty


@pytest.mark.parametrize("policy", list(POLICIES))
def test_rivals_are_marked_only_under_a_deciding_policy(policy: str) -> None:
    e = engine(POLICIES[policy])
    k1 = held(e, "k", 1, "tool:a")
    k2 = held(e, "k", 2, "tool:b")
    x = e.belief("x", 1, 1)
    derive(e, x, k2)
    e.sync(0.0)
    e.mark(k1)
    assert e.dirty == ({k1} if policy == "open" else {k1, k2, x})


def test_mark_source_marks_what_rests_on_the_source() -> None:
    e = engine()
    b = held(e, "b", 1, "tool:a")
    c = held(e, "c", 1, "tool:b")
    judged = e.belief("judged", 1, 1)
    derive(e, judged, c, step=0.9, name="model:m", kind=MODEL)
    e.sync(0.0)
    e.mark_source("tool:a")
    assert e.dirty == {b}
    e.sync(0.0)
    e.mark_source("tool:b")
    assert e.dirty == {c, judged}
    e.sync(0.0)
    e.mark_source("model:m")
    assert e.dirty == {judged}
    e.sync(0.0)
    e.mark_source("tool:nobody")
    assert e.dirty == set()


# -- the region a query recomputes ---------------------------------------------------------


def test_a_region_is_only_the_stale_ancestry_of_the_targets() -> None:
    e = engine()
    a, b, c = chain(e)
    d = held(e, "d", 1, "tool:b")
    calls = e.reliability.calls  # a premise swept asks its source once a sweep
    e.sync(1.0, [b])
    assert calls == {"tool:a": 1}  # a and b settled; d was not asked for
    assert e.dirty == {c, d}
    assert b.label == IN and b.conf == pytest.approx(0.9)
    e.sync(2.0, [b])  # nothing in b's ancestry is stale
    assert calls == {"tool:a": 1}
    e.sync(2.0, [c])
    assert calls == {"tool:a": 1} and c.label == IN  # c alone: b was settled
    assert e.dirty == {d}


def test_a_region_follows_time_dependent_beliefs_only() -> None:
    e = engine()
    a = held(e, "a", 1, half_life=10.0)
    b = e.belief("b", 1, 1)
    derive(e, b, a)
    steady = held(e, "s", 1, "tool:b")
    c = e.belief("c", 1, 1)
    derive(e, c, b, steady)
    e.sync(0.0)
    assert e.timed == {a, b, c}
    calls = e.reliability.calls
    assert calls == {"tool:a": 1, "tool:b": 1}
    e.sync(10.0, [c])
    assert (a.as_of, b.as_of, c.as_of, steady.as_of) == (10.0, 10.0, 10.0, None)
    assert calls == {"tool:a": 2, "tool:b": 1}  # steady's premise does not read the time
    assert c.conf == pytest.approx(0.45)


def test_under_a_deciding_policy_a_region_holds_every_value_of_a_key() -> None:
    e = engine(PreferHigherConfidence())
    src = held(e, "src", 1, "tool:b")
    k1 = held(e, "k", 1, "tool:a")
    k2 = e.belief("k", 2, 2)
    derive(e, k2, src)
    e.sync(1.0, [k1])
    assert set(e.reliability.calls) == {"tool:a", "tool:b"}  # k2's support swept with k1
    assert e.dirty == set()
    assert (k1.label, k2.label, k2.why, k2.defeated_by) == (IN, OUT, "lost", k1)
    assert k2.potential == pytest.approx(0.8)


def test_stale_counts_what_a_full_sync_recomputes() -> None:
    e = engine()
    a = held(e, "a", 1, half_life=60.0)
    b = e.belief("b", 1, 1)
    derive(e, b, a)
    soon = held(e, "soon", 1, "tool:b", ttl=10.0)
    held(e, "steady", 1, "tool:b")
    assert e.stale(0.0) == 4
    e.sync(0.0)
    assert e.stale(0.0) == 0
    assert e.stale(5.0) == 2  # a and b read the time
    e.mark(a)  # dirty and time-dependent: recomputed once, counted once
    assert e.stale(5.0) == 2
    e.sync(5.0)
    assert e.stale(10.0) == 3  # and soon's premise runs out at 10
    e.sync(10.0)
    assert [x for x in e.beliefs() if x.as_of == 10.0] == [a, b, soon]
    assert soon.why == "expired"


# -- the sweep -----------------------------------------------------------------------------


def test_a_cycle_never_holds_itself_up() -> None:
    e = engine()
    a = held(e, "a", 1)
    b = e.belief("b", 1, 1)
    derive(e, b, a, name="ab")
    derive(e, a, b, step=1.0, name="ba")
    e.sync(0.0)
    assert (a.conf, a.best, b.conf) == (pytest.approx(0.9), PREMISES, pytest.approx(0.9))
    e.drop_premise(a, "tool:a")
    e.sync(0.0)
    assert (a.label, a.why, b.label, b.why) == (OUT, "unsupported", OUT, "unsupported")
    alone = e.belief("alone", 1, 1)
    derive(e, alone, alone)  # a belief that only justifies itself
    e.sync(0.0)
    assert alone.label == OUT


def test_confidence_never_grows_around_a_cycle() -> None:
    e = engine()
    a = held(e, "a", 1, "document:d")  # 0.5
    b = held(e, "b", 1, "tool:b")  # 0.8
    derive(e, a, b, step=0.9, name="ba")  # 0.72 beats a's own premise
    derive(e, b, a, step=1.0, name="ab")  # would give b 0.72 < 0.8
    e.sync(0.0)
    assert a.conf == pytest.approx(0.72) and b.conf == pytest.approx(0.8) and b.best is PREMISES


def test_step_confidence_by_kind() -> None:
    e = engine(timed=("model:m",))
    x = held(e, "x", 1)
    rule_step = derive(e, e.belief("r", 1, 1), x, step=0.7)
    model_step = derive(e, e.belief("m", 1, 1), x, step=0.6, name="model:m", kind=MODEL)
    assert e.step_confidence(rule_step, 0.0) == (0.7, False)
    assert e.step_confidence(model_step, 0.0) == (pytest.approx(0.3), True)


def test_premise_parts_and_agreement_agree_with_the_sweep() -> None:
    e = engine()
    b = held(e, "k", 1, "document:d", half_life=10.0, origin="x")
    held(e, "k", 1, "tool:a", ttl=5.0, origin="y")
    early = e.premise_parts(b, 2.0)
    assert [p.premise.source for p in early] == ["document:d", "tool:a"]
    assert [(p.reliability, p.age, p.expired) for p in early] == [(0.5, 2.0, False),
                                                                  (0.9, 2.0, False)]
    fresh = 2 ** -0.2
    assert early[0].freshness == pytest.approx(fresh) and early[1].freshness == 1.0
    assert e.agreement(early) == pytest.approx(1 - (1 - 0.5 * fresh) * (1 - 0.9))
    e.sync(2.0)
    assert b.conf == pytest.approx(e.agreement(early))
    late = e.premise_parts(b, 10.0)
    assert [(p.freshness, p.expired, p.confidence) for p in late] == [
        (0.5, False, 0.25), (1.0, True, 0.0)]
    assert e.agreement(late) == pytest.approx(0.25)
    e.sync(10.0)
    assert b.conf == pytest.approx(0.25)


def test_a_large_sweep_runs_with_the_cyclic_collector_paused() -> None:
    stub = Stub(dict(TRUST))
    e = Engine(stub)
    beliefs = [held(e, f"k{i}", i) for i in range(10_001)]
    enabled = gc.isenabled()
    try:
        for was_on in (True, False):
            if was_on:
                gc.enable()
            else:
                gc.disable()
            stub.gc_on.clear()
            e.mark_all()
            e.sync(0.0)
            assert stub.gc_on == {False}
            assert gc.isenabled() is was_on  # put back as it was
            stub.gc_on.clear()
            e.mark(beliefs[0])
            e.sync(0.0)  # a small sweep leaves the collector alone
            assert stub.gc_on == {was_on}
    finally:
        if enabled:
            gc.enable()
    assert all(b.label == IN for b in beliefs)


# -- time ----------------------------------------------------------------------------------


def test_expiries_are_kept_in_time_order() -> None:
    e = engine()
    late = held(e, "late", 1, ttl=30.0)
    first = held(e, "first", 1, ttl=10.0)
    middle = held(e, "middle", 1, ttl=20.0)
    e.sync(0.0)
    labels = {}
    for t in (9.0, 15.0, 25.0, 30.0):
        e.sync(t)
        labels[t] = [x.label for x in (first, middle, late)]
    assert labels == {9.0: [IN, IN, IN], 15.0: [OUT, IN, IN], 25.0: [OUT, OUT, IN],
                      30.0: [OUT, OUT, OUT]}
    assert first.why == middle.why == late.why == "expired"


def test_the_expiry_of_a_replaced_premise_marks_nothing() -> None:
    e = engine()
    b = held(e, "k", 1, ttl=10.0)
    e.sync(0.0)
    e.set_premise(b, Premise("tool:a", "tool:a", 8.0, None, 10.0))  # renewed: good until 18
    e.sync(8.0)
    e.sync(10.0)
    assert b.label == IN and e.dirty == set()  # the old premise's expiry left it alone
    e.sync(18.0)
    assert (b.label, b.why) == (OUT, "expired")


def test_an_expired_premise_leaves_the_others() -> None:
    e = engine()
    b = held(e, "k", 1, "tool:a", ttl=10.0)
    held(e, "k", 1, "tool:b")
    e.sync(0.0)
    assert b.conf == pytest.approx(0.98)
    e.sync(10.0)
    assert (b.label, b.why) == (IN, "held") and b.conf == pytest.approx(0.8)


def test_time_dependence_is_marked_and_cleared() -> None:
    e = engine(timed=("model:m",))
    a = held(e, "a", 1, half_life=60.0)  # a decaying premise
    b = e.belief("b", 1, 1)
    derive(e, b, a)  # reads a
    c = held(e, "c", 1, "tool:b")
    judged = e.belief("judged", 1, 1)
    derive(e, judged, c, step=0.9, name="model:m", kind=MODEL)  # the model's trust moves
    f = e.belief("f", 1, 1)
    derive(e, f, c)
    e.sync(0.0)
    assert e.timed == {a, b, judged}
    assert [x.timed for x in (a, b, c, judged, f)] == [True, True, False, True, False]
    e.sync(60.0)
    assert a.conf == pytest.approx(0.45) and b.conf == pytest.approx(0.45)
    assert e.stale(120.0) == 3
    e.drop_premise(a, "tool:a")
    e.sync(120.0)
    assert e.timed == {judged} and not a.timed and not b.timed


def test_a_source_whose_trust_moves_with_time_makes_its_premises_time_dependent() -> None:
    e = engine(timed=("tool:b",))
    b = held(e, "k", 1, "tool:b")
    steady = held(e, "s", 1, "tool:a")
    e.sync(0.0)
    assert e.timed == {b} and not steady.timed


@pytest.mark.parametrize("policy", list(POLICIES))
def test_a_rival_of_a_time_dependent_value_is_time_dependent_under_a_deciding_policy(
        policy: str) -> None:
    e = engine(POLICIES[policy])
    fading = held(e, "k", 1, "tool:a", half_life=60.0)
    steady = held(e, "k", 2, "tool:b")
    e.sync(0.0)
    assert e.timed == ({fading} if policy == "open" else {fading, steady})
    e.sync(60.0)  # 0.45 < 0.8: the steady value wins now
    if policy == "open":
        assert fading.label == steady.label == IN
    else:
        assert (fading.label, fading.defeated_by, steady.label) == (OUT, steady, IN)

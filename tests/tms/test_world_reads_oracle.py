"""Property: a key of several values held by premises only, read at a world time as a key
(``kb.at(t).value(key)``, ``label(key)``, ``confidence(key)``), agrees with a from-scratch
evaluation at ``t`` (tests/support/oracle.py), read after every operation at several times and
again at the same times (issue 36 item 5: such a key is answered from its premises, and the
answer kept per stretch of world time while nothing it reads changes; docs/model.md, "Time and
change"). Premises of several sources, origins, certainties, half-lives and ttls, over one or
two intervals, under PreferNewer with several margins and with no policy; retractions,
withdrawals, outcomes (a source's reliability moves) and clock moves between the reads."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.key_reads import check_key_at
from support.operations import SOURCES, apply, outcome_op, retract_op, withdraw_op
from support.oracle import evaluate

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.tms import Engine

TIMES = [-60.0, 0.0, 10.0, 30.0, 99.0, 120.0, 260.0, 1000.0]
#: Premise-only assertions on two keys: every value of a key is decided by premises alone.
premise_op = st.tuples(
    st.just("assert_valid"), st.sampled_from(["a", "b"]), st.sampled_from([0, 1, 2]),
    st.sampled_from(SOURCES), st.sampled_from([None, None, 60.0]),
    st.sampled_from([None, None, 90.0]),
    st.sampled_from([None, -50.0, 0.0, 20.0, 100.0, 250.0]),
    st.sampled_from([None, None, 40.0, 150.0, 300.0]),
)
certain_op = st.tuples(st.just("certain"), st.sampled_from(["a", "b"]), st.sampled_from([0, 1, 2]),
                       st.sampled_from(SOURCES), st.sampled_from([0.3, 0.6, 0.95]),
                       st.sampled_from([None, 0.0, 20.0, 100.0]))
operations = st.lists(
    st.one_of(premise_op, premise_op, premise_op, certain_op, retract_op, withdraw_op,
              outcome_op, outcome_op, st.tuples(st.just("advance"), st.sampled_from([1.0, 61.0]))),
    min_size=3, max_size=20)


def _apply(kb: BeliefBase, clock: ManualClock, op: tuple) -> None:  # type: ignore[type-arg]
    if op[0] == "certain":  # a stated certainty, and a shared origin, beside a valid time
        _, key, value, source, certainty, valid_from = op
        kb.assert_(key, value, source=source, origin="shared", certainty=certainty,
                   valid_from=valid_from)
    else:
        apply(kb, clock, op)


@pytest.mark.parametrize("margin", [None, 0.0, 0.2, 0.5])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, times=st.lists(st.sampled_from(TIMES), min_size=1, max_size=3))
def test_a_key_of_premises_reads_at_a_time_as_the_oracle(margin: float | None, ops: list,
                                                         times: list[float]) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=None if margin is None else PreferNewer(margin))
    for op in ops:
        _apply(kb, clock, op)
        for t in [*times, *times]:  # the second read of a time takes what the first kept
            expected = evaluate(kb, clock(), world=t)
            view = kb.at(t)
            for key in {key for key, _ in expected}:
                if len(kb.engine.values_of(key)) > 1:
                    check_key_at(kb, view, expected, key, t)


def test_a_key_of_premises_is_read_at_a_time_without_a_what_if(
        monkeypatch: pytest.MonkeyPatch) -> None:
    kb = BeliefBase(clock=ManualClock(100.0), conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=10)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=50)
    kb.assert_("addr", "Elm Rd", source="tool:crm", valid_from=20, valid_until=40)

    def no_what_if(*args: object) -> None:
        raise AssertionError("a key decided by its premises alone was read as a what-if")

    monkeypatch.setattr(Engine, "at_world", no_what_if)
    # Elm Rd, begun at 20, supersedes Oak St for good: after its end nothing is held
    assert [kb.at(t).value("addr") for t in (5, 15, 30, 45, 60)] == [
        None, "Oak St", "Elm Rd", None, "Pine Ave"]
    assert [kb.at(t).label("addr") for t in (5, 15, 80)] == ["OUT", "IN", "IN"]
    held = kb.at(15).confidence("addr")
    assert held == kb.reliability("tool:crm")
    kb.record_outcome("tool:crm", correct=False)  # the reliability moved: read afresh
    assert kb.at(15).confidence("addr") == kb.reliability("tool:crm") < held


def test_a_forgotten_value_read_at_a_time_is_not_kept() -> None:
    # kb.forget erases (docs/lifecycle.md, "Forgetting"): the answers kept per stretch of time must
    # not keep the forgotten value alive
    kb = BeliefBase(clock=ManualClock(100.0), conflict_policy=PreferNewer())
    secret = Secret("42 Oak St")
    kb.assert_("addr", secret, source="tool:crm", valid_from=10)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=50)
    assert kb.at(20).value("addr") is secret
    kept = weakref.ref(secret)
    del secret
    kb.forget("addr", kept())
    gc.collect()
    assert kept() is None
    assert kb.at(20).value("addr") is None


class Secret(str):
    """A value that can be referenced weakly."""

    __slots__ = ("__weakref__",)

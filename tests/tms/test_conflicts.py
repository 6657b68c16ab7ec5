"""Conflict policies (corollary/tms/conflicts.py) as the strategies of the engine's sweep, on an engine
of their own: which value of a key holds, what the losers would have had, and what a policy is
given. Through a base they are tested in tests/base/test_conflicts.py."""

from __future__ import annotations

from typing import Any

import pytest

from corollary.foundations.errors import SnapshotError
from corollary.tms import IN, OUT, RULE, Belief, Engine, Justification, Premise
from corollary.tms.conflicts import (
    AskHuman,
    Candidate,
    Conflict,
    PreferHigherConfidence,
    PreferSource,
    policy_from_dict,
)

TRUST = {"tool:a": 0.9, "tool:b": 0.8, "document:d": 0.7, "human:h": 0.99}


def engine(policy: Any) -> Engine:
    return Engine(lambda source, now: (TRUST[source], False), True, policy)


def hold(e: Engine, key: str, value: Any, source: str, ttl: float | None = None) -> Belief:
    b = e.belief(key, value, value)
    e.set_premise(b, Premise(source, source, 0.0, None, ttl))
    return b


def test_prefer_higher_confidence_defeats_the_rest_and_they_do_not_propagate() -> None:
    e = engine(PreferHigherConfidence())
    win = hold(e, "k", 1, "tool:a")
    lose = hold(e, "k", 2, "tool:b")
    after = e.belief("after", 2, 2)
    e.add_justification(Justification(RULE, "r", after, (lose,), 1.0, {"names": ["k"]}))
    e.sync(0.0)
    assert (win.label, win.conf) == (IN, pytest.approx(0.9))
    assert (lose.label, lose.conf, lose.why, lose.defeated_by) == (OUT, 0.0, "lost", win)
    assert lose.potential == pytest.approx(0.8)
    assert (after.label, after.why) == (OUT, "unsupported")
    e.drop_premise(win, "tool:a")
    e.sync(0.0)
    assert lose.label == after.label == IN and lose.defeated_by is None


def test_prefer_higher_confidence_breaks_a_tie_for_the_older_value() -> None:
    e = engine(PreferHigherConfidence())
    in_order = [hold(e, "k", v, "tool:a") for v in (5, 3, 4)]  # equally trusted
    e.sync(0.0)
    assert [b.label for b in in_order] == [IN, OUT, OUT]
    assert [b.defeated_by for b in in_order] == [None, in_order[0], in_order[0]]


def test_prefer_source_ranks_by_source_or_kind_before_confidence() -> None:
    policy = PreferSource(["document:d", "tool"])
    assert [policy.rank_of(s) for s in ("document:d", "tool:a", "tool:b", "human:h")] == [
        0, 1, 1, 2]
    e = engine(policy)
    human = hold(e, "k", "h", "human:h")  # unlisted: last, though the most trusted
    doc = hold(e, "k", "d", "document:d")
    tool = hold(e, "k", "t", "tool:a")
    e.sync(0.0)
    assert (doc.label, doc.conf) == (IN, pytest.approx(0.7))
    assert [(b.label, b.why, b.defeated_by) for b in (human, tool)] == [
        (OUT, "lost", doc), (OUT, "lost", doc)]
    assert [b.potential for b in (human, tool)] == [pytest.approx(0.99), pytest.approx(0.9)]
    e.withdraw(doc, "retracted")  # a withdrawn value is not ranked
    e.sync(0.0)
    assert (tool.label, human.label, doc.why) == (IN, OUT, "retracted")


def test_prefer_source_leaves_a_tie_on_rank_to_confidence() -> None:
    e = engine(PreferSource(["tool"]))
    b = hold(e, "k", "b", "tool:b")
    a = hold(e, "k", "a", "tool:a")
    e.sync(0.0)
    assert (a.label, b.label, b.defeated_by) == (IN, OUT, a)


def test_prefer_source_ranks_derived_only_values_and_expired_premises_last() -> None:
    e = engine(PreferSource(["tool:a"]))
    base = hold(e, "base", 1, "human:h")
    derived = e.belief("k", "derived", "derived")
    e.add_justification(Justification(RULE, "r", derived, (base,), 1.0, {"names": ["base"]}))
    listed = hold(e, "k", "listed", "tool:a", ttl=10.0)
    e.sync(0.0)
    assert (listed.label, derived.label, derived.potential) == (IN, OUT, pytest.approx(0.99))
    e.set_premise(listed, Premise("document:d", "document:d", 0.0, None, None))
    e.sync(10.0)  # its listed premise ran out: both rank last, confidence decides
    assert (derived.label, listed.label, listed.conf) == (IN, OUT, 0.0)
    assert listed.potential == pytest.approx(0.7)


class Recorder:
    """A deciding policy (the engine's protocol) that notes the regions the sweep gives it."""

    decides = True

    def __init__(self) -> None:
        self.regions: list[set[Belief]] = []

    def before_sweep(self, engine: Engine, region: set[Belief], now: float) -> None:
        self.regions.append(set(region))


def test_before_sweep_is_given_the_region_being_recomputed() -> None:
    policy = Recorder()
    e = engine(policy)
    k1 = hold(e, "k", 1, "tool:a")
    k2 = hold(e, "k", 2, "tool:b")
    other = hold(e, "other", 1, "tool:a")
    e.sync(0.0)
    e.mark(k2)
    e.sync(0.0)
    e.sync(0.0)  # nothing stale: no sweep
    assert policy.regions == [{k1, k2, other}, {k1, k2}]
    assert (k1.label, k2.label) == (IN, OUT)  # and the sweep decided by confidence


def test_ask_human_does_not_decide_in_the_sweep() -> None:
    policy = AskHuman(lambda conflict: conflict.values[0])
    assert policy.decides is False and policy.watches_changes is True
    e = engine(policy)
    both = [hold(e, "k", 1, "tool:a"), hold(e, "k", 2, "tool:b")]
    e.sync(0.0)
    assert [b.label for b in both] == [IN, IN]  # the base asks after the change, not the sweep


@pytest.mark.parametrize("policy", [PreferHigherConfidence(), PreferSource(["human", "tool:a"]),
                                    AskHuman(print, learn=False)],
                         ids=["confidence", "source", "ask"])
def test_a_policy_is_rebuilt_from_its_dict(policy: Any) -> None:
    ask = policy.ask if isinstance(policy, AskHuman) else None
    assert policy_from_dict(policy.to_dict(), ask) == policy
    assert policy_from_dict(None) is None


def test_policies_that_cannot_be_rebuilt() -> None:
    assert policy_from_dict({"policy": "AskHuman", "learn": True}) is None  # needs its ask
    with pytest.raises(SnapshotError, match="not a conflict policy corollary knows"):
        policy_from_dict({"policy": "Coin"})


def test_a_conflict_lists_its_candidates() -> None:
    conflict = Conflict("ceo", (Candidate("Alice", 0.99, ("human:h",)),
                                Candidate("Bob", 0.8, ("tool:b", "document:d"))))
    assert conflict.values == ("Alice", "Bob")
    assert str(conflict) == "ceo: 'Alice' (0.99), 'Bob' (0.80)"

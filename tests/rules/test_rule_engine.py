"""The rule engine (corollary/reasons/rule_engine.py) on an engine of its own, without a base: what it
fires after a change (settle) and before a query (catch_up), the combinations it enumerates
(semi-naive: only those with a newly held value), its firing budget, and a rule that raised.

The sync callback is the engine's own sweep at a time the test sets; reliabilities are fixed.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest

from corollary.foundations.errors import RuleError, RuleLimitError
from corollary.reasons.rule_engine import RuleEngine
from corollary.reasons.rules import Rule
from corollary.tms import IN, OUT, RULE, Belief, Engine, Premise
from corollary.tms.conflicts import PreferHigherConfidence

TRUST = {"tool:a": 0.9, "tool:b": 0.8}


class Setup:
    """An engine, a rule engine on it, the time the sweep runs at, and the syncs asked for."""

    def __init__(self, rules: list[Rule], policy: Any = None, max_firings: int = 1000) -> None:
        self.engine = Engine(lambda source, now: (TRUST[source], False), True, policy)
        self.now = 0.0
        self.synced: list[list[Belief]] = []
        self.rules = RuleEngine(self.engine, self.sync, max_firings)
        for r in rules:
            self.rules.add(r)

    def sync(self, beliefs: Any) -> None:
        beliefs = list(beliefs)
        self.synced.append(beliefs)
        self.engine.sync(self.now, beliefs)

    def hold(self, key: str, value: Any, source: str = "tool:a",
             half_life: float | None = None) -> Belief:
        b = self.engine.belief(key, value, value)
        self.engine.set_premise(b, Premise(source, source, self.now, half_life, None))
        return b

    def value(self, key: str) -> list[Any]:
        """The held values of ``key``, brought up to now."""
        values = self.engine.values_of(key)
        self.engine.sync(self.now, values)
        return sorted(b.value for b in values if b.label == IN)


def recording(calls: list[tuple[Any, ...]], fn: Any) -> Any:
    """``fn``, noting each call's arguments (the rule reads its parameters through wraps)."""
    @functools.wraps(fn)
    def wrapped(*args: Any) -> Any:
        calls.append(args)
        return fn(*args)
    return wrapped


class CountingSet(set):  # type: ignore[type-arg]
    """A firing memo that counts the combinations the rule engine looks up in it."""

    lookups = 0

    def __contains__(self, item: object) -> bool:
        self.lookups += 1
        return super().__contains__(item)


def test_a_rule_is_added_once_and_the_engine_watched() -> None:
    s = Setup([])
    assert s.engine.touched is None and not s.rules and s.rules.active is False
    r = Rule(lambda x: x, output="y", name="tests.rule_engine.same")
    assert s.rules.add(r) is True
    assert s.rules.add(r) is False
    assert s.rules.rules == (r,) and r in s.rules and s.rules.active is True
    assert s.engine.touched == set()
    assert s.rules.fired == {"tests.rule_engine.same": set()}


def test_settle_fires_the_rules_reading_touched_keys() -> None:
    calls: list[tuple[Any, ...]] = []
    double = Rule(recording(calls, lambda v: 2 * v), output="y", inputs={"v": "x"},
                  confidence=0.5, name="tests.rule_engine.double")
    s = Setup([double])
    x = s.hold("x", 1)
    s.hold("other", 1)
    assert s.engine.touched == {"x", "other"}
    s.rules.settle()
    assert calls == [(1,)]
    (y,) = s.engine.values_of("y")
    (j,) = y.justs
    assert (y.value, j.kind, j.name, j.inputs, j.step, j.info) == (
        2, RULE, "tests.rule_engine.double", (x,), 0.5, {"names": ["v"]})
    assert s.engine.touched == set()
    assert s.rules.fired == {"tests.rule_engine.double": {(x.seq,)}}
    s.rules.settle()  # nothing touched since: nothing fires
    assert calls == [(1,)]
    assert s.value("y") == [2]


def test_settle_without_rules_empties_what_was_touched() -> None:
    s = Setup([])
    s.engine.feed.subscribe(lambda changes: None, labels=False)  # someone follows the feed
    touched = s.engine.touched
    assert touched is not None
    s.hold("x", 1)
    assert touched == {"x"}
    s.rules.settle()
    assert touched == set()


def test_a_rule_given_as_extra_fires_though_nothing_it_reads_was_touched() -> None:
    s = Setup([])
    s.hold("x", 3)
    late = Rule(lambda x: x + 1, output="y", name="tests.rule_engine.late")
    s.rules.add(late)
    s.engine.sync(0.0)
    s.rules.settle()
    assert s.engine.values_of("y") == []
    s.rules.settle([late])
    assert s.value("y") == [4]


def test_a_rule_that_returns_none_concludes_nothing_for_that_combination() -> None:
    calls: list[tuple[Any, ...]] = []
    odd = Rule(recording(calls, lambda x: x if x % 2 else None), output="y",
               name="tests.rule_engine.odd")
    s = Setup([odd])
    two = s.hold("x", 2)
    s.rules.settle()
    assert s.engine.values_of("y") == [] and s.rules.fired[odd.name] == {(two.seq,)}
    s.rules.settle([odd])
    assert calls == [(2,)]  # fired once, ever


def test_catch_up_fires_every_rule_once_at_each_new_time() -> None:
    calls: list[tuple[Any, ...]] = []
    tenfold = Rule(recording(calls, lambda x: 10 * x), output="y",
                   name="tests.rule_engine.tenfold")
    s = Setup([tenfold], PreferHigherConfidence())
    s.hold("x", 1, half_life=60.0)  # 0.9, fading
    s.hold("x", 2, "tool:b")  # 0.8, steady
    s.rules.settle()
    assert calls == [(1,)] and s.value("y") == [10]
    s.now = 120.0  # 0.9 / 4 < 0.8: x = 2 holds now, and nothing changed structurally
    s.rules.settle()
    assert calls == [(1,)] and s.engine.find("y", 20) is None
    s.rules.catch_up(120.0)
    assert calls == [(1,), (2,)]
    assert s.value("y") == [20]
    assert s.engine.touched == set()
    before = len(s.synced)
    s.rules.catch_up(120.0)  # the same time, nothing touched: nothing to do
    assert len(s.synced) == before


def test_semi_naive_firing_enumerates_only_combinations_with_a_new_value() -> None:
    calls: list[tuple[Any, ...]] = []
    pair = Rule(recording(calls, lambda a, b: 1000 * a + b), output="p",
                name="tests.rule_engine.pair")
    s = Setup([pair])  # no policy: every value of a and b is held
    memo = s.rules.fired[pair.name] = CountingSet()
    for i in range(30):
        s.hold("a", i)
        s.hold("b", 100 + i)
    s.rules.settle()
    assert memo.lookups == 900 and len(calls) == 900
    s.hold("a", 30)
    s.rules.settle()
    assert memo.lookups == 900 + 30  # a = 30 with each b, not the whole product again
    assert len(calls) == 930
    assert sorted(calls) == sorted(itertools.product(range(31), range(100, 130)))
    assert len(memo) == 930


def test_values_added_to_several_inputs_at_once_fire_each_new_combination_once() -> None:
    calls: list[tuple[Any, ...]] = []
    three = Rule(recording(calls, lambda a, b, c: a + b + c), output="t",
                 name="tests.rule_engine.three")
    s = Setup([three])
    s.hold("a", 1)
    s.hold("b", 10)
    s.hold("c", 100)
    s.rules.settle()
    for key, value in (("a", 2), ("b", 20), ("c", 200)):
        s.hold(key, value, "tool:b")
    s.rules.settle()
    assert len(calls) == 8 and len(set(calls)) == 8
    assert sorted(calls) == sorted(itertools.product((1, 2), (10, 20), (100, 200)))


def test_a_key_read_twice_pairs_its_values_both_ways() -> None:
    calls: list[tuple[Any, ...]] = []
    both = Rule(recording(calls, lambda x, y: x * y), output="xy", inputs={"x": "a", "y": "a"},
                name="tests.rule_engine.both")
    s = Setup([both])
    s.hold("a", 1)
    s.hold("a", 2, "tool:b")
    s.rules.settle()
    assert sorted(calls) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    s.hold("a", 3)
    s.rules.settle()
    assert sorted(calls[4:]) == [(1, 3), (2, 3), (3, 1), (3, 2), (3, 3)]


def test_the_budget_stops_rules_that_never_settle_and_undoes_their_firings() -> None:
    calls: list[tuple[Any, ...]] = []
    up = Rule(recording(calls, lambda a: a + 1), output="b", inputs={"a": "a"},
              name="tests.rule_engine.up")
    down = Rule(recording(calls, lambda b: b + 1), output="a", inputs={"b": "b"},
                name="tests.rule_engine.down")
    s = Setup([up, down], max_firings=7)
    s.hold("a", 0)
    count = s.engine.count
    with pytest.raises(RuleLimitError, match="rules fired 7 times in one operation"):
        s.rules.settle()
    assert len(calls) == 7
    # every firing undone (the change itself was not handed over in a batch: it stands)
    assert s.engine.count == count and s.value("a") == [0] and "b" not in s.engine.keys
    assert s.rules.fired == {up.name: set(), down.name: set()} and not s.engine.touched
    # the firing that started the runaway is held back: the next operation fires nothing
    assert s.rules.failed == {up.name: {(0,)}}
    s.rules.settle()
    assert len(calls) == 7
    s.hold("a", 10, "tool:b")  # a new input value: a new combination, tried within its budget
    with pytest.raises(RuleLimitError):
        s.rules.settle()
    assert len(calls) == 14 and calls[7] == (10,)


def test_a_rule_that_raised_is_held_back_until_its_inputs_change() -> None:
    calls: list[tuple[Any, ...]] = []

    def flaky(x: int) -> int:
        calls.append((x,))
        if len(calls) == 1:
            raise ValueError("not yet")
        return x * 7

    r = Rule(flaky, output="y", name="tests.rule_engine.flaky")
    s = Setup([r])
    s.hold("x", 1)
    with pytest.raises(RuleError, match=r"rule tests.rule_engine.flaky failed on x = 1") as info:
        s.rules.settle()
    assert isinstance(info.value.__cause__, ValueError)
    assert s.engine.values_of("y") == [] and s.rules.fired[r.name] == set()
    assert not s.engine.touched
    s.rules.settle()
    s.rules.catch_up(1.0)  # a query at a new time does not try it again either
    assert calls == [(1,)]
    s.hold("x", 2, "tool:b")  # x changes: the new combination fires
    s.rules.settle()
    assert calls == [(1,), (2,)] and s.value("y") == [14]


def test_a_restored_memo_is_not_fired_again() -> None:
    calls: list[tuple[Any, ...]] = []
    r = Rule(recording(calls, lambda x: x), output="y", name="tests.rule_engine.restored")
    s = Setup([r])
    one = s.hold("x", 1)
    s.rules.restore({r.name: {(one.seq,)}})
    s.rules.settle()
    assert calls == []
    s.hold("x", 2, "tool:b")
    s.rules.settle()
    assert calls == [(2,)]


def test_a_rule_reads_labels_only_after_the_sync() -> None:
    calls: list[tuple[Any, ...]] = []
    r = Rule(recording(calls, lambda x: x), output="y", name="tests.rule_engine.synced")
    s = Setup([r])
    x = s.hold("x", 1)
    s.engine.sync(0.0)
    s.engine.withdraw(x, "retracted")  # dirty: still labelled IN until a sweep says otherwise
    assert x.label == IN
    s.rules.settle()
    assert calls == [] and x.label == OUT
    assert s.synced == [[x]]

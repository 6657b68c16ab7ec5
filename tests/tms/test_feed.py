"""The engine's change feed (issue 26, point 4): one feed that the rule engine, ``kb.watch``
and recall subscribe to, in place of three ways of observing the engine.

The property: over random operations (the oracle's: assertions that fade and expire, claims,
cycles, exceptions, nogoods, withdrawn reasons, outcomes, time), the beliefs the feed reports
as relabelled are exactly those whose label differs before and after each operation, and the
beliefs it reports as added are exactly those made by it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from support.operations import POLICIES, apply, operations, sum_ab, tms_operations

from corollary import BeliefBase, CorollaryError, ManualClock, PreferHigherConfidence
from corollary.foundations.errors import InvalidTypeError
from corollary.tms import Engine
from corollary.tms.feed import Changes, LabelFeed


def _labels(kb: BeliefBase) -> dict[Any, str]:
    for _ in range(3):  # rules due now fire first (a refused firing raises once)
        try:
            kb.refresh()
            break
        except CorollaryError:
            pass
    return {b: b.label for b in list(kb.engine.beliefs())}


class _Heard:
    """What a subscription heard over one operation: each belief's first label before."""

    def __init__(self) -> None:
        self.was: dict[Any, bool] = {}
        self.added: list[Any] = []
        self.engine: Engine | None = None

    def __call__(self, changes: Changes) -> None:
        for b, was in changes.settled.items():
            self.was.setdefault(b, was)
        assert self.engine is not None
        self.added.extend(changes.added(self.engine))


def _check_feed(kb: BeliefBase, clock: ManualClock, ops: list[Any]) -> None:
    heard = _Heard()
    heard.engine = kb.engine
    kb.engine.feed.subscribe(heard)
    before = _labels(kb)
    kb.engine.feed.publish()
    for op in ops:
        heard.was.clear()
        heard.added.clear()
        apply(kb, clock, op)
        after = _labels(kb)
        kb.engine.feed.publish()
        engine = kb.engine
        expected = {b for b in before.keys() | after.keys()
                    if before.get(b, "OUT") != after.get(b, "OUT")}
        reported = {b for b, was in heard.was.items()
                    if ("IN" if was else "OUT") != after.get(b, "OUT")}
        assert reported == expected, op
        made = set(after) - set(before)
        assert {b for b in heard.added if engine.find(b.key, b.vid) is b} == made, op
        before = after


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations)
def test_the_feed_reports_the_label_changes_of_each_operation(policy: str, ops: list[Any]) -> None:
    clock = ManualClock(0)
    _check_feed(BeliefBase(clock=clock, conflict_policy=POLICIES[policy]()), clock, ops)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=tms_operations)
def test_the_feed_reports_exceptions_nogoods_and_rules(ops: list[Any]) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[sum_ab], conflict_policy=PreferHigherConfidence())
    _check_feed(kb, clock, ops)


def _engine() -> Engine:
    return Engine(lambda source, now: (0.9, False))


def test_no_subscriber_no_buffers() -> None:
    e = _engine()
    assert e.touched is None and e.settled is None
    sub = e.feed.subscribe(lambda c: None)
    assert e.touched == set() and isinstance(e.settled, LabelFeed)
    sub.stop()
    sub.stop()  # a second stop does nothing
    assert e.touched is None and e.settled is None and not sub.active


def test_the_rule_engine_and_a_label_listener_share_the_feed() -> None:
    kb = BeliefBase(clock=ManualClock(0), rules=[sum_ab])
    heard: list[list[str]] = []
    with kb.engine.feed.subscribe(lambda c: heard.append(sorted(c.touched))):
        kb.assert_("a", 1, source="human:ann")
        kb.assert_("b", 1, source="human:ann")
        assert kb.value("d") == 2  # the rule heard its inputs touched, through the feed
    assert ["a"] in heard and any("d" in keys for keys in heard)
    assert kb.engine.touched == set() and kb.engine.settled is None  # the rules still follow


def test_a_listener_must_be_callable() -> None:
    with pytest.raises(InvalidTypeError):
        _engine().feed.subscribe(42)  # type: ignore[arg-type]


def test_engine_watch_is_gone() -> None:
    # its spelling before 0.1.0 (issue 36): subscribe to the feed
    assert not hasattr(_engine(), "watch")


def test_stop_waits_for_a_running_listener_and_none_runs_after() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    entered, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow(changes: Changes) -> None:
        calls.append("start")
        entered.set()
        release.wait(10)
        calls.append("end")

    sub = kb.engine.feed.subscribe(slow, labels=False)
    kb.assert_("a", 1, source="human:ann")
    publisher = threading.Thread(target=kb.engine.feed.publish)
    publisher.start()
    assert entered.wait(10)
    returned: list[int] = []
    stopper = threading.Thread(target=lambda: (sub.stop(), returned.append(len(calls))))
    stopper.start()
    time.sleep(0.2)  # room for a stop that does not wait (what this test refuses)
    assert returned == []
    release.set()
    stopper.join(10)
    publisher.join(10)
    assert returned == [2]  # stop returned after the running call ended...
    kb.assert_("b", 1, source="human:ann")
    kb.engine.feed.publish()
    assert calls == ["start", "end"]  # ...and none started after


def test_a_failing_listener_is_warned_about_and_the_change_stands() -> None:
    kb = BeliefBase(clock=ManualClock(0), rules=[sum_ab])

    def fails(changes: Changes) -> None:
        raise ValueError("boom")

    kb.engine.feed.subscribe(fails)
    with pytest.warns(RuntimeWarning, match="boom"):
        kb.assert_("a", 1, source="human:ann")
        assert kb.value("a") == 1


def test_the_feed_makes_no_reference_cycle() -> None:
    """A base is freed as soon as its last reference goes, not at the cyclic collector's next
    pass (slow over a large base): the engine holds its feed, so the feed holds the engine
    weakly and the rule engine's and the vectors' listeners hold only their own sets."""
    import gc
    import weakref

    from support.embedders import trigrams

    made = [BeliefBase(clock=ManualClock(0)), BeliefBase(clock=ManualClock(0), rules=[sum_ab]),
            BeliefBase(clock=ManualClock(0), embedder=trigrams)]
    refs = []
    for kb in made:
        kb.assert_("a", 1, source="human:ann")
        kb.recall("a")
        refs.append((weakref.ref(kb), weakref.ref(kb.parts.engine)))
    del kb
    enabled = gc.isenabled()
    gc.disable()
    try:
        made.clear()
        assert [(b() is None, e() is None) for b, e in refs] == [(True, True)] * 3
    finally:
        if enabled:
            gc.enable()

"""Property: a watch of every key hears exactly what a look at every key before and after each
entry would report (the reference, ``look_at_every_key``), though it compares only the keys the
engine's label feed names: own changes, another writer's entries applied at ``sync()`` or
before a change, premises expiring and decaying as time passes, with or without a deciding
conflict policy."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.journal_workers import change, look_at_every_key

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, open_ledger

KEYS = ["a", "b", "c"]
SOURCES = ["tool:x", "tool:y", "document:z"]

changes = st.one_of(
    st.tuples(st.just("assert"), st.sampled_from(KEYS), st.integers(0, 2),
              st.sampled_from(SOURCES)),
    st.tuples(st.just("expiring"), st.sampled_from(KEYS), st.integers(0, 2),
              st.sampled_from(SOURCES)),
    st.tuples(st.just("retract"), st.sampled_from(KEYS), st.sampled_from(["none", "source"]),
              st.none()),
    st.tuples(st.just("drop"), st.sampled_from(KEYS), st.sampled_from(SOURCES), st.none()),
    st.tuples(st.just("claim"), st.sampled_from(["d", "e"]), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("nogood"), st.sampled_from(KEYS), st.sampled_from(KEYS), st.none()),
    st.tuples(st.just("outcome"), st.sampled_from(SOURCES), st.booleans(), st.none()),
    st.tuples(st.just("many"), st.sampled_from(["a", "f", "g"]), st.integers(0, 2),
              st.sampled_from(SOURCES)),
)
# who makes each change: the watched base, or another writer (heard at sync or next change)
steps = st.one_of(
    st.tuples(st.sampled_from(["own", "other"]), changes),
    st.tuples(st.just("wait"), st.integers(1, 4000)),
    st.tuples(st.just("sync"), st.none()),
)


def heard_by(root: str, plan: list[tuple[Any, Any]], exhaustive: bool,
             deciding: bool) -> list[tuple[Any, ...]]:
    """The events a watch of every key (and one of key ``a``) hears over ``plan``."""
    options: dict[str, Any] = {"conflict_policy": PreferHigherConfidence()} if deciding else {}
    clock = ManualClock(1_000_000)
    path = os.path.join(root, f"{exhaustive}.db")
    kb = BeliefBase.open_session(open_ledger(path), "s", clock=clock, **options)
    other = BeliefBase.open_session(open_ledger(path), "s", clock=clock, **options)
    if exhaustive:
        look_at_every_key(kb)
    heard: list[tuple[Any, ...]] = []
    kb.watch(lambda e: heard.append((e.key, e.value, e.before, e.after, e.entry.seq,
                                     e.entry.operation)))
    kb.watch(lambda e: heard.append(("only a", e.key, e.after)), keys=["a"])
    for who, what in plan:
        if who == "wait":
            clock.advance(what)
        elif who == "sync":
            kb.sync()
        else:
            target = kb if who == "own" else other
            if who == "other":
                other.sync()
            change(target, what)
    kb.sync()
    return heard


@settings(max_examples=int(os.environ.get("COROLLARY_PROPERTY_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(plan=st.lists(steps, max_size=14), deciding=st.booleans())
def test_a_watch_of_every_key_hears_what_a_look_at_every_key_hears(
        plan: list[tuple[Any, Any]], deciding: bool) -> None:
    with tempfile.TemporaryDirectory() as root:
        fast = heard_by(root, plan, exhaustive=False, deciding=deciding)
        reference = heard_by(root, plan, exhaustive=True, deciding=deciding)
    assert fast == reference


def test_the_reference_and_the_feed_hear_a_cascade_and_an_expiry(tmp_path: Any) -> None:
    """A retraction that takes a claim down with it, and a premise that expires between
    entries (time alone: absorbed before the next entry, as a look at every key reports)."""
    plan: list[tuple[Any, Any]] = [
        ("own", ("assert", "a", 1, "tool:x")),
        ("own", ("claim", "d", 2, True)),
        ("own", ("expiring", "b", 0, "tool:y")),
        ("other", ("retract", "a", "none", None)),
        ("wait", 2000),
        ("own", ("assert", "c", 0, "tool:x")),
        ("own", ("many", "f", 1, "tool:x")),
    ]
    fast = heard_by(str(tmp_path), plan, exhaustive=False, deciding=False)
    assert fast == heard_by(str(tmp_path), plan, exhaustive=True, deciding=False)
    every = [h for h in fast if h[0] != "only a"]
    assert ("a", 1, "IN", "OUT", 4, "retract") in every
    assert ("d", 2, "IN", "OUT", 4, "retract") in every  # the claim fell with its input
    assert not any(h[0] == "b" and h[3] == "OUT" for h in every)  # the expiry is time's
    assert ("c", 0, None, "IN", 5, "assert_") in every
    assert [h[0] for h in every[-3:]] == ["f", "f:1", "f:1:2"]

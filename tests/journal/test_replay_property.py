"""Property: any sequence of changes applied live to a journaled base leaves it in the state a
fresh open (a replay of its journal) reaches, with or without rules, checkpoints or refusals."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.journal_workers import change, journal_total, state

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger

KEYS = ["a", "b", "c", "total"]
SOURCES = ["tool:x", "tool:y", "document:z"]

ops = st.one_of(
    st.tuples(st.just("assert"), st.sampled_from(KEYS[:3]), st.integers(0, 3),
              st.sampled_from(SOURCES)),
    st.tuples(st.just("retract"), st.sampled_from(KEYS), st.sampled_from(["none", "source"]),
              st.none()),
    st.tuples(st.just("drop"), st.sampled_from(KEYS[:3]), st.sampled_from(SOURCES), st.none()),
    st.tuples(st.just("claim"), st.sampled_from(["c", "d"]), st.integers(0, 6),
              st.booleans()),
    st.tuples(st.just("nogood"), st.sampled_from(KEYS[:3]), st.sampled_from(KEYS[:3]),
              st.none()),
    st.tuples(st.just("outcome"), st.sampled_from(SOURCES), st.booleans(), st.none()),
    st.tuples(st.just("resolve"), st.sampled_from(KEYS[:3]), st.integers(0, 3), st.none()),
    st.tuples(st.just("wait"), st.integers(1, 5000), st.none(), st.none()),
)


def apply(kb: BeliefBase, clock: ManualClock, op: tuple[Any, ...]) -> None:
    if op[0] == "wait":
        clock.advance(op[1])
    else:
        change(kb, op)  # a refusal writes nothing (checked by the comparison below)


@settings(max_examples=int(os.environ.get("JOURNAL_EXAMPLES", "25")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, max_size=30), st.booleans(), st.integers(2, 40))
def test_a_live_base_equals_a_replay_of_its_journal(script: list[tuple[Any, ...]], rules: bool,
                                                   every: int) -> None:
    ledger = TrustLedger()
    clock = ManualClock(1000)
    options: dict[str, Any] = {"rules": [journal_total]} if rules else {}
    kb = BeliefBase.open_session(ledger, "p", clock=clock, checkpoint_every=every, **options)
    for op in script:
        apply(kb, clock, op)
    fresh = BeliefBase.open_session(ledger, "p", clock=clock, **options)
    assert fresh.journal_seq == kb.journal_seq  # type: ignore[attr-defined]
    assert state(fresh) == state(kb)
    assert fresh.conflicts() == kb.conflicts()
    assert state(kb.as_of(clock())) == state(kb)  # a read-only base at now: the same
    ledger.store.prune_checkpoints("p", 0)  # type: ignore[attr-defined]  # only seq 0 left
    from_zero = BeliefBase.open_session(ledger, "p", clock=clock, **options)
    assert state(from_zero) == state(kb)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, max_size=20))
def test_the_same_on_a_sqlite_ledger(script: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ledger = open_ledger(os.path.join(tmp, "l.db"))
        clock = ManualClock(1000)
        kb = BeliefBase.open_session(ledger, "p", clock=clock, rules=[journal_total])
        for op in script:
            apply(kb, clock, op)
        fresh = BeliefBase.open_session(open_ledger(os.path.join(tmp, "l.db")), "p",
                                        clock=clock, rules=[journal_total])
        assert state(fresh) == state(kb)
        fresh.ledger.close()
        ledger.close()

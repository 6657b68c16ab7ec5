"""Issue 36, item 1: one ``apply`` for every change, all or nothing whatever raises.

A random sequence of changes, with failures injected at random points, must leave the base, its
journal and its checkpoints equal to the same sequence without the failed changes: on a plain
base, on a SQLite session and on a PostgreSQL session (``COROLLARY_TEST_PG_URL``; skipped when
unset). A failure is injected by a real mechanism, in one of two places, and raises an
``Exception`` (one that looks like the base's own refusal included) or a ``BaseException`` that
is not one (``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit``, a subclass of the test's
own):

- *inside*: a registered change (``Failing``) whose apply makes its inner change, of any kind,
  through ``apply`` and then raises: the change is partly made when it raises;
- *after*: the base's conflict policy watches changes, and its ``after_change`` hook raises
  after the change (any kind, applied as itself) is made; a change that runs no hook is made,
  and the run without the failed changes makes it too.

Changes the base refuses (a retraction of a key it does not hold) fail alike in both runs and
change nothing either.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.journal_workers import state
from support.ledger_targets import PG_URL, Target

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger, rule
from corollary.changes import (
    AddRule,
    Assert,
    AssertMany,
    Change,
    Claim,
    Depend,
    End,
    Forget,
    Nogood,
    RecordOutcome,
    RemoveRule,
    ReplaceWhen,
    Retract,
    apply,
    register_change,
)
from corollary.foundations.errors import CorollaryError, InvalidInputError
from corollary.tms.conflicts import ConflictPolicy

KEYS = ("a", "b", "c")
SOURCES = ("tool:x", "tool:y")


@rule(inputs={"a": "a"}, output="double_a")
def double_a(a: Any) -> Any:
    return 2 * a if isinstance(a, int) else None


class Injected(RuntimeError):
    """A failure a test injects (an ``Exception``)."""


class InjectedInterrupt(BaseException):
    """A failure a test injects that no ``except Exception`` catches."""


class InjectedRefusal(InvalidInputError):
    """A failure a test injects that looks like the base's own refusal (a hook reading a
    conflicted key raises one)."""


#: What an injected failure raises.
FAILURES: tuple[type[BaseException], ...] = (Injected, InjectedInterrupt, InjectedRefusal,
                                             KeyboardInterrupt, SystemExit, GeneratorExit)


class InjectsAfterChange(ConflictPolicy):
    """A policy whose ``after_change`` hook raises ``armed`` once, when armed (a policy of the
    default kind otherwise: a reopened session makes a new one, unarmed)."""

    watches_changes = True

    def __init__(self) -> None:
        self.armed: type[BaseException] | None = None

    def after_change(self, base: Any) -> None:
        failure, self.armed = self.armed, None
        if failure is not None:
            raise failure("injected after the change was made")


@attrs.frozen(slots=True)
class ListPrice(Change):
    """A user's own change: two assertions."""

    op = "test_list_price"
    item: str
    price: int

    def subjects(self, result: Any, resolved: Any) -> list[list[Any]]:
        return [[f"price:{self.item}", self.price, "tool:shop", None]]


def list_price(kb: BeliefBase, change: ListPrice) -> None:
    kb.assert_(f"price:{change.item}", change.price, source="tool:shop")
    kb.assert_(f"listed:{change.item}", True, source="tool:shop")


@attrs.frozen(slots=True)
class Failing(Change):
    """A change that makes ``inner`` (any change) and then raises."""

    op = "test_failing"
    inner: Any
    failure: Any = Injected


def failing(kb: BeliefBase, change: Failing) -> None:
    apply(kb, change.inner)
    raise change.failure("injected after the change was made")


register_change(ListPrice, list_price)
register_change(Failing, failing)

key = st.sampled_from(KEYS)
source = st.sampled_from(SOURCES)
small = st.integers(0, 3)
#: A strategy for each kind of change drawn (every kind a failure is injected in).
KINDS: dict[type[Change], st.SearchStrategy[Change]] = {
    Assert: st.builds(Assert, key, small, source),
    AssertMany: st.builds(lambda rows: AssertMany(rows),
                          st.lists(st.tuples(key, small, source), min_size=1, max_size=3)),
    Claim: st.builds(lambda k, v: Claim(k, v, "model:m"), key, small),
    Retract: st.builds(lambda k, fault: Retract(k, fault=fault), key,
                       st.sampled_from(("none", "source"))),
    Nogood: st.builds(lambda k1, k2: Nogood((k1, k2)), key, key),
    RecordOutcome: st.builds(lambda s, ok, k: RecordOutcome(s, ok, key=k), source,
                             st.booleans(), key),
    End: st.builds(lambda k, s: End(k, source=s), key, source),
    Depend: st.builds(lambda k, v, on: Depend(k, v, [on], source="model:m"), key, small, key),
    ReplaceWhen: st.builds(lambda k, v, c: ReplaceWhen(k, v, c, source="model:m"), key, small,
                           key),
    Forget: st.builds(lambda k: Forget(k), key),
    AddRule: st.just(AddRule(double_a)),
    RemoveRule: st.just(RemoveRule(double_a)),
    ListPrice: st.builds(ListPrice, st.sampled_from(("tea", "jam")), small),
}
CHANGES = st.one_of(*KINDS.values())
#: Each step: a change, where a failure is injected in it (``None``: nowhere) and what it raises.
Step = tuple[Change, str | None, type[BaseException]]
STEPS = st.lists(st.tuples(CHANGES, st.sampled_from((None, "inside", "after")),
                           st.sampled_from(FAILURES)), min_size=1, max_size=8)


def run(kb: BeliefBase, steps: list[Step], inject: bool,
        injected: Sequence[bool] = ()) -> list[bool]:
    """Apply the steps, with their failures when ``inject``; without, leave out the steps
    with a failure that ``injected`` says raised (refused or failed: not made). Return
    whether each step raised."""
    failed = []
    for i, (change, where, failure) in enumerate(steps):
        if not inject and where is not None and injected[i]:
            continue
        if inject and where == "after":
            policy = kb.conflict_policy
            assert isinstance(policy, InjectsAfterChange)
            policy.armed = failure
        try:
            apply(kb, Failing(change, failure) if inject and where == "inside" else change)
            failed.append(False)
        except FAILURES as exc:
            assert type(exc) is failure, exc
            failed.append(True)
        except CorollaryError:
            failed.append(True)
        finally:
            if isinstance(kb.conflict_policy, InjectsAfterChange):
                kb.conflict_policy.armed = None  # a change that ran no hook: made
    return failed


def seen(kb: BeliefBase) -> dict[str, Any]:
    """What a caller can read of a base: beliefs with labels and confidences, rules, the
    ledger's outcomes (their ids aside: a plain base's derive from its random id)."""
    return {"state": state(kb), "rules": [r.name for r in kb.rules],
            "outcomes": sorted(((o.source, o.correct, o.key, o.reason)
                                for o in kb.ledger.outcomes()), key=repr)}


def journal_of(kb: BeliefBase) -> list[tuple[Any, ...]]:
    return [(h.operation, h.key, repr(h.value), h.label) for h in kb.history()]


COMMON = settings(max_examples=25, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow])


@COMMON
@given(STEPS)
def test_a_plain_base_ends_as_without_the_failed_changes(steps: list[Step]) -> None:
    failed = BeliefBase(clock=ManualClock(100), conflict_policy=InjectsAfterChange())
    clean = BeliefBase(clock=ManualClock(100), conflict_policy=InjectsAfterChange())
    outcomes = run(failed, steps, inject=True)
    run(clean, steps, inject=False, injected=outcomes)
    assert seen(failed) == seen(clean), outcomes


def _sessions(ledgers: Sequence[TrustLedger], steps: list[Step]) -> None:
    """The two runs in two ledgers of their own (what one learns of a source's outcomes is
    not the other's)."""
    failed, clean = (BeliefBase.open_session(ledger, "s", clock=ManualClock(100),
                                             checkpoint_every=2,
                                             conflict_policy=InjectsAfterChange())
                     for ledger in ledgers)
    outcomes = run(failed, steps, inject=True)
    run(clean, steps, inject=False, injected=outcomes)
    assert journal_of(failed) == journal_of(clean), outcomes
    assert seen(failed) == seen(clean), outcomes
    failed.checkpoint()
    clean.checkpoint()
    again = [BeliefBase.open_session(ledger, "s", clock=ManualClock(100)) for ledger in ledgers]
    assert seen(again[0]) == seen(again[1]) == seen(clean), outcomes
    assert journal_of(again[0]) == journal_of(clean)


@settings(COMMON, max_examples=12)
@given(STEPS)
def test_a_sqlite_session_ends_as_without_the_failed_changes(
        tmp_path: Path, steps: list[Step]) -> None:
    ledgers = tuple(open_ledger(str(tmp_path / f"{uuid.uuid4().hex}.db")) for _ in range(2))
    try:
        _sessions(ledgers, steps)
    finally:
        for ledger in ledgers:
            ledger.close()


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
@settings(COMMON, max_examples=8)
@given(STEPS)
def test_a_postgres_session_ends_as_without_the_failed_changes(
        tmp_path: Path, steps: list[Step]) -> None:
    targets = [Target("postgres", tmp_path) for _ in range(2)]
    ledgers = tuple(target.open() for target in targets)
    try:
        _sessions(ledgers, steps)
    finally:
        for ledger, target in zip(ledgers, targets, strict=True):
            ledger.close()
            target.cleanup()


def test_a_failure_is_injected_in_every_kind_of_change() -> None:
    """The steps draw every kind of change the base makes from data alone, and a user's."""
    from corollary.changes import base_changes

    kinds = set(KINDS)
    # the base's other changes need a promise, a tool, a conflict or a model first
    # (tests/changes/test_values.py applies each of them through apply)
    others = {c for c in vars(base_changes).values()
              if isinstance(c, type) and issubclass(c, base_changes.BaseChange)
              and c is not base_changes.BaseChange} - kinds
    assert {c.__name__ for c in others} == {"AddTool", "Answer", "Call", "FitCalibrator",
                                            "Guarantee", "Remember", "RemoveGuarantee",
                                            "Resolve"}

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
change nothing either: every step that raises, refused or failed, leaves what a caller can read
of the base (beliefs, rules, tools, tool calls, promises, verdicts, the calibrator, outcomes)
as it was before it, which a change left half-made would not (a refusal left half-made is
made alike in both runs, so only this per-step check sees it). A plain base without a policy
that watches changes runs the same steps (no failure can be injected after a change there):
there ``apply`` calls the base's own method with no snapshot behind it, so what keeps a
refusal all or nothing is the method itself.

Every kind of change is drawn (``KINDS``, kept whole by
``test_every_change_value_is_drawn``), each so that it is sometimes made and sometimes
refused: a resolution of a key two sources disagree on (the default policy leaves the conflict
open) or of a nogood, a tool added or a function no ``@tool`` declares, a tool's call
with a result or with one that is no belief's value, a remember made by a scripted model's
reply (``REMEMBERED``), promises on examples or on the base's own outcomes, answers under
them, and a calibrator; rules that fail on some values make changes fail with ``RuleError``.
Each run starts from an open conflict, a held key, an outcome and such a rule (``START``),
makes step ``i`` at second ``101 + i``, and draws its kind of policy: the default kind (it
decides nothing) or ``PreferNewer``'s (which ``kb.end`` needs).
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

from corollary import BeliefBase, ManualClock, TrustLedger, Valid, open_ledger, rule, tool
from corollary.changes import (
    AddRule,
    AddTool,
    Answer,
    Assert,
    AssertMany,
    Call,
    Change,
    Claim,
    Depend,
    End,
    FitCalibrator,
    Forget,
    Guarantee,
    Nogood,
    RecordOutcome,
    Remember,
    RemoveGuarantee,
    RemoveRule,
    ReplaceWhen,
    Resolve,
    Retract,
    apply,
    register_change,
)
from corollary.facade.operations import OperationCall, install_log
from corollary.foundations.errors import CorollaryError, InvalidInputError
from corollary.models import Reply, ScriptedModel, ToolCall
from corollary.reasons.calls import prepare_call
from corollary.tms.conflicts import ConflictPolicy, PreferNewer

KEYS = ("a", "b", "c")
SOURCES = ("tool:x", "tool:y")


@rule(inputs={"a": "a"}, output="double_a")
def double_a(a: Any) -> Any:
    return 2 * a if isinstance(a, int) else None


@rule(inputs={"b": "b"}, output="b_checked")
def refuses_b_three(b: Any) -> Any:
    """A rule that fails on ``b = 3``: the change that holds it is undone (``RuleError``)."""
    if b == 3:
        raise ValueError("b is never 3")
    return b


@rule(inputs={"n": "pantry:tea"}, output="tea_checked")
def refuses_tea_three(n: Any) -> Any:
    """A rule that fails on a tool's result of 3 (a call that added its tool first)."""
    if n == 3:
        raise ValueError("the pantry never has 3 teas")
    return n


# named as no other test's tool: a reopened session binds its tools by name among those the
# process defines (tests/changes/test_values.py has a "shelf")
@tool(trust=0.8, key="pantry:{item}")
def pantry(item: str) -> int:
    return len(item)


@tool(trust=0.6, key="cellar:{item}")
def cellar(item: str) -> int:
    return 2 * len(item)


def untooled(item: str) -> int:
    """A function no ``@tool`` declares: adding it, or calling it, is refused."""
    return len(item)


class _Captured:
    """An operation log that keeps the arguments of the ``remember`` change a base makes."""

    def __init__(self) -> None:
        self.arguments: list[dict[str, Any]] = []

    def run(self, call: OperationCall) -> Any:
        if call.name == "remember":
            self.arguments.append(call.bind())
        return call.proceed()

    def resolved(self, what: str, value: Any) -> None:
        pass


def remembered(text: str, facts: list[dict[str, Any]]) -> Remember:
    """The ``Remember`` value ``kb.remember`` makes of ``text`` when a scripted model names
    ``facts`` (a base of its own, at the time the properties' bases read)."""
    kb = BeliefBase(clock=ManualClock(100))
    captured = _Captured()
    install_log(kb, captured)
    model = ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": facts})])])
    kb.remember(text, source="human:ann", model=model)
    (arguments,) = captured.arguments
    return Remember(**arguments)


def _fact(attribute: str, value: Any, quote: str) -> dict[str, Any]:
    return {"subject": "Ann", "attribute": attribute, "value": value, "quote": quote}


_LIVES = remembered("Ann lives in Oslo. Ann is 30.",
                    [_fact("city", "Oslo", "Ann lives in Oslo"), _fact("age", 30, "Ann is 30"),
                     _fact("pet", "cat", "Ann has a cat")])  # no such quote: refused, counted
_MOVED = remembered("Ann lives in Rome.", [_fact("city", "Rome", "Ann lives in Rome")])
#: Remember values: two a scripted model's replies made (one refusing a fact), and two the
#: base refuses: a fact with a key that is none, and one whose start is no time (the base
#: reads it only once the documents and the facts before it are written)
REMEMBERED = (_LIVES, _MOVED,
              attrs.evolve(_MOVED, facts=[["", "Rome", "Ann lives in Rome", 0, 100.0, None,
                                           None]]),
              attrs.evolve(_LIVES, facts=[*_LIVES.facts,
                                          ["ann:pet", "cat", "Ann", 0, "then", None, None]]))

#: Examples a promise and a calibrator are fitted on (a threshold exists at risk 0.1).
EXAMPLES = [(0.97, True)] * 40 + [(0.5, False)] * 10


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


class _Injects(ConflictPolicy):
    """A policy whose ``after_change`` hook raises ``armed`` once, when armed (a policy of the
    kind it is otherwise: a reopened session makes a new one, unarmed)."""

    watches_changes = True
    armed: type[BaseException] | None = None

    def arm(self, failure: type[BaseException] | None) -> None:
        """Raise ``failure`` after the next change (``None``: nothing)."""
        object.__setattr__(self, "armed", failure)  # PreferNewer's kind is a frozen class

    def after_change(self, base: Any) -> None:
        failure = self.armed
        self.arm(None)
        if failure is not None:
            raise failure("injected after the change was made")


class InjectsAfterChange(_Injects):
    """Of the default kind: it decides nothing (two values of a key stay an open conflict)."""


class InjectsAfterNewer(_Injects, PreferNewer):
    """Of ``PreferNewer``'s kind (saved as one): the values of a key ordered in time, which
    ``kb.end`` needs (it refuses a base whose policy does not)."""


#: The kinds of policy a run's bases have: each example draws one.
POLICIES = st.sampled_from((InjectsAfterChange, InjectsAfterNewer))


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

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """Names only: a session packs the entry before the change runs, and a tool, a rule,
        a prepared call or an exception class is no plain data (packing its fields refused
        the change before its inner change ran). It always raises: no entry is written."""
        return (), {"inner": type(self.inner).__name__, "failure": self.failure.__name__}


def failing(kb: BeliefBase, change: Failing) -> None:
    apply(kb, change.inner)
    raise change.failure("injected after the change was made")


register_change(ListPrice, list_price)
register_change(Failing, failing)

key = st.sampled_from(KEYS)
source = st.sampled_from(SOURCES)
small = st.integers(0, 3)
#: The rules a change adds or removes: one that derives, two that fail on some values.
RULES = (double_a, refuses_b_three, refuses_tea_three)
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
    # a key, a source (every premise it gave) or a scope (the keys under a prefix) erased
    Forget: st.one_of(st.builds(lambda k: Forget(k), key),
                      st.builds(lambda s: Forget(source=s), st.sampled_from((*SOURCES,
                                                                            "human:ann"))),
                      st.sampled_from((Forget(scope="ann"), Forget(scope="pantry")))),
    AddRule: st.sampled_from(RULES).map(AddRule),
    RemoveRule: st.sampled_from(RULES).map(RemoveRule),
    ListPrice: st.builds(ListPrice, st.sampled_from(("tea", "jam")), small),
    # a key two sources disagree on stays in conflict (the default policy decides nothing);
    # a winner that is no standing value, or a key in no conflict, is refused
    Resolve: st.one_of(
        st.builds(lambda k, v, learn: Resolve(k, winner=v, learn=learn), key, small,
                  st.booleans()),
        st.builds(lambda n, k: Resolve(f"nogood:{n}", give_up=k), st.integers(1, 2), key)),
    AddTool: st.sampled_from((AddTool(pantry), AddTool(cellar), AddTool(untooled))),
    # a tool's call adds the tool when the base has not got it; a set is no belief's value,
    # and a span that ends before it starts is no time
    Call: st.builds(lambda called, result: Call(called[0], prepare_call(*called, {}), result),
                    st.sampled_from(((pantry, None, ("tea",)), (pantry, None, ("jam",)),
                                     (cellar, None, ("tea",)))),
                    st.sampled_from((3, 1, {1, 2}, Valid(3, valid_from=200.0,
                                                         valid_until=150.0)))),
    Remember: st.sampled_from(REMEMBERED),
    # on examples, or on the base's own outcomes that carry a confidence (refused when it has
    # none), or on no examples at all (refused)
    Guarantee: st.sampled_from((Guarantee("g", EXAMPLES, settings={"max_risk": 0.1}),
                                Guarantee("default", settings={"max_error": 0.5}),
                                Guarantee("g", [], settings={"max_risk": 0.1}))),
    RemoveGuarantee: st.sampled_from((RemoveGuarantee("g"), RemoveGuarantee("default"),
                                      RemoveGuarantee(""))),
    FitCalibrator: st.sampled_from((FitCalibrator(EXAMPLES), FitCalibrator(),
                                    FitCalibrator([]))),
    # "g" refused until it is attached while another is; an unknown key refused
    Answer: st.builds(Answer, st.sampled_from((*KEYS, "pantry:tea", "ann:city")),
                      st.sampled_from(("default", "g", None))),
}
CHANGES = st.one_of(*KINDS.values())
#: Each step: a change, where a failure is injected in it (``None``: nowhere) and what it raises.
Step = tuple[Change, str | None, type[BaseException]]
STEPS = st.lists(st.tuples(CHANGES, st.sampled_from((None, "inside", "after")),
                           st.sampled_from(FAILURES)), min_size=1, max_size=8)


#: What each run starts from: a key two sources disagree on (an open conflict: the default
#: policy decides nothing), a key held alone, an outcome that carries a confidence (the base's
#: own pairs), a rule that fails on some of a tool's results.
START = (Assert("a", 1, "tool:x"), Assert("a", 2, "tool:y"), Assert("b", 1, "tool:x"),
         RecordOutcome("tool:x", True, key="b"), AddRule(refuses_tea_three))


def run(kb: BeliefBase, clock: ManualClock, steps: list[Step], inject: bool,
        injected: Sequence[bool] = ()) -> list[bool]:
    """Apply :data:`START`, then the steps, with their failures when ``inject``; without,
    leave out the steps with a failure that ``injected`` says raised (refused or failed: not
    made). Step ``i`` is made a second after ``i - 1`` whether or not a step is left out
    (an end then finds the value it ends held before it). Return whether each step raised;
    each that raised left the base as it was. ``clock`` is the base's."""
    for change in START:
        apply(kb, change)
    failed = []
    for i, (change, where, failure) in enumerate(steps):
        clock.set(101.0 + i)
        if not inject and where is not None and injected[i]:
            continue
        policy = kb.conflict_policy
        watched = isinstance(policy, _Injects)
        if inject and where == "after" and watched:
            policy.arm(failure)
        before = seen(kb)
        try:
            apply(kb, Failing(change, failure) if inject and where == "inside" else change)
            failed.append(False)
        except FAILURES as exc:
            assert type(exc) is failure, exc
            failed.append(True)
        except CorollaryError:
            failed.append(True)
        finally:
            if watched:
                policy.arm(None)  # a change that ran no hook: made
        if failed[-1]:
            assert seen(kb) == before, (i, change, where, failure)
    return failed


def seen(kb: BeliefBase) -> dict[str, Any]:
    """What a caller can read of a base: beliefs with labels and confidences, rules, tools,
    the tool calls remembered, promises, verdicts, the calibrator, the ledger's outcomes
    (their ids aside: a plain base's derive from its random id)."""
    calibrator = kb.calibrator
    return {"state": state(kb), "rules": [r.name for r in kb.rules],
            "tools": sorted(map(repr, kb.tools.values())),
            "calls": [(c.key, repr(c.value), c.source, c.arguments) for c in kb.calls()],
            "promises": {name: p.to_dict() for name, p in kb.promises.items()},
            "verdicts": sorted(map(repr, kb.verdicts.items())),
            "calibrator": None if calibrator is None else calibrator.to_dict(),
            "outcomes": sorted(((o.source, o.correct, o.key, o.reason, o.confidence)
                                for o in kb.ledger.outcomes()), key=repr)}


def journal_of(kb: BeliefBase) -> list[tuple[Any, ...]]:
    return [(h.operation, h.key, repr(h.value), h.label) for h in kb.history()]


COMMON = settings(max_examples=25, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow])


def _plain(steps: list[Step], policy: type[ConflictPolicy]) -> None:
    """The two runs on two plain bases, each with a ``policy`` of its own."""
    clocks = ManualClock(100), ManualClock(100)
    failed, clean = (BeliefBase(clock=clock, conflict_policy=policy()) for clock in clocks)
    outcomes = run(failed, clocks[0], steps, inject=True)
    run(clean, clocks[1], steps, inject=False, injected=outcomes)
    assert seen(failed) == seen(clean), outcomes


@COMMON
@given(STEPS, POLICIES)
def test_a_plain_base_ends_as_without_the_failed_changes(steps: list[Step],
                                                         policy: type[_Injects]) -> None:
    _plain(steps, policy)


@COMMON
@given(STEPS, st.sampled_from((ConflictPolicy, PreferNewer)))
def test_a_plain_base_without_a_watching_policy_ends_as_without_the_failed_changes(
        steps: list[Step], policy: type[ConflictPolicy]) -> None:
    # no hook to fail after a change: the failures are injected inside changes only, and a
    # refused change of the base's own is all or nothing by the method alone
    _plain([(change, None if where == "after" else where, failure)
            for change, where, failure in steps], policy)


def _sessions(ledgers: Sequence[TrustLedger], steps: list[Step],
              policy: type[_Injects]) -> None:
    """The two runs in two ledgers of their own (what one learns of a source's outcomes is
    not the other's)."""
    clocks = ManualClock(100), ManualClock(100)
    failed, clean = (BeliefBase.open_session(ledger, "s", clock=clock, checkpoint_every=2,
                                             conflict_policy=policy())
                     for ledger, clock in zip(ledgers, clocks, strict=True))
    outcomes = run(failed, clocks[0], steps, inject=True)
    run(clean, clocks[1], steps, inject=False, injected=outcomes)
    assert journal_of(failed) == journal_of(clean), outcomes
    assert seen(failed) == seen(clean), outcomes
    failed.checkpoint()
    clean.checkpoint()
    again = [BeliefBase.open_session(ledger, "s", clock=ManualClock(clocks[1]()))
             for ledger in ledgers]
    assert seen(again[0]) == seen(again[1]) == seen(clean), outcomes
    assert journal_of(again[0]) == journal_of(clean)


@settings(COMMON, max_examples=12)
@given(STEPS, POLICIES)
def test_a_sqlite_session_ends_as_without_the_failed_changes(
        tmp_path: Path, steps: list[Step], policy: type[_Injects]) -> None:
    ledgers = tuple(open_ledger(str(tmp_path / f"{uuid.uuid4().hex}.db")) for _ in range(2))
    try:
        _sessions(ledgers, steps, policy)
    finally:
        for ledger in ledgers:
            ledger.close()


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")
@settings(COMMON, max_examples=8)
@given(STEPS, POLICIES)
def test_a_postgres_session_ends_as_without_the_failed_changes(
        tmp_path: Path, steps: list[Step], policy: type[_Injects]) -> None:
    targets = [Target("postgres", tmp_path) for _ in range(2)]
    ledgers = tuple(target.open() for target in targets)
    try:
        _sessions(ledgers, steps, policy)
    finally:
        for ledger, target in zip(ledgers, targets, strict=True):
            ledger.close()
            target.cleanup()


def test_every_change_value_is_drawn() -> None:
    """Every value class of ``corollary.changes`` (exported or not) is a kind the steps draw,
    so that "every kind of change" stays true when one is added."""
    import corollary.changes as changes
    from corollary.changes import base_changes

    abstract = {Change, base_changes.BaseChange}
    found = [getattr(changes, name) for name in changes.__all__]
    found += [c for module in (changes, base_changes) for c in vars(module).values()]
    values = {c for c in found if isinstance(c, type) and issubclass(c, Change)} - abstract
    assert {c.__name__ for c in values - set(KINDS)} == set()


@settings(max_examples=1, deadline=None)
@given(st.data())
def test_each_kind_s_strategy_draws_its_kind(data: st.DataObject) -> None:
    for kind, strategy in KINDS.items():
        assert type(data.draw(strategy)) is kind, kind.__name__


@settings(max_examples=1, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_failure_injected_inside_reaches_a_session_s_change(tmp_path: Path,
                                                               data: st.DataObject) -> None:
    # a session packs a change's entry before it runs: Failing's fields (a tool, a rule, an
    # exception class) packed as they were refused it there, its inner change never made
    ledger = open_ledger(str(tmp_path / f"{uuid.uuid4().hex}.db"))
    try:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(100))
        for kind, strategy in KINDS.items():
            with pytest.raises((InjectedInterrupt, CorollaryError)) as raised:
                apply(kb, Failing(data.draw(strategy), InjectedInterrupt))
            assert "kept in a session journal" not in str(raised.value), kind.__name__
    finally:
        ledger.close()

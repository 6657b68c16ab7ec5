"""``apply(kb, value)`` runs the value's checks, the ones its method runs, and makes that very
value: no second value built from its fields (docs/extending.md, "Where the checks sit")."""

from __future__ import annotations

from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer, tool
from corollary.changes import (
    AddRule,
    Answer,
    Assert,
    BaseChange,
    Call,
    Claim,
    Depend,
    End,
    Forget,
    Guarantee,
    Nogood,
    RecordOutcome,
    Remember,
    ReplaceWhen,
    Resolve,
    Retract,
    apply,
)
from corollary.facade.effects import CHECKS, EFFECTS
from corollary.facade.operations import OperationCall, install_log
from corollary.foundations.errors import InvalidInputError, InvalidTypeError
from corollary.reasons.calls import prepare_call


@tool(trust=0.8, key="len:{item}")
def size(item: str) -> int:
    """A tool whose result is the item's length."""
    return len(item)


_CALL = prepare_call(size, None, ("ab",), {})
_DOC = [["doc:1", "Ann works at Acme.", "human:ann", None]]


class Heard:
    """A log that keeps the value each change reached it as, and makes it."""

    def __init__(self) -> None:
        self.changes: list[Any] = []

    def run(self, call: OperationCall) -> Any:
        self.changes.append(call.change)
        return call.proceed()

    def resolved(self, what: str, value: Any) -> None:
        pass


def _base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("hq", "Austin", source="human:ann", valid_from=100.0)
    kb.assert_("ceo", "Ann", source="human:ann", valid_from=100.0)
    return kb


VALUES: list[BaseChange] = [
    Retract("hq"),
    End("hq", source="human:bob", at=500.0, reason="moved"),
    Claim("office", "Austin", "model:m", ["hq"]),
    Depend("office", "Austin", ["hq"], source="model:m"),
    ReplaceWhen("office", "Dallas", "hq", source="model:m"),
    RecordOutcome("human:ann", True, key="hq"),
    Answer("hq", None),
    Nogood(("hq", "ceo")),
    Forget("ceo"),
    Call(size, _CALL, 2),
    Remember(_DOC, "model:m", [["ann:employer", "Acme", "Acme", 0, None, None, None]], []),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_apply_makes_the_value_it_is_given(value: BaseChange) -> None:
    kb = _base()
    log = Heard()
    install_log(kb, log)
    apply(kb, value)
    assert log.changes and log.changes[0] is value  # the value given, not one built again


@pytest.mark.parametrize(("value", "error"), [
    (Retract("hq", fault="maybe"), InvalidInputError),
    (End("hq", source="human:bob", reason=3), InvalidTypeError),  # type: ignore[arg-type]
    (ReplaceWhen("hq", "Dallas", "hq", source="model:m"), InvalidInputError),
    (AddRule("no rule"), InvalidTypeError),  # type: ignore[arg-type]
    # the methods whose effects began with their checks (so a log heard them first)
    (Resolve("hq", "Austin", learn="yes"), InvalidTypeError),  # type: ignore[arg-type]
    (Nogood(("hq",)), InvalidInputError),
    (Forget(), InvalidInputError),
    (Forget("hq", reason=" "), InvalidInputError),
    (Guarantee(options=object(), settings={"max_risk": 0.1}),  # type: ignore[arg-type]
     InvalidInputError),
    (Call(size, _CALL, object()), InvalidTypeError),
    (Remember(_DOC, "model:m", [["k", object(), "q", 0, None, None, None]], []),
     InvalidTypeError),
], ids=lambda v: type(v).__name__)
def test_apply_refuses_what_the_method_refuses_and_nothing_reaches_the_log(
        value: BaseChange, error: type[Exception]) -> None:
    kb = _base()
    log = Heard()
    install_log(kb, log)
    with pytest.raises(error):
        apply(kb, value)
    assert log.changes == []
    assert kb.value("hq") == "Austin"


def test_every_change_of_the_base_has_its_checks_in_the_one_table() -> None:
    # the plain assertion's checks are its effect's own (the fast lane): its check is the value
    kb = _base()
    value = Assert("k", 1, "tool:feed")
    assert CHECKS[Assert](kb, value) is value
    assert set(CHECKS) == set(EFFECTS)  # every one of the base's own changes


@pytest.mark.parametrize("call", [
    lambda kb: kb.resolve("hq", "Austin", learn="yes"),
    lambda kb: kb.nogood("hq"),
    lambda kb: kb.forget(),
    lambda kb: kb.guarantee(options=object(), max_risk=0.1),
], ids=["resolve", "nogood", "forget", "guarantee"])
def test_a_method_checks_before_it_makes_its_value(call: Any) -> None:
    # the method's checks run before the value is made: no log hears a change it refuses
    kb = _base()
    log = Heard()
    install_log(kb, log)
    with pytest.raises((InvalidInputError, InvalidTypeError)):
        call(kb)
    assert log.changes == []

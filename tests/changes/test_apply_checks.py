"""``apply(kb, value)`` runs the value's checks, the ones its method runs, and makes that very
value: no second value built from its fields (docs/extending.md, "Where the checks sit")."""

from __future__ import annotations

from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.changes import (
    AddRule,
    Answer,
    Assert,
    BaseChange,
    Claim,
    Depend,
    End,
    RecordOutcome,
    ReplaceWhen,
    Retract,
    apply,
)
from corollary.facade.effects import CHECKS
from corollary.facade.operations import OperationCall, install_log
from corollary.foundations.errors import InvalidInputError, InvalidTypeError


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


def test_every_value_with_checks_has_them_in_the_one_table() -> None:
    # the plain assertion's checks are its effect's own (the fast lane): its check is the value
    kb = _base()
    value = Assert("k", 1, "tool:feed")
    assert CHECKS[Assert](kb, value) is value
    assert {Retract, End, Claim, Depend, ReplaceWhen, RecordOutcome, Answer} <= set(CHECKS)

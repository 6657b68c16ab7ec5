"""A change the base refuses is refused whole, before anything changes, with a typed error.

Found by the property of ``tests/changes/test_apply_property.py`` (a plain base without a policy
that watches changes: ``apply`` calls the base's own method there, with no snapshot behind it):
each test here is one change it found half-made or refused with an untyped error.
"""

from __future__ import annotations

from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, Valid, rule, tool
from corollary.changes import Call, Remember, apply
from corollary.facade.operations import by_key, operation
from corollary.foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    RuleError,
    UnknownBeliefError,
)
from corollary.reasons.calls import prepare_call
from corollary.tms.conflicts import ConflictPolicy

DOCS = [["doc:1", "Ann lives in Oslo. Ann is 30.", "human:ann", 100.0]]
FACTS = [["ann:city", "Oslo", "Ann lives in Oslo", 0, 100.0, None, None]]
AGE = ["ann:age", 30, "Ann is 30", 0, 100.0, None, None]

#: A remember's rows, each with one row its inner changes would refuse only after the
#: documents and the facts before it were written (or with an IndexError, a ValueError).
BAD_ROWS: dict[str, dict[str, Any]] = {
    "a start that is no time": {"facts": [*FACTS, [*AGE[:4], "then", *AGE[5:]]]},
    "a document the call has not": {"facts": [*FACTS, [*AGE[:3], 3, *AGE[4:]]]},
    "a fact row too short": {"facts": [*FACTS, AGE[:5]]},
    "a certainty above 1": {"facts": [*FACTS, [*AGE[:5], 2.0, None]]},
    "a value that is no belief's": {"facts": [*FACTS, [AGE[0], {1, 2}, *AGE[2:]]]},
    "a reasoning step for a speaker": {"docs": [*DOCS, ["doc:2", "x", "rule:r", 100.0]]},
    "an end at no time": {"ends": [["ann:city", "Oslo", "moved", 0, "later", None, None, None]]},
    "a link to no fact": {"links": [[5, ["ann:city"], None]]},
}


@pytest.mark.parametrize("learn", [True, False], ids=["learning", "not learning"])
@pytest.mark.parametrize("bad", list(BAD_ROWS))
def test_a_remember_with_a_row_the_base_refuses_changes_nothing(bad: str, learn: bool) -> None:
    kb = BeliefBase(clock=ManualClock(100), learn_from_checks=learn)
    kb.assert_("a", 1, source="tool:x")
    before = (kb.keys(), kb.ledger.outcomes())
    change = Remember(**{"docs": DOCS, "source": "model:m", "facts": FACTS, "refusals": [],
                         **BAD_ROWS[bad]})
    with pytest.raises((InvalidInputError, InvalidTypeError)):
        apply(kb, change)
    assert (kb.keys(), kb.ledger.outcomes()) == before
    apply(kb, Remember(DOCS, "model:m", FACTS, []))  # the good rows alone are made
    assert kb.value("ann:city") == "Oslo"



def test_a_remember_ending_what_nothing_holds_changes_nothing() -> None:
    kb = BeliefBase(clock=ManualClock(100))
    ends = [["bob:city", None, "Bob left", 0, 100.0, None, None, None]]  # no one said bob:city
    with pytest.raises(UnknownBeliefError):
        apply(kb, Remember(DOCS, "model:m", FACTS, [], ends=ends))
    assert kb.keys() == []


@tool(trust=0.8, key="spans:{item}")
def spans(item: str) -> Valid:
    """A tool whose result holds at no time: it ends before it starts."""
    return Valid(len(item), valid_from=200.0, valid_until=150.0)


@tool(trust=0.8, key="ended:{item}")
def ended(item: str) -> Valid:
    """A tool whose result ended before the time it is observed, with no start said."""
    return Valid(len(item), valid_until=50.0)


@pytest.mark.parametrize("fn", [spans, ended])
def test_a_tool_s_call_the_base_refuses_adds_no_tool(fn: Any) -> None:
    # the tool was added (its declared trust applied, the ledger told its prior) before the
    # assertion of its result refused the span
    kb = BeliefBase(clock=ManualClock(100))
    with pytest.raises(InvalidInputError):
        kb.call(fn, None, "tea")
    with pytest.raises(InvalidInputError):
        apply(kb, Call(fn, prepare_call(fn, None, ("tea",), {}), fn("tea")))
    assert kb.tools == {} and kb.keys() == []


class Shop(BeliefBase):
    @operation(subjects=by_key)
    def list_price(self, key: str, price: float) -> None:
        self.assert_(key, price, source="tool:shop")  # noqa: UP005 (our method)
        if price < 0:
            raise ValueError("a price is not negative")


def test_a_base_given_the_default_kind_of_policy_undoes_a_failed_change() -> None:
    # ConflictPolicy() itself (the default kind: it decides nothing) saved itself under a tag
    # no snapshot could read back: the undo of a failed change raised SnapshotError instead of
    # the change's error, and left the change made
    kb = Shop(clock=ManualClock(100), conflict_policy=ConflictPolicy())
    kb.assert_("price:tea", 4, source="tool:shop")
    with pytest.raises(ValueError):
        kb.list_price("price:tea", -1.0)
    assert kb.value("price:tea") == 4
    again = BeliefBase.from_dict(kb.to_dict())
    assert type(again.conflict_policy) is ConflictPolicy and again.value("price:tea") == 4


@tool(trust=0.6, half_life=60.0, key="counted:{item}")
def counted(item: str) -> int:
    return len(item)


@rule(inputs={"n": "counted:tea"}, output="tea_counted")
def refuses_counts(n: Any) -> Any:
    raise ValueError("this rule fails on every count")


def test_a_tool_s_call_the_rules_undo_adds_no_tool() -> None:
    # the rules failing undid the assertion (RuleError: "the operation was undone"), but the
    # tool added for it stayed: the source's later premises took its trust and half-life
    kb = BeliefBase(clock=ManualClock(100), rules=[refuses_counts])
    with pytest.raises(RuleError):
        kb.call(counted, None, "tea")
    assert kb.tools == {} and kb.keys() == []
    kb.assert_("counted:jam", 3, source="tool:counted")
    never = BeliefBase(clock=ManualClock(100), rules=[refuses_counts])
    never.assert_("counted:jam", 3, source="tool:counted")
    assert kb.confidence("counted:jam") == never.confidence("counted:jam")

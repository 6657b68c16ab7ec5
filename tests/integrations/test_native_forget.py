"""Issue 35, item 2 on the native toolsets (corollary.integrations.operations, handed to
pydantic-ai and the OpenAI Agents SDK): ``forget`` erases one value, what a source said, or a
scope, inside the toolset's scope only; a refused call changes nothing. Before, the toolsets had
no ``forget``. The whole lifecycle is tests/integrations/test_lifecycle.py."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock
from corollary.foundations.errors import InvalidInputError, UnknownBeliefError
from corollary.integrations.operations import NAMES, Operations


def pets() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000.0), conflict_policy=None)
    kb.assert_("user:ann:pet", "Brixwold-the-cat", source="human:ann")
    kb.assert_("user:ann:pet", "Tumblequist-the-dog", source="tool:crm")
    kb.assert_("user:bob:pet", "Pellwhistle", source="human:bob")
    return kb


def test_forget_is_an_operation_erasing_a_value_a_source_or_a_scope() -> None:
    assert NAMES.index("forget") == NAMES.index("end") + 1
    kb = pets()
    ops = Operations(kb)
    assert ops.forget("user:ann:pet", "Brixwold-the-cat")["beliefs"] == 1
    assert kb.value("user:ann:pet") == "Tumblequist-the-dog"
    assert ops.forget(source="human:bob", reason="account deleted")["beliefs"] == 1
    assert ops.forget(scope="user:ann")["beliefs"] == 1
    assert list(kb.keys()) == [] and "Brixwold" not in repr(kb.to_dict())


def test_a_scoped_toolset_forgets_inside_its_scope_only() -> None:
    kb = pets()
    ops = Operations(kb, scope="user:ann")
    before = kb.to_dict()
    for bad in ({"key": "user:bob:pet"}, {"scope": "user:bob"}, {"source": "human:ann"}):
        with pytest.raises(InvalidInputError):
            ops.forget(**bad)  # type: ignore[arg-type]
    with pytest.raises(UnknownBeliefError):
        ops.forget("user:ann:zed")
    with pytest.raises(InvalidInputError):
        ops.forget()
    assert kb.to_dict() == before


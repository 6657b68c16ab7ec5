"""The toolsets' ``depend`` (issue 37, item 1: dependencies and declared replacements from the
toolsets): on the toolset's source, inside its scope, the base refusing what it refuses."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.foundations.errors import InvalidInputError, OutsideScopeError
from corollary.integrations.operations import NAMES, Operations


def test_depend_is_a_tool_after_forget() -> None:
    assert NAMES.index("depend") == NAMES.index("forget") + 1
    assert "depend" in [t.__name__ for t in Operations(BeliefBase()).tools()]


def test_depend_and_a_replacement_ripple_when_the_root_changes() -> None:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("user:ann:condition", "asthma", source="human:ann", valid_from=100)
    kb.assert_("user:ann:exercise", "running", source="human:ann", valid_from=101)
    ops = Operations(kb, source="model:agent", scope="user:ann")
    assert ops.depend("user:ann:medication", "inhaler", on=["user:ann:condition"])["label"] == "IN"
    assert ops.depend("user:ann:exercise", "cycling",
                      if_changes="user:ann:condition")["label"] == "OUT"
    ops.assert_fact("user:ann:condition", "none", "human:ann")
    assert kb.value("user:ann:medication") is None
    assert kb.value("user:ann:exercise") == "cycling"
    assert "model:agent" in str(kb.explain("user:ann:exercise"))


def test_depend_refuses_outside_the_scope_and_without_a_root() -> None:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.assert_("user:bob:condition", "flu", source="human:bob")
    before = kb.to_dict()
    ops = Operations(kb, scope="user:ann")
    with pytest.raises(OutsideScopeError):
        ops.depend("user:ann:medication", "x", on=["user:bob:condition"])
    with pytest.raises(InvalidInputError):
        ops.depend("user:ann:medication", "x")
    assert kb.to_dict() == before

"""A model's claims through the facade: the inputs a claim names."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, CorollaryError, ManualClock


def test_claim_rejects_unhashable_input_keys_with_a_typed_error():
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="human:x")
    with pytest.raises(CorollaryError):
        kb.claim("y", 1, inputs=[["a"]])
    assert "y" not in kb


@pytest.mark.parametrize("how", ["corroborate", "from_dict"])
def test_claim_two_names_for_one_input_stays_held(how: str) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("c", 1, source="tool:x")
    kb.claim("a", 2, source="model:m", inputs={"x": "c", "y": "c"})
    assert kb.label("a") == "IN"
    if how == "corroborate":
        kb.assert_("c", 1, source="human:alice")
    else:
        kb = BeliefBase.from_dict(kb.to_dict(), clock=clock)
    assert kb.label("a") == "IN"

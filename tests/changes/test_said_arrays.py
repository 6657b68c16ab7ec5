"""A value's entry leaves out the fields at their default by comparing them with it: an array,
whose comparison has no one truth value, raised a bare ``ValueError`` ("The truth value of an
array ... is ambiguous") from ``kb.retract``, ``kb.resolve``, ``kb.claim`` and ``kb.end`` in a
session, and from ``apply`` of a value holding one anywhere, where the base's own checks (or a
session's refusal of what is no plain data) give a typed error and change nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.changes import FitCalibrator, apply
from corollary.foundations.errors import InvalidInputError, InvalidTypeError

PAIR = np.array([1, 2])
BAD_EXAMPLES = np.column_stack([np.linspace(0, 1, 50), np.linspace(0, 1, 50) > 0.5])

CHANGES: dict[str, Callable[[BeliefBase], Any]] = {
    "retract": lambda kb: kb.retract("a", PAIR),
    "resolve": lambda kb: kb.resolve("ceo", winner=PAIR),
    "claim": lambda kb: kb.claim("c", 1, source="model:m", inputs=np.array(["a"])),
    "end": lambda kb: kb.end("a", PAIR, source="tool:x"),
    "apply": lambda kb: apply(kb, FitCalibrator(BAD_EXAMPLES)),
}


def _reads(kb: BeliefBase) -> list[tuple[str, list[str]]]:
    kb.refresh()  # labels settle lazily: each read settles them
    return [(k, sorted(f"{b.value!r} {b.label}" for b in kb.engine.values_of(k)))
            for k in sorted(kb.keys())]


@pytest.mark.parametrize("session", [False, True])
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_an_array_where_a_value_is_said_is_a_typed_refusal(tmp_path: Path, name: str,
                                                           session: bool) -> None:
    with open_ledger(str(tmp_path / "l.db")) as ledger:
        clock = ManualClock(1000)
        kb = (BeliefBase.open_session(ledger, "s", clock=clock) if session
              else BeliefBase(clock=clock))
        kb.assert_("a", 1, "tool:x")
        kb.assert_("ceo", "Ann", "tool:one")
        kb.assert_("ceo", "Bob", "tool:two")
        before = _reads(kb)
        with pytest.raises((InvalidInputError, InvalidTypeError)):
            CHANGES[name](kb)
        assert _reads(kb) == before
        if session:
            assert [h.operation for h in kb.history()] == ["assert_"] * 3

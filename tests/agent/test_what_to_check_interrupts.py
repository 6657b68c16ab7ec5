"""An interrupt anywhere inside ``kb.what_to_check`` leaves the base as it was.

The what-if runs on the engine itself (:meth:`corollary.tms.Engine.trial`): it swaps in a dirty
set, touched keys and an expiry heap of its own and renews premises in place. A
``KeyboardInterrupt`` raised at any line it runs in the engine and the facade must still put
all of that back, and must leave no trial standing (which would refuse every later what-if).
Not tried: inside the undo and the ``finally`` that runs it (an interrupt there is past help,
as for a batch's rollback), and in ``next_number`` (where one only costs a number). Every
line is tried near the start and the end of the what-if (where the trial is set up and taken
down), every fifth one in between (the sweeps, run many times over).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from agent.test_what_to_check_property import engine_state
from support.operations import sum_ab

import corollary
from corollary import BeliefBase, ManualClock, PreferSource
from corollary.tms import Engine

PACKAGE = Path(corollary.__file__).parent
FILES = {str(p) for folder in ("tms", "facade") for p in (PACKAGE / folder).glob("*.py")}


def _finally_lines() -> set[int]:
    lines, first = inspect.getsourcelines(inspect.unwrap(Engine.trial))
    start = next(i for i, line in enumerate(lines) if line.strip() == "finally:")
    return {first + i for i in range(start, len(lines))}


SKIPPED = _finally_lines()


def _base() -> BeliefBase:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferSource(["human", "document", "tool"]),
                    rules=[sum_ab])
    kb.assert_("a", 1, source="tool:scan", half_life=60)
    kb.assert_("b", 2, source="tool:scan", ttl=90)
    kb.assert_("b", 2, source="document:d", half_life=120)
    kb.assert_("e", 5, source="document:x", half_life=30)
    kb.assert_("e", 6, source="human:ann", half_life=30, ttl=150)
    kb.claim("c", 3, source="model:m", inputs=["a", "b"])
    kb.claim("f", 7, source="model:m", inputs=["c"], unless=["g"])
    kb.assert_("g", 1, source="tool:scan", ttl=40)
    kb.nogood("a", ("e", 5))
    clock.advance(100)
    kb.refresh()
    kb.assert_("z", 1, source="tool:other")  # marked, and not under f: still dirty
    kb.record_outcome("tool:other", False)
    return kb


def _interrupted(kb: BeliefBase, at: int) -> tuple[bool, Any, int]:
    """Run ``kb.what_to_check("b")``, raising KeyboardInterrupt at the ``at``-th line it runs
    in the engine and the facade. Whether it was raised, the result if not, and how many lines
    it ran."""
    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and not (frame.f_code.co_name == "trial"
                                    and frame.f_lineno in SKIPPED):
            count[0] += 1
            if count[0] == at:
                raise KeyboardInterrupt
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename not in FILES or frame.f_code.co_name == "next_number":
            return None
        caller: FrameType | None = frame
        while caller is not None:  # nor in what the undo calls
            if caller.f_code.co_name == "undo":
                return None
            caller = caller.f_back
        return local

    sys.settrace(calls)
    try:
        return False, kb.what_to_check("b", None), count[0]
    except KeyboardInterrupt:
        return True, None, count[0]
    finally:
        sys.settrace(None)


def test_an_interrupt_at_any_line_of_a_what_if_leaves_the_base_as_it_was() -> None:
    interrupted, expected, lines = _interrupted(_base(), 0)
    assert not interrupted and [(c.key, c.source) for c in expected] == \
        [("b", "tool:scan"), ("b", "document:d")]  # an expired premise, a faded one
    tried = [at for at in range(1, lines + 1)
             if at <= 300 or at > lines - 300 or at % 5 == 0]
    for at in tried:
        kb = _base()
        engine = kb.parts.engine
        data, state, dirty = kb.to_dict(), engine_state(engine), engine.dirty
        outcomes = len(kb.ledger.outcomes())
        assert _interrupted(kb, at)[0]
        assert engine_state(engine) == state, f"interrupted at line {at}"
        assert engine.dirty is dirty and engine.running_trial is None, f"interrupted at line {at}"
        assert kb.to_dict() == data and len(kb.ledger.outcomes()) == outcomes
        assert kb.what_to_check("b", None) == expected, f"interrupted at line {at}"
    assert len(tried) > 500

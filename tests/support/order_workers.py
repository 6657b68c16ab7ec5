"""Helpers of tests/base/test_forget_order.py and tests/journal/test_forget_words_order.py,
importable by name in spawned children: a base built from one fixed sequence of operations and
what it reads, built several times; a journaled session whose forget redacts nested words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from corollary import BeliefBase, ManualClock, open_ledger


def replaced_twice_then_forgotten() -> BeliefBase:
    """``c = 0`` declared to replace ``c`` once ``a`` changes, twice while ``a`` holds 1 and once
    more after Ann corrects ``a`` to 0; then ``a`` is forgotten (docs/model.md, "Dependencies
    and declared replacements": the two replacements left are then one, the first declared)."""
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="human:ann")
    kb.replace_when("c", 0, "a", source="model:m")
    kb.replace_when("c", 0, "a", source="model:m")
    kb.assert_("a", 0, source="human:ann")  # Ann corrects herself: a = 1 goes
    kb.replace_when("c", 0, "a", source="model:m")
    kb.forget("a")
    return kb


def reading(kb: BeliefBase) -> tuple[Any, ...]:
    """``c``'s label, value and confidence now and at now, and its timeline."""
    at_now = kb.at(kb.now())
    return (kb.label("c"), kb.value("c"), round(kb.confidence("c"), 9), at_now.label("c"),
            [(t.value, t.valid_from, t.valid_until) for t in kb.timeline("c")])


def readings(times: int) -> tuple[int, list[tuple[Any, ...]]]:
    """This process's id, and what :func:`replaced_twice_then_forgotten` reads, built
    ``times`` times (each base kept alive meanwhile, so none reuses another's memory)."""
    built = [replaced_twice_then_forgotten() for _ in range(times)]
    return os.getpid(), [reading(kb) for kb in built]


#: Words a forget redacts in two documents, one inside the other, and what must go with them.
RUN, SENTENCE, REST = "I live in Paris. I work at ACME.", "I live in Paris.", b"I work at ACME"


def journal_after_forgetting(directory: str) -> tuple[str, bool]:
    """In a journaled SQLite session, two documents (checkpointed) and then two claims citing
    them, one a run of two sentences, the other its first sentence; the claims' scope is
    forgotten. Returns the first document's text now and whether the session's files still
    hold the second sentence (a rewritten checkpoint redacts its words from the old text)."""
    path = Path(directory) / "l.db"
    kb = BeliefBase.open_session(open_ledger(str(path)), "s", clock=ManualClock(1000.0))
    kb.assert_("doc:1", f"Hi. {RUN}", source="human:ann")
    kb.assert_("doc:2", SENTENCE, source="human:ann")
    kb.checkpoint()  # the documents before the claims: no citation to redact them by there
    kb.claim("ann:job", "ACME", source="model:m", citation=("doc:1", RUN))
    kb.claim("ann:city", "Paris", source="model:m", citation=("doc:2", SENTENCE))
    kb.forget(scope="ann")
    held = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    return kb.value("doc:1"), REST in held

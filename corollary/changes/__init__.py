"""Changes as values (issue 36, item 1): each change of a base is a frozen, slotted value, and
one :func:`apply` runs any of them, all or nothing whatever raises.

- :mod:`corollary.changes.change`: :class:`Change`, what every value knows (its operation, its
  journal entry to and from, its subjects);
- :mod:`corollary.changes.base_changes`: one value per changing method of the base;
- :mod:`corollary.changes.applying`: :func:`apply` and :func:`register_change` (a user's own
  change is a value class plus its apply, registered explicitly).
"""

from __future__ import annotations

from .applying import apply, register_change, registered
from .base_changes import (
    AddRule,
    AddTool,
    Answer,
    Assert,
    AssertMany,
    BaseChange,
    Call,
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
    dependency,
)
from .change import Change

__all__ = ["AddRule", "AddTool", "Answer", "Assert", "AssertMany", "BaseChange", "Call", "Change",
           "Claim", "Depend", "End", "FitCalibrator", "Forget", "Guarantee", "Nogood",
           "RecordOutcome", "Remember", "RemoveGuarantee", "RemoveRule", "ReplaceWhen", "Resolve",
           "Retract", "apply", "dependency", "register_change", "registered"]

"""Changes as values (issue 36, item 1): each change of a base is a frozen, slotted value, and
one :func:`apply` runs any of them, all or nothing whatever raises.

- :mod:`corollary.changes.change`: :class:`Change`, what every value knows (its operation, its
  journal entry to and from, its subjects);
- :mod:`corollary.changes.base_changes`: one value per changing method of the base;
- :mod:`corollary.changes.subjects`: what each change's history row names;
- :mod:`corollary.changes.applying`: :func:`apply` and :func:`register_change` (a user's own
  change is a value class plus its apply, registered explicitly).

The values sit below the facade (they import nothing of it: tests/architecture/test_layers.py),
so the base's methods build them; ``applying`` is the one module here above it (it runs a value
on a base), read when its names are first asked for, so that the facade, importing a value,
does not import itself back through this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:  # pragma: no cover
    from .applying import apply, register_change, registered

_APPLYING = frozenset({"apply", "register_change", "registered"})


def __getattr__(name: str) -> object:
    """``apply``, ``register_change`` and ``registered``, from :mod:`corollary.changes.applying`
    (above the facade) when first asked for."""
    if name in _APPLYING:
        from . import applying

        return getattr(applying, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["AddRule", "AddTool", "Answer", "Assert", "AssertMany", "BaseChange", "Call", "Change",
           "Claim", "Depend", "End", "FitCalibrator", "Forget", "Guarantee", "Nogood",
           "RecordOutcome", "Remember", "RemoveGuarantee", "RemoveRule", "ReplaceWhen", "Resolve",
           "Retract", "apply", "dependency", "register_change", "registered"]

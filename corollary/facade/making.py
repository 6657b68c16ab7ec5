"""How the base makes one of its own changes: the value its method built, then its effect.

Each changing method of the base checks its arguments, builds its change's value
(:mod:`corollary.changes.base_changes`) and hands it to :func:`make`:

- on a plain base (no operation log) :func:`make` runs the value's effect at once: the one
  function, of the module of its concept, that changes the base (the table of every effect is
  :data:`corollary.facade.effects.EFFECTS`, which the class holds as ``BeliefBase.effects``);
- with a log (a session's journal, :mod:`corollary.facade.journaled`) it hands the log the
  value (an :class:`~corollary.facade.operations.OperationCall` whose ``change`` is it, its
  ``args``/``kwargs`` the value's ``to_entry()``): the journal keeps them as the entry and
  runs the effect as that one entry, all or nothing; a replay reads the value back from the
  entry (``read_entry``) and runs the same effect.

>>> from corollary import BeliefBase, ManualClock
>>> from corollary.changes import Retract
>>> kb = BeliefBase(clock=ManualClock(0))
>>> kb.assert_("hq", "Austin", source="tool:registry")
>>> make(kb, Retract("hq")); kb.value("hq") is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from .operations import OperationCall, operations_of

if TYPE_CHECKING:  # pragma: no cover
    from ..changes.base_changes import BaseChange
    from .base import BeliefBase

__all__ = ["Check", "Effect", "checked", "make"]

#: What one of the base's own changes does to it: ``effect(kb, change)``, returning what its
#: method returns.
Effect = Callable[[Any, Any], Any]

#: A change's checks: ``check(kb, change)`` raises a typed error and changes nothing, or
#: returns the checked value (``change`` itself when checking changed none of its fields).
#: The method and :func:`corollary.changes.apply` run the same one (so they cannot drift).
Check = Callable[[Any, Any], Any]

C = TypeVar("C")


def checked(change: C, **fields: object) -> C:
    """``change`` itself when each of ``fields`` (its fields as checked) is the one it holds,
    else a copy holding them: a value checked as given is not built again."""
    for name, value in fields.items():
        if getattr(change, name) is not value:
            return attrs.evolve(change, **fields)  # type: ignore[misc]
    return change


def make(kb: BeliefBase, change: BaseChange) -> Any:
    """Make ``change`` on ``kb``: its effect, through ``kb``'s log when it has one (see the
    module docstring); return what the effect returns."""
    effect: Effect = type(kb).effects[type(change)]
    log = kb.parts.log
    if log is None:
        return effect(kb, change)
    declared = operations_of(type(kb))[change.op]
    args, kwargs = change.to_entry()  # what its entry keeps, once
    return log.run(OperationCall(kb, declared, effect, args, kwargs, change))

"""One ``apply`` for every change, and a user's own changes registered explicitly.

:func:`apply` runs any change value (:class:`~corollary.changes.change.Change`) on a base, all
or nothing whatever raises:

- a change of the base's own (:mod:`corollary.changes.base_changes`) has its checks run (the
  function its method runs, :data:`corollary.facade.effects.CHECKS`) and is then made itself
  (:func:`corollary.facade.making.make`: the value's effect, all or nothing by the engine's
  batches and checks before any change), and in a session it is one journal entry; a value
  whose method a subclass overrides is that method called with its fields;
- a hook that runs once the base's own change is made (a conflict policy's ``after_change``,
  a change feed's listener) may raise, an ``Exception`` or any ``BaseException``
  (``KeyboardInterrupt`` at a person's prompt): the change is undone then too. A session
  rebuilds itself from its journal (nothing was appended); a plain base whose policy watches
  changes takes back its state as for a user's change (below: one snapshot of the base a
  change, paid only under such a policy);
- a user's change is the apply function registered for its class (:func:`register_change`): on
  a plain base, one that raises after some inner changes has them undone (the base takes back
  its state, :mod:`corollary.facade.undo`); in a session it is one journal entry (its
  ``to_entry``), undone likewise, and a replay applies the value its entry reads back
  (``from_entry``) with the same function.

Registration is explicit (never by a class being defined): a process that replays a journal
holding a user's change registers it before opening the session, as it passes its rules.

Examples
--------
>>> import attrs
>>> from corollary import BeliefBase, ManualClock, TrustLedger
>>> from corollary.changes import Change, apply, register_change
>>> @attrs.frozen(slots=True)
... class ListPrice(Change):
...     op = "list_price"
...     item: str
...     price: float
...     def subjects(self, result, resolved):
...         return [[f"price:{self.item}", self.price, "tool:shop", None]]
>>> def list_price(kb, change):
...     kb.assert_(f"price:{change.item}", change.price, source="tool:shop")
...     if change.price < 0:
...         raise ValueError("a price is not negative")
>>> register_change(ListPrice, list_price)
>>> kb = BeliefBase.open_session(TrustLedger(), "shop", clock=ManualClock(0))
>>> apply(kb, ListPrice("tea", 4.5))
>>> try:
...     apply(kb, ListPrice("jam", -1.0))
... except ValueError:
...     pass
>>> kb.value("price:tea"), "price:jam" in kb.keys(), [h.operation for h in kb.history()]
(4.5, False, ['list_price'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

import attrs

from ..facade.journal_entries import Entry
from ..facade.making import Check, make
from ..facade.operations import (
    Kept,
    Operation,
    OperationCall,
    OperationLog,
    current_log,
    declare_change,
    install_log,
    operations_of,
    own_method,
)
from ..facade.undo import run_undoable
from ..foundations.errors import InvalidInputError, InvalidTypeError, NameTakenError
from .base_changes import Answer, BaseChange, Depend, Forget, Nogood, ReplaceWhen
from .change import Change

__all__ = ["Registered", "apply", "register_change", "registered"]

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..facade.forgetting import Forgotten
    from ..foundations.values import Value
    from ..promises.book import Answer as Verdict

C = TypeVar("C", bound=Change)


@attrs.frozen(slots=True)
class Registered:
    """A user's change class, its apply function, and the operation its entries are."""

    kind: type[Change]
    run: Callable[[BeliefBase, Change], object]
    operation: Operation


_REGISTERED: dict[type[Change], Registered] = {}


def register_change(kind: type[C], run: Callable[[BeliefBase, C], object]) -> None:
    """Make ``apply(kb, value)`` of a ``kind`` value call ``run(kb, value)``, all or nothing,
    and a journal entry of it replay the same way. ``kind`` is a frozen attrs subclass of
    :class:`~corollary.changes.change.Change` whose ``op`` no other change has; registering the
    same class with the same function again changes nothing."""
    if not (isinstance(kind, type) and issubclass(kind, Change) and _is_attrs(kind)):
        raise InvalidTypeError("a change is an attrs subclass of corollary.changes.Change")
    if issubclass(kind, BaseChange):
        raise InvalidTypeError(f"{kind.__name__} is one of the base's own changes")
    if not callable(run):
        raise InvalidTypeError("a change's apply is a callable taking (base, change)")
    op = kind.op
    if not isinstance(op, str) or not op or op.startswith("_"):
        raise InvalidInputError(f"{kind.__name__}.op must name its operation (a non-empty "
                                "string not starting with '_')")
    held = _REGISTERED.get(kind)
    if held is not None and held.run is run:
        return
    from ..facade.base import BeliefBase  # the base's own operation names are taken

    if op in operations_of(BeliefBase) or any(r.kind.op == op for r in _REGISTERED.values()
                                              if r.kind is not kind):
        raise NameTakenError(f"another change is named {op!r}: give {kind.__name__} another op")

    def runner(base: BeliefBase, change: Any) -> object:
        return run(base, change)

    runner.__qualname__ = runner.__name__ = f"apply_{op}"
    runner.__module__ = getattr(run, "__module__", __name__)  # undone as a user's (undo.py)

    def keep(call: OperationCall) -> Kept:
        args, kwargs = call.args[0].to_entry()
        return Kept(args, kwargs, run_args=call.args, run_kwargs={})

    def subjects(arguments: Any, result: Any, resolved: Any) -> list[list[Any]]:
        return arguments["change"].subjects(result, resolved)  # type: ignore[no-any-return]

    def replay(base: Any, entry: Entry) -> None:
        run(base, kind.from_entry(entry.args, entry.kwargs))  # type: ignore[arg-type]  # of kind

    operation = Operation(op, runner.__name__, subjects, keep, replay)
    _REGISTERED[kind] = Registered(kind, runner, operation)
    declare_change(operation)


def _is_attrs(kind: type) -> bool:
    """``kind`` itself is an attrs class (not only a subclass of one: its fields unseen)."""
    return "__attrs_attrs__" in vars(kind)


def registered() -> dict[type[Change], Registered]:
    """The user's change classes registered in this process, with their apply functions."""
    return dict(_REGISTERED)


#: Per class of base and class of change: the change's checks when the base makes it with its
#: own method (no subclass overrides it), else ``None`` (the method is called).
_OWN_CHECKS: dict[tuple[type, type], Check | None] = {}


def _own_check(cls: type, kind: type) -> Check | None:
    found = _OWN_CHECKS.get((cls, kind), _UNSEEN)
    if found is _UNSEEN:
        from ..facade.effects import CHECKS

        check = CHECKS.get(kind)
        declared = operations_of(cls).get(kind.op)  # type: ignore[attr-defined]
        found = check if declared is not None and own_method(cls, declared) else None
        _OWN_CHECKS[(cls, kind)] = found
    return found  # type: ignore[return-value]


_UNSEEN = object()


def _apply_own(base: BeliefBase, change: BaseChange) -> object:
    """The value's checks (the ones its method runs), then the value made
    (:func:`corollary.facade.making.make`); a value whose method a subclass overrides is that
    method called with its fields."""
    check = _own_check(type(base), type(change))
    if check is not None:
        return make(base, check(base, change))
    if isinstance(change, Nogood):
        return base.nogood(*change.items, name=change.name)
    method: Callable[..., object] = getattr(base, change.method)
    return method(**change.said())


@overload
def apply(base: BeliefBase, change: Forget) -> Forgotten: ...
@overload
def apply(base: BeliefBase, change: Answer) -> Verdict: ...
@overload
def apply(base: BeliefBase, change: Depend | ReplaceWhen) -> Value: ...
@overload
def apply(base: BeliefBase, change: Change) -> object: ...
def apply(base: BeliefBase, change: Change) -> object:
    """Make ``change`` on ``base``, all or nothing whatever raises; return what it returns
    (see the module docstring)."""
    if isinstance(change, BaseChange):
        policy = base.conflict_policy
        if policy is not None and policy.watches_changes and current_log(base) is None:
            return run_undoable(base, _apply_own, (change,), {}, install_log)
        return _apply_own(base, change)
    found = _REGISTERED.get(type(change))
    if found is None:
        raise InvalidTypeError(f"{type(change).__name__} is not a registered change "
                               "(corollary.changes.register_change)")
    log: OperationLog | None = current_log(base)
    if log is not None:
        return log.run(OperationCall(base, found.operation, found.run, (change,), {}))
    return run_undoable(base, found.run, (change,), {}, install_log)

"""A user's declared change on a plain base, all or nothing: undone when it raises.

The base's own changing methods are all or nothing by their own machinery (the engine's
batches, :mod:`corollary.tms.batch`, and each part's checks before it changes anything). A
subclass's method declared with ``@operation`` (:mod:`corollary.facade.operations`) is made of
those: one that raises after some of its inner changes ran would leave them in the base. On a
journaled session the journal undoes it (the base is rebuilt from its committed entries); on a
plain base, this module does: while the user's change runs, the base's operation log is an
:class:`UndoLog`, which copies the base's state (its snapshot, :func:`~corollary.facade.saving.to_dict`) just before the first inner change, and
when the change raises, whatever it raised, the base takes that state back.

A change that makes no inner change copies nothing; one that does pays one snapshot of the base
(its cost grows with the base: docs/journal.md, "A change that fails"). An override that calls
the base's method through ``super()`` reaches the method itself, which no log hears: it copies
the state before it starts (so such an override pays a snapshot on every call of a plain base). What is undone is the
base's state (:func:`~corollary.facade.saving.take_state`) and its operation
count; outcomes a failed change wrote to a *shared* ledger's store are the store's (a session
writes them in its entry's transaction, so a session undoes them too).

Examples
--------
>>> from corollary import BeliefBase, ManualClock
>>> from corollary.facade.operations import by_key, operation
>>> class Shop(BeliefBase):
...     @operation(subjects=by_key)
...     def list_price(self, key: str, price: float) -> None:
...         self.assert_(key, price, source="tool:shop")
...         if price < 0:
...             raise ValueError("a price is not negative")
>>> kb = Shop(clock=ManualClock(0))
>>> try:
...     kb.list_price("price:tea", -1.0)
... except ValueError:
...     pass
>>> kb.keys()
[]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .saving import take_state

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase
    from .operations import OperationCall

__all__ = ["UndoLog", "run_undoable"]


class UndoLog:
    """The operation log of a plain base while a user's declared change runs: the base's
    state as it was before the change's first inner change (``None``: none has run yet)."""

    __slots__ = ("saved", "ops")

    def __init__(self) -> None:
        self.saved: dict[str, Any] | None = None
        self.ops = 0

    def run(self, call: OperationCall) -> Any:
        """Copy the base's state before its first inner change, then run the change."""
        self.save(call.base)
        return call.proceed()

    def save(self, base: Any) -> None:
        """Copy ``base``'s state, unless copied already."""
        if self.saved is None:
            self.ops = base.parts.ops
            self.saved = base.to_dict()

    def resolved(self, what: str, value: Any) -> None:
        """Nothing to keep: an undo needs only the state before."""


def run_undoable(base: Any, method: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: Mapping[str, Any], install: Callable[[Any, Any], Any],
                 at_once: bool = False) -> Any:
    """Run a user's declared change on a plain base (``base.parts.log`` is ``None``); when it
    raises, the base takes back its state from before the change. ``install`` is
    :func:`corollary.facade.operations.install_log` (passed in: that module imports this);
    ``at_once``: copy the state before the change starts (an override calling ``super()``,
    whose call of the base's own method no log hears)."""
    undo = UndoLog()
    if at_once:
        undo.save(base)
    install(base, undo)
    try:
        return method(base, *args, **kwargs)
    except BaseException:
        install(base, None)
        if undo.saved is not None:
            _restore(base, undo.saved, undo.ops)
        raise
    finally:
        install(base, None)


def _restore(base: BeliefBase, saved: dict[str, Any], ops: int) -> None:
    """``base`` takes back the state ``saved`` (its :meth:`to_dict`), with the rules, tools
    and promise functions it holds now bound again (as a journaled session rebuilds)."""
    # only the rules and tools the state before held: one the failed change added (an
    # add_rule, an add_tool inside it) would otherwise join the restored base
    rules = [r for r in base.parts.rules.rules if r.name in set(saved.get("rules", ()))]
    tools: list[Any] = [_HeldTool(spec) for spec in base.parts.trust.tools.values()
                        if spec.name in set(saved.get("tools", ()))]
    functions = [reader.fn for binding in base.parts.promises.bindings.values()
                 for reader in (binding.signal, binding.groups)
                 if reader is not None and reader.fn is not None]
    fresh = type(base).from_dict(
        saved, ledger=base.ledger if base.shared_ledger else None, clock=base.clock,
        rules=rules, tools=tools, functions=functions, conflict_policy=base.conflict_policy,
        embedder=base.parts.embedder)
    firings, seconds = base.parts.rules.max_firings, base.parts.rules.max_seconds
    take_state(base, fresh)
    base.parts.rules.max_firings, base.parts.rules.max_seconds = firings, seconds
    base.parts.ops = ops


class _HeldTool:
    """A tool as the base holds it (its declaration), to bind again by name on a restore."""

    __slots__ = ("__corollary_tool__",)

    def __init__(self, spec: Any) -> None:
        self.__corollary_tool__ = spec

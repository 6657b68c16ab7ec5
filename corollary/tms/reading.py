"""The engine as ``kb.engine`` shows it: for reading.

``kb.engine`` was documented "for reading (tools, pictures, tests)" but returned the engine
itself, so anything holding a base could change its beliefs behind the facade (no journal
entry, no rule firing, no outcome). :class:`EngineView` forwards every read; a method that
changes the engine, or setting an attribute, still works for one release with a
:class:`DeprecationWarning` (change the base through its methods; code of the package itself
holds the engine, not the view).
"""

from __future__ import annotations

from typing import Any

from ..foundations._deprecated import warn

__all__ = ["CHANGING", "EngineView"]

#: The engine's methods that change it (everything else it offers reads).
CHANGING = frozenset({
    "add_justification", "add_nogood", "add_premised", "add_premised_rows", "at_world",
    "begin_batch", "belief", "continue_numbering", "drop_premise", "expire", "forget_if_unused",
    "link_justification", "mark", "mark_all", "mark_source", "next_number", "note",
    "push_deciders", "push_expiry", "push_valid_time", "reinstate", "remove_justification",
    "remove_rule_reasons", "restore_belief", "restore_beliefs", "restore_premises", "rewind",
    "rollback", "save_key", "set_premise", "stale", "sync", "trial", "withdraw",
    "withdraw_reasons",
})


class EngineView:
    """A read-only view of an engine (what ``kb.engine`` returns).

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("hq", "Austin", source="tool:registry")
    >>> view = kb.engine
    >>> [b.value for b in view.values_of("hq")], len(view.keys)
    (['Austin'], 1)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = view.mark_all
    >>> seen[0].category.__name__
    'DeprecationWarning'
    """

    __slots__ = ("_engine",)

    def __init__(self, engine: Any) -> None:
        object.__setattr__(self, "_engine", engine)

    def __getattr__(self, name: str) -> Any:
        if name in CHANGING:
            warn(f"changing the engine through kb.engine ({name})",
                 "kb.engine is for reading: change the base through its methods")
        return getattr(self._engine, name)

    def __setattr__(self, name: str, value: Any) -> None:
        warn(f"setting kb.engine.{name}",
             "kb.engine is for reading: change the base through its methods")
        setattr(self._engine, name, value)

    def __repr__(self) -> str:
        return f"<engine view: {len(self._engine.keys)} keys>"

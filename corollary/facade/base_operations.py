"""What is left of how the base's own changes are kept and replayed besides their values.

Each of the base's own changes is a value (:mod:`corollary.changes.base_changes`): its entry is
the value's ``to_entry`` (a tool function kept as its declaration, a rule as its name, a
conflict object as its name and whether it is a nogood's, rows read once), and a replay reads
the value back (``read_entry``) and runs its effect (:mod:`corollary.facade.effects`). Here:
the rule a replay finds by name, and an answer's replay, which takes the verdict the entry kept
rather than decide again (an ``@operation`` ``replay``). See docs/journal.md, "What a replay
assumes".

>>> from corollary.facade.base import BeliefBase
>>> from corollary.facade.operations import operations_of
>>> ops = operations_of(BeliefBase)
>>> ops["call"].method, ops["guarantee"].snapshot, ops["answer"].replay is replay_answer
('_called', True, True)
"""

from __future__ import annotations

import inspect
from typing import Any

from ..changes.base_changes import (
    AddRule,
    AddTool,
    AssertMany,
    BaseChange,
    Call,
    RemoveRule,
    Resolve,
)
from ..foundations.errors import InvalidInputError, InvalidTypeError, JournalReplayError
from ..foundations.values import canon
from ..reasons.registry import DEFINED
from ..reasons.rules import Rule
from .journal_entries import Entry
from .operations import Kept, OperationCall

__all__ = ["REPLAYED_BY_EFFECT", "keep_override", "replay_answer", "rule_named"]

#: The values whose entry keeps their arguments as data a method does not take (a tool's
#: declaration, a rule's name, a conflict's name): a subclass's override of their method
#: replays through the effect, as their entries did before changes were values.
REPLAYED_BY_EFFECT: frozenset[type[BaseChange]] = frozenset({AddTool, AddRule, RemoveRule,
                                                             Resolve, Call})


def keep_override(call: OperationCall) -> Kept | None:
    """What the entry of a subclass's override of one of the base's own changing methods
    keeps: the entry of the value its arguments make (a function kept as its declaration, a
    rule as its name, a conflict as its name, a forget as who asked and why, a generator of
    rows read once and the override run with the rows), as the base's own method's entry,
    which a replay gives the override by name. The value is made of the override's arguments
    by name (an override may order its parameters its own way), or in its parent's order
    when it forwards ``*args``; arguments that make no value are kept as given."""
    change = call.operation.change
    assert change is not None  # the journal asks only for an override of the base's own
    try:
        named = _by_name(call)
        if named is not None:
            value = change(**named)
        else:
            try:  # an entry's form (a nogood's items one by one), else the value's own
                value = change.from_entry(call.args, call.kwargs)
            except InvalidInputError:
                value = change(*call.args, **call.kwargs)
    except (InvalidInputError, InvalidTypeError, TypeError):
        return Kept(call.args, call.kwargs)
    args, kwargs = value.to_entry()
    assert isinstance(value, BaseChange)
    if isinstance(value, AssertMany) and value.rows is not (call.args or (None,))[0]:
        return Kept(args, kwargs, run_args=(value.rows,), run_kwargs={})
    return Kept(args, kwargs, value.entry_resolved())


def _by_name(call: OperationCall) -> dict[str, Any] | None:
    """The override's arguments by parameter name, its ``**`` ones spread among them
    (``None``: it takes ``*args``, passed on in its parent's order)."""
    bound = call.bound()
    named: dict[str, Any] = {}
    for name, given in list(bound.arguments.items())[1:]:  # self left out
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if kind is inspect.Parameter.VAR_KEYWORD:
            named.update(given)
        else:
            named[name] = given
    return named


def replay_answer(kb: Any, entry: Entry) -> None:
    """The verdict the answer kept when it was given (an entry written before verdicts were
    kept in entries is answered again)."""
    resolved = entry.resolved
    if "verdict" not in resolved:
        kb.answer(*entry.args, **entry.kwargs)
        return
    if resolved["verdict"] is not None:
        key, value, record = resolved["verdict"]
        kb.parts.promises.verdicts[(key, canon(value))] = record


def rule_named(kb: Any, name: str) -> Rule:
    """The rule ``name`` a replay means: this base's, ``open_session``'s ``rules=``, or the one
    the process defines (docs/extending.md); ``JournalReplayError`` when none is known."""
    if not isinstance(name, str):
        raise JournalReplayError(f"a rule entry names its rule, not {name!r}")
    for r in kb.rules:
        if r.name == name:
            return r  # type: ignore[no-any-return]
    journal = kb.journal
    for r in () if journal is None else journal.options.get("rules", ()):  # open_session(rules=)
        if r.name == name:
            return r  # type: ignore[no-any-return]
    found = DEFINED.find("rule", name)  # the one the process defines (docs/extending.md)
    if found is not None:
        return found  # type: ignore[no-any-return]
    raise JournalReplayError(f"rule {name!r} is not known here: pass it to open_session(rules=)")

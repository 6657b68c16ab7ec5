"""How each changing method of :class:`~corollary.BeliefBase` is kept in a journal entry, named
in history and replayed: the arguments of its ``@operation`` declaration
(:mod:`corollary.facade.operations`).

A method declared with no more than ``subjects`` is kept with its arguments as given and replays
by being called again with them; the functions here are for the methods whose arguments an
entry cannot keep as they are (a tool function, a rule, a conflict object, a generator of rows)
or whose replay must not decide again (a tool's result, an answer's verdict). See
docs/journal.md, "What a replay assumes".

>>> from corollary.facade.base import BeliefBase
>>> from corollary.facade.operations import operations_of
>>> ops = operations_of(BeliefBase)
>>> ops["call"].method, ops["guarantee"].snapshot
('_called', True)
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

from ..changes.subjects import (  # noqa: F401  (named here before they moved)
    claimed,
    named_items,
    named_rows,
    outcome_of,
    remembered,
    resolved_conflict,
    retracted,
    the_key,
    tool_result,
)
from ..foundations.errors import JournalReplayError
from ..foundations.values import canon
from ..reasons.calls import PreparedCall
from ..reasons.registry import DEFINED
from ..reasons.rules import Rule
from ..reasons.tools import ToolSpec, spec_of
from ..reasons.valid import Valid, unwrap
from ..tms.conflicts import Conflict
from .journal_entries import Entry
from .operations import Kept, OperationCall, perform

__all__ = ["claimed", "keep_call", "keep_name", "keep_resolve", "keep_rows", "keep_rule",
           "keep_tool", "named_items", "named_rows", "outcome_of", "remembered", "replay_add_rule",
           "replay_add_tool", "replay_answer", "replay_call", "replay_remove_rule",
           "replay_resolve", "retracted", "resolved_conflict", "spec_fields", "the_key",
           "tool_result"]


# -- what an entry keeps -----------------------------------------------------------------------
def keep_rows(call: OperationCall) -> Kept:
    """A generator of rows is read once: the method runs with, and the entry keeps, its rows."""
    args, kwargs = call.args, dict(call.kwargs)
    rows = args[0] if args else kwargs.pop("rows", None)
    if isinstance(rows, Iterable) and not isinstance(rows, (str, bytes, Mapping)):
        rows = [dict(r) if isinstance(r, Mapping) else list(r) if type(r) is tuple else r
                for r in rows]
    return Kept((rows,), {}, run_args=(rows,), run_kwargs={})


def keep_resolve(call: OperationCall) -> Kept:
    """A conflict object is kept as its name and whether it is a nogood's."""
    bound = call.bound()
    conflict = bound.arguments.get("conflict")
    if not isinstance(conflict, Conflict):
        return Kept(call.args, call.kwargs)
    bound.arguments["conflict"] = conflict.key
    return Kept(bound.args[1:], bound.kwargs, {"conflict": {"nogood": bool(conflict.nogood)}})


def keep_name(call: OperationCall) -> Kept:
    """A promise change: only the promise's name (the entry carries the state it left)."""
    args, kwargs = call.args, call.kwargs
    name = args[0] if args and isinstance(args[0], str) else kwargs.get("name")
    return Kept((name,) if isinstance(name, str) else ())


def spec_fields(spec: ToolSpec) -> dict[str, Any]:
    """A tool's declaration as plain data (a replay never has the function)."""
    return {"name": spec.name, "trust": spec.trust, "half_life": spec.half_life,
            "ttl": spec.ttl, "origin": spec.origin, "key": spec.key}


def keep_tool(call: OperationCall) -> Kept:
    """``add_tool``: the tool's declaration (always an entry: whether it changes anything is
    known only once other writers' entries are applied, under the lock)."""
    return Kept((spec_fields(spec_of(call.bind()["fn"])),))


def keep_rule(call: OperationCall) -> Kept | None:
    """``add_rule``/``remove_rule``: the rule's name (always an entry: a rule known here may
    have been removed by another writer); not a rule: the method's own refusal."""
    r = call.bind()["r"]
    return Kept((r.name,)) if isinstance(r, Rule) else None


def keep_call(call: OperationCall) -> Kept:
    """A tool call: the tool's declaration, the key, the arguments and what the tool returned
    (a replay never calls the tool again)."""
    arguments = call.bind()
    prepared: PreparedCall = arguments["call"]
    value, valid_from, valid_until = unwrap(arguments["result"])
    args: tuple[Any, ...] = (spec_fields(prepared.spec), prepared.key, prepared.arguments, value)
    if valid_from is not None or valid_until is not None:  # a Valid(...) result
        args += (valid_from, valid_until)
    return Kept(args)


# -- how an entry replays ------------------------------------------------------------------------
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


def replay_resolve(kb: Any, entry: Entry) -> None:
    """Resolve as given: a conflict object (a key's, or a nogood's) or a name."""
    kind = entry.resolved.get("conflict")
    if kind is None:
        kb.resolve(*entry.args, **entry.kwargs)
        return
    bound = inspect.signature(type(kb).resolve).bind(kb, *entry.args, **entry.kwargs)
    name = bound.arguments["conflict"]
    bound.arguments["conflict"] = Conflict(name, (), nogood=bool(kind["nogood"]))
    kb.resolve(*bound.args[1:], **bound.kwargs)


def replay_call(kb: Any, entry: Entry) -> None:
    """The tool's result as it was returned (the tool is not called)."""
    fields, key, arguments, result, *times = entry.args  # times: a Valid(...) result's
    spec = ToolSpec(**fields)
    if spec.name not in kb.parts.trust.tools:  # as the call did: a known tool's spec is kept
        kb.parts.trust.add_tool(spec)
        kb.parts.engine.mark_source(spec.source)
    perform(kb, "call", None, PreparedCall(spec, key, arguments),
            Valid(result, *times) if times else result)


def replay_add_tool(kb: Any, entry: Entry) -> None:
    """The tool's declaration as it was added."""
    spec = ToolSpec(**entry.args[0])
    kb.parts.trust.add_tool(spec)
    kb.parts.engine.mark_source(spec.source)


def _rule_named(kb: Any, name: str) -> Rule:
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


def replay_add_rule(kb: Any, entry: Entry) -> None:
    """The rule of that name (this base's, open_session's rules=, or registered)."""
    kb.add_rule(_rule_named(kb, entry.args[0]))


def replay_remove_rule(kb: Any, entry: Entry) -> None:
    """The rule of that name removed."""
    kb.remove_rule(_rule_named(kb, entry.args[0]))

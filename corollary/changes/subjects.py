"""What a change's history row names: ``[key, value, source, reason]`` of each belief it is
about, as pure functions of its arguments (issue 36: they lived in the facade, so a change value
could not be built below it).

Each is ``subjects(arguments, result, resolved)``: ``arguments`` the change's arguments by name
(with their defaults), ``result`` what making it returned, ``resolved`` what it decided on the
way (the held value a ``retract`` without a value took). The facade's ``@operation``
declarations and the values of :mod:`corollary.changes.base_changes` name their rows with them.

>>> retracted({"key": "hq", "value": None, "source": None, "reason": "moved"}, None,
...           {"retracted": "Austin"})
[['hq', 'Austin', None, 'moved']]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..reasons.calls import PreparedCall
from ..tms.conflicts import Conflict

__all__ = ["NO_VALUE", "Subjects", "by_key", "claimed", "ended", "forget_subjects",
           "named_items", "named_rows", "names_nothing", "outcome_of", "remembered",
           "resolved_conflict", "retracted", "the_key", "tool_result"]

#: ``subjects(arguments, result, resolved)``: ``[key, value, source, reason]`` of each belief a
#: change names, for history (``arguments``: bound with defaults; ``resolved``: what it announced).
Subjects = Callable[[Mapping[str, Any], Any, Mapping[str, Any]], list[list[Any]]]

#: What ``forget`` takes when no ``value`` is given (``None`` is a value one may forget).
NO_VALUE: Any = object()


def names_nothing(arguments: Mapping[str, Any], result: Any,
                  resolved: Mapping[str, Any]) -> list[list[Any]]:
    """A change whose history row names no belief (a tool, a rule, a promise)."""
    return []


def by_key(arguments: Mapping[str, Any], result: Any,
           resolved: Mapping[str, Any]) -> list[list[Any]]:
    """A change about ``key``: its ``value``, ``source`` and ``reason`` where it takes them."""
    return [[arguments.get("key"), arguments.get("value"), arguments.get("source"),
             arguments.get("reason")]]


def claimed(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
            ) -> list[list[Any]]:
    """A claim: the value believed (its result)."""
    return [[arguments.get("key"), result, arguments.get("source"), None]]


def retracted(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
              ) -> list[list[Any]]:
    """A retraction: the value given, or the held value it took (announced as ``retracted``)."""
    value = arguments.get("value")
    if value is None:
        value = resolved.get("retracted")
    return [[arguments.get("key"), value, arguments.get("source"), arguments.get("reason")]]


def outcome_of(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
               ) -> list[list[Any]]:
    """An outcome recorded: the key it is about (if any), its source and reason."""
    return [[arguments.get("key"), None, arguments.get("source"), arguments.get("reason")]]


def the_key(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
            ) -> list[list[Any]]:
    """An answer: the key asked about."""
    return [[arguments.get("key"), None, None, None]]


def named_items(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
                ) -> list[list[Any]]:
    """A nogood: each of its items."""
    return [[i, None, None, None] if isinstance(i, str) else [i[0], i[1], None, None]
            for i in arguments.get("items", ()) if isinstance(i, (str, tuple, list))]


def resolved_conflict(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
                      ) -> list[list[Any]]:
    """A resolution: the conflict (by name) and its winner."""
    conflict = arguments.get("conflict")
    if isinstance(conflict, Conflict):
        conflict = conflict.key
    return [[conflict, arguments.get("winner"), None, None]]


def named_rows(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
               ) -> list[list[Any]]:
    """A bulk assertion: each row's key, value and source."""
    rows = []
    for row in arguments.get("rows") or ():
        if isinstance(row, Mapping):
            rows.append([row.get("key"), row.get("value"), row.get("source"), None])
        else:
            rows.append([*list(row)[:3], None])
    return rows


def tool_result(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
                ) -> list[list[Any]]:
    """A tool call: its key, the value it returned, the tool's source."""
    call: PreparedCall = arguments["call"]
    return [[call.key, result, call.spec.source, None]]


def remembered(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
               ) -> list[list[Any]]:
    """A remember: each fact it claimed."""
    source = arguments["source"]
    return [[f[0], f[1], source, None] for f in [*arguments["facts"],
                                                 *(arguments.get("ends") or ())]]


def ended(arguments: Mapping[str, Any], result: Any, resolved: Mapping[str, Any]
          ) -> list[list[Any]]:
    """What an end's history row names: the key, the value it ended (if one was named), its
    source and reason."""
    return [[arguments.get("key"), arguments.get("value"), arguments.get("source"),
             arguments.get("reason")]]


def forget_subjects(arguments: Any, result: Any, resolved: Any) -> list[list[Any]]:
    """A forget's history row: no key, no value; who asked (``by``) and why."""
    return [[None, None, arguments.get("by"), arguments.get("reason")]]

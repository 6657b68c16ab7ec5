"""Where rules and tools are found by name: a base's own, a :class:`Registry`, or the process.

A base holds its rules and tools itself and refuses a second member under a taken name
(:class:`~corollary.foundations.errors.NameTakenError`). What is *loaded by name* (a snapshot, a
session journal, the CLI's ``--import``, ``corollary mcp``) is bound, in this order, to what the
caller passes (``rules=``/``tools=``: a list, or a :class:`Registry`), else to the one member of
that name defined in the process (:data:`DEFINED`). ``@rule`` and ``@tool`` note what they make
in :data:`DEFINED`, which never replaces: it keeps every member still alive (weakly, so a
definition nothing refers to any more is gone), and a name two live members share is refused
when it is looked up, saying to pass the one meant. Before, a second ``@tool def lookup``
silently replaced the first for every base in the process (issue 26, point 7;
docs/extending.md).
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..foundations.errors import InvalidTypeError, NameTakenError

__all__ = ["DEFINED", "Definitions", "Registry", "kind_and_name"]


def kind_and_name(member: Any) -> tuple[str, str]:
    """``("rule", name)`` for a rule, ``("tool", name)`` for a ``@tool`` function.

    >>> from corollary import tool
    >>> @tool
    ... def lookup(q: str) -> str:
    ...     return q
    >>> kind_and_name(lookup)
    ('tool', 'lookup')
    """
    # read from what rules.py and tools.py put on their members (they import this module)
    if getattr(type(member), "registry_kind", None) == "rule":
        return "rule", member.name
    spec = getattr(member, "__corollary_tool__", None)
    if spec is not None and isinstance(getattr(spec, "name", None), str):
        return "tool", spec.name
    raise InvalidTypeError(f"{member!r} is neither a rule (@rule) nor a tool (@tool)")


class Registry:
    """Rules and tools by name, refusing a second, different member under a taken name.

    Pass one to a base where it takes rules or tools (``BeliefBase(rules=reg.rules,
    tools=reg.tools)``, ``open_session(..., rules=reg.rules)``) to say which members a loaded
    base is bound to, whatever else the process defines: two sessions served in one process
    each get their own.

    Parameters
    ----------
    members : iterable of rules and tools
        The first members (each added as by :meth:`add`).

    Examples
    --------
    >>> from corollary import NameTakenError, tool
    >>> @tool(trust="high")
    ... def lookup(q: str) -> str:
    ...     return q
    >>> reg = Registry([lookup])
    >>> reg.add(lookup) is lookup  # the same member again: nothing changes
    True
    >>> @tool(trust="low", name="lookup")
    ... def other(q: str) -> str:
    ...     return q.upper()
    >>> try:
    ...     reg.add(other)
    ... except NameTakenError as exc:
    ...     print(type(exc).__name__)
    NameTakenError
    >>> [t.__name__ for t in reg.tools], "lookup" in reg
    (['lookup'], True)
    """

    def __init__(self, members: Iterable[Any] = ()) -> None:
        self._members: dict[tuple[str, str], Any] = {}
        for member in members:
            self.add(member)

    def add(self, member: Any) -> Any:
        """Add ``member`` (returned, so this can decorate); a different member under its
        name is refused with :class:`~corollary.foundations.errors.NameTakenError`."""
        kind, name = kind_and_name(member)
        held = self._members.setdefault((kind, name), member)
        if held is not member:
            raise NameTakenError(f"this registry has another {kind} named {name!r} ({held!r}); "
                                 "give one of them another name")
        return member

    def get(self, name: str, kind: str = "tool") -> Any | None:
        """The ``kind`` (``"rule"`` or ``"tool"``) named ``name``, or ``None``."""
        return self._members.get((kind, name))

    @property
    def rules(self) -> tuple[Any, ...]:
        """The rules, in the order they were added."""
        return tuple(m for (kind, _), m in self._members.items() if kind == "rule")

    @property
    def tools(self) -> tuple[Any, ...]:
        """The tools, in the order they were added."""
        return tuple(m for (kind, _), m in self._members.items() if kind == "tool")

    def __contains__(self, name: object) -> bool:
        return any(n == name for _, n in self._members)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._members.values()))

    def __len__(self) -> int:
        return len(self._members)

    def __repr__(self) -> str:
        return f"Registry({[n for _, n in self._members]!r})"


class Definitions:
    """Every rule and tool defined in this process and still alive, by kind and name; the
    one :data:`DEFINED` table is what a load by name falls back to (see the module docstring).

    Examples
    --------
    >>> from corollary import rule
    >>> @rule(output="twice", inputs={"x": "x"}, name="doc.definitions.twice")
    ... def twice(x):
    ...     return 2 * x
    >>> DEFINED.find("rule", "doc.definitions.twice") is twice
    True
    >>> DEFINED.find("rule", "doc.definitions.none") is None
    True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refs: dict[tuple[str, str], list[weakref.ref[Any]]] = {}

    def note(self, member: Any) -> None:
        """Note a member just made (``@rule``, ``Rule(...)`` and ``@tool`` call this)."""
        key = kind_and_name(member)
        with self._lock:
            refs = [r for r in self._refs.get(key, ()) if r() is not None and r() is not member]
            refs.append(weakref.ref(member))
            self._refs[key] = refs

    def forget(self, member: Any) -> None:
        """Forget ``member`` (as a process that never defined it: tests of a load that is not
        told a rule)."""
        key = kind_and_name(member)
        with self._lock:
            self._refs[key] = [r for r in self._refs.get(key, ()) if r() not in (None, member)]

    def _alive(self, key: tuple[str, str]) -> list[Any]:
        with self._lock:
            members = [m for r in self._refs.get(key, ()) if (m := r()) is not None]
        return members

    def find(self, kind: str, name: str) -> Any | None:
        """The one live ``kind`` (``"rule"``/``"tool"``) named ``name``; ``None`` if there is
        none; :class:`~corollary.foundations.errors.NameTakenError` if several are."""
        members = self._alive((kind, name))
        if len(members) > 1:
            gc.collect()  # a definition nothing refers to any more may wait for the collector
            members = self._alive((kind, name))
        if len(members) > 1:
            where = ", ".join(_defined_at(m) for m in members)
            raise NameTakenError(
                f"{len(members)} {kind}s named {name!r} are defined in this process ({where}): "
                f"pass the one meant ({kind}s=[...] or a Registry)")
        return members[0] if members else None

    def members(self, kind: str | None = None) -> list[Any]:
        """Every live member (of ``kind``), in the order they were noted."""
        with self._lock:
            keys = [k for k in self._refs if kind is None or k[0] == kind]
        return [m for k in keys for m in self._alive(k)]

    def latest(self, kind: str) -> dict[str, Any]:
        """Name -> the newest live member of ``kind`` (what the old process-wide ``REGISTRY``
        tables held)."""
        found: dict[str, Any] = {}
        for member in self.members(kind):
            found[kind_and_name(member)[1]] = member
        return found


def _defined_at(member: Any) -> str:
    fn: Callable[..., Any] = getattr(member, "fn", None) or getattr(member, "__wrapped__", member)
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(member)
    return f"{code.co_filename}:{code.co_firstlineno}"


#: The rules and tools defined in this process (see :class:`Definitions`).
DEFINED = Definitions()

"""Tool calls remembered with the premises they made, and the evidence due for a re-fetch.

``kb.call(fn, key, ...)`` asserts a tool's result as a premise from ``tool:<name>``; the
:class:`CallMemory` keeps which call made it (the tool and its bound arguments, as plain data),
so that evidence which faded or expired can be fetched again by running the same call
(``Agent.reverify``). The memory is a side table, not a field of every premise: a base of a
million premises from plain assertions pays nothing for it.

The table is keyed by ``(key, source)``: a source holds at most one premise per key (a new value
replaces its earlier one), so a new call under the same key and tool replaces the entry. An
entry also holds the premise object it describes and is valid while that very premise is on its
belief: a premise dropped, replaced, or renewed by a plain ``kb.assert_`` (a new premise, not
made by the call) no longer has the call, and stale entries are pruned whenever the table is
read in full (:meth:`CallMemory.records`, snapshots).

:func:`expired` lists the premises whose ttl has passed on beliefs not withdrawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import attrs

from ..foundations.errors import CorollaryError
from ..foundations.values import canon, check_key, plain
from ..tms import Belief, Engine, Premise
from .tools import ToolSpec, bind_arguments, spec_of

__all__ = ["CallMemory", "Expired", "PreparedCall", "ToolCallRecord", "expired", "prepare_call"]


@attrs.frozen(slots=True)
class ToolCallRecord:
    """A remembered tool call and the premise it made.

    Attributes
    ----------
    key : str
    value : object
        The value of the belief the premise is on.
    source : str
        ``tool:<name>``.
    tool : str
        The tool's name.
    arguments : dict
        The call's arguments by parameter name, defaults applied, as plain data.
    """

    key: str
    value: Any
    source: str
    tool: str
    arguments: dict[str, Any] = attrs.field(eq=False)


@attrs.frozen(slots=True)
class Expired:
    """A premise's ttl has passed: the belief it held is due for a re-fetch.

    Attributes
    ----------
    key : str
    value : object
    sources : tuple of str
        The sources whose premises on this belief have expired.
    expired_at : float
        When the last of them expired (POSIX seconds).
    """

    key: str
    value: Any
    sources: tuple[str, ...]
    expired_at: float


@attrs.frozen(slots=True)
class PreparedCall:
    """A call checked before the tool runs: its spec, the key of its result, and its arguments
    as plain data (``None`` when they are not plain data: such a call is not remembered)."""

    spec: ToolSpec
    key: str
    arguments: dict[str, Any] | None


def prepare_call(fn: Callable[..., Any], key: str | None, args: tuple[Any, ...],
                 kwargs: Mapping[str, Any]) -> PreparedCall:
    """Check a call of the ``@tool`` ``fn`` before it runs: the arguments fit its signature and
    the key is valid (``None``: the tool's key template, else ``name(arg=value, ...)``).

    Raises :class:`~corollary.foundations.errors.InvalidTypeError` for a function that is not a tool or
    arguments that do not fit, :class:`~corollary.foundations.errors.InvalidInputError` for a bad key.
    """
    spec = spec_of(fn)
    arguments = bind_arguments(fn, args, kwargs)
    key = spec.key_for(arguments) if key is None else check_key(key)
    try:
        canon(arguments)
        remembered: dict[str, Any] | None = plain(arguments)
    except CorollaryError:  # an argument that is not plain data (an object): not remembered
        remembered = None
    return PreparedCall(spec, key, remembered)


class _Entry:
    __slots__ = ("vid", "premise", "arguments")

    def __init__(self, vid: Any, premise: Premise, arguments: dict[str, Any]) -> None:
        self.vid = vid
        self.premise = premise
        self.arguments = arguments


class CallMemory:
    """The calls behind a base's tool premises: ``(key, source) -> (value, premise, arguments)``.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock, tool
    >>> @tool(key="price:{symbol}")
    ... def quote(symbol: str) -> float:
    ...     return 101.5
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.call(quote, None, "ACME")
    101.5
    >>> kb.calls()
    [ToolCallRecord(key='price:ACME', value=101.5, source='tool:quote', tool='quote', arguments={'symbol': 'ACME'})]
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def remember(self, engine: Engine, call: PreparedCall, value: Any) -> None:
        """Remember ``call`` with the premise it made (if it made one: the assertion may have
        been refused)."""
        if call.arguments is None:
            return
        source = call.spec.source
        try:
            vid = canon(value)
        except CorollaryError:
            return
        b = engine.find(call.key, vid)
        premise = None if b is None else b.premise_from(source)
        if premise is None:
            return
        self._entries[(call.key, source)] = _Entry(vid, premise, call.arguments)

    def _valid(self, engine: Engine, key: str, source: str, entry: _Entry) -> Belief | None:
        b = engine.find(key, entry.vid)
        if b is None or b.premise_from(source) != entry.premise:  # that very premise
            return None
        return b

    def entries(self, engine: Engine) -> Iterator[tuple[Belief, str, dict[str, Any]]]:
        """``(belief, source, arguments)`` of every call whose premise still stands, pruning
        the others."""
        stale = []
        for (key, source), entry in self._entries.items():
            b = self._valid(engine, key, source, entry)
            if b is None:
                stale.append((key, source))
            else:
                yield b, source, entry.arguments
        for slot in stale:
            del self._entries[slot]

    def records(self, engine: Engine, key: str | None = None) -> list[ToolCallRecord]:
        """The remembered calls whose premises still stand (of ``key`` only, if given)."""
        found = [ToolCallRecord(b.key, b.value, source, source.partition(":")[2],
                                plain(arguments))
                 for b, source, arguments in list(self.entries(engine))
                 if key is None or b.key == key]
        return sorted(found, key=lambda r: (r.key, r.source))

    def restore(self, rows: Iterable[tuple[Belief, str, dict[str, Any]]]) -> None:
        """Attach calls read from a snapshot to the restored premises (checked there)."""
        for b, source, arguments in rows:
            premise = b.premise_from(source)
            if premise is not None:
                self._entries[(b.key, source)] = _Entry(b.vid, premise, arguments)


def expired(engine: Engine, now: float) -> list[Expired]:
    """Premises whose ttl has passed at ``now``, on beliefs not withdrawn, oldest expiry first."""
    found = []
    for b in engine.beliefs():
        if b.withdrawn is not None or not b.premises:
            continue
        gone = [p for p in b.premises if p.expires_at is not None and now >= p.expires_at]
        if gone:
            found.append(Expired(b.key, b.value, tuple(sorted(p.source for p in gone)),
                                 max(p.expires_at for p in gone if p.expires_at is not None)))
    return sorted(found, key=lambda e: (e.expired_at, e.key))

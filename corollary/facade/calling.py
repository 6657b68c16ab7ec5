"""The tool-call methods of :class:`~corollary.BeliefBase`: call a tool, assert its result.

A part of the facade (its methods are the base's own). :mod:`corollary.reasons.calls` prepares a call
(binds the arguments, makes the key) and remembers it with the premise it made, for a re-fetch.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..changes.base_changes import Call
from ..foundations.errors import AsyncToolError, RuleError
from ..foundations.values import Value, canon, check_key
from ..reasons.calls import ToolCallRecord, prepare_call
from ..reasons.tools import is_async
from ..reasons.valid import unwrap
from .assertions import check_span, check_valid_time
from .making import make

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase


def call(kb: BeliefBase, fn: Callable[..., object], key: str | None, *args: object,
         **kwargs: object) -> Value:
    """Call a ``@tool`` and assert its result as ``key``; return the result.

    ``key=None`` uses the tool's key template (``@tool(key="price:{symbol}")``), else
    ``name(arg=value, ...)``. The call (tool and bound arguments, when they are plain data)
    is remembered with the premise it makes (:meth:`calls`), for a re-fetch. Arguments that
    do not fit the tool's signature raise ``InvalidTypeError`` before it runs; a tool that
    raises changes nothing. A result wrapped as ``Valid(value, valid_from=...,
    valid_until=...)`` (:class:`~corollary.reasons.valid.Valid`) is believed as holding
    from that world time, and the value itself is returned. An ``async def`` tool raises
    :class:`~corollary.foundations.errors.AsyncToolError`: await :meth:`acall` instead.
    """
    call = prepare_call(fn, key, args, kwargs)
    if is_async(fn):
        raise AsyncToolError(f"{call.spec.name} is an async tool: use await kb.acall(...)")
    result = fn(*args, **kwargs)
    if inspect.isawaitable(result):
        if inspect.iscoroutine(result):
            result.close()  # never awaited: close it so Python does not warn
        raise AsyncToolError(f"{call.spec.name} returned an awaitable, which is never "
                             "asserted: use await kb.acall(...)")
    believed: Value = make(kb, check_call(kb, Call(fn, call, result)))  # the tool ran
    return believed


async def acall(kb: BeliefBase, fn: Callable[..., object], key: str | None, *args: object,
                **kwargs: object) -> Value:
    """:meth:`call` for ``async def`` tools: the result is awaited, then asserted. A plain
    tool runs in a worker thread (``asyncio.to_thread``), so it never blocks the event
    loop; the base itself is only touched from the caller's thread."""
    call = prepare_call(fn, key, args, kwargs)
    if is_async(fn):
        result = fn(*args, **kwargs)
    else:
        result = await asyncio.to_thread(fn, *args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    believed: Value = make(kb, check_call(kb, Call(fn, call, result)))  # the tool ran
    return believed


def check_call(kb: BeliefBase, change: Call) -> Call:
    """A :class:`~corollary.changes.Call`'s checks (``kb.call``'s, once the tool returned, and
    ``apply``'s): a result that can be a belief, with world times that are some (a span
    holding at the time the change runs is its effect's); the value."""
    value, valid_from, valid_until = unwrap(change.result)
    canon(value)
    check_valid_time(valid_from, valid_until)
    return change


def apply_call(kb: BeliefBase, change: Call) -> Value:
    """The effect of a :class:`~corollary.changes.Call` (a tool call's change, its result
    checked, and its replay's: the tool is not called again): its result asserted (a tool
    not known yet declared first) and the call remembered with the premise it made."""
    call, result = change.call, change.result
    # a result wrapped as Valid(value, valid_from=...) holds from that world time
    value, valid_from, valid_until = unwrap(result)
    added = call.spec.name not in kb.parts.trust.tools
    if added:  # a span that holds at no time now leaves the base as it was: no tool added
        vf, vu = check_valid_time(valid_from, valid_until)  # its times read
        if vu is not None:
            check_span(vf, vu, kb.now())
        kb.parts.trust.add_tool(call.spec)  # as kb.add_tool(fn) would: the same declaration
        kb.parts.engine.mark_source(call.spec.source)
    try:
        kb.assert_(call.key, value, source=call.spec.source,  # noqa: UP005 (our method)
                   valid_from=valid_from, valid_until=valid_until)
    except RuleError:  # the rules failed: the assertion was undone with their firings,
        if added:  # and the tool added for it goes with it
            kb.parts.trust.remove_tool(call.spec.name)
        raise
    except BaseException:  # remembered whenever the premise stands
        kb.parts.calls.remember(kb.parts.engine, call, value)
        raise
    kb.parts.calls.remember(kb.parts.engine, call, value)
    believed: Value = value  # canon accepted it
    return believed


def calls(kb: BeliefBase, key: str | None = None) -> list[ToolCallRecord]:
    """The tool calls remembered with the premises they made (of ``key`` only, if given),
    while those premises stand; see :mod:`corollary.reasons.calls`."""
    return kb.parts.calls.records(kb.parts.engine, None if key is None else check_key(key))


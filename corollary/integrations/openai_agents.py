"""corollary's operations as OpenAI Agents SDK function tools, in-process (no MCP child).

:func:`make_tools` gives a list of ``FunctionTool`` for ``Agent(tools=...)``: every
tool of the tool table (:mod:`corollary.serving.tools`: the MCP server's tools; ``remember``
with a model). A call the base
refuses goes back to the model as the tool's output, carrying corollary's message (the SDK's
default hides every error behind one fixed sentence), with the base unchanged. Needs
``openai-agents`` (the ``frameworks`` extra).
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Iterable
from typing import Any

from ..facade.base import BeliefBase
from ..foundations.errors import CorollaryError, require
from ..foundations.scope import Scope
from .operations import Operations

_agents = require("agents", "frameworks", "corollary.integrations.openai_agents")

__all__ = ["make_tools"]

#: What the model is told when a tool fails for a reason that is not a refused input.
FAILED = "the tool failed ({kind}); the base is unchanged"


def _refusal(ctx: Any, error: Exception) -> str:
    """The tool output for a failed call: corollary's own message for a refused one."""
    cause = error.__cause__ if error.__cause__ is not None else error
    if isinstance(cause, CorollaryError):
        return f"error: {cause}"
    if isinstance(error, CorollaryError):
        return f"error: {error}"
    return FAILED.format(kind=type(cause).__name__)


def _as_json(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op`` answering JSON text: the SDK hands a tool's output to the model as ``str()``,
    which for a dict is Python's repr (single quotes, ``None``, ``True``). A coroutine function
    stays one (the SDK awaits it in its event loop)."""
    if inspect.iscoroutinefunction(op):
        @functools.wraps(op)
        async def atool(*args: Any, **kwargs: Any) -> str:
            return json.dumps(await op(*args, **kwargs), ensure_ascii=False)

        return atool

    @functools.wraps(op)
    def tool(*args: Any, **kwargs: Any) -> str:
        return json.dumps(op(*args, **kwargs), ensure_ascii=False)

    return tool


def make_tools(kb: BeliefBase, *, source: str = "model:agent",
               scope: str | Iterable[str] | Scope | None = None, model: Any = None
               ) -> list[Any]:
    """The Agents SDK ``FunctionTool`` list over ``kb``: the model's claims are on the word of
    ``source``; with ``scope``, it sees and changes nothing outside it; ``model`` (a corollary
    model) lets it ``remember`` (awaited: ``kb.aremember``, the run's event loop runs on
    while the model extracts).

    Examples
    --------
    >>> from corollary import BeliefBase
    >>> [t.name for t in make_tools(BeliefBase(), source="model:analyst")][:5]
    ['assert_fact', 'claim', 'retract', 'end', 'forget']
    """
    ops = Operations(kb, source=source, scope=scope, model=model)
    # values are any JSON: the SDK's strict schemas would refuse them, so the tools are loose
    return [_agents.function_tool(_as_json(op), failure_error_function=_refusal,
                                  strict_mode=False)
            for op in ops.tools(asynchronous=True)]

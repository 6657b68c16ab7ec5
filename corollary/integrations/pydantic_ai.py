"""corollary's operations as a pydantic-ai toolset, in-process (no MCP child).

:func:`make_toolset` gives a ``FunctionToolset`` of :class:`~corollary.integrations.operations.Operations`:
every tool of the tool table (:mod:`corollary.serving.tools`: the MCP server's tools;
``remember`` with a model). A call the base refuses goes back to the model as a retry prompt carrying corollary's
message (pydantic-ai's ``ModelRetry``), with the base unchanged. Needs pydantic-ai (the
``frameworks`` extra).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from ..facade.base import BeliefBase
from ..foundations.errors import CorollaryError, require
from ..foundations.scope import Scope
from .operations import Operations

_toolsets = require("pydantic_ai.toolsets", "frameworks", "corollary.integrations.pydantic_ai")
_exceptions = require("pydantic_ai.exceptions", "frameworks",
                      "corollary.integrations.pydantic_ai")

__all__ = ["make_toolset"]


def _retrying(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op``, with a refused call turned into a retry prompt for the model (a coroutine
    function stays one: pydantic-ai awaits it in its event loop)."""
    if inspect.iscoroutinefunction(op):
        @functools.wraps(op)
        async def atool(*args: Any, **kwargs: Any) -> Any:
            try:
                return await op(*args, **kwargs)
            except CorollaryError as exc:
                raise _exceptions.ModelRetry(str(exc)) from exc

        return atool

    @functools.wraps(op)
    def tool(*args: Any, **kwargs: Any) -> Any:
        try:
            return op(*args, **kwargs)
        except CorollaryError as exc:
            raise _exceptions.ModelRetry(str(exc)) from exc

    return tool


def make_toolset(kb: BeliefBase, *, source: str = "model:agent",
                 scope: str | Iterable[str] | Scope | None = None, model: Any = None,
                 max_retries: int = 3) -> Any:
    """A pydantic-ai ``FunctionToolset`` over ``kb``: the model's claims are on the word of
    ``source``; with ``scope``, it sees and changes nothing outside it; ``model`` (a
    corollary model) lets it ``remember`` (awaited: ``kb.aremember``, the agent's event loop
    runs on while the model extracts). ``max_retries``: refused calls per tool and run.

    Examples
    --------
    >>> from corollary import BeliefBase
    >>> toolset = make_toolset(BeliefBase(), source="model:analyst")
    >>> sorted(toolset.tools)[:4]
    ['assert_fact', 'belief', 'beliefs', 'claim']
    """
    ops = Operations(kb, source=source, scope=scope, model=model)
    return _toolsets.FunctionToolset([_retrying(op) for op in ops.tools(asynchronous=True)],
                                     max_retries=max_retries)

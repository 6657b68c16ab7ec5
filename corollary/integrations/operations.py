"""The operations a native toolset offers a model over a base, in-process: the MCP server's
tools (docs/mcp.md), from the same tool table (:mod:`corollary.serving.tools`), as plain
functions that take and return JSON data.

Every tool of the table (``remember`` when there is a model and the base has it) is an
operation of :class:`Operations`; :mod:`corollary.integrations.pydantic_ai` and
:mod:`corollary.integrations.openai_agents` hand them to their framework. A bad call raises the
base's :class:`~corollary.foundations.errors.CorollaryError`, with the base unchanged; each
framework sends its message back to the model. With a ``scope``, nothing outside it is shown,
changed or accepted as a claim's input, as ``corollary mcp --scope`` (docs/integrations.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from ..facade.base import BeliefBase
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.scope import Scope, to_scope
from ..serving import tools as table
from ..serving.tool_host import ToolHost
from ..serving.tools import Tool, declared

__all__ = ["NAMES", "Operations"]

#: The operations, in the order a toolset lists them: every tool of the tool table
#: (:data:`corollary.serving.tools.TOOLS`; ``remember`` only with a model).
NAMES = tuple(tool.name for tool in table.TOOLS)
#: The arguments a toolset fills itself rather than offering: a claim is on the word of the
#: toolset's own source.
BOUND = {"claim": ("source",), "depend": ("source",)}


class Operations:
    """A base's operations for one model (its claims are on the word of ``source``), inside
    ``scope`` if one is given; ``model`` is what ``remember`` extracts facts with.

    Each operation is a tool of the tool table (:mod:`corollary.serving.tools`), run on a
    :class:`~corollary.serving.tool_host.ToolHost` (its lock, its sync with other writers,
    its save): ``ops.assert_fact(...)``, ``ops.claim(...)``, and so on, answering JSON data.

    Examples
    --------
    >>> from corollary import BeliefBase
    >>> ops = Operations(BeliefBase(), source="model:analyst")
    >>> ops.assert_fact("revenue:Q3", 110.0, "document:10-Q")["label"]
    'IN'
    >>> ops.claim("growth", 0.1, {"q3": "revenue:Q3"}, formula="q3 / 1100")["value"]
    0.1
    >>> [b["key"] for b in ops.recall("growth")["beliefs"]]
    ['growth']
    """

    def __init__(self, kb: BeliefBase, *, source: str = "model:agent",
                 scope: str | Iterable[str] | Scope | None = None, model: Any = None) -> None:
        if not isinstance(kb, BeliefBase):
            raise InvalidTypeError(f"kb must be a BeliefBase, not {type(kb).__name__}")
        kb.reliability(source)  # a policy that does not know the source refuses it here
        self.source = source
        self.scope = to_scope(scope)
        #: the model ``remember`` extracts facts with (no ``remember`` tool without one)
        self.model = model
        #: the base, served: one lock (frameworks may call tools from worker threads), other
        #: writers' entries applied first, changes saved
        self.host = ToolHost(kb, scope=self.scope, model=model)
        self._operations = {tool.name: self._function(tool, asynchronous=False)
                            for tool in table.TOOLS}

    @property
    def kb(self) -> BeliefBase:
        """The base the operations read and change."""
        return self.host.kb

    def __getattr__(self, name: str) -> Callable[..., Any]:
        operations = self.__dict__.get("_operations", {})
        if name in operations:
            return operations[name]  # type: ignore[no-any-return]
        raise AttributeError(name)

    def offered(self) -> list[Tool]:
        """The tools offered, in table order (``remember`` when there is a ``model`` to
        extract facts with and the base has ``remember``)."""
        can_remember = self.model is not None and callable(getattr(self.kb, "remember", None))
        return [tool for tool in table.TOOLS if not tool.needs_model or can_remember]

    def tools(self, asynchronous: bool = False) -> list[Callable[..., Any]]:
        """The operations as functions, in :data:`NAMES` order, each with the table's name,
        description and arguments (its docstring: what frameworks read). ``asynchronous``:
        a tool that asks a model (``remember``) is given as a coroutine function, for
        frameworks that await their tools in an event loop."""
        return [self._function(tool, asynchronous) if asynchronous and tool.arun is not None
                else self._operations[tool.name] for tool in self.offered()]

    def _function(self, tool: Tool, asynchronous: bool) -> Callable[..., Any]:
        bound = {name: self.source for name in BOUND.get(tool.name, ())}
        if not asynchronous:
            return declared(tool, bound=bound,
                            call=lambda arguments: tool.call(self.host, arguments))
        made = declared(tool, bound=bound)
        signature = inspect.signature(made)

        async def function(*args: Any, **kwargs: Any) -> Any:
            try:
                given = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise InvalidInputError(f"{tool.name}: {exc}") from None
            return await tool.acall(self.host, {**given.arguments, **bound})

        function.__name__ = function.__qualname__ = made.__name__
        function.__doc__ = made.__doc__
        function.__signature__ = signature  # type: ignore[attr-defined]
        function.__annotations__ = made.__annotations__
        return function

"""The MCP server's tools and resources over one base (imports the SDK: the ``mcp`` extra).

Every tool validates nothing itself: the base does, and a :class:`~corollary.foundations.errors.CorollaryError`
becomes a tool error carrying corollary's message (``is_error``), with the base unchanged. Tools
return typed models, so clients get input and output schemas. Changes run one at a time under a
lock (mcp 2 runs sync tools in worker threads, mcp 1 on the event loop) and, when the server
keeps a session, are saved before the tool answers. What differs between SDK majors is imported
from :mod:`corollary.mcp.sdk` only.

A journaled base (``BeliefBase.open_session``, what ``corollary mcp`` serves on a SQLite or
PostgreSQL ledger) saves each change as one journal entry, committed with the outcomes it
records, and applies other writers' entries first: several servers on one session converge.
Every read syncs first, so it sees the other servers' changes; a refused change writes nothing.
Clients may listen to ``belief://{key}`` (``subscriptions/listen`` on mcp 2,
``resources/subscribe`` on mcp 1): the server tells them when the key's value or label changes
(docs/mcp.md).
"""

from __future__ import annotations

import inspect
import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field

from .._version import __version__
from ..agent import prompts
from ..facade.base import BeliefBase
from ..foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
)
from ..foundations.scope import Scope, to_scope
from ..serving import http
from ..serving import tools as table
from ..serving.opening import NOTHING_IMPORTED, Imported, open_to_serve
from ..serving.served import log_to_stderr
from ..serving.tool_host import ToolHost
from ..serving.tools import PROOF_BLOCK_DEPTH, Param, Tool, declared, tool_named
from ..storage.targets import local_file
from ..trust.ledger import open_ledger
from . import sdk as sdk_server
from .remember_tool import RememberedFacts
from .sdk import Context, FuncMetadata, ResourceError, ResourceNotFoundError, ToolError
from .sdk import Server as MCPServer

__all__ = ["OUTPUTS", "Served", "build", "new", "run"]


# -- what the tools return -----------------------------------------------------------------------
class BeliefState(BaseModel):
    """One value of a key now: whether it is held, and how far to trust it."""

    key: str = Field(description="The belief's key")
    value: Any = Field(description="The value (null when the key holds no value now)")
    label: Literal["IN", "OUT"] = Field(description="IN if the value is held now, else OUT")
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence now, in [0, 1]; 0 when OUT")


class Changed(BeliefState):
    """The belief a change touched, after the change (and after it was saved)."""

    saved_version: int | None = Field(
        description="The session's version once this change was saved (for a journaled "
                    "session, the change's entry number in its journal); null when the server "
                    "keeps no session")


class Refutation(BaseModel):
    """What the claim's formula computed instead of the value the claim stated."""

    stated: Any = Field(description="The value the claim stated")
    computed: Any = Field(description="The value the formula computes, now believed instead")
    formula: str


class Claimed(Changed):
    """The belief a claim made, after the claim; ``refuted`` when its formula disagreed."""

    refuted: Refutation | None = Field(
        description="null when nothing refuted the claim; else the stated and the computed "
                    "value: the formula re-executed over the inputs gave another value, which "
                    "is believed (value) and counted against the model")


class SourceState(BaseModel):
    """A source's reliability after an outcome was recorded."""

    source: str
    reliability: float = Field(ge=0.0, le=1.0)
    saved_version: int | None = None


class ForgottenCounts(BaseModel):
    """What one forget erased, as counts (``kb.forget``'s ``Forgotten``: docs/model.md,
    "Forgetting")."""

    beliefs: int = Field(ge=0, description="Beliefs erased")
    reasons: int = Field(ge=0, description="Premises and justifications erased")
    kept: int = Field(ge=0, description="Beliefs that lost a reason but stay on other support")
    entries: int = Field(ge=0, description="Journal entries rewritten")
    checkpoints: int = Field(ge=0, description="Checkpoints rewritten")
    outcomes: int = Field(ge=0, description="Ledger outcomes blanked")
    saved_version: int | None = None


class BeliefList(BaseModel):
    """The held beliefs (at most ``limit`` of them)."""

    beliefs: list[BeliefState]
    truncated: bool = Field(description="Whether more beliefs matched than the limit let list")


class SourceFact(BaseModel):
    """A fact a recalled document (a transcript a remembered fact cites) is the source of."""

    key: str = Field(description="The fact's key")
    value: Any = Field(description="The value the document states")
    held: bool = Field(description="Whether that value holds now (false: superseded, replaced, "
                                   "retracted or expired; the document's text no longer holds)")


class RecalledBelief(BeliefState):
    """A held belief recalled for a query."""

    score: float = Field(description="Relevance × (0.5 + 0.5 × confidence): higher first")
    why: list[str] = Field(description="The query's terms that matched, or 'input of <key>' "
                                       "for a belief a hit rests on")
    conflict: bool = Field(description="Whether the key holds another value too (an open "
                                       "conflict)")
    source_of: list[SourceFact] = Field(default_factory=list, description=(
        "For a document (a transcript remembered facts cite): the facts it states, each held "
        "or not; empty for any other belief"))


class RecallList(BaseModel):
    """The held beliefs that bear on a query, most relevant and most trusted first."""

    beliefs: list[RecalledBelief]


class Proof(BaseModel):
    """Why a belief is held or not: the printed proof, and the same tree as data."""

    key: str
    text: str = Field(description="The proof as printed: one line per belief and reason")
    tree: dict[str, Any] | list[dict[str, Any]] = Field(
        description="The proof tree (a list when the key holds several values), cut every "
                    f"{PROOF_BLOCK_DEPTH} beliefs: a belief with 'continued': n goes on in "
                    "block n of 'continued'")
    continued: list[dict[str, Any]] = Field(
        default_factory=list,
        description="The blocks a deep proof goes on in: {number, proof}, numbered as the text "
                    "numbers its '(continued below at [n])' parts; empty for most proofs")


class Candidate(BaseModel):
    value: Any
    confidence: float = Field(ge=0.0, le=1.0)
    sources: list[str] = Field(description="Who answers for this value")


class ConflictItem(BaseModel):
    key: str
    candidates: list[Candidate]


class ConflictList(BaseModel):
    """Keys holding two or more values that no policy settled."""

    conflicts: list[ConflictItem]


class FadedItem(BaseModel):
    key: str
    value: Any
    confidence: float = Field(ge=0.0, le=1.0)
    sources: list[str]


class FadedList(BaseModel):
    """Held premises whose evidence has faded below the threshold."""

    faded: list[FadedItem]


class CheckItem(BaseModel):
    key: str
    value: Any
    source: str
    gain: float = Field(description="How much checking this would settle")


class CheckList(BaseModel):
    """What to verify first to make a belief more certain."""

    items: list[CheckItem]


# -- the base, one call at a time ------------------------------------------------------------------
class Served(ToolHost):
    """The base a server serves (:class:`~corollary.serving.tool_host.ToolHost`: one lock,
    other writers followed, changes saved, a scope), and the clients listening to its
    ``belief://`` URIs."""

    def __init__(self, kb: BeliefBase, session: str | None, scope: Scope | None = None,
                 model: Any = None) -> None:
        if session is not None:  # a store that keeps journals serves the session's journal
            opened = kb.open_as_session(session)
            kb = kb if opened is None else opened
        super().__init__(kb, session, scope, model)
        #: tells clients listening to a URI that it changed (set by build: sdk.resource_updates)
        self.updated_uri: Callable[[str], None] | None = None
        self.listened: dict[str, int] = {}  # belief:// keys clients listen to, and how many
        self.updated: set[str] = set()  # listened keys changed since the last publish
        self._watch: Any = None

    def listen(self, uris: Sequence[str], more: int) -> None:
        """Count clients listening to ``uris`` (``more``: +1 or -1); watch the keys of the
        ``belief://`` ones."""
        keys = [uri[len("belief://"):] for uri in uris if uri.startswith("belief://")]
        keys = [key for key in keys if self.inside(key)]  # no news of a key outside the scope
        if not keys:
            return
        with self.lock:
            for key in keys:
                self.listened[key] = self.listened.get(key, 0) + more
                if self.listened[key] <= 0:
                    del self.listened[key]
            if self._watch is not None:
                self._watch.stop()
                self._watch = None
            if self.listened:
                # watching only the listened keys keeps a change's cost independent of the base
                self._watch = self.watch(lambda event: self.updated.add(event.key),
                                         keys=sorted(self.listened))

    def publish(self) -> None:
        """Tell listening clients which beliefs changed (from a tool or the follower)."""
        if not self.updated or self.updated_uri is None:
            return
        with self.lock:
            keys, self.updated = sorted(self.updated), set()
        for key in keys:
            self.updated_uri(f"belief://{key}")


@contextmanager
def _as_tool_error() -> Iterator[None]:
    try:
        yield
    except CorollaryError as exc:
        raise ToolError(str(exc)) from exc


# -- the server -------------------------------------------------------------------------------------
#: Seconds a journaled server waits for other writers' entries between looks (its follower).
FOLLOW_WAIT = 1.0
_HINTS = {
    "read": sdk_server.tool_hints(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
    "write": sdk_server.tool_hints(readOnlyHint=False, destructiveHint=False,
                                   openWorldHint=False),
    "destroy": sdk_server.tool_hints(readOnlyHint=False, destructiveHint=True,
                                     openWorldHint=False),
    "ask": sdk_server.tool_hints(readOnlyHint=False, destructiveHint=False,
                                 openWorldHint=True),  # it asks a model
}
#: What each tool answers, typed (so clients get its output schema); a tool not listed here
#: answers a JSON object.
OUTPUTS: dict[str, type[BaseModel]] = {
    "assert_fact": Changed, "claim": Claimed, "retract": Changed, "end": Changed,
    "forget": ForgottenCounts, "record_outcome": SourceState, "resolve": Changed,
    "belief": BeliefState, "recall": RecallList, "beliefs": BeliefList, "explain": Proof,
    "conflicts": ConflictList, "faded": FadedList, "what_to_check": CheckList,
    "remember": RememberedFacts,
}
#: Runs a tool for a request: ``hosting(ctx, tool, arguments)`` calls the tool on the base
#: the request is for (one base, or a session per request: corollary.mcp.many).
Hosting = Callable[[Any, Tool, dict[str, Any]], dict[str, Any]]


def build(kb: BeliefBase, *, session: str | None = None, name: str = "corollary",
          model: Any = None, scope: str | Sequence[str] | Scope | None = None) -> MCPServer:
    """The server over ``kb`` (see :func:`corollary.mcp.make_server`)."""
    if not isinstance(kb, BeliefBase):
        raise InvalidTypeError("make_server needs a BeliefBase")
    served = Served(kb, session, to_scope(scope), model)

    @asynccontextmanager
    async def following(_: MCPServer) -> AsyncIterator[dict[str, Any]]:
        """While the server runs, apply other writers' entries as they come (journaled
        bases), so clients listening to a belief hear of another server's change."""
        async with anyio.create_task_group() as tasks:
            async def loop() -> None:
                while True:
                    await anyio.to_thread.run_sync(served.follow, FOLLOW_WAIT,
                                                   abandon_on_cancel=True)
                    await anyio.to_thread.run_sync(served.publish)

            if served.journaled:
                tasks.start_soon(loop)
            try:
                yield {}
            finally:
                served.stop()
                tasks.cancel_scope.cancel()

    def hosting(ctx: Any, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return tool.call(served, arguments)
        finally:
            served.publish()

    server = new(name, hosting, lifespan=following)
    served.updated_uri = sdk_server.resource_updates(server, served.listen)
    _resources(server, served)
    return server


def new(name: str, hosting: Hosting, *, lifespan: Any = None) -> MCPServer:
    """A server with every tool of the table (:data:`corollary.serving.tools.TOOLS`), each
    call run by ``hosting``; its arguments taken strictly."""
    # the instructions are one of the texts the agent's prompts hold (corollary.agent.prompts)
    server = sdk_server.new_server(name, instructions=prompts.MCP_INSTRUCTIONS,
                                   version=__version__, lifespan=lifespan)
    for tool in table.TOOLS:  # read when a server is made: the table as it is now
        server.add_tool(_function(tool, hosting), name=tool.name,
                        description=tool.description, annotations=_HINTS[tool.effect])
    _strict_arguments(server)
    return server


def _function(tool: Tool, hosting: Hosting) -> Callable[..., Any]:
    """The tool as the SDK reads one: a function of its arguments (annotated with their
    descriptions and bounds) and the request's context, answering its output model."""
    output = OUTPUTS.get(tool.name)
    declaration = declared(tool, annotate=_annotated)
    signature = inspect.signature(declaration)
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context,
                                default=None)

    def function(**arguments: Any) -> Any:
        ctx = arguments.pop("ctx", None)
        given = {name: value.model_dump() if isinstance(value, BaseModel) else value
                 for name, value in arguments.items()}
        with _as_tool_error():
            done = hosting(ctx, tool, given)
        return done if output is None else output(**done)

    function.__name__ = function.__qualname__ = tool.name
    function.__doc__ = tool.description
    function.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), context],
        return_annotation=dict[str, Any] if output is None else output)
    function.__annotations__ = {**declaration.__annotations__, "ctx": Context,
                                "return": function.__signature__.return_annotation}  # type: ignore[attr-defined]
    return function


def _annotated(param: Param) -> Any:
    """A tool argument's annotation for the SDK: its type, described and bounded."""
    bounds: dict[str, Any] = {} if param.low is None else {"ge": param.low}
    if param.high is not None:
        bounds["le"] = param.high
    return Annotated[param.kind, Field(description=param.description, **bounds)]


def _belief(served: Served, key: str) -> BeliefState:
    return BeliefState(**tool_named("belief").call(served, {"key": key}))


def _proof(served: Served, key: str, value: Any) -> Proof:
    return Proof(**tool_named("explain").call(served, {"key": key, "value": value}))


def _resources(server: MCPServer, served: Served) -> None:
    """``belief://{key}`` and ``proof://{key}``."""
    loose = sdk_server.resource_options("key")  # keys hold ':' and '/', they are not paths

    @server.resource("belief://{key}", mime_type="application/json", **loose,
                     description="The value held for a key now, with its label and confidence")
    def belief_resource(key: str) -> str:
        with _as_resource_error(), _as_tool_error():
            return json.dumps(_belief(served, sdk_server.resource_key(key)).model_dump(
                mode="json"), ensure_ascii=False)

    @server.resource("proof://{key}", mime_type="text/plain", **loose,
                     description="The printed proof of a key: why it is held or not")
    def proof_resource(key: str) -> str:
        with _as_resource_error(), _as_tool_error():
            return _proof(served, sdk_server.resource_key(key), None).text



class _AsSent(FuncMetadata):
    """A tool's arguments taken as the JSON types sent: the SDK would parse a JSON text sent
    for a list, a model or an untyped value (``value: "[1, 2]"`` stored as a list)."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)


def _strict_arguments(server: MCPServer) -> None:
    """Make every tool's arguments strict: ``"no"``, ``0`` or ``"false"`` are not booleans,
    ``"60"`` is not a number. The SDK validates arguments in pydantic's lax mode, which coerces
    them, and offers no switch: each tool's argument model gets a strict subclass (its published
    input schema stays as it is)."""
    for tool in server._tool_manager.list_tools():  # no public way to reach a tool's validator
        meta = tool.fn_metadata
        strict = type(meta.arg_model.__name__, (meta.arg_model,),
                      {"model_config": ConfigDict(strict=True), "__module__": __name__})
        tool.fn_metadata = _AsSent(arg_model=strict, output_schema=meta.output_schema,
                                   output_model=meta.output_model, wrap_output=meta.wrap_output)


@contextmanager
def _as_resource_error() -> Iterator[None]:
    try:
        yield
    except ToolError as exc:
        cause = exc.__cause__
        if isinstance(cause, UnknownBeliefError):
            raise ResourceNotFoundError(str(cause)) from cause
        raise ResourceError(str(cause or exc)) from exc


def run(*, ledger: str | None, session: str, transport: str, host: str, port: int,
        token_file: str | None = None, allowed_hosts: Sequence[str] = (),
        imported: Imported = NOTHING_IMPORTED, model: Any = None,
        scope: Sequence[str] | None = None) -> None:
    """``corollary mcp``: serve ``session`` in ``ledger`` (both created if new); ``model``
    is the one the ``remember`` tool extracts with."""
    to_scope(scope)  # a bad --scope fails before anything is created
    if transport == "http":  # refuse an exposed server before anything is created
        token = http.read_token(token_file)
        http.check_exposure(host, token)
        allowed = http.allowed_names(host, allowed_hosts)
        listening = http.listen(host, port)
    elif token_file is not None or allowed_hosts:
        raise InvalidInputError("--token-file and --allowed-host are for --transport http")
    path = local_file(ledger)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    log_to_stderr("corollary mcp")  # a base that cannot follow other writers says so
    with open_ledger(ledger) as opened:
        kb, _ = open_to_serve(opened, session, imported)  # the --import'ed rules in it
        server = build(kb, session=session, model=model, scope=scope)
        if transport == "http":
            _serve_http(server, listening, host=host, token=token, allowed=allowed)
        else:
            server.run("stdio")


def _serve_http(server: MCPServer, listening: socket.socket, *, host: str, token: str | None,
                allowed: frozenset[str]) -> None:
    import uvicorn  # the SDK's own dependency

    # the guard checks Host and Origin on every host and path, so the SDK's own check (on for
    # loopback names only) is left off rather than kept with a second, differing list
    app = sdk_server.http_app(server, host)
    config = uvicorn.Config(http.guard(app, token=token, allowed=allowed), log_level="warning")
    with listening:
        uvicorn.Server(config).run(sockets=[listening])

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

import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field

from .._version import __version__
from ..agent import prompts
from ..facade.base import BeliefBase
from ..facade.depending import declare
from ..foundations.clock import parse_instant
from ..foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
)
from ..foundations.scope import Scope, to_scope
from ..foundations.values import plain
from ..serving import http
from ..serving.opening import NOTHING_IMPORTED, Imported, open_to_serve
from ..serving.served import ServedBase, log_to_stderr
from ..storage.targets import local_file
from ..trust.ledger import open_ledger
from . import sdk as sdk_server
from .remember_tool import add_remember
from .sdk import FuncMetadata, ResourceError, ResourceNotFoundError, ToolError
from .sdk import Server as MCPServer

__all__ = ["build", "run"]

T = TypeVar("T")


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


#: How many beliefs deep one block of a proof tree goes: 4 JSON levels a belief, and MCP
#: clients and their serializers stop near 64 levels (docs/mcp.md)
PROOF_BLOCK_DEPTH = 10


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


class Citation(BaseModel):
    """A quote the claim says appears in a document held in the base."""

    document: str = Field(description="The key of the document belief holding the text")
    quote: str = Field(description="The exact words quoted")


# -- the base, one call at a time ------------------------------------------------------------------
class Served(ServedBase):
    """The base a server serves (:class:`~corollary.serving.ServedBase`: one lock, other
    writers followed, changes saved), and the clients listening to its ``belief://`` URIs."""

    def __init__(self, kb: BeliefBase, session: str | None, scope: Scope | None = None) -> None:
        if session is not None:  # a store that keeps journals serves the session's journal
            opened = kb.open_as_session(session)
            kb = kb if opened is None else opened
        super().__init__(kb, session)
        #: the keys the server's clients may see and change (None: every key)
        self.scope = scope
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

    def inside(self, key: Any) -> bool:
        """Whether ``key`` is in the server's scope (any key when it has none)."""
        return self.scope is None or not isinstance(key, str) or self.scope.contains(key)

    def check(self, *keys: Any, what: str = "key") -> None:
        """A tool error unless every key is in the server's scope (nothing is read or
        changed: docs/integrations.md, "Scope")."""
        if self.scope is not None:
            with _as_tool_error():
                for key in keys:
                    self.scope.check(key, what)

    @contextmanager
    def reading(self) -> Iterator[BeliefBase]:
        with _as_tool_error(), super().reading() as kb:
            yield kb
        self.publish()

    def change(self, apply: Callable[[BeliefBase], T]) -> tuple[T, int | None]:
        """Apply a change and save it; return what ``apply`` returned and the saved version."""
        with _as_tool_error():
            done = super().change(apply)
        self.publish()
        return done

    def change_belief(self, apply: Callable[[BeliefBase], tuple[str, Any]]) -> Changed:
        """Apply a change that returns the ``(key, value)`` it touched; answer that belief's
        state after the change, and the version it was saved as."""
        with self.lock, _as_tool_error():
            self.sync()
            key, value = apply(self.kb)
            try:
                state = _state(self.kb, key, value)
            except CorollaryError as exc:
                if self.journaled:  # the entry is committed: say so rather than drop it
                    raise ToolError(f"{exc} (reading the change back failed; the change "
                                    f"itself was saved as entry {self.save()} of the "
                                    "session's journal: read it again)") from exc
                # all or nothing: a change whose answer cannot be given is not kept either
                self.drop(exc, "reading the change back failed")
            changed = Changed(**state, saved_version=self.save())
        self.publish()
        return changed


@contextmanager
def _as_tool_error() -> Iterator[None]:
    try:
        yield
    except CorollaryError as exc:
        raise ToolError(str(exc)) from exc


def _state(kb: BeliefBase, key: str, value: Any) -> dict[str, Any]:
    if value is None:
        label, confidence = _null_state(kb, key)
        return {"key": key, "value": None, "label": label, "confidence": confidence}
    return {"key": key, "value": plain(value), "label": kb.label(key, value),
            "confidence": kb.confidence(key, value)}


def _null_state(kb: BeliefBase, key: str) -> tuple[Literal["IN", "OUT"], float]:
    """The state of ``key = null``. To the base's queries a null value means "the held value",
    which raises while ``key`` is in an open conflict (a null asserted into one, say): read
    the null value's own state from the conflict then."""
    for c in kb.conflicts():
        if not c.nogood and c.key == key:
            return next((("IN", x.confidence) for x in c.candidates if x.value is None),
                        ("OUT", 0.0))
    if kb.label(key) == "IN" and kb.value(key) is None:
        return "IN", kb.confidence(key)
    return "OUT", 0.0


# -- the server -------------------------------------------------------------------------------------
Key = Annotated[str, Field(description="The belief's key, e.g. 'revenue:Q3'")]
Source = Annotated[str, Field(description="Who says it, as 'kind:name': 'tool:quote', "
                                          "'document:10-K', 'human:ops', 'model:gpt'")]
#: Seconds a journaled server waits for other writers' entries between looks (its follower).
FOLLOW_WAIT = 1.0
#: The most beliefs one call of recall, and of beliefs, lists.
RECALL_MOST = 50
BELIEFS_MOST = 10_000
_READ = sdk_server.tool_hints(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
_WRITE = sdk_server.tool_hints(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
_RETRACT = sdk_server.tool_hints(readOnlyHint=False, destructiveHint=True, openWorldHint=False)


def build(kb: BeliefBase, *, session: str | None = None, name: str = "corollary",
          model: Any = None, scope: str | Sequence[str] | Scope | None = None) -> MCPServer:
    """The server over ``kb`` (see :func:`corollary.mcp.make_server`)."""
    if not isinstance(kb, BeliefBase):
        raise InvalidTypeError("make_server needs a BeliefBase")
    served = Served(kb, session, to_scope(scope))

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

    # the instructions are one of the texts the agent's prompts hold (corollary.agent.prompts)
    server = sdk_server.new_server(name, instructions=prompts.MCP_INSTRUCTIONS,
                                   version=__version__, lifespan=following)
    served.updated_uri = sdk_server.resource_updates(server, served.listen)
    for add in TOOL_GROUPS:
        add(server, served)
    add_remember(server, served, model)  # remember(text, source, at=): corollary.mcp.remember_tool
    _strict_arguments(server)
    _resources(server, served)
    return server


def _assertion_tools(server: MCPServer, served: Served) -> None:
    """The tools that add evidence: assert_fact, claim."""
    @server.tool(annotations=_WRITE, description=(
        "Record that a source says key = value (a tool result, a document, a person). Repeating "
        "renews it; a second independent origin saying the same raises its confidence."))
    def assert_fact(
        key: Key, value: Annotated[Any, Field(description="Plain JSON data")], source: Source,
        origin: Annotated[str | None, Field(description="Independence group: sources with one "
                                                        "origin do not confirm each other")] = None,
        half_life_s: Annotated[float | None, Field(description="Seconds after which this "
                                                               "evidence counts half")] = None,
        ttl_s: Annotated[float | None, Field(description="Seconds after which it expires")] = None,
        certainty: Annotated[float | None, Field(description="How sure the source is of this "
                                                             "one statement, in (0, 1]")] = None,
        valid_from: Annotated[str | float | None, Field(description=(
            "When the fact starts to hold in the world: ISO 8601 ('2025-03-02', "
            "'2025-03-02T09:00:00Z') or POSIX seconds; default: when it is recorded. A newer "
            "value of the key supersedes an older one"))] = None,
        valid_until: Annotated[str | float | None, Field(description=(
            "When it stops holding (ISO 8601 or POSIX seconds); default: open-ended"))] = None,
    ) -> Changed:
        served.check(key)

        def apply(kb: BeliefBase) -> tuple[str, Any]:
            kb.assert_(key, value, source, origin=origin, half_life=half_life_s, ttl=ttl_s,
                       certainty=certainty, valid_from=parse_instant(valid_from, "valid_from"),
                       valid_until=parse_instant(valid_until, "valid_until"))
            return key, value

        return served.change_belief(apply)

    @server.tool(annotations=_WRITE, description=(
        "Record a model's conclusion key = value reasoned from held beliefs (inputs). With a "
        "formula over the inputs' names it is re-executed and the computed value is believed."))
    def claim(
        key: Key, value: Annotated[Any, Field(description="The concluded value")], source: Source,
        inputs: Annotated[list[str] | dict[str, str], Field(
            description="Keys reasoned from: a list, or {name: key} to name them in a formula"
        )] = [],  # noqa: B006 - pydantic copies defaults; the SDK needs a JSON default here
        formula: Annotated[str | None, Field(description="Arithmetic over the inputs' names, "
                                                         "e.g. '(q3 - q2) / q2'")] = None,
        citation: Annotated[Citation | None, Field(description="A quote to check against a "
                                                               "held document")] = None,
        certainty: Annotated[float | None, Field(description="How sure the model is, in [0, 1] "
                                                             "(default 1)")] = None,
    ) -> Claimed:
        cited = None if citation is None else citation.model_dump()
        served.check(key)
        served.check(*(inputs.values() if isinstance(inputs, dict) else inputs), what="input")
        served.check(*([] if citation is None else [citation.document]), what="cited document")

        def apply(kb: BeliefBase) -> tuple[str, Any]:
            return key, kb.claim(key, value, source, inputs=inputs, certainty=certainty,
                                 formula=formula, citation=cited)

        done = served.change_belief(apply)
        believed = done.value
        # the base believes the stated value when the formula reproduces it, else the computed
        # one (a bool is no number: True stated, 1.0 computed is refuted)
        refuted = None
        if formula is not None and (type(believed) is not type(value) or believed != value):
            refuted = Refutation(stated=value, computed=believed, formula=formula)
        return Claimed(**dict(done), refuted=refuted)



def _settling_tools(server: MCPServer, served: Served) -> None:
    """The tools that withdraw or judge: retract, record_outcome, resolve."""
    @server.tool(annotations=_RETRACT, description=(
        "Withdraw the held value of key (or the given value): it was never right; everything "
        "resting on it goes OUT. fault='source' lowers its sources' reliability. A fact that "
        "was true and stopped holding is ended (end), not retracted."))
    def retract(
        key: Key, value: Annotated[Any, Field(description="The value to withdraw (default: the "
                                                          "held one)")] = None,
        reason: Annotated[str | None, Field(description="Why, shown in proofs")] = None,
        fault: Annotated[str, Field(description="'none' or 'source'")] = "none",
    ) -> Changed:
        served.check(key)

        def apply(kb: BeliefBase) -> tuple[str, Any]:
            withdrawn = kb.value(key) if value is None else value
            kb.retract(key, value, reason=reason, fault=fault)
            return key, withdrawn

        return served.change_belief(apply)

    @server.tool(annotations=_WRITE, description=(
        "Record whether a source turned out right or wrong (an audit, a check); its reliability, "
        "and the confidence of everything it supports, follow."))
    def record_outcome(source: Source, correct: bool,
                       reason: Annotated[str | None, Field(description="Why")] = None
                       ) -> SourceState:
        def apply(kb: BeliefBase) -> float:
            kb.record_outcome(source, correct, reason=reason)
            return kb.reliability(source)

        reliability, version = served.change(apply)
        return SourceState(source=source, reliability=reliability, saved_version=version)

    @server.tool(annotations=_WRITE, description=(
        "Settle a conflict over key as a person would: winner holds, the other values are "
        "rejected; with learn, their sources' reliability moves."))
    def resolve(conflict: Annotated[str, Field(description="The key in conflict")],
                winner: Annotated[Any, Field(description="The value that holds")],
                learn: bool = True) -> Changed:
        served.check(conflict)

        def apply(kb: BeliefBase) -> tuple[str, Any]:
            kb.resolve(conflict, winner, learn=learn)
            return conflict, winner

        return served.change_belief(apply)



def _belief_tools(server: MCPServer, served: Served) -> None:
    """The tools that read beliefs: belief, recall, beliefs, explain."""
    @server.tool(annotations=_READ, description=(
        "The value held for key now, IN or OUT, with its confidence (value null if none is "
        "held). Fails while two values of key conflict: see conflicts."))
    def belief(key: Key) -> BeliefState:
        return _belief(served, key)

    @server.tool(annotations=_READ, description=(
        "The held beliefs that bear on a query (words of their keys, values, sources), most "
        "relevant and most trusted first. Never an OUT, retracted or superseded value."))
    def recall(query: Annotated[str, Field(description="What to look for, e.g. 'customer 7 "
                                                       "email'")],
               k: Annotated[int, Field(ge=1, le=RECALL_MOST,
                                       description="How many beliefs to return")] = 10,
               min_confidence: Annotated[float | None, Field(
                   description="Keep beliefs at or above this confidence (default: the "
                               "policy's floor)")] = None) -> RecallList:
        with served.reading() as kb:
            return RecallList(beliefs=[
                RecalledBelief(key=r.key, value=plain(r.value), label="IN",
                               confidence=r.confidence, score=r.score, why=list(r.why),
                               conflict=r.conflict, source_of=[
                                   SourceFact(key=f.key, value=plain(f.value), held=f.held)
                                   for f in r.source_of])
                for r in kb.recall(query, k, min_confidence=min_confidence,
                                   scope=served.scope)])

    @server.tool(annotations=_READ, description=(
        "Held beliefs with their confidence: those a query finds (best first), else every one; "
        "only keys under scope ('customer:42': what a user has); at most limit after offset "
        "(truncated: more matched, next page at offset + limit); optionally at or above "
        "min_confidence."))
    def beliefs(query: Annotated[str | None, Field(
                    description="Only the beliefs this query finds, as recall does")] = None,
                limit: Annotated[int, Field(ge=1, le=BELIEFS_MOST,
                                            description="List at most this many")] = 100,
                min_confidence: Annotated[float | None, Field(
                    description="Keep beliefs at or above this confidence")] = None,
                scope: Annotated[str | None, Field(
                    description="Only keys equal to this prefix or starting with it and ':', "
                                "e.g. 'customer:42' (inside the server's own scope)")] = None,
                offset: Annotated[int, Field(ge=0, description="Skip this many first")] = 0
                ) -> BeliefList:
        within = _narrowed(served, scope)
        with served.reading() as kb:
            if query is not None:  # one more than the page: whether more matched
                found = [(r.key, r.value, r.confidence)
                         for r in kb.recall(query, offset + limit + 1,
                                            min_confidence=min_confidence, scope=within)]
                found = found[offset:]
            else:
                found = [(h.key, h.value, h.confidence)
                         for h in kb.beliefs(min_confidence, scope=within, offset=offset,
                                             limit=limit + 1)]
            return BeliefList(beliefs=[
                BeliefState(key=key, value=plain(value), label="IN", confidence=confidence)
                for key, value, confidence in found[:limit]], truncated=len(found) > limit)

    @server.tool(annotations=_READ, description=(
        "Why key is held or not: the proof (sources, steps, confidences at every node) as text "
        "and as a tree."))
    def explain(key: Key, value: Annotated[Any, Field(
            description="Explain this value of key (default: the held one)")] = None) -> Proof:
        return _proof(served, key, value)



def _problem_tools(server: MCPServer, served: Served) -> None:
    """The tools that read what needs attention: conflicts, faded, what_to_check."""
    @server.tool(annotations=_READ, description=(
        "Open conflicts: keys holding two or more values that no policy settled, with each "
        "value's confidence and sources. Settle one with resolve."))
    def conflicts() -> ConflictList:
        with served.reading() as kb:
            return ConflictList(conflicts=[ConflictItem(key=c.key, candidates=[
                Candidate(value=plain(x.value), confidence=x.confidence, sources=list(x.sources))
                for x in c.candidates]) for c in kb.conflicts() if served.inside(c.key)])

    @server.tool(annotations=_READ, description=(
        "Held premises whose evidence has faded below min_confidence (default: the policy's "
        "min_confidence): candidates to re-check."))
    def faded(min_confidence: Annotated[float | None, Field(
            description="Confidence in [0, 1]")] = None) -> FadedList:
        with served.reading() as kb:
            found = kb.faded(min_confidence)
            return FadedList(faded=[
                FadedItem(key=f.key, value=plain(f.value), confidence=f.confidence,
                          sources=list(f.sources)) for f in found
                if served.inside(f.key)])

    @server.tool(annotations=_READ, description=(
        "What to verify first to make key more certain: the premises whose check would "
        "settle the most, best first."))
    def what_to_check(key: Key, limit: Annotated[int, Field(
            description="At most how many to list")] = 5) -> CheckList:
        n = limit
        served.check(key)
        with served.reading() as kb:
            found = [i for i in kb.what_to_check(key, limit=None if served.scope else n)
                     if served.inside(i.key)][:n]
            return CheckList(items=[
                CheckItem(key=i.key, value=plain(i.value), source=i.source, gain=i.gain)
                for i in found])



def _ending_tools(server: MCPServer, served: Served) -> None:
    """The tool that ends a fact: end (docs/lifecycle.md: end, retract, supersede, forget)."""
    @server.tool(annotations=_WRITE, description=(
        "Say that key (or its value) no longer holds from a time on ('I no longer work at "
        "Acme'): the key then holds nothing, earlier times still read the value, and "
        "retracting the end brings it back. Retract is for a value that was never right."))
    def end(
        key: Key, source: Source,
        value: Annotated[Any, Field(description="The value that stopped holding (default: "
                                                "whatever the key holds)")] = None,
        at: Annotated[str | float | None, Field(description=(
            "When it stopped holding: ISO 8601 ('2026-03-01') or POSIX seconds; default: "
            "now"))] = None,
        reason: Annotated[str | None, Field(description="Why, or the words that said so; "
                                                         "shown in proofs")] = None,
        certainty: Annotated[float | None, Field(description="How sure the source is, in "
                                                             "(0, 1]")] = None,
    ) -> Changed:
        served.check(key)

        def apply(kb: BeliefBase) -> tuple[str, Any]:
            kb.end(key, value, source=source, at=parse_instant(at, "at"), reason=reason,
                   certainty=certainty)
            return key, None

        return served.change_belief(apply)


def _forgetting_tools(server: MCPServer, served: Served) -> None:
    """The tool that erases: forget (docs/lifecycle.md; docs/mcp.md, "forget")."""
    @server.tool(annotations=_WRITE, description=(
        "Erase for good (a user's or a conversation's data, on request): a key (or one value "
        "of it), all a source said, or every key under a scope; not readable afterwards, not "
        "even in the history. Give one of key, source, scope. End is for a fact that stopped."))
    def forget(
        key: Annotated[str | None, Field(description="The key to erase")] = None,
        value: Annotated[Any, Field(description="Only this value of key (default: the whole "
                                                "key)")] = None,
        scope: Annotated[str | list[str] | None, Field(description=(
            "Erase every key under this prefix (or these prefixes), e.g. 'user:alice:'"))] = None,
        source: Annotated[str | None, Field(description="Erase everything this source "
                                                        "said")] = None,
        reason: Annotated[str | None, Field(description=(
            "Why (kept in the history: keep what is forgotten out of it)"))] = None,
    ) -> ForgottenCounts:
        if key is not None:
            served.check(key)
        if scope is not None:
            with _as_tool_error():
                served.check(*Scope.of(scope).prefixes, what="scope")
        if source is not None and served.scope is not None:
            # a source's facts may lie outside the server's scope: never erase those
            raise ToolError("a scoped server forgets by key or scope, not by source")

        def apply(kb: BeliefBase) -> Any:
            if value is not None:
                return kb.forget(key, value, scope=scope, source=source, reason=reason)
            return kb.forget(key, scope=scope, source=source, reason=reason)

        gone, version = served.change(apply)
        return ForgottenCounts(beliefs=gone.beliefs, reasons=gone.reasons, kept=gone.kept,
                               entries=gone.entries, checkpoints=gone.checkpoints,
                               outcomes=gone.outcomes, saved_version=version)


def _depending_tools(server: MCPServer, served: Served) -> None:
    """The tool that declares a dependency or a replacement: depend (docs/model.md,
    "Dependencies and declared replacements")."""
    @server.tool(annotations=_WRITE, description=(
        "Record that key = value rests on what other keys hold now (on: it goes OUT when one "
        "changes), or that key becomes value once if_changes changes from what it holds now "
        "(until then key keeps its value). Give on or if_changes."))
    def depend(
        key: Key, value: Annotated[Any, Field(description="The value")], source: Source,
        on: Annotated[list[str], Field(description="Keys it rests on, as they hold now")
                      ] = [],  # noqa: B006 - pydantic copies defaults; the SDK needs a JSON default
        if_changes: Annotated[str | None, Field(description=(
            "The key whose change from its current value makes value key's"))] = None,
        citation: Annotated[Citation | None, Field(description="The sentence that said it, "
                                                               "in a held document")] = None,
        certainty: Annotated[float | None, Field(description="How sure, in (0, 1]")] = None,
    ) -> Changed:
        cited = None if citation is None else citation.model_dump()
        served.check(key)
        served.check(*on, *([] if if_changes is None else [if_changes]), what="input")
        served.check(*([] if citation is None else [citation.document]), what="cited document")

        def apply(kb: BeliefBase) -> tuple[str, Any]:
            return key, declare(kb, key, value, source=source, on=on, if_changes=if_changes,
                                citation=cited, certainty=certainty)

        return served.change_belief(apply)


#: Every tool the server has, by group: a new tool goes in one of these (or a group of its own
#: listed here), ``fn(server, served)`` adding it with ``@server.tool``.
TOOL_GROUPS: tuple[Callable[[MCPServer, Served], None], ...] = (
    _assertion_tools, _settling_tools, _belief_tools, _problem_tools, _ending_tools,
    _forgetting_tools, _depending_tools)


def _narrowed(served: Served, scope: str | None) -> Scope | None:
    """The scope a read asks for, inside the server's own: never wider (a tool error names
    the prefix outside it; nothing is read)."""
    if scope is None:
        return served.scope
    with _as_tool_error():
        asked = Scope.of(scope)
    served.check(*asked.prefixes, what="scope")
    return asked


def _belief(served: Served, key: str) -> BeliefState:
    served.check(key)
    with served.reading() as kb:
        if kb.label(key) == "OUT":  # (a held value may itself be null)
            return BeliefState(key=key, value=None, label="OUT", confidence=0.0)
        return BeliefState(**_state(kb, key, kb.value(key)))


def _proof(served: Served, key: str, value: Any) -> Proof:
    served.check(key)
    with served.reading() as kb:
        proof = kb.explain(key, value)
        if served.scope is not None:  # inputs outside the scope are named only as such
            proof = type(proof)(served.scope.redact(proof.to_dict()))
        blocks = _json(proof.to_blocks(PROOF_BLOCK_DEPTH))
        return Proof(key=key, text=str(proof), tree=blocks["proof"],
                     continued=blocks["continued"])


def _resources(server: MCPServer, served: Served) -> None:
    """``belief://{key}`` and ``proof://{key}``."""
    loose = sdk_server.resource_options("key")  # keys hold ':' and '/', they are not paths

    @server.resource("belief://{key}", mime_type="application/json", **loose,
                     description="The value held for a key now, with its label and confidence")
    def belief_resource(key: str) -> str:
        with _as_resource_error():
            return json.dumps(_belief(served, sdk_server.resource_key(key)).model_dump(
                mode="json"), ensure_ascii=False)

    @server.resource("proof://{key}", mime_type="text/plain", **loose,
                     description="The printed proof of a key: why it is held or not")
    def proof_resource(key: str) -> str:
        with _as_resource_error():
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


def _json(tree: Any) -> Any:
    """A proof tree as JSON data (values are plain already; tuples become lists)."""
    return json.loads(json.dumps(tree, default=lambda v: plain(v)))


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

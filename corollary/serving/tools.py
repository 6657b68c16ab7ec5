"""The tool table: every tool an agent is offered over a base, written once.

Each :class:`Tool` holds a tool's name, its description (what a model reads), its arguments
(:class:`Param`: name, type, description, default, bounds), what kind of change it makes
(``effect``), the value class of the change it makes (``changes``: a
:class:`~corollary.changes.Change` subclass; none for a read) and the tool itself (``run``: a
function of a :class:`~corollary.serving.tool_host.ToolHost` and the arguments, answering plain
JSON data). A tool that changes the base builds its value and hands it to
:func:`corollary.changes.apply`, the one door every change goes through (all or nothing
whatever raises), never the base's method. Every surface derives its tools from :data:`TOOLS`:

- the MCP server (:mod:`corollary.mcp.server`), one session or many;
- the native toolsets for pydantic-ai and the OpenAI Agents SDK
  (:mod:`corollary.integrations.operations`);
- the agent's built-in ``claim`` and ``recall`` (:mod:`corollary.agent.builtins`), whose
  declarations are :func:`declared` from here (the agent runs them its own way: it checks a
  claim before believing it, and reads at its own floor).

A new tool is one entry of :data:`TOOLS` (and its ``run``): docs/extending.md, "A new tool".
A surface may *bind* an argument instead of offering it (``claim``'s ``source`` is the model's
own on the toolsets and in the agent): its schema is then the table's without that argument.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..changes import (
    Assert,
    Change,
    Claim,
    Depend,
    End,
    Forget,
    RecordOutcome,
    Remember,
    ReplaceWhen,
    Resolve,
    Retract,
    apply,
    dependency,
)
from ..facade.base import BeliefBase
from ..facade.forgetting import NO_VALUE
from ..foundations.clock import parse_instant
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.scope import Scope
from ..foundations.values import plain
from .tool_host import ToolHost, belief_state, json_tree

__all__ = ["BELIEFS_MOST", "NO_MODEL", "PROOF_BLOCK_DEPTH", "RECALL_MOST", "REQUIRED", "TOOLS",
           "Param", "Tool", "declared", "tool_named"]

#: The most beliefs one call of recall, and of beliefs, lists.
RECALL_MOST = 50
BELIEFS_MOST = 10_000
#: How many beliefs deep one block of a proof tree goes: 4 JSON levels a belief, and MCP
#: clients and their serializers stop near 64 levels (docs/mcp.md)
PROOF_BLOCK_DEPTH = 10
#: What a call to ``remember`` answers where no model was given.
NO_MODEL = ("this server has no model to extract facts with: start it with "
            "'corollary mcp --model URL' (an OpenAI-compatible server, e.g. "
            "http://127.0.0.1:8080/v1) and --model-name NAME")


class _Required:
    """The default of an argument that has none."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a required argument.
REQUIRED: Any = _Required()


@attrs.frozen(slots=True)
class Param:
    """One argument of a tool: its name, type (a Python annotation), description, default
    (:data:`REQUIRED`: none) and, for a number, its bounds (inclusive)."""

    name: str
    kind: Any
    description: str
    default: Any = REQUIRED
    low: int | None = None
    high: int | None = None

    @property
    def required(self) -> bool:
        """Whether a call must give it."""
        return self.default is REQUIRED


@attrs.frozen(slots=True, eq=False)
class Tool:
    """One tool of the table.

    Attributes
    ----------
    name, description : str
        What a model is offered.
    params : tuple of Param
        Its arguments, in order.
    effect : {"read", "write", "destroy", "ask"}
        What it does to the base: reads it, adds to it, withdraws or erases, or asks a model
        (MCP's tool hints).
    run : callable
        ``run(host, **arguments) -> dict``: the change or the read, on a
        :class:`~corollary.serving.tool_host.ToolHost` (its lock, its sync, its scope).
    arun : callable, optional
        An awaitable ``run`` for surfaces in an event loop (``remember`` awaits its model).
    needs_model : bool
        Whether a surface without a model leaves it out (the toolsets) or refuses it (MCP).
    changes : tuple of Change classes
        The value class of the change it makes (``depend``: one of two), each applied with
        :func:`corollary.changes.apply`; empty for a read. ``remember``'s
        :class:`~corollary.changes.Remember` is applied by ``kb.remember`` once its model
        has answered.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    effect: str
    run: Callable[..., dict[str, Any]]
    arun: Callable[..., Any] | None = None
    needs_model: bool = False
    changes: tuple[type[Change], ...] = ()

    def param(self, name: str) -> Param:
        """The argument ``name``."""
        return next(p for p in self.params if p.name == name)

    def call(self, host: ToolHost, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run the tool on ``host`` with ``arguments`` (checked against its bounds first)."""
        return self.run(host, **_bounded(self, arguments))

    async def acall(self, host: ToolHost, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`call`, awaiting ``arun`` when the tool has one."""
        if self.arun is None:
            return self.call(host, arguments)
        found: dict[str, Any] = await self.arun(host, **_bounded(self, arguments))
        return found


def _bounded(tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    for p in tool.params:
        if p.low is None or p.name not in arguments:
            continue
        value = arguments[p.name]
        if type(value) is not int or not p.low <= value <= (p.high or value):
            span = f"from {p.low} to {p.high}" if p.high is not None else f"of at least {p.low}"
            raise InvalidInputError(f"{p.name} must be an integer {span}, not {value!r}")
    return dict(arguments)


def declared(tool: Tool, *, bound: Mapping[str, Any] = {},  # noqa: B006 - never changed
             annotate: Callable[[Param], Any] | None = None,
             call: Callable[[dict[str, Any]], Any] | None = None,
             required: tuple[str, ...] = ()) -> Callable[..., Any]:
    """The tool as a Python function: its name, a signature of its arguments (those in
    ``bound`` left out, those in ``required`` without their default, ``annotate(param)``
    giving each one's annotation: default its ``kind``) and a numpydoc docstring of its
    descriptions, what frameworks read a tool from.
    Calling it calls ``call(arguments)`` with the bound arguments added (without ``call``, it
    is a declaration only, and raises).

    Examples
    --------
    >>> import inspect
    >>> fn = declared(tool_named("claim"), bound={"source": "model:agent"})
    >>> fn.__name__, list(inspect.signature(fn).parameters)[:3]
    ('claim', ['key', 'value', 'inputs'])
    """
    shown = [attrs.evolve(p, default=REQUIRED) if p.name in required else p
             for p in tool.params if p.name not in bound]
    kinds = {p.name: (p.kind if annotate is None else annotate(p)) for p in shown}
    signature = inspect.Signature([
        inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=inspect.Parameter.empty if p.required else p.default,
                          annotation=kinds[p.name]) for p in shown])
    fixed = dict(bound)

    def function(*args: Any, **kwargs: Any) -> Any:
        if call is None:
            raise InvalidInputError(f"{tool.name!r} is declared here, not run")
        try:
            given = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise InvalidInputError(f"{tool.name}: {exc}") from None
        return call({**given.arguments, **fixed})

    function.__name__ = function.__qualname__ = tool.name
    function.__doc__ = _docstring(tool.description, shown)
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__annotations__ = {**kinds, "return": dict[str, Any]}
    return function


def _docstring(description: str, params: list[Param]) -> str:
    lines = [description, "", "Parameters", "----------"]
    for p in params:
        lines += [f"{p.name} : {_type_name(p.kind)}{'' if p.required else ', optional'}",
                  f"    {p.description}"]
    return "\n".join(lines) + "\n"


def _type_name(kind: Any) -> str:
    return kind.__name__ if isinstance(kind, type) else str(kind).replace("typing.", "")


# -- the tools' changes and reads ------------------------------------------------------------------
def _assert_fact(host: ToolHost, key: str, value: Any, source: str, origin: str | None = None,
                 half_life_s: float | None = None, ttl_s: float | None = None,
                 certainty: float | None = None, valid_from: str | float | None = None,
                 valid_until: str | float | None = None) -> dict[str, Any]:
    host.check(key)
    change = Assert(key, value, source, origin=origin, half_life=half_life_s, ttl=ttl_s,
                    certainty=certainty, valid_from=parse_instant(valid_from, "valid_from"),
                    valid_until=parse_instant(valid_until, "valid_until"))

    def made(kb: BeliefBase) -> tuple[str, Any]:
        apply(kb, change)
        return key, value

    return host.change_belief(made)


def _claim(host: ToolHost, key: str, value: Any, source: str,
           inputs: list[str] | dict[str, str] = [],  # noqa: B006 - never changed
           formula: str | None = None, citation: dict[str, str] | None = None,
           certainty: float | None = None) -> dict[str, Any]:
    host.check(key)
    host.check(*(inputs.values() if isinstance(inputs, dict) else inputs), what="input")
    if isinstance(citation, dict) and "document" in citation:
        host.check(citation["document"], what="cited document")

    change = Claim(key, value, source, inputs=inputs, certainty=certainty, formula=formula,
                   citation=citation)
    done = host.change_belief(lambda kb: (key, apply(kb, change)))
    believed = done["value"]
    # the base believes the stated value when the formula reproduces it, else the computed
    # one (a bool is no number: True stated, 1.0 computed is refuted)
    refuted = None
    if formula is not None and (type(believed) is not type(value) or believed != value):
        refuted = {"stated": plain(value), "computed": believed, "formula": formula}
    return {**done, "refuted": refuted}


def _retract(host: ToolHost, key: str, value: Any = None, reason: str | None = None,
             fault: str = "none") -> dict[str, Any]:
    host.check(key)
    change = Retract(key, value, reason=reason, fault=fault)

    def made(kb: BeliefBase) -> tuple[str, Any]:
        withdrawn = kb.value(key) if value is None else value
        apply(kb, change)
        return key, withdrawn

    return host.change_belief(made)


def _record_outcome(host: ToolHost, source: str, correct: bool,
                    reason: str | None = None) -> dict[str, Any]:
    change = RecordOutcome(source, correct, reason=reason)

    def made(kb: BeliefBase) -> float:
        apply(kb, change)
        return kb.reliability(source)

    reliability, version = host.change(made)
    return {"source": source, "reliability": reliability, "saved_version": version}


def _resolve(host: ToolHost, conflict: str, winner: Any, learn: bool = True) -> dict[str, Any]:
    host.check(conflict)
    change = Resolve(conflict, winner, learn=learn)

    def made(kb: BeliefBase) -> tuple[str, Any]:
        apply(kb, change)
        return conflict, winner

    return host.change_belief(made)


def _belief(host: ToolHost, key: str) -> dict[str, Any]:
    host.check(key)
    with host.reading() as kb:
        if kb.label(key) == "OUT":  # (a held value may itself be null)
            return {"key": key, "value": None, "label": "OUT", "confidence": 0.0}
        return belief_state(kb, key, kb.value(key))


def _recall(host: ToolHost, query: str, k: int = 10,
            min_confidence: float | None = None) -> dict[str, Any]:
    with host.reading() as kb:
        return {"beliefs": [
            {"key": r.key, "value": plain(r.value), "label": "IN", "confidence": r.confidence,
             "score": r.score, "why": list(r.why), "conflict": r.conflict,
             "source_of": [{"key": f.key, "value": plain(f.value), "held": f.held}
                           for f in r.source_of]}
            for r in kb.recall(query, k, min_confidence=min_confidence, scope=host.scope)]}


def _beliefs(host: ToolHost, query: str | None = None, limit: int = 100,
             min_confidence: float | None = None, scope: str | None = None,
             offset: int = 0) -> dict[str, Any]:
    within = host.narrowed(scope)
    with host.reading() as kb:
        if query is not None:  # one more than the page: whether more matched
            found = [(r.key, r.value, r.confidence)
                     for r in kb.recall(query, offset + limit + 1,
                                        min_confidence=min_confidence, scope=within)][offset:]
        else:
            found = [(h.key, h.value, h.confidence)
                     for h in kb.beliefs(min_confidence, scope=within, offset=offset,
                                         limit=limit + 1)]
        return {"beliefs": [{"key": key, "value": plain(value), "label": "IN",
                             "confidence": confidence} for key, value, confidence in found[:limit]],
                "truncated": len(found) > limit}


def _explain(host: ToolHost, key: str, value: Any = None) -> dict[str, Any]:
    host.check(key)
    with host.reading() as kb:
        proof = kb.explain(key, value)
        if host.scope is not None:  # inputs outside the scope are named only as such
            proof = type(proof)(host.scope.redact(proof.to_dict()))
        blocks = json_tree(proof.to_blocks(PROOF_BLOCK_DEPTH))
        return {"key": key, "text": str(proof), "tree": blocks["proof"],
                "continued": blocks["continued"]}


def _conflicts(host: ToolHost) -> dict[str, Any]:
    with host.reading() as kb:
        return {"conflicts": [
            {"key": c.key, "candidates": [{"value": plain(x.value), "confidence": x.confidence,
                                           "sources": list(x.sources)} for x in c.candidates]}
            for c in kb.conflicts() if host.inside(c.key)]}


def _faded(host: ToolHost, min_confidence: float | None = None) -> dict[str, Any]:
    with host.reading() as kb:
        return {"faded": [{"key": f.key, "value": plain(f.value), "confidence": f.confidence,
                           "sources": list(f.sources)}
                          for f in kb.faded(min_confidence) if host.inside(f.key)]}


def _what_to_check(host: ToolHost, key: str, limit: int = 5) -> dict[str, Any]:
    host.check(key)
    with host.reading() as kb:
        found = [i for i in kb.what_to_check(key, limit=None if host.scope else limit)
                 if host.inside(i.key)][:limit]
        return {"items": [{"key": i.key, "value": plain(i.value), "source": i.source,
                           "gain": i.gain} for i in found]}


def _end(host: ToolHost, key: str, source: str, value: Any = None,
         at: str | float | None = None, reason: str | None = None,
         certainty: float | None = None) -> dict[str, Any]:
    host.check(key)
    change = End(key, value, source=source, at=parse_instant(at, "at"), reason=reason,
                 certainty=certainty)

    def made(kb: BeliefBase) -> tuple[str, Any]:
        apply(kb, change)
        return key, None

    return host.change_belief(made)


def _forget(host: ToolHost, key: str | None = None, value: Any = None,
            scope: str | list[str] | None = None, source: str | None = None,
            reason: str | None = None) -> dict[str, Any]:
    if key is not None:
        host.check(key)
    if scope is not None:
        host.check(*Scope.of(scope).prefixes, what="scope")
    if source is not None and host.scope is not None:
        # a source's facts may lie outside the caller's scope: never erase those
        raise InvalidInputError("a scoped server forgets by key or scope, not by source")

    change = Forget(key, NO_VALUE if value is None else value, source=source, scope=scope,
                    reason=reason)
    gone, version = host.change(lambda kb: apply(kb, change))
    return {"beliefs": gone.beliefs, "reasons": gone.reasons, "kept": gone.kept,
            "entries": gone.entries, "checkpoints": gone.checkpoints, "outcomes": gone.outcomes,
            "saved_version": version}


def _depend(host: ToolHost, key: str, value: Any, source: str,
            on: list[str] = [],  # noqa: B006 - never changed
            if_changes: str | None = None, citation: dict[str, str] | None = None,
            certainty: float | None = None) -> dict[str, Any]:
    host.check(key)
    host.check(*on, *([] if if_changes is None else [if_changes]), what="input")
    if isinstance(citation, dict) and "document" in citation:
        host.check(citation["document"], what="cited document")
    change = dependency(key, value, source=source, on=on, if_changes=if_changes,
                        citation=citation, certainty=certainty)
    return host.change_belief(lambda kb: (key, apply(kb, change)))


def _remember_args(host: ToolHost, at: float | str | None) -> tuple[Any, list[str] | None]:
    if host.model is None:
        raise InvalidInputError(NO_MODEL)
    if not callable(getattr(host.kb, "remember", None)):
        raise InvalidTypeError(f"{type(host.kb).__name__} has no remember")
    when = parse_instant(at, "at")
    return when, None if host.scope is None else list(host.scope.prefixes)


def _remember(host: ToolHost, text: str, source: str,
              at: float | str | None = None) -> dict[str, Any]:
    when, scope = _remember_args(host, at)
    made, version = host.change(lambda kb: kb.remember(  # type: ignore[attr-defined]
        text, source=source, model=host.model, at=when, scope=scope))
    return _remembered(made, version)


async def _aremember(host: ToolHost, text: str, source: str,
                     at: float | str | None = None) -> dict[str, Any]:
    """``remember`` awaiting the model (``kb.aremember``): the lock is held throughout, so a
    tool another thread runs meanwhile waits for the change and never sees half of it."""
    when, scope = _remember_args(host, at)
    with host.lock:
        host.sync()
        made = await host.kb.aremember(  # type: ignore[attr-defined]
            text, source=source, model=host.model, at=when, scope=scope)
        version = host.save()
    return _remembered(made, version)


def _remembered(made: Any, version: int | None) -> dict[str, Any]:
    return {"remembered": [{"key": r.key, "value": plain(r.value), "quote": r.quote,
                            "label": r.label, "confidence": r.confidence, "document": r.document,
                            "superseded": [plain(v) for v in r.superseded],
                            "merged_from": r.merged_from} for r in made],
            "refused": [r.named() for r in getattr(made, "refused", ())],
            "saved_version": version}


# -- the table -------------------------------------------------------------------------------------
_KEY = Param("key", str, "The belief's key, e.g. 'revenue:Q3'")
_SOURCE = Param("source", str, "Who says it, as 'kind:name': 'tool:quote', 'document:10-K', "
                               "'human:ops', 'model:gpt'")
_MIN_CONFIDENCE = Param("min_confidence", float | None,
                        "Keep beliefs at or above this confidence (default: the policy's floor)",
                        None)

#: Every tool, in the order surfaces list them. A new tool is one entry here.
TOOLS: tuple[Tool, ...] = (
    Tool("assert_fact", "Record that a source says key = value (a tool result, a document, a "
         "person). Repeating renews it; a second independent origin saying the same raises its "
         "confidence.", (
             _KEY, Param("value", Any, "Plain JSON data"), _SOURCE,
             Param("origin", str | None, "Independence group: sources with one origin do not "
                                         "confirm each other", None),
             Param("half_life_s", float | None, "Seconds after which this evidence counts half",
                   None),
             Param("ttl_s", float | None, "Seconds after which it expires", None),
             Param("certainty", float | None, "How sure the source is of this one statement, "
                                              "in (0, 1]", None),
             Param("valid_from", str | float | None, "When the fact starts to hold in the world: "
                   "ISO 8601 ('2025-03-02', '2025-03-02T09:00:00Z') or POSIX seconds; default: "
                   "when it is recorded. A newer value of the key supersedes an older one", None),
             Param("valid_until", str | float | None, "When it stops holding (ISO 8601 or POSIX "
                                                      "seconds); default: open-ended", None)),
         "write", _assert_fact, changes=(Assert,)),
    Tool("claim", "Record a model's conclusion key = value reasoned from held beliefs (inputs). "
         "With a formula over the inputs' names it is re-executed and the computed value is "
         "believed.", (
             _KEY, Param("value", Any, "The concluded value"), _SOURCE,
             Param("inputs", list[str] | dict[str, str], "Keys reasoned from: a list, or "
                                                         "{name: key} to name them in a formula",
                   []),
             Param("formula", str | None, "Arithmetic over the inputs' names, e.g. "
                                          "'(q3 - q2) / q2'", None),
             Param("citation", dict[str, str] | None, "A quote to check against a held "
                   "document: {\"document\": its key, \"quote\": the exact words}", None),
             Param("certainty", float | None, "How sure the model is, in [0, 1] (default 1)",
                   None)),
         "write", _claim, changes=(Claim,)),
    Tool("retract", "Withdraw the held value of key (or the given value): it was never right; "
         "everything resting on it goes OUT. fault='source' lowers its sources' reliability. A "
         "fact that was true and stopped holding is ended (end), not retracted.", (
             _KEY, Param("value", Any, "The value to withdraw (default: the held one)", None),
             Param("reason", str | None, "Why, shown in proofs", None),
             Param("fault", str, "'none' or 'source'", "none")),
         "destroy", _retract, changes=(Retract,)),
    Tool("end", "Say that key (or its value) no longer holds from a time on ('I no longer work "
         "at Acme'): the key then holds nothing, earlier times still read the value, and "
         "retracting the end brings it back. Retract is for a value that was never right.", (
             _KEY, _SOURCE,
             Param("value", Any, "The value that stopped holding (default: whatever the key "
                                 "holds)", None),
             Param("at", str | float | None, "When it stopped holding: ISO 8601 ('2026-03-01') "
                                             "or POSIX seconds; default: now", None),
             Param("reason", str | None, "Why, or the words that said so; shown in proofs",
                   None),
             Param("certainty", float | None, "How sure the source is, in (0, 1]", None)),
         "write", _end, changes=(End,)),
    Tool("forget", "Erase for good (a user's or a conversation's data, on request): a key (or "
         "one value of it), all a source said, or every key under a scope; not readable "
         "afterwards, not even in the history. Give one of key, source, scope. End is for a "
         "fact that stopped.", (
             Param("key", str | None, "The key to erase", None),
             Param("value", Any, "Only this value of key (default: the whole key)", None),
             Param("scope", str | list[str] | None, "Erase every key under this prefix (or "
                                                    "these prefixes), e.g. 'user:alice:'", None),
             Param("source", str | None, "Erase everything this source said", None),
             Param("reason", str | None, "Why (kept in the history: keep what is forgotten out "
                                         "of it)", None)),
         "write", _forget, changes=(Forget,)),
    Tool("depend", "Record that key = value rests on what other keys hold now (on: it goes OUT "
         "when one changes), or that key becomes value once if_changes changes from what it "
         "holds now (until then key keeps its value). Give on or if_changes.", (
             _KEY, Param("value", Any, "The value"), _SOURCE,
             Param("on", list[str], "Keys it rests on, as they hold now", []),
             Param("if_changes", str | None, "The key whose change from its current value makes "
                                             "value key's", None),
             Param("citation", dict[str, str] | None, "The sentence that said it, in a held "
                   "document: {\"document\": its key, \"quote\": the exact words}", None),
             Param("certainty", float | None, "How sure, in (0, 1]", None)),
         "write", _depend, changes=(Depend, ReplaceWhen)),
    Tool("record_outcome", "Record whether a source turned out right or wrong (an audit, a "
         "check); its reliability, and the confidence of everything it supports, follow.", (
             _SOURCE, Param("correct", bool, "Whether the source was right"),
             Param("reason", str | None, "Why", None)),
         "write", _record_outcome, changes=(RecordOutcome,)),
    Tool("resolve", "Settle a conflict over key as a person would: winner holds, the other "
         "values are rejected; with learn, their sources' reliability moves.", (
             Param("conflict", str, "The key in conflict"),
             Param("winner", Any, "The value that holds"),
             Param("learn", bool, "Whether the losing sources' reliability moves", True)),
         "write", _resolve, changes=(Resolve,)),
    Tool("belief", "The value held for key now, IN or OUT, with its confidence (value null if "
         "none is held). Fails while two values of key conflict: see conflicts.", (_KEY,),
         "read", _belief),
    Tool("recall", "The held beliefs that bear on a query (words of their keys, values, "
         "sources), most relevant and most trusted first. Never an OUT, retracted or superseded "
         "value.", (
             Param("query", str, "What to look for, e.g. 'customer 7 email'"),
             Param("k", int, f"How many beliefs to return (1 to {RECALL_MOST})", 10, 1,
                   RECALL_MOST),
             _MIN_CONFIDENCE),
         "read", _recall),
    Tool("beliefs", "Held beliefs with their confidence: those a query finds (best first), else "
         "every one; only keys under scope ('customer:42': what a user has); at most limit "
         "after offset (truncated: more matched, next page at offset + limit); optionally at or "
         "above min_confidence.", (
             Param("query", str | None, "Only the beliefs this query finds, as recall does",
                   None),
             Param("limit", int, "List at most this many", 100, 1, BELIEFS_MOST),
             Param("min_confidence", float | None, "Keep beliefs at or above this confidence",
                   None),
             Param("scope", str | None, "Only keys equal to this prefix or starting with it and "
                                        "':', e.g. 'customer:42' (inside the server's own "
                                        "scope)", None),
             Param("offset", int, "Skip this many first", 0, 0)),
         "read", _beliefs),
    Tool("explain", "Why key is held or not: the proof (sources, steps, confidences at every "
         "node) as text and as a tree.", (
             _KEY, Param("value", Any, "Explain this value of key (default: the held one)",
                         None)),
         "read", _explain),
    Tool("conflicts", "Open conflicts: keys holding two or more values that no policy settled, "
         "with each value's confidence and sources. Settle one with resolve.", (),
         "read", _conflicts),
    Tool("faded", "Held premises whose evidence has faded below min_confidence (default: the "
         "policy's min_confidence): candidates to re-check.", (
             Param("min_confidence", float | None, "Confidence in [0, 1]", None),),
         "read", _faded),
    Tool("what_to_check", "What to verify first to make key more certain: the premises whose "
         "check would settle the most, best first.", (
             _KEY, Param("limit", int, "At most how many to list", 5)),
         "read", _what_to_check),
    Tool("remember", "Remember what a text says: a model extracts facts, each with the exact "
         "words that say it; quotes not in the text are refused, keys are resolved against "
         "existing ones, and a later value supersedes an earlier one by time.", (
             Param("text", str, "What was said or written"),
             Param("source", str, "Who said it, as 'kind:name': 'human:alice', "
                                  "'document:handbook'"),
             Param("at", float | str | None, "When it was said: POSIX seconds or ISO 8601 with "
                                             "a zone (default: now)", None)),
         "ask", _remember, changes=(Remember,), arun=_aremember, needs_model=True),
)


def tool_named(name: str) -> Tool:
    """The tool of :data:`TOOLS` called ``name``.

    >>> tool_named("recall").param("k").high
    50
    """
    for found in TOOLS:
        if found.name == name:
            return found
    raise InvalidInputError(f"no tool is called {name!r}")

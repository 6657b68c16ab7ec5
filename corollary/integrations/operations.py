"""The operations a native toolset offers a model over a base, in-process: what the MCP server's
tools do (docs/mcp.md), as plain functions that take and return JSON data.

``assert_fact``, ``claim``, ``retract``, ``end``, ``forget``, ``recall`` and ``explain`` (and ``remember`` when the
base has it) are :class:`Operations`' methods; :mod:`corollary.integrations.pydantic_ai` and
:mod:`corollary.integrations.openai_agents` hand them to their framework. A bad call raises the
base's :class:`~corollary.foundations.errors.CorollaryError`, with the base unchanged; each
framework sends its message back to the model. With a ``scope``, nothing outside it is shown,
changed or accepted as a claim's input, as ``corollary mcp --scope`` (docs/integrations.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from ..facade.base import BeliefBase
from ..facade.recall import Recalled
from ..foundations.errors import InvalidTypeError
from ..foundations.scope import Scope, to_scope
from ..foundations.values import plain
from ..tms.proof import Proof

__all__ = ["NAMES", "Operations"]

#: The operations, in the order a toolset lists them (``remember`` only when the base has it).
NAMES = ("assert_fact", "claim", "retract", "end", "forget", "depend", "recall", "explain",
         "remember")
#: The most beliefs one recall returns.
RECALL_MOST = 50


class Operations:
    """A base's operations for one model (its claims are on the word of ``source``), inside
    ``scope`` if one is given; ``model`` is what ``remember`` extracts facts with.

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
        self.kb = kb
        self.source = source
        self.scope = to_scope(scope)
        #: the model ``remember`` extracts facts with (no ``remember`` tool without one)
        self.model = model
        self._lock = threading.RLock()  # frameworks may call tools from worker threads

    def tools(self, asynchronous: bool = False) -> list[Callable[..., Any]]:
        """The operations as functions, in :data:`NAMES` order (``remember`` when there is a
        ``model`` to extract facts with and the base has ``remember``). ``asynchronous``: the
        ``remember`` given is a coroutine function (:meth:`aremember` under the name
        ``remember``), for frameworks that await their tools in an event loop."""
        found = [getattr(self, name) for name in NAMES if name != "remember" or (
            self.model is not None and callable(getattr(self.kb, "remember", None)))]
        if asynchronous and found and found[-1].__name__ == "remember":
            found[-1] = self._awaited_remember()
        return found

    def _awaited_remember(self) -> Callable[..., Any]:
        """:meth:`aremember` as a tool named ``remember``, with :meth:`remember`'s text."""
        async def remember(text: str, source: str) -> dict[str, Any]:
            return await self.aremember(text, source)

        remember.__doc__ = Operations.remember.__doc__
        remember.__qualname__ = "Operations.remember"
        return remember

    # -- helpers ---------------------------------------------------------------------------
    def _inside(self, *keys: Any, what: str = "key") -> None:
        if self.scope is not None:
            for key in keys:
                self.scope.check(key, what)

    def _state(self, key: str, value: Any) -> dict[str, Any]:
        kb = self.kb
        if value is None:
            label = kb.label(key)
            held = kb.value(key) if label == "IN" else None
            return {"key": key, "value": plain(held), "label": label,
                    "confidence": kb.confidence(key) if label == "IN" else 0.0}
        return {"key": key, "value": plain(value), "label": kb.label(key, value),
                "confidence": kb.confidence(key, value)}

    def _sync(self) -> None:
        sync = getattr(self.kb, "sync", None)  # a journaled session: other writers' entries
        if callable(sync):
            sync()

    # -- the operations (their docstrings are what the model reads) --------------------------
    def assert_fact(self, key: str, value: Any, source: str) -> dict[str, Any]:
        """Record that a source says key = value (a tool result, a document, a person).

        Parameters
        ----------
        key : str
            The belief's key, e.g. 'revenue:Q3'.
        value : Any
            Plain JSON data.
        source : str
            Who says it, as 'kind:name': 'tool:quote', 'document:10-K', 'human:ops'.
        """
        self._inside(key)
        with self._lock:
            self._sync()
            self.kb.assert_(key, value, source)
            return self._state(key, value)

    def claim(self, key: str, value: Any, inputs: list[str] | dict[str, str],
              formula: str | None = None, certainty: float | None = None) -> dict[str, Any]:
        """Record your conclusion key = value, reasoned from held beliefs (inputs). With a
        formula over the inputs' names it is re-executed and the computed value is believed.

        Parameters
        ----------
        key : str
            The conclusion's key.
        value : Any
            The concluded value.
        inputs : list of str or dict of str to str
            Keys reasoned from: a list, or {name: key} to name them in a formula.
        formula : str, optional
            Arithmetic over the inputs' names, e.g. '(q3 - q2) / q2'.
        certainty : float, optional
            How sure you are, in [0, 1] (default 1).
        """
        self._inside(key)
        self._inside(*(inputs.values() if isinstance(inputs, dict) else inputs), what="input")
        with self._lock:
            self._sync()
            believed = self.kb.claim(key, value, self.source, inputs=inputs,
                                     certainty=certainty, formula=formula)
            state = self._state(key, believed)
            if formula is not None and (type(believed) is not type(value) or believed != value):
                state["refuted"] = {"stated": plain(value), "computed": plain(believed),
                                    "formula": formula}
            return state

    def retract(self, key: str, value: Any = None, reason: str | None = None) -> dict[str, Any]:
        """Withdraw the held value of key (or the given value): the world changed, nobody is
        blamed; everything resting on it goes OUT.

        Parameters
        ----------
        key : str
            The belief's key.
        value : Any, optional
            The value to withdraw (default: the held one).
        reason : str, optional
            Why, shown in proofs.
        """
        self._inside(key)
        with self._lock:
            self._sync()
            withdrawn = self.kb.value(key) if value is None else value
            self.kb.retract(key, value, reason=reason)
            return self._state(key, withdrawn)

    def end(self, key: str, source: str, value: Any = None, at: str | None = None,
            reason: str | None = None) -> dict[str, Any]:
        """Say that key (or its value) no longer holds from a time on ('I no longer work at
        Acme'): the key then holds nothing, earlier times still read the value, and
        retracting the end brings it back. Use retract for a value that was never right.

        Parameters
        ----------
        key : str
            The belief's key.
        source : str
            Who says it stopped holding, as 'kind:name': 'human:ann', 'tool:crm'.
        value : Any, optional
            The value that stopped holding (default: whatever the key holds).
        at : str, optional
            When it stopped holding, ISO 8601 ('2026-03-01'); default: now.
        reason : str, optional
            Why, or the words that said so; shown in proofs.
        """
        from ..foundations.clock import parse_instant

        self._inside(key)
        with self._lock:
            self._sync()
            self.kb.end(key, value, source=source, at=parse_instant(at, "at"), reason=reason)
            return self._state(key, None)

    def forget(self, key: str | None = None, value: Any = None, scope: str | None = None,
               source: str | None = None, reason: str | None = None) -> dict[str, int]:
        """Erase for good (a user's or a conversation's data, on request): a key (or one
        value of it), everything a source said, or every key under a scope prefix. Nothing
        forgotten is readable afterwards, not even in the history. Give exactly one of key,
        source, scope. Use end for a fact that stopped holding.

        Parameters
        ----------
        key : str, optional
            The key to erase.
        value : Any, optional
            Only this value of key (default: the whole key).
        scope : str, optional
            Erase every key under this prefix, e.g. 'user:alice:'.
        source : str, optional
            Erase everything this source said, as 'kind:name'.
        reason : str, optional
            Why (kept in the history: keep what is forgotten out of it).
        """
        if key is not None:
            self._inside(key)
        if scope is not None:
            self._inside(*Scope.of(scope).prefixes, what="scope")
        if source is not None and self.scope is not None:
            from ..foundations.errors import InvalidInputError

            # a source's facts may lie outside the toolset's scope: never erase those
            raise InvalidInputError("a scoped toolset forgets by key or scope, not by source")
        with self._lock:
            self._sync()
            if value is not None:
                gone = self.kb.forget(key, value, scope=scope, source=source, reason=reason)
            else:
                gone = self.kb.forget(key, scope=scope, source=source, reason=reason)
            return {"beliefs": gone.beliefs, "reasons": gone.reasons, "kept": gone.kept,
                    "entries": gone.entries, "checkpoints": gone.checkpoints,
                    "outcomes": gone.outcomes}

    def depend(self, key: str, value: Any, on: list[str] | None = None,
               if_changes: str | None = None) -> dict[str, Any]:
        """Record that key = value rests on what other keys hold now (on: it stops holding
        when one of them changes, ends or is forgotten), or that key becomes value once the
        key if_changes changes from what it holds now (until then key keeps its value). Give
        on or if_changes.

        Parameters
        ----------
        key : str
            The fact's key.
        value : Any
            Its value.
        on : list of str, optional
            The keys it rests on, as they hold now.
        if_changes : str, optional
            The key whose change makes value the key's.
        """
        from ..facade.depending import declare

        self._inside(key)
        self._inside(*(on or ()), *([] if if_changes is None else [if_changes]), what="input")
        with self._lock:
            self._sync()
            believed = declare(self.kb, key, value, source=self.source, on=on,
                               if_changes=if_changes)
            return self._state(key, believed)

    def recall(self, query: str, k: int = 10) -> dict[str, Any]:
        """The held beliefs that bear on a query, most relevant and most trusted first; never
        an OUT, retracted or superseded value.

        Parameters
        ----------
        query : str
            What to look for, e.g. 'customer 7 email'.
        k : int
            How many beliefs to return (1 to 50).
        """
        if type(k) is not int or not 1 <= k <= RECALL_MOST:
            from ..foundations.errors import InvalidInputError

            raise InvalidInputError(f"k must be an integer from 1 to {RECALL_MOST}, not {k!r}")
        with self._lock:
            self._sync()
            return {"beliefs": [_recalled(r) for r in self.kb.recall(query, k, scope=self.scope)]}

    def explain(self, key: str, value: Any = None) -> dict[str, Any]:
        """Why key is held or not: the proof, with sources, steps and confidences.

        Parameters
        ----------
        key : str
            The belief's key.
        value : Any, optional
            Explain this value of key (default: the held one).
        """
        self._inside(key)
        with self._lock:
            self._sync()
            proof = self.kb.explain(key, value)
            if self.scope is not None:  # inputs outside the scope are named only as such
                proof = Proof(self.scope.redact(proof.to_dict()))
            return {"key": key, "text": str(proof)}

    def remember(self, text: str, source: str) -> dict[str, Any]:
        """Remember what a text says: facts are extracted, each with the exact words that say
        it; a later value supersedes an earlier one.

        Parameters
        ----------
        text : str
            What was said or written.
        source : str
            Who said it, as 'kind:name': 'human:alice', 'document:handbook'.
        """
        with self._lock:
            self._sync()
            scope = None if self.scope is None else list(self.scope.prefixes)
            made = self.kb.remember(text, source=source,  # type: ignore[attr-defined]
                                    model=self.model, scope=scope)
            return _remembered(made)

    async def aremember(self, text: str, source: str) -> dict[str, Any]:
        """:meth:`remember`, awaiting the model (``kb.aremember``): the event loop runs on
        while the model answers. The lock is held throughout, so a tool another thread runs
        meanwhile waits for the change, and never sees half of it; the model's answer and the
        change are made in this loop's thread."""
        with self._lock:
            self._sync()
            scope = None if self.scope is None else list(self.scope.prefixes)
            made = await self.kb.aremember(text, source=source,  # type: ignore[attr-defined]
                                           model=self.model, scope=scope)
            return _remembered(made)


def _remembered(made: Any) -> dict[str, Any]:
    """What ``remember`` answers: each fact with its document (the text's belief, which a
    scoped caller may forget), and each refusal naming its fact."""
    return {"remembered": [{"key": r.key, "value": plain(r.value), "quote": r.quote,
                            "label": r.label, "confidence": r.confidence,
                            "document": r.document} for r in made],
            "refused": [r.named() for r in getattr(made, "refused", ())]}


def _recalled(r: Recalled) -> dict[str, Any]:
    """One recalled belief as a tool returns it; a document also names the facts it states,
    each held or not (docs/recall.md, "Facts before the documents they came from")."""
    found = {"key": r.key, "value": plain(r.value), "confidence": round(r.confidence, 4),
             "conflict": r.conflict}
    if r.source_of:
        found["source_of"] = [{"key": f.key, "value": plain(f.value), "held": f.held}
                              for f in r.source_of]
    return found

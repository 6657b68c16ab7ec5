"""Documents in recall: the facts extracted from a document answer for it (docs/recall.md,
"Facts before the documents they came from").

A **document** is a belief that a claim cites (``kb.claim(..., citation=(key, quote))``; every
fact ``kb.remember`` makes cites the transcript it came from). Its **facts** are the beliefs
those claims conclude. When a document is among a recall's hits, what answers in its place is
what its facts say now: each fact still held, and for a fact no longer held (superseded,
replaced, expired) the value its key holds now. They take the document's place in the ranking
(its score, if above their own), ahead of it; the document itself is left out, since its text
may state what no longer holds, unless the query asks for documents (:func:`asks_for_documents`,
or ``kb.recall(..., documents=True)``) or nothing it supports is held now. A document that is
shown carries :class:`Supported` marks: each fact it is the source of, and whether it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ..tms import Belief, Engine

__all__ = ["DOCUMENT_WORDS", "Arranged", "Supported", "arrange", "asks_for_documents",
           "cited_facts", "in_order", "supported"]

#: Query words that ask for what was said or written rather than for the facts drawn from it
#: ("what did Ann say in the chat"). English only: in any other language, or to be explicit,
#: pass ``kb.recall(..., documents=True)``.
DOCUMENT_WORDS = frozenset({
    "say", "says", "said", "saying", "tell", "tells", "told", "write", "writes", "wrote",
    "written", "mention", "mentions", "mentioned", "quote", "quotes", "quoted", "chat",
    "chats", "conversation", "conversations", "transcript", "transcripts", "message",
    "messages", "document", "documents", "doc", "docs",
})


@attrs.frozen(slots=True)
class Supported:
    """A fact a recalled document is the source of (a claim citing it concludes it).

    Attributes
    ----------
    key : str
    value : object
    held : bool
        Whether the fact holds now (at or above the recall's floor); ``False`` for a fact
        superseded, replaced, retracted or expired: the document's text states it, the base no
        longer believes it.
    """

    key: str
    value: Any
    held: bool


def asks_for_documents(terms: Sequence[str]) -> bool:
    """Whether a query's words ask for what was said or written (:data:`DOCUMENT_WORDS`).

    >>> asks_for_documents(["what", "did", "ann", "say", "in", "the", "chat"])
    True
    >>> asks_for_documents(["where", "does", "ann", "live"])
    False
    """
    return any(t in DOCUMENT_WORDS for t in terms)


def cited_facts(b: Belief) -> list[Belief]:
    """The beliefs whose claims cite ``b`` (as a document), once each, oldest reason first;
    empty for a belief no claim cites (most beliefs: their readers are few or none)."""
    users = b.users
    if not users:
        return []
    found: dict[Belief, None] = {}
    for j in users:
        if j.info.get("document") == b.key and j in j.output.justs:  # a reason still given
            found.setdefault(j.output, None)
    return list(found)


def supported(facts: list[Belief], held: Callable[[Belief], bool]) -> tuple[Supported, ...]:
    """The marks of a document whose facts are ``facts``."""
    return tuple(Supported(f.key, f.value, held(f)) for f in facts)


def _answering(engine: Engine, facts: list[Belief],
               held: Callable[[Belief], bool]) -> list[Belief]:
    """What answers for a document whose facts are ``facts``: each fact held now, and for one
    that is not (and was not withdrawn: a retracted extraction says nothing), the values its
    key holds now."""
    out: dict[Belief, None] = {}
    for f in facts:
        if held(f):
            out.setdefault(f, None)
        elif f.withdrawn is None:
            for v in engine.values_of(f.key):
                if v is not f and held(v):
                    out.setdefault(v, None)
    return list(out)


#: One hit after :func:`arrange`: its score, the belief, and the documents it answers for.
Arranged = tuple[float, Belief, tuple[Belief, ...]]


def in_order(terms: list[str], b: Belief, answered: tuple[Belief, ...],
             matched: Callable[[Belief, list[str]], tuple[str, ...]]) -> tuple[str, ...]:
    """The query's words found in ``b`` or in a document it answers for, once each, in the
    query's order (``matched(belief, terms)`` gives one belief's)."""
    own = matched(b, terms)
    if not answered:
        return own
    found = set(own).union(*(matched(d, terms) for d in answered))
    return tuple(t for t in dict.fromkeys(terms) if t in found)


def arrange(engine: Engine, hits: Sequence[tuple[float, Belief]],
            held: Callable[[Belief], bool], show_documents: bool) -> list[Arranged]:
    """``hits`` (best first) with each document's facts in its place, ahead of it, each
    carrying the greater of its own score and the document's; the document kept only with
    ``show_documents`` or when nothing it supports holds now. ``held`` reads a belief through
    the engine (held at the recall's floor, in its scope). Ties keep the ranking's order, a
    fact before the document it answers for."""
    best: dict[Belief, list[Any]] = {}  # belief -> [score, position, after, documents]

    def place(b: Belief, score: float, position: int, after: int,
              document: Belief | None) -> None:
        seen = best.get(b)
        if seen is None:
            seen = best[b] = [score, position, after, ()]
        elif (-score, position, after) < (-seen[0], seen[1], seen[2]):
            seen[0], seen[1], seen[2] = score, position, after
        if document is not None and document not in seen[3]:
            seen[3] = (*seen[3], document)

    for position, (score, b) in enumerate(hits):
        facts = cited_facts(b)
        if not facts:
            place(b, score, position, 0, None)
            continue
        answering = _answering(engine, facts, held)
        for f in answering:
            place(f, score, position, 0, b)
        if show_documents or not answering:
            place(b, score, position, 1, None)
    ranked = sorted(best.items(), key=lambda t: (-t[1][0], t[1][1], t[1][2]))
    return [(s[0], b, s[3]) for b, s in ranked]

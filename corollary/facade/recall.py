"""Recall: the held beliefs a query is about, ranked, within a token budget.

:meth:`corollary.BeliefBase.recall` delegates here. The retrievers below the facade
(:mod:`corollary.retrieval`: the lexical index, an embedder's vectors, any retriever given to
``kb.add_retriever``) know which beliefs exist and rank them for a query; whether a candidate
is held now, and how confident, is read at query time through the engine's own read path, for
the top candidates only. So a value that is retracted, expired, faded below the floor,
defeated in a settled conflict or never held cannot be returned: nothing to keep in step.

Ranking: BM25 over each belief's text (its key split on punctuation, its value as the prompt
renders it, the names of its sources and models, its citations), multiplied by
``0.5 + 0.5 × confidence``: of two equally relevant values, the trusted one comes first, and no
confidence lifts an irrelevant one. With other retrievers, their ranks and the lexical one are
fused by reciprocal rank (:mod:`corollary.retrieval.fusion`), times the same factor. A fact a
claim drew from a document answers for it: it takes the document's place, and the document is
shown only when asked for (:mod:`corollary.facade.recall_documents`). See docs/recall.md.

One recalled belief renders as one line (:func:`render_recalled`), ``key = value [IN 0.93]``,
with the key and value escaped so that no key or value can start a line of its own; the budget
counts :func:`count_tokens` of those lines.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations._deprecated import warn
from ..foundations._format import format_confidence
from ..foundations._validate import check_bool, check_int, check_number, check_unit
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.scope import Scope
from ..foundations.values import is_end, plain
from ..retrieval.fusion import RRF_K, fuse
from ..retrieval.lexical import LexicalIndex, tokenize
from ..retrieval.retriever import Retriever, check_retriever
from ..retrieval.vectors import Embedder, VectorIndex
from ..tms import IN, Belief, Engine
from .recall_documents import (
    Arranged,
    Supported,
    arrange,
    asks_for_documents,
    cited_facts,
    in_order,
    supported,
)

if TYPE_CHECKING:  # pragma: no cover
    from .lookup import Lookup

__all__ = ["RRF_K", "Recalled", "Recaller", "Supported", "count_tokens", "render_key",
           "render_recalled", "render_value"]

#: Confidence reorders the best lexical candidates: up to ``RERANK × k`` held ones (at least
#: 100) are compared, so that a weak match far down the list (one sharing only common words
#: with the query) is never pulled up by its confidence alone.
RERANK = 10
#: ``why`` of a belief recalled as the input of a hit: ``INPUT_OF + key``.
INPUT_OF = "input of "
#: When documents among the hits give way to their facts, the ranking is read again up to this
#: many times ``k`` deep, so that ``k`` hits remain when there are.
DOCUMENT_DEPTH = 64
#: A document's line names at most this many of the facts it is the source of.
SHOWN_FACTS = 3

# What splits a line on the model's side (str.splitlines' separators beyond \n and \r, which
# JSON escapes already): written as JSON escapes.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCALARS = {True: "true", False: "false", None: "null"}


@attrs.frozen(slots=True)
class Recalled:
    """One belief recalled for a query.

    Attributes
    ----------
    key : str
    value : object
        The value held now.
    confidence : float
        Its confidence now (at or above the recall's floor).
    score : float
        How well it answers the query: BM25 relevance × (0.5 + 0.5 × confidence). A belief
        recalled as an input of a hit (``expand=True``) carries that hit's score; a fact
        recalled in the place of a document it answers for carries the document's, when
        higher than its own.
    why : tuple of str
        The query's terms (case-folded) that matched its text; for an input of a hit, the one
        entry ``"input of <key>"`` naming the hit.
    conflict : bool
        Whether the key holds another value too (an open conflict): each value is recalled on
        its own, marked, and renders ``[IN 0.60, open conflict]``.
    source_of : tuple of Supported
        For a document (a belief a claim cites, such as a transcript ``kb.remember`` kept),
        the facts it is the source of, each with whether it holds now; empty for any other
        belief. Its line says so: ``[IN 0.99, source of ann:city = "Paris" (not held)]``.

    The fourth argument, ``label``, is kept so that existing calls still construct one; it was
    always ``"IN"`` (recall returns held values only), and reading :attr:`label` is deprecated
    (docs/recall.md).
    """

    key: str
    value: Any
    confidence: float
    _label: str = attrs.field(repr=False)  # the constructor's ``label``: always "IN"
    score: float
    why: tuple[str, ...]
    conflict: bool = False
    source_of: tuple[Supported, ...] = ()

    @property
    def label(self) -> str:
        """``"IN"``, always (deprecated: every recalled belief is held; a value of an open
        conflict says so in :attr:`conflict`)."""
        warn("Recalled.label", "every recalled belief is held (IN); an open conflict is "
             "Recalled.conflict (docs/recall.md)")
        return self._label


def _escape_text(text: str) -> str:
    """``text`` as a JSON string literal that holds no line break of any kind."""
    out: str = json.dumps(text, ensure_ascii=False)
    if any(c in out for c in _LINE_BREAKS):
        for c, escaped in _LINE_BREAKS.items():
            out = out.replace(c, escaped)
    return out


def render_value(value: Any) -> str:
    """A value as the model reads it: JSON on one line (``"up"``, ``0.1``, ``true``, ``[1, 2]``).

    >>> [render_value(v) for v in ("up", 0.1, 3, True, None, ("a", {"b": 1}), "a\\nb")]
    ['"up"', '0.1', '3', 'true', 'null', '["a", {"b": 1}]', '"a\\\\nb"']
    """
    kind = type(value)
    if kind is str:
        return _escape_text(value)
    if kind is float or kind is int:  # finite (values are): repr is their JSON
        return repr(value)
    if kind is bool or value is None:
        return _SCALARS[value]
    out: str = json.dumps(plain(value), ensure_ascii=False)
    if any(c in out for c in _LINE_BREAKS):
        for c, escaped in _LINE_BREAKS.items():
            out = out.replace(c, escaped)
    return out


def _bare_key(key: str) -> bool:
    return key.isprintable() and not any(c in key for c in ' "=[]\\') and key != ""


def render_key(key: str) -> str:
    """A key as a prompt line shows it: bare when it is printable and holds no space, quote,
    ``=``, bracket or backslash, else as a JSON string (so it cannot forge a line or a value).

    >>> render_key("customer:7:email"), render_key("x = 1 [IN 0.99]\\ny")
    ('customer:7:email', '"x = 1 [IN 0.99]\\\\ny"')
    """
    return key if _bare_key(key) else _escape_text(key)


def render_recalled(r: Recalled) -> str:
    """One recalled belief as one prompt line: ``key = value [IN 0.93]``.

    The confidence is rounded half-up to two places, as proofs print it; a value of an open
    conflict ends ``[IN 0.60, open conflict]``. Keys and values are escaped
    (:func:`render_key`, :func:`render_value`): the line never holds a line break.

    >>> render_recalled(Recalled("customer:7:email", "a@b.c", 0.95, "IN", 1.2, ("email",)))
    'customer:7:email = "a@b.c" [IN 0.95]'
    """
    tail = ", open conflict]" if r.conflict else "]"
    if r.source_of:
        tail = f", {source_mark(r.source_of)}{tail}"
    return f"{render_key(r.key)} = {render_value(r.value)} [IN " \
           f"{format_confidence(r.confidence)}{tail}"


def source_mark(facts: tuple[Supported, ...]) -> str:
    """What a document's line says of the facts it is the source of (at most
    :data:`SHOWN_FACTS` named; one no longer held says so).

    >>> source_mark((Supported("ann:city", "Paris", False), Supported("ann:dog", "Rex", True)))
    'source of ann:city = "Paris" (not held), ann:dog = "Rex"'
    """
    named = [f"{render_key(f.key)} = {render_value(f.value)}" + ("" if f.held else " (not held)")
             for f in facts[:SHOWN_FACTS]]
    more = f", {len(facts) - SHOWN_FACTS} more" if len(facts) > SHOWN_FACTS else ""
    return "source of " + ", ".join(named) + more


def count_tokens(text: str) -> int:
    """The tokens ``text`` costs in a budget: ``ceil(characters / 4)``.

    Four characters a token is the usual estimate for English under the common BPE
    vocabularies; it needs no tokenizer and over-counts code and numbers less than it
    under-counts nothing. A recalled line costs ``count_tokens(line + "\\n")``.

    >>> count_tokens(""), count_tokens("abcd"), count_tokens("abcde")
    (0, 1, 2)
    """
    return -(-len(text) // 4)


def line_cost(r: Recalled) -> int:
    """What one recalled belief costs in a budget: its line and the line break after it."""
    return count_tokens(render_recalled(r) + "\n")


def check_recall_args(query: Any, k: Any, budget: Any, min_confidence: Any, expand: Any,
                      documents: Any = None
                      ) -> tuple[str, int, float | None, float | None, bool]:
    """Validate :meth:`~corollary.BeliefBase.recall`'s arguments (typed errors)."""
    if documents is not None:
        check_bool(documents, "documents")
    if not isinstance(query, str):
        raise InvalidTypeError(f"query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise InvalidInputError("query must hold some text")
    k = check_int(k, "k", low=1)
    if budget is not None:
        budget = check_number(budget, "budget", low=0.0)
    if min_confidence is not None:
        min_confidence = check_unit(min_confidence, "min_confidence")
    check_bool(expand, "expand")
    return str.__str__(query), k, budget, min_confidence, expand


class Recaller:
    """A base's recall: its lexical index and the read path that checks each candidate.

    Made on a base's first recall (so that a base that never recalls pays nothing), it brings
    its index up to date with the engine on each recall.
    """

    __slots__ = ("engine", "lookup", "index", "vectors", "retrievers", "scope", "_floor")

    def __init__(self, engine: Engine, lookup: Lookup, embedder: Embedder | None = None) -> None:
        self.engine = engine
        self.lookup = lookup
        self.index = LexicalIndex(engine)
        self.vectors = None if embedder is None else VectorIndex(embedder, lookup.sync)
        #: the retrievers fused with the lexical index (the embedder's vectors first)
        self.retrievers: list[Retriever] = []
        #: the scope of the recall under way (None: every key); see corollary.foundations.scope
        self.scope: Scope | None = None
        self._floor = 0.0
        if self.vectors is not None:
            self.add(self.vectors)

    def add(self, retriever: object) -> None:
        """Fuse ``retriever`` (:class:`~corollary.retrieval.retriever.Retriever`) with the
        lexical index from the next recall on; it is attached to the engine now."""
        checked = check_retriever(retriever)
        if any(r is checked for r in self.retrievers):
            return
        checked.attach(self.engine)
        self.retrievers.append(checked)

    def recall(self, query: str, k: int, floor: float, budget: float | None,
               expand: bool, scope: Scope | None = None,
               documents: bool | None = None) -> list[Recalled]:
        """The recall of :meth:`corollary.BeliefBase.recall`, arguments checked; with a
        ``scope``, only beliefs whose keys are in it are candidates (hits and inputs alike).
        ``documents``: whether documents are shown beside the facts that answer for them
        (``None``: when the query asks for them, :mod:`corollary.facade.recall_documents`)."""
        terms = tokenize(query)
        if not terms:
            return []
        self.scope = scope
        self._floor = floor
        # outcomes, due rules and expiries first: they change what is held, and rules due now
        # make beliefs the index must see
        self.lookup.catch_up()
        self.index.catch_up()
        if self.retrievers:
            self.engine.feed.publish()  # the retrievers hear what changed since they last did
        found = self._found(query, terms, k, floor)
        matched = self.index.matched
        if any(cited_facts(b) for _, b in found):
            show = asks_for_documents(terms) if documents is None else documents
            hits = [(self._recalled(b, score, in_order(terms, b, answered, matched)), b)
                    for score, b, answered in self._answered(query, terms, k, floor, show,
                                                             found)]
        else:
            hits = [(self._recalled(b, score, matched(b, terms)), b) for score, b in found]
        return self._pack(hits, floor, budget, expand)

    def _found(self, query: str, terms: list[str], k: int,
               floor: float) -> list[tuple[float, Belief]]:
        """The ``k`` best held beliefs, by the lexical index alone or fused with the
        retrievers'."""
        if not self.retrievers:
            return self._ranked(terms, k, floor)
        return self._fused(query, terms, k, floor)

    def _answered(self, query: str, terms: list[str], k: int, floor: float, show: bool,
                  found: list[tuple[float, Belief]]) -> list[Arranged]:
        """The ``k`` hits ``found`` with each document's facts in its place (``show``: the
        document after them), the ranking read deeper until ``k`` remain or it runs out.
        Whatever lies deeper scores at most the k-th hit, and a fact in its document's place
        carries that document's score: when ``k`` remain, reading deeper changes none of them."""
        n = k
        while True:
            arranged = arrange(self.engine, found, self._synced_held, show)
            if len(arranged) >= k or len(found) < n or n >= DOCUMENT_DEPTH * k:
                break
            n = min(4 * n, DOCUMENT_DEPTH * k)
            found = self._found(query, terms, n, floor)
        return arranged[:k]

    def _accepts(self, b: Belief) -> bool:
        """The ``held`` a retriever's :meth:`~corollary.retrieval.retriever.Retriever.rank`
        hands each candidate to: brought up to now, then :meth:`_held` at the recall's floor."""
        self.lookup.sync([b])
        return self._held(b, self._floor) and self.index.live(b)

    def _fused(self, query: str, terms: list[str], k: int,
               floor: float) -> list[tuple[float, Belief]]:
        """The lexical ranks and each retriever's fused (reciprocal rank fusion over the first
        ``window`` held beliefs of each), times the confidence factor."""
        window = max(RERANK * k, 100)
        lexical = [b for _, b in self._ranked(terms, window, floor, rerank=False)]
        self._floor = floor
        fused = fuse([lexical, *(r.rank(query, window, self._accepts)
                                 for r in self.retrievers)])
        best = sorted(((score * (0.5 + 0.5 * b.conf), b.seq, b) for b, score in fused.items()),
                      key=lambda t: (-t[0], t[1]))[:k]
        return [(score, b) for score, _, b in best]

    def _held(self, b: Belief, floor: float) -> bool:
        """Whether ``b`` (synced) is a belief of the base now, held at or above ``floor``."""
        return (b.label is IN and b.conf >= floor and self.engine.find(b.key, b.vid) is b
                and (self.scope is None or self.scope.contains(b.key)) and not is_end(b.value))

    def _beside(self, b: Belief, terms: list[str]) -> list[tuple[float, Belief]]:
        """The other values of ``b``'s key not indexed yet (made by reasons only, since the
        last catch-up), indexed now, with their relevance."""
        values = self.engine.values_of(b.key)  # the engine's API, not its key table's layout
        if len(values) < 2:
            return []
        index = self.index
        fresh = [x for x in values if index.known(x) < 0]
        if not fresh:
            return []
        index.index_now(fresh)
        scored = [(index.relevance(x, terms), x) for x in fresh]
        return [(r, x) for r, x in scored if r > 0]  # a value that holds no word of the query

    def _ranked(self, terms: list[str], k: int, floor: float,
                rerank: bool = True) -> list[tuple[float, Belief]]:
        """The ``k`` best held beliefs: candidates in decreasing relevance, checked in
        batches, until no unchecked candidate can beat the k-th (the confidence factor is at
        most 1), or :data:`RERANK` × k held candidates were compared. ``rerank=False``: the
        first ``k`` held candidates in lexical order, scored by relevance alone."""
        found: list[tuple[float, int, Belief]] = []
        worst = -math.inf
        window = max(RERANK * k, 100)
        compared = 0
        index = self.index
        for chunk in index.candidates(terms, max(2 * k, 32)):
            if len(found) >= k and (chunk[0][0] <= worst or compared >= window):
                break
            live = [(r, b) for r, b in chunk if index.live(b)]
            for _, b in list(live):
                live += self._beside(b, terms)
            self.lookup.sync([b for _, b in live])
            for relevance, b in live:
                if len(found) >= k and (relevance <= worst or compared >= window):
                    continue
                if not self._held(b, floor):
                    continue
                compared += 1
                found.append((relevance * (0.5 + 0.5 * b.conf) if rerank else relevance,
                              b.seq if rerank else compared, b))
            found.sort(key=lambda t: (-t[0], t[1]))
            del found[k:]
            if len(found) >= k:
                worst = found[-1][0]
        return [(score, b) for score, _, b in found]

    def _recalled(self, b: Belief, score: float, why: tuple[str, ...]) -> Recalled:
        rivals = self.engine.rivals(b)
        conflict = False
        if rivals:
            self.lookup.sync(rivals)
            conflict = any(r.label is IN for r in rivals)
        facts = cited_facts(b)
        marks = () if not facts else supported(facts, lambda f: self._synced_held(f))
        return Recalled(b.key, b.value, b.conf, IN, score, why, conflict, marks)

    def _synced_held(self, b: Belief) -> bool:
        """:meth:`_held` at the recall's floor, ``b`` brought up to now first."""
        self.lookup.sync([b])
        return self._held(b, self._floor)

    def _inputs(self, b: Belief, floor: float) -> list[Belief]:
        """``b``'s reasons' input beliefs held at or above ``floor``, once each, in order."""
        seen: dict[Belief, None] = {}
        for j in b.justs:
            for x in j.distinct:
                seen.setdefault(x, None)
        inputs = list(seen)
        if inputs:
            self.lookup.sync(inputs)
        return [x for x in inputs if self._held(x, floor)]

    def _pack(self, hits: list[tuple[Recalled, Belief]], floor: float, budget: float | None,
              expand: bool) -> list[Recalled]:
        """The hits (each followed by its held inputs with ``expand``), each belief once,
        in order, each line that fits in what is left of ``budget``: a line too long to fit
        is skipped and the list goes on, so one long belief cannot crowd out the rest."""
        out: list[Recalled] = []
        shown: set[Belief] = set()
        spent = 0
        for r, b in hits:
            group = [(r, b)]
            if expand:
                group += [(self._recalled(x, r.score, (INPUT_OF + r.key,)), x)
                          for x in self._inputs(b, floor)]
            for item, x in group:
                if x in shown:
                    continue
                if budget is not None:
                    cost = line_cost(item)
                    if spent + cost > budget:
                        continue
                    spent += cost
                shown.add(x)
                out.append(item)
        return out

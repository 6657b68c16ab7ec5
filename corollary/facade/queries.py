"""The query methods of :class:`~corollary.BeliefBase`: what is held, how firmly, and why.

A part of the facade (its methods are the base's own). Every query answers at the clock's time
now: the lookup (:class:`~corollary.facade.lookup.Lookup`) brings what it reads up to date first, the
fast path reading a key that needs nothing recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations._validate import check_int, check_unit
from ..foundations.errors import UnknownBeliefError
from ..foundations.scope import Scope, to_scope
from ..foundations.values import canon, is_end
from ..reasons.calls import Expired, expired
from ..reasons.nogoods import describe_loss
from ..retrieval.retriever import Retriever, check_retriever
from ..tms import IN, OUT
from ..tms.proof import Proof, build_proof
from .blame import sources_of
from .recall import Recalled, Recaller, check_recall_args
from .sensitivity import Check, what_to_check
from .world import TimelineEntry, timeline, world_at

if TYPE_CHECKING:  # pragma: no cover
    from ..promises.book import PromiseBook
    from ..tms import Engine
    from ..trust.policy import TrustPolicy
    from ..trust.view import TrustView
    from .lookup import EngineSync, Lookup


#: ``kb.value(key)`` given no default: a key never seen raises, one holding nothing is None.
_NO_DEFAULT: Any = object()


@attrs.frozen(slots=True)
class Faded:
    """A held premise whose confidence has faded below a threshold."""

    key: str
    value: Any
    confidence: float
    sources: tuple[str, ...]


@attrs.frozen(slots=True)
class Held:
    """A held belief: key, value and confidence."""

    key: str
    value: Any
    confidence: float


class QueryMethods:
    """``kb.value``, ``kb.confidence``, ``kb.label``, ``kb.beliefs``, ``kb.explain``..."""

    policy: TrustPolicy
    _lookup: Lookup
    _engine: Engine
    _trust: TrustView
    _sync_engine: EngineSync
    _promises: PromiseBook
    _recaller: Recaller | None
    _embedder: Any

    if TYPE_CHECKING:  # provided by BeliefBase
        def now(self) -> float: ...

    def value(self, key: str, default: Any = _NO_DEFAULT) -> Any:
        """The value held for ``key``, or ``default`` (``None`` when not given) if none is held.

        ``None`` is a value a key can hold (a tool that returned nothing, JSON ``null``): pass
        a ``default`` of your own to tell "nothing held" from a held ``None``. For a key never
        seen it returns the ``default`` given, and raises ``UnknownBeliefError`` when none is
        given (a typo in a key is not silently "nothing held"); it raises
        ``AmbiguousValueError`` while a conflict over the key is open.

        >>> from corollary import BeliefBase
        >>> kb, nothing = BeliefBase(), object()
        >>> kb.assert_("email", None, source="tool:crm")
        >>> kb.value("email", default=nothing) is None
        True
        >>> kb.retract("email")
        >>> kb.value("email", default=nothing) is nothing, kb.value("email")
        (True, None)
        >>> kb.value("never:seen", "unknown")
        'unknown'
        """
        nothing = None if default is _NO_DEFAULT else default
        try:
            b = self._lookup.current(key)
            if b is not None:  # (never an end, kb.end: current() leaves an end alone out)
                return nothing if b.best is None else b.value
            b = self._lookup.one_held(key)
        except UnknownBeliefError:
            if default is _NO_DEFAULT:
                raise
            return default
        return nothing if b is None else b.value

    def confidence(self, key: str, value: Any = None) -> float:
        """The confidence of the held value of ``key`` (or of ``value``) now; 0.0 when OUT."""
        b = self._lookup.current(key)
        if b is not None and (value is None or b.vid == canon(value)):
            return b.conf  # 0.0 when OUT
        if value is not None:
            return self._lookup.target(key, value).conf
        b = self._lookup.one_held(key)
        return 0.0 if b is None else b.conf

    def label(self, key: str, value: Any = None) -> str:
        """``"IN"`` if ``key`` (or ``key = value``) is held now, else ``"OUT"``."""
        b = self._lookup.current(key)
        if b is not None and (value is None or b.vid == canon(value)):
            return OUT if b.best is None else IN
        if value is not None:
            return self._lookup.target(key, value).label
        return IN if self._lookup.held(key) else OUT

    def beliefs(self, min_confidence: float | None = None, *,
                scope: str | Iterable[str] | Scope | None = None, limit: int | None = None,
                offset: int = 0) -> list[Held]:
        """Every held belief (label IN), optionally only those at or above ``min_confidence``
        and inside ``scope`` (a key prefix or several: ``"customer:42"`` holds
        ``customer:42:email``; :mod:`corollary.foundations.scope`), one page at a time.

        The order is the base's own: keys in the order it first saw them, each key's values
        in the order they were made (the same in every process that replays a journal), and
        ``offset``/``limit`` cut a page from it: ``offset`` held values skipped, then at most
        ``limit`` (``None``: all). A new key comes after every page read so far; a value that
        stops being held leaves its page (docs/api.md). An open conflict lists each held value.

        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> for key in ("customer:42:email", "customer:42:city", "customer:7:email"):
        ...     kb.assert_(key, "x", source="human:ann")
        >>> [h.key for h in kb.beliefs(scope="customer:42")]
        ['customer:42:email', 'customer:42:city']
        >>> [h.key for h in kb.beliefs(scope="customer:42", limit=1, offset=1)]
        ['customer:42:city']
        """
        floor = 0.0 if min_confidence is None else check_unit(min_confidence, "min_confidence")
        within = to_scope(scope)
        if limit is not None:
            check_int(limit, "limit", low=0)
        skip = check_int(offset, "offset", low=0)
        self._lookup.sync()
        found: list[Held] = []
        for b in self._engine.beliefs():
            if (b.label is IN and b.conf >= floor and (within is None or within.contains(b.key))
                    and (type(b.value) is not dict or not is_end(b.value))):
                if skip:
                    skip -= 1
                    continue
                if limit is not None and len(found) >= limit:
                    break
                found.append(Held(b.key, b.value, b.conf))
        return found

    def recall(self, query: str, limit: int = 10, *, budget: float | None = None,
               min_confidence: float | None = None, expand: bool = False,
               scope: str | Iterable[str] | Scope | None = None,
               documents: bool | None = None) -> list[Recalled]:
        """The held beliefs ``query`` is about, most relevant first (see :mod:`corollary.facade.recall`).

        At most ``limit`` hits, each held now at or above ``min_confidence`` (default: the policy's
        ``min_confidence``); ``expand`` adds each hit's held inputs after it; ``budget``
        (tokens, :func:`corollary.facade.recall.count_tokens` of the rendered lines) stops the list
        before the first line that would not fit.
        ``scope`` (a key prefix, several, or a :class:`~corollary.foundations.scope.Scope`)
        keeps hits and inputs to the keys in it: nothing outside is returned.
        A fact a claim drew from a document (a transcript ``remember`` kept) answers for it:
        it takes the document's place, ahead of it, and the document is left out unless
        ``documents=True``, the query asks what was said (``documents=None``, the default:
        :data:`corollary.facade.recall_documents.DOCUMENT_WORDS`), or nothing it supports holds
        now; a document shown is marked with the facts it is the source of (docs/recall.md).

        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> kb.assert_("customer:7:email", "ann@example.com", source="tool:crm")
        >>> [(r.key, r.why) for r in kb.recall("What is customer 7's email?")]
        [('customer:7:email', ('customer', '7', 'email'))]
        """
        query, k, budget, floor, expand = check_recall_args(query, limit, budget, min_confidence,
                                                            expand, documents)
        if self._recaller is None:
            self._recaller = Recaller(self._engine, self._lookup, self._embedder)
        floor = self.policy.min_confidence if floor is None else floor
        return self._recaller.recall(query, k, floor, budget, expand, to_scope(scope),
                                     documents)

    def add_retriever(self, retriever: Retriever) -> None:
        """Fuse ``retriever``'s ranks with the lexical index's (and the embedder's) in every
        :meth:`recall` from now on, by reciprocal rank fusion: any object with
        ``attach(engine)`` and ``rank(query, n, held)`` (the protocol of
        :mod:`corollary.retrieval.retriever`, docs/recall.md). Like the embedder, it is this
        process's configuration: not saved in snapshots, added again after a load. Adding the
        same object again does nothing.

        >>> from corollary import BeliefBase
        >>> BeliefBase().add_retriever(object())
        Traceback (most recent call last):
        ...
        corollary.foundations.errors.InvalidTypeError: a retriever needs attach(engine) and rank(query, n, held) methods (docs/recall.md); object has no attach
        """
        check_retriever(retriever)
        if self._recaller is None:
            self._recaller = Recaller(self._engine, self._lookup, self._embedder)
        self._recaller.add(retriever)

    def project(self) -> dict[str, Any]:
        """What a model should be shown: held values at or above ``policy.min_confidence``."""
        floor = self.policy.min_confidence
        return {h.key: h.value for h in self.beliefs() if h.confidence >= floor}

    def faded(self, min_confidence: float | None = None) -> list[Faded]:
        """Held premises whose evidence has faded below ``min_confidence`` (default: the
        policy's ``min_confidence``).

        Faded means aged: a belief is listed when its premises' confidence is below the
        floor and one of them has lost freshness (a half-life, and time since). A premise
        that never decays, below the floor only because its source is little trusted, is
        weak rather than faded, and a refresh would not raise it: it is not listed.
        """
        floor = (self.policy.min_confidence if min_confidence is None
                 else check_unit(min_confidence, "min_confidence"))
        now = self._lookup.sync()
        found = []
        engine = self._engine
        for b in engine.beliefs():
            if b.label is IN and b.premises:
                c, _, _ = engine.premise_confidence(b, now)
                if c is not None and c < floor and any(
                        part.freshness < 1.0 and not part.expired
                        for part in engine.premise_parts(b, now)):
                    valid = sorted(p.source for p in b.premises if not p.expired(now))
                    found.append(Faded(b.key, b.value, c, tuple(valid)))
        return found

    def expired(self) -> list[Expired]:
        """Premises whose ttl has passed, on beliefs not withdrawn: what to fetch again."""
        return expired(self._engine, self.now())

    def what_to_check(self, key: str, limit: int | None = 5) -> list[Check]:
        """The stale premises under ``key``'s belief, ranked by how much refreshing each would
        raise its confidence now, at most ``limit`` (``None``: all); see :mod:`corollary.facade.sensitivity`."""
        held = self._lookup.one_held(key)
        root = held if held is not None else max(self._lookup.values(key), key=lambda b: b.seq)
        n = None if limit is None else check_int(limit, "limit", low=1)
        return what_to_check(self._engine, root, self._lookup.catch_up(), n)

    def refresh(self) -> int:
        """Bring every label and confidence up to the clock's time now; return how many were stale.

        Queries do this lazily for what they read; call it to pay the cost up front (before a
        snapshot, say). The return value counts the beliefs that were recomputed.
        """
        now = self.now()
        self._trust.poll()
        self._sync_engine.outcomes(now)  # outcomes first: what rests on their sources is stale too
        stale = self._engine.stale(now)
        self._lookup.sync()
        return stale

    def keys(self) -> list[str]:
        """Every key the base has heard of."""
        return list(self._engine.keys)

    def __len__(self) -> int:
        return len(self._engine)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._engine.keys

    #: ``kb.at(t)``: see :func:`corollary.facade.world.world_at` (bound as it is, one call
    #: where a method building the view would be two: a view is made for each read at a time)
    at = world_at

    def timeline(self, key: str) -> list[TimelineEntry]:
        """Every value ``key`` has had, oldest validity first, each with its effective
        interval, label and confidence now, sources, and status (``"held"``,
        ``"superseded"``, ``"contested"``, ``"out"`` or ``"ended"``); see
        :class:`corollary.facade.world.TimelineEntry`."""
        return timeline(self, key)

    def explain(self, key: str, value: Any = None) -> Proof:
        """The proof of ``key`` (or ``key = value``): print it, or ``.to_dict()`` it."""
        if value is not None:
            roots = [self._lookup.target(key, value)]
        else:
            roots = self._lookup.values(key)
            held = [b for b in roots if b.label is IN]
            roots = held if held else sorted(roots, key=lambda b: -b.seq)[:1]
        now = self._lookup.sync()
        return build_proof(self._engine, roots[0] if len(roots) == 1 else roots, now,
                           self._trust.prior, self._promises.verdict_of,
                           lost=lambda b: describe_loss(self._engine, b, sources_of))


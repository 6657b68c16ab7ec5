"""The query methods of :class:`~corollary.BeliefBase`: what is held, how firmly, and why.

A part of the facade (its methods are the base's own). Every query answers at the clock's time
now: the lookup (:class:`~corollary.facade.lookup.Lookup`) brings what it reads up to date first, the
fast path reading a key that needs nothing recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar, overload

import attrs

from ..foundations._validate import check_int, check_unit
from ..foundations.errors import UnknownBeliefError
from ..foundations.scope import Scope, to_scope
from ..foundations.values import Value, canon, is_end
from ..reasons.calls import Expired
from ..reasons.calls import expired as expired_calls
from ..reasons.nogoods import describe_loss
from ..retrieval.retriever import Retriever, check_retriever
from ..tms import IN, OUT
from ..tms.proof import Proof, build_proof
from .blame import sources_of
from .recall import Recalled, Recaller, check_recall_args
from .sensitivity import Check
from .sensitivity import what_to_check as checks_for
from .world import TimelineEntry, world_at
from .world import timeline as world_timeline

if TYPE_CHECKING:  # pragma: no cover
    from ..foundations.clock import Instant
    from .base import BeliefBase
    from .world import WorldView


#: ``kb.value(key)`` given no default: a key never seen raises, one holding nothing is None.
_NO_DEFAULT: Any = object()
D = TypeVar("D")


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


@overload
def value(kb: BeliefBase, key: str) -> Value: ...


@overload
def value(kb: BeliefBase, key: str, default: D) -> Value | D: ...


def value(kb: BeliefBase, key: str, default: object = _NO_DEFAULT) -> object:
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
        b = kb.parts.lookup.current(key)
        if b is not None:  # (never an end, kb.end: current() leaves an end alone out)
            return nothing if b.best is None else b.value
        b = kb.parts.lookup.one_held(key)
    except UnknownBeliefError:
        if default is _NO_DEFAULT:
            raise
        return default
    return nothing if b is None else b.value


def confidence(kb: BeliefBase, key: str, value: Value = None) -> float:
    """The confidence of the held value of ``key`` (or of ``value``) now; 0.0 when OUT."""
    b = kb.parts.lookup.current(key)
    if b is not None and (value is None or b.vid == canon(value)):
        return b.conf  # 0.0 when OUT
    if value is not None:
        return kb.parts.lookup.target(key, value).conf
    b = kb.parts.lookup.one_held(key)
    return 0.0 if b is None else b.conf


def label(kb: BeliefBase, key: str, value: Value = None) -> str:
    """``"IN"`` if ``key`` (or ``key = value``) is held now, else ``"OUT"``."""
    b = kb.parts.lookup.current(key)
    if b is not None and (value is None or b.vid == canon(value)):
        return OUT if b.best is None else IN
    if value is not None:
        return kb.parts.lookup.target(key, value).label
    return IN if kb.parts.lookup.held(key) else OUT


def beliefs(kb: BeliefBase, min_confidence: float | None = None, *,
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
    kb.parts.lookup.sync()
    found: list[Held] = []
    for b in kb.parts.engine.beliefs():
        if (b.label is IN and b.conf >= floor and (within is None or within.contains(b.key))
                and (type(b.value) is not dict or not is_end(b.value))):
            if skip:
                skip -= 1
                continue
            if limit is not None and len(found) >= limit:
                break
            found.append(Held(b.key, b.value, b.conf))
    return found


def recall(kb: BeliefBase, query: str, limit: int = 10, *, budget: float | None = None,
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
    if kb.parts.recaller is None:
        kb.parts.recaller = Recaller(kb.parts.engine, kb.parts.lookup, kb.parts.embedder)
    floor = kb.policy.min_confidence if floor is None else floor
    return kb.parts.recaller.recall(query, k, floor, budget, expand, to_scope(scope),
                                    documents)


def add_retriever(kb: BeliefBase, retriever: Retriever) -> None:
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
    if kb.parts.recaller is None:
        kb.parts.recaller = Recaller(kb.parts.engine, kb.parts.lookup, kb.parts.embedder)
    kb.parts.recaller.add(retriever)


def project(kb: BeliefBase) -> dict[str, Value]:
    """What a model should be shown: held values at or above ``policy.min_confidence``."""
    floor = kb.policy.min_confidence
    return {h.key: h.value for h in kb.beliefs() if h.confidence >= floor}


def faded(kb: BeliefBase, min_confidence: float | None = None) -> list[Faded]:
    """Held premises whose evidence has faded below ``min_confidence`` (default: the
    policy's ``min_confidence``).

    Faded means aged: a belief is listed when its premises' confidence is below the
    floor and one of them has lost freshness (a half-life, and time since). A premise
    that never decays, below the floor only because its source is little trusted, is
    weak rather than faded, and a refresh would not raise it: it is not listed.
    """
    floor = (kb.policy.min_confidence if min_confidence is None
             else check_unit(min_confidence, "min_confidence"))
    now = kb.parts.lookup.sync()
    found = []
    engine = kb.parts.engine
    for b in engine.beliefs():
        if b.label is IN and b.premises:
            c, _, _ = engine.premise_confidence(b, now)
            if c is not None and c < floor and any(
                    part.freshness < 1.0 and not part.expired
                    for part in engine.premise_parts(b, now)):
                valid = sorted(p.source for p in b.premises if not p.expired(now))
                found.append(Faded(b.key, b.value, c, tuple(valid)))
    return found


def expired(kb: BeliefBase) -> list[Expired]:
    """Premises whose ttl has passed, on beliefs not withdrawn: what to fetch again."""
    return expired_calls(kb.parts.engine, kb.now())


def what_to_check(kb: BeliefBase, key: str, limit: int | None = 5) -> list[Check]:
    """The stale premises under ``key``'s belief, ranked by how much refreshing each would
    raise its confidence now, at most ``limit`` (``None``: all); see :mod:`corollary.facade.sensitivity`."""
    held = kb.parts.lookup.one_held(key)
    root = held if held is not None else max(kb.parts.lookup.values(key), key=lambda b: b.seq)
    n = None if limit is None else check_int(limit, "limit", low=1)
    return checks_for(kb.parts.engine, root, kb.parts.lookup.catch_up(), n)


def refresh(kb: BeliefBase) -> int:
    """Bring every label and confidence up to the clock's time now; return how many were stale.

    Queries do this lazily for what they read; call it to pay the cost up front (before a
    snapshot, say). The return value counts the beliefs that were recomputed.
    """
    now = kb.now()
    kb.parts.trust.poll()
    kb.parts.sync.outcomes(now)  # outcomes first: what rests on their sources is stale too
    stale = kb.parts.engine.stale(now)
    kb.parts.lookup.sync()
    return stale


def keys(kb: BeliefBase) -> list[str]:
    """Every key the base has heard of."""
    return list(kb.parts.engine.keys)


def length(kb: BeliefBase) -> int:
    """How many beliefs the base holds (``len(kb)``)."""
    return len(kb.parts.engine)


def contains(kb: BeliefBase, key: object) -> bool:
    """Whether ``key`` is a key of the base (``key in kb``)."""
    return isinstance(key, str) and key in kb.parts.engine.keys


#: ``kb.at(t)``: :func:`corollary.facade.world.world_at` (bound as it is, one call where a
#: function building the view would be two: a view is made for each read at a time)
if TYPE_CHECKING:  # the binding as a type checker reads it (world_at is a staticmethod's)
    def at(kb: BeliefBase, t: Instant) -> WorldView: ...
else:
    at = world_at


def timeline(kb: BeliefBase, key: str) -> list[TimelineEntry]:
    """Every value ``key`` has had, oldest validity first, each with its effective
    interval, label and confidence now, sources, and status (``"held"``,
    ``"superseded"``, ``"contested"``, ``"out"`` or ``"ended"``); see
    :class:`corollary.facade.world.TimelineEntry`."""
    return world_timeline(kb, key)


def explain(kb: BeliefBase, key: str, value: Value = None) -> Proof:
    """The proof of ``key`` (or ``key = value``): print it, or ``.to_dict()`` it."""
    if value is not None:
        roots = [kb.parts.lookup.target(key, value)]
    else:
        roots = kb.parts.lookup.values(key)
        held = [b for b in roots if b.label is IN]
        roots = held if held else sorted(roots, key=lambda b: -b.seq)[:1]
    now = kb.parts.lookup.sync()
    return build_proof(kb.parts.engine, roots[0] if len(roots) == 1 else roots, now,
                       kb.parts.trust.prior, kb.parts.promises.verdict_of,
                       lost=lambda b: describe_loss(kb.parts.engine, b, sources_of))


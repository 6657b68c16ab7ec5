"""``CorollaryStore``: a LangGraph ``BaseStore`` over a base or a journaled session.

LangGraph keeps an agent's long-term memory in a store (``put``/``get``/``search``/``delete``
over namespaces), and LangMem's memory tools sit on it. Over a base, each item is a belief:

- the namespace and key name the belief (``("memories", "u1")`` and ``"k"`` are
  ``memories:u1:k``; a ``:`` or ``%`` inside a label is written ``%3A`` or ``%25``), so a
  namespace is a key prefix and a search within it is a recall in that scope
  (:mod:`corollary.foundations.scope`), keeping the items whose key reads back as a namespace
  inside it (the item ``"m"`` of ``("n",)`` is the key ``n:m``, not an item of ``("n", "m")``);
- ``put`` asserts the item's value (a JSON object) on the word of the store's ``source``; a
  second ``put`` of the key replaces the first (with a base that takes valid times, the new
  value is valid from the time of the put, and the policy decides: under ``PreferNewer`` the
  old one is superseded), ``delete`` ends it (``kb.end`` under ``PreferNewer`` or no policy:
  nothing held from then on, never an older value back; under another policy, where a put
  replaced the earlier value, it withdraws it without blaming anyone; docs/lifecycle.md);
- ``get`` reads the held value, ``search`` returns held values only, at or above the base's
  confidence floor: never a superseded, retracted or untrusted one; with ``query=`` the order
  is :meth:`~corollary.BeliefBase.recall`'s (relevance times confidence, as ``score``).

Reads in one ``batch`` see the store as it was before the batch's writes, which are applied at
its end, the last write of a key winning (as LangGraph's ``InMemoryStore`` does). Where this
store differs from ``InMemoryStore``, and why, is listed in docs/integrations.md.

Many users: ``CorollaryStore.sharded(ledger)`` (:class:`ShardedStore`) keeps each user's
namespace in a journaled session of its own, opened on demand (docs/many-users.md).

Needs the ``langgraph`` extra (``pip install 'corollary[langgraph]'``).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import threading
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

import attrs

from ..changes import Assert, End, Forget, Retract, apply
from ..foundations.errors import InvalidInputError, InvalidTypeError, require
from ..foundations.scope import Scope
from ..foundations.values import canon, is_end, plain

_base = require("langgraph.store.base", "langgraph", "corollary.integrations.langgraph")
BaseStore = _base.BaseStore
GetOp, PutOp, SearchOp, ListNamespacesOp = (_base.GetOp, _base.PutOp, _base.SearchOp,
                                            _base.ListNamespacesOp)
Item, SearchItem, InvalidNamespaceError = _base.Item, _base.SearchItem, _base.InvalidNamespaceError

__all__ = ["CorollaryStore", "ShardedStore", "belief_key", "item_path", "session_of_namespace"]

#: The source a store asserts its items on the word of, unless told otherwise.
SOURCE = "tool:langgraph-store"


def _escape(label: str) -> str:
    return label.replace("%", "%25").replace(":", "%3A")


def _unescape(label: str) -> str:
    return label.replace("%3A", ":").replace("%25", "%")


def belief_key(namespace: tuple[str, ...], key: str, prefix: tuple[str, ...] = ()) -> str:
    """The belief key of the item ``key`` in ``namespace`` (under the store's ``prefix``).

    >>> belief_key(("memories", "u1"), "k"), belief_key(("a:b",), "50%")
    ('memories:u1:k', 'a%3Ab:50%25')
    """
    return ":".join(_escape(label) for label in (*prefix, *namespace, key))


def item_path(key: str, prefix: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str] | None:
    """``(namespace, key)`` of a belief key, or ``None`` when it names no item (outside the
    prefix, or without a namespace).

    >>> item_path("memories:u1:k"), item_path("a%3Ab:50%25"), item_path("lonely")
    ((('memories', 'u1'), 'k'), (('a:b',), '50%'), None)
    """
    labels = [_unescape(label) for label in key.split(":")]
    if len(labels) < len(prefix) + 2 or tuple(labels[:len(prefix)]) != prefix:
        return None
    labels = labels[len(prefix):]
    return tuple(labels[:-1]), labels[-1]


def _check_labels(namespace: Any) -> tuple[str, ...]:
    """LangGraph's rules for the labels of any namespace read (its own error type): strings,
    none empty or holding ``.`` or NUL."""
    if not isinstance(namespace, tuple):
        raise InvalidNamespaceError(f"a namespace is a tuple of strings, not {namespace!r}")
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(f"Invalid namespace label {label!r} in {namespace}: a "
                                        "label is a non-empty string without '.' or NUL")
    return namespace


def _writable(namespace: tuple[str, ...]) -> bool:
    """Whether ``put`` takes the namespace: not empty, not under ``"langgraph"``. A read or a
    delete of another one finds nothing, as ``InMemoryStore``'s does (docs/integrations.md)."""
    return bool(namespace) and namespace[0] != "langgraph"


def _check_namespace(namespace: Any, *, empty: bool = False) -> tuple[str, ...]:
    """LangGraph's rules for a namespace (its own error type): strings, none empty or holding
    ``.`` or NUL; a namespace written to is not empty and does not start ``"langgraph"``."""
    _check_labels(namespace)
    if not namespace and not empty:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    if namespace and namespace[0] == "langgraph" and not empty:
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph". Got: {namespace}')
    return namespace


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


@functools.lru_cache(maxsize=64)
def _takes_valid_times(assert_: Callable[..., object]) -> bool:
    """Whether a base's ``assert_`` (its class's function) takes ``valid_from``: asked once a
    class, not once a store (the sharded store makes a store each time it opens a session,
    and reading a signature cost most of that)."""
    return "valid_from" in inspect.signature(assert_).parameters


class CorollaryStore(BaseStore):  # type: ignore[misc,valid-type]
    """A LangGraph store whose items are beliefs of ``kb``.

    Parameters
    ----------
    kb : BeliefBase
        A base, or a journaled session (``BeliefBase.open_session``): then every ``put`` and
        ``delete`` is one journal entry, and other writers' items are seen.
    source : str or callable, optional
        Who answers for what is put: a source (default ``"tool:langgraph-store"``), or
        ``source(namespace) -> str`` to name one per namespace (``("user", "42")`` ->
        ``"human:42"``).
    prefix : tuple of str
        Namespace labels put before every namespace (default none: ``("memories", "u1")``
        is the key prefix ``memories:u1``), to keep the store's items apart from other beliefs.
    min_confidence : float, optional
        Search and get show values held at or above this confidence (default: the base's
        ``policy.min_confidence``).

    Examples
    --------
    >>> from corollary import BeliefBase
    >>> kb = BeliefBase()
    >>> store = CorollaryStore(kb)
    >>> store.put(("memories", "u1"), "diet", {"text": "vegetarian"})
    >>> store.get(("memories", "u1"), "diet").value, kb.value("memories:u1:diet")
    ({'text': 'vegetarian'}, {'text': 'vegetarian'})
    >>> store.put(("memories", "u1"), "diet", {"text": "vegan"})
    >>> [item.value for item in store.search(("memories",), query="diet vegan")]
    [{'text': 'vegan'}]
    """

    __slots__ = ("kb", "source", "prefix", "min_confidence", "_lock", "_timed", "_created")

    def __init__(self, kb: Any, *, source: str | Callable[[tuple[str, ...]], str] = SOURCE,
                 prefix: tuple[str, ...] = (), min_confidence: float | None = None) -> None:
        from ..facade.base import BeliefBase

        if not isinstance(kb, BeliefBase):
            raise InvalidTypeError(f"kb must be a BeliefBase, not {type(kb).__name__}")
        if not (isinstance(source, str) or callable(source)):
            raise InvalidTypeError("source must be a source name or a callable (namespace) -> str")
        if isinstance(source, str):
            kb.reliability(source)  # a policy that does not know the source refuses it here
        self.kb = kb
        self.source = source
        self.prefix = _check_namespace(tuple(prefix), empty=True)
        if min_confidence is not None and not (isinstance(min_confidence, (int, float))
                                               and 0.0 <= min_confidence <= 1.0):
            raise InvalidInputError(f"min_confidence must be in [0, 1], not {min_confidence!r}")
        self.min_confidence = min_confidence
        # one operation at a time: abatch runs in a worker thread, and a base is not threadsafe
        self._lock = threading.RLock()
        #: whether the base takes valid times (kb.assert_(..., valid_from=...)): then a put is
        #: valid from its time and the conflict policy orders the values of a key by it
        method = getattr(kb.assert_, "__func__", kb.assert_)
        try:
            self._timed = _takes_valid_times(method)
        except TypeError:  # an unhashable callable set on the instance: read it here
            self._timed = "valid_from" in inspect.signature(kb.assert_).parameters
        #: when this store first put each key since it was last deleted (created_at)
        self._created: dict[str, float] = {}

    @classmethod
    def sharded(cls, ledger: Any, *,
                session_of: Callable[[tuple[str, ...]], str | None] | None = None,
                **options: Any) -> ShardedStore:
        """A store whose namespaces are sessions of ``ledger``, one per user, opened on demand
        through a bounded cache: :class:`ShardedStore`
        (``session_of(namespace) -> str``; default: the first two labels). ``options``:
        ``source``, ``min_confidence``, ``max_sessions``, ``max_bytes``, and
        :meth:`~corollary.BeliefBase.open_session`'s. See docs/many-users.md.

        >>> from corollary import TrustLedger
        >>> store = CorollaryStore.sharded(TrustLedger())
        >>> store.put(("memories", "u1"), "diet", {"text": "vegan"})
        >>> store.cache.open_sessions()
        ['memories:u1']
        """
        return ShardedStore(ledger, session_of=session_of, **options)

    # -- the store's one abstract operation, both ways -----------------------------------
    def batch(self, ops: Iterable[Any]) -> list[Any]:
        """Run LangGraph's operations: reads first, against the store before the batch; then
        the writes, the last one of each key winning."""
        ops = list(ops)
        with self._lock:
            self._sync()
            results: list[Any] = []
            writes: dict[tuple[tuple[str, ...], str], Any] = {}
            for op in ops:
                if isinstance(op, GetOp):
                    namespace = _check_labels(op.namespace)
                    results.append(self._get(namespace, str(op.key)) if _writable(namespace)
                                   else None)
                elif isinstance(op, SearchOp):
                    results.append(self._search(op))
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list_namespaces(op))
                elif isinstance(op, PutOp):
                    if op.value is None and not _writable(_check_labels(op.namespace)):
                        results.append(None)  # a delete where nothing can have been put
                        continue
                    self.check_put(op)
                    writes.pop((op.namespace, op.key), None)  # the last write keeps its place
                    writes[(op.namespace, op.key)] = op
                    results.append(None)
                else:
                    raise InvalidTypeError(f"unknown store operation {type(op).__name__}")
            for op in writes.values():
                self._write(op)
            return results

    async def abatch(self, ops: Iterable[Any]) -> list[Any]:
        """:meth:`batch`, in a worker thread (a journaled base may wait on its database)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- reads -----------------------------------------------------------------------------
    @property
    def floor(self) -> float:
        """The confidence below which no value is returned."""
        floor: float = self.kb.policy.min_confidence
        return floor if self.min_confidence is None else float(self.min_confidence)

    def _sync(self) -> None:
        sync = getattr(self.kb, "sync", None)  # a journaled session: other writers' entries
        if callable(sync):
            sync()

    def _held(self, key: str) -> tuple[Any, float] | None:
        """The value of belief ``key`` an item shows (the most confident held one, at or above
        the floor), with its confidence; ``None`` if there is none."""
        kb = self.kb
        values = list(kb.engine.values_of(key))
        if len(values) == 1:  # its one value: read by the key alone, no canonical form made
            value = values[0].value
            if is_end(value) or kb.label(key) != "IN":
                return None
            confidence = kb.confidence(key)
            return (value, confidence) if confidence >= self.floor else None
        best: tuple[Any, float] | None = None
        for b in values:
            value = b.value
            if is_end(value) or kb.label(key, value) != "IN":
                continue
            confidence = kb.confidence(key, value)
            if confidence >= self.floor and (best is None or confidence > best[1]):
                best = (value, confidence)
        return best

    def _times(self, key: str, value: Any) -> tuple[datetime, datetime]:
        """``(created_at, updated_at)``: the latest premise of the value is its update; its
        creation is the start of the chain of values it superseded (a base's timeline, under
        ``PreferNewer``), else the store's first put of the key since its last delete, else
        that premise."""
        b = self.kb.engine.find(key, canon(value))
        times = [p.at for p in (b.premises if b is not None else ())] or [self.kb.now()]
        updated = max(times)
        created = min(self._created.get(key, updated), updated, self._chain_start(key, value))
        return _when(created), _when(updated)

    def _chain_start(self, key: str, value: Any) -> float:
        """When the first of the values that ``value`` superseded, one after the other, began
        (``inf`` when the base keeps no timeline or nothing was superseded)."""
        timeline = getattr(self.kb, "timeline", None)
        if not callable(timeline):
            return math.inf
        entries = list(timeline(key))
        start = math.inf
        current = value
        for entry in reversed(entries):  # newest first: walk back through what was replaced
            if entry.value == current and entry.status in ("held", "superseded"):
                if entry.valid_from is not None:
                    start = min(start, float(entry.valid_from))
            elif entry.status == "superseded" and entry.superseded_by == current:
                current = entry.value
                if entry.valid_from is not None:
                    start = min(start, float(entry.valid_from))
        return start

    def _item(self, namespace: tuple[str, ...], key: str, belief: str, value: Any,
              score: float | None = None, search: bool = False) -> Any:
        created, updated = self._times(belief, value)
        if search:
            return SearchItem(namespace=namespace, key=key, value=plain(value),
                              created_at=created, updated_at=updated, score=score)
        return Item(value=plain(value), key=key, namespace=namespace, created_at=created,
                    updated_at=updated)

    def _get(self, namespace: tuple[str, ...], key: str) -> Any:
        belief = belief_key(namespace, key, self.prefix)
        if belief not in self.kb.engine.keys:
            return None
        held = self._held(belief)
        if held is None or not isinstance(held[0], dict):
            return None
        return self._item(namespace, key, belief, held[0])

    def _search(self, op: Any) -> list[Any]:
        prefix = _check_namespace(tuple(op.namespace_prefix), empty=True)
        if not isinstance(op.limit, int) or not isinstance(op.offset, int):
            raise InvalidTypeError("limit and offset must be integers")
        limit, offset = max(op.limit, 0), max(op.offset, 0)
        scope_labels = (*self.prefix, *prefix)
        scope = Scope.of(belief_key(scope_labels[:-1], scope_labels[-1])) if scope_labels \
            else None
        found: list[Any] = []
        if op.query:
            seen: set[str] = set()
            k = max(offset + limit, 1)
            while True:  # recall more while the filter throws hits away
                hits = self.kb.recall(op.query, k, scope=scope, min_confidence=self.floor)
                found, seen = [], set()
                for r in hits:
                    path = item_path(r.key, self.prefix)
                    if (path is None or path[0][:len(prefix)] != prefix or r.key in seen
                            or not isinstance(r.value, dict)):
                        continue
                    if op.filter and not _matches(r.value, op.filter):
                        continue
                    seen.add(r.key)  # an open conflict: its most relevant value only
                    found.append(self._item(*path, r.key, r.value, r.score, search=True))
                if len(hits) < k or len(found) >= offset + limit:
                    break
                k *= 4
            return found[offset:offset + limit]
        best: dict[str, tuple[Any, float]] = {}
        for h in self.kb.beliefs(self.floor):
            if (scope is None or scope.contains(h.key)) and isinstance(h.value, dict) and (
                    h.key not in best or h.confidence > best[h.key][1]):
                best[h.key] = (h.value, h.confidence)
        for belief in sorted(best):
            path = item_path(belief, self.prefix)
            value = best[belief][0]
            # the scope of ('n', 'm') holds the key of item 'm' in ('n',): a namespace is
            # matched on the path the key reads as, never on the key's text
            if path is not None and path[0][:len(prefix)] == prefix and (
                    not op.filter or _matches(value, op.filter)):
                found.append((path, belief, value))
        return [self._item(path[0], path[1], belief, value, search=True)
                for path, belief, value in found[offset:offset + limit]]

    def _namespaces(self) -> set[tuple[str, ...]]:
        found = set()
        scope = Scope.of(belief_key(self.prefix[:-1], self.prefix[-1])) if self.prefix else None
        for h in self.kb.beliefs(self.floor):
            if (scope is None or scope.contains(h.key)) and isinstance(h.value, dict):
                path = item_path(h.key, self.prefix)
                if path is not None:
                    found.add(path[0])
        return found

    def _list_namespaces(self, op: Any) -> list[tuple[str, ...]]:
        namespaces = [ns for ns in self._namespaces()
                      if all(_does_match(c.match_type, tuple(c.path), ns)
                             for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = list({ns[:op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset:op.offset + op.limit]

    # -- one operation, for a caller that holds the base (ShardedStore, through its cache) --
    def read(self, op: Any) -> Any:
        """Run one read (a ``GetOp``, ``SearchOp`` or ``ListNamespacesOp``) against the base
        as it is now: no sync first and not under the store's lock, for a caller that holds
        the base and has synced it (:class:`ShardedStore`, through its cache). ``batch`` is
        the way in otherwise.

        Examples
        --------
        >>> from corollary import BeliefBase
        >>> store = CorollaryStore(BeliefBase())
        >>> store.put(("memories", "u1"), "diet", {"text": "vegan"})
        >>> store.read(GetOp(("memories", "u1"), "diet")).value
        {'text': 'vegan'}
        """
        if isinstance(op, GetOp):
            namespace = _check_labels(op.namespace)
            return self._get(namespace, str(op.key)) if _writable(namespace) else None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidTypeError(f"not a store read: {type(op).__name__}")

    def write(self, op: Any) -> None:
        """Apply one ``PutOp`` (a put, or a delete with ``value=None``) now, checked first
        (:meth:`check_put`): no sync first and not under the store's lock, for a caller that
        holds the base (:class:`ShardedStore`). ``batch`` is the way in otherwise.

        Examples
        --------
        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> CorollaryStore(kb).write(PutOp(("memories", "u1"), "diet", {"text": "vegan"}))
        >>> kb.value("memories:u1:diet")
        {'text': 'vegan'}
        """
        self.check_put(op)
        self._write(op)

    # -- writes ------------------------------------------------------------------------------
    @staticmethod
    def check_put(op: Any) -> None:
        """Check a ``PutOp`` as LangGraph's stores do before anything is written: its
        namespace (:class:`InvalidNamespaceError`), a string key, a mapping value (or
        ``None``, a delete) (:class:`~corollary.foundations.errors.InvalidTypeError`), and
        no TTL (``NotImplementedError``: this store does not expire items by one).

        Examples
        --------
        >>> CorollaryStore.check_put(PutOp(("memories", "u1"), "diet", {"text": "vegan"}))
        >>> CorollaryStore.check_put(PutOp(("memories", "u1"), 7, {}))
        Traceback (most recent call last):
        ...
        corollary.foundations.errors.InvalidTypeError: an item's key is a string, not int
        """
        _check_namespace(op.namespace)
        if not isinstance(op.key, str):
            raise InvalidTypeError(f"an item's key is a string, not {type(op.key).__name__}")
        if op.value is not None and not hasattr(op.value, "items"):
            raise InvalidTypeError("an item's value is a mapping (a JSON object), not "
                                   f"{type(op.value).__name__}")
        if op.ttl is not None:
            raise NotImplementedError("CorollaryStore does not expire items by a TTL in "
                                      "minutes (supports_ttl is False): assert with ttl= on "
                                      "the base, or set ttl=None")

    def _source(self, namespace: tuple[str, ...]) -> str:
        source = self.source(namespace) if callable(self.source) else self.source
        if not isinstance(source, str):
            raise InvalidTypeError(f"source(namespace) returned {type(source).__name__}, "
                                   "not a source name")
        return source

    def _write(self, op: Any) -> None:
        kb = self.kb
        belief = belief_key(op.namespace, op.key, self.prefix)
        if op.value is None:  # delete: the item ends (never an older value back)
            self._created.pop(belief, None)
            if belief in kb.engine.keys:
                self._delete(belief, self._source(op.namespace))
            return
        value = {str(k): v for k, v in op.value.items()}
        now = kb.now()
        held = self._held(belief) if belief in kb.engine.keys else None
        if held is None:
            self._created[belief] = now
        apply(kb, Assert(belief, value, self._source(op.namespace),
                         valid_from=now if self._timed else None))


    def forget(self, namespace: tuple[str, ...], key: str | None = None, *,
               reason: str | None = None) -> Any:
        """Erase the item ``key`` of ``namespace``, or (no ``key``) every item under the
        namespace, nested ones too: ``kb.forget`` (docs/model.md, "Forgetting"), so no value,
        proof or history of them stays readable or in storage. ``delete`` ends an item
        instead (docs/lifecycle.md). Returns ``kb.forget``'s counts; a namespace with nothing
        in it forgets nothing.

        Raises
        ------
        UnknownBeliefError
            An item ``key`` the store does not hold.

        Examples
        --------
        >>> from corollary import BeliefBase
        >>> store = CorollaryStore(BeliefBase())
        >>> store.put(("users", "ann"), "city", {"name": "Paris"})
        >>> store.put(("users", "bob"), "city", {"name": "Lyon"})
        >>> store.forget(("users", "ann")).beliefs
        1
        >>> store.get(("users", "ann"), "city") is None, store.get(("users", "bob"), "city").value
        (True, {'name': 'Lyon'})
        """
        namespace = _check_namespace(namespace)
        self._sync()
        if key is not None:
            belief = belief_key(namespace, str(key), self.prefix)
            self._created.pop(belief, None)
            return apply(self.kb, Forget(belief, reason=reason))
        scope = ":".join(_escape(label) for label in (*self.prefix, *namespace))
        for belief in [b for b in self._created if Scope.of(scope).contains(b)]:
            del self._created[belief]
        return apply(self.kb, Forget(scope=scope, reason=reason))

    def _delete(self, belief: str, source: str) -> None:
        """Delete an item: under ``PreferNewer`` or no policy it ends now (``kb.end``: what it
        superseded stays superseded; a value put at this very instant held at no time and is
        withdrawn); under a policy that decides by something else, where a put replaced the
        store's earlier value, its held values are withdrawn, nobody blamed
        (docs/lifecycle.md)."""
        kb = self.kb
        held = [b.value for b in kb.engine.values_of(belief)
                if not is_end(b.value) and kb.label(belief, b.value) == "IN"]
        if not held:
            return
        if kb.conflict_policy is None or getattr(kb.conflict_policy, "mode", None) == "time":
            now = kb.now()
            engine = kb.engine
            # a value put at this very instant held at no time: it is withdrawn, and what it
            # superseded is ended with the rest
            fresh = [v for v in held if any(
                p.valid_from == now for p in engine.find(belief, canon(v)).premises)]
            for value in fresh:
                apply(kb, Retract(belief, value, reason="deleted from the store"))
            if any(not is_end(b.value) and kb.label(belief, b.value) == "IN"
                   for b in engine.values_of(belief)):
                apply(kb, End(belief, source=source, at=now, reason="deleted from the store"))
            return
        for value in held:
            apply(kb, Retract(belief, value, reason="deleted from the store"))


def _does_match(kind: str, path: tuple[str, ...], namespace: tuple[str, ...]) -> bool:
    """Whether ``namespace`` starts (``"prefix"``) or ends (``"suffix"``) with ``path``, where
    ``"*"`` matches any one label."""
    if len(namespace) < len(path):
        return False
    if kind == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif kind == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise InvalidInputError(f"match_type must be 'prefix' or 'suffix', not {kind!r}")
    return all(p == "*" or n == p for n, p in pairs)


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: bool(a == b), "$ne": lambda a, b: bool(a != b),
    "$gt": lambda a, b: float(a) > float(b), "$gte": lambda a, b: float(a) >= float(b),
    "$lt": lambda a, b: float(a) < float(b), "$lte": lambda a, b: float(a) <= float(b),
}


def _matches(value: dict[str, Any], where: dict[str, Any]) -> bool:
    """Whether an item's value passes a search filter, as LangGraph documents filters: equal
    fields (nested objects field by field, lists item by item), or ``{"$op": x}`` with
    ``$eq $ne $gt $gte $lt $lte``.

    >>> _matches({"a": 3, "b": {"c": "x"}}, {"a": {"$gt": 2}, "b": {"c": "x"}})
    True
    """
    return all(_compare(value.get(k), v) for k, v in where.items())


def _compare(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        if any(str(k).startswith("$") for k in wanted):
            for op, x in wanted.items():
                check = _OPERATORS.get(op)
                if check is None:
                    raise InvalidInputError(f"unknown filter operator {op!r} (known: "
                                            f"{', '.join(_OPERATORS)})")
                if found is None and op not in ("$eq", "$ne"):
                    return False  # no number to compare (InMemoryStore raises TypeError)
                if not check(found, x):
                    return False
            return True
        return isinstance(found, dict) and all(_compare(found.get(k), v)
                                               for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(found, (list, tuple)) and len(found) == len(wanted)
                and all(_compare(a, b) for a, b in zip(found, wanted, strict=True)))
    return bool(found == wanted)


# -- many users: a store whose namespaces are sessions (issue 38; docs/many-users.md) ----------

#: How many labels of a namespace name its session under the default mapping.
DEPTH = 2


def session_of_namespace(namespace: tuple[str, ...]) -> str | None:
    """The default mapping: the session of ``namespace`` is its first two labels (escaped and
    joined as in a belief key); ``None`` for a shorter prefix, which names no one session.

    >>> session_of_namespace(("memories", "u1", "prefs")), session_of_namespace(("a:b", "50%"))
    ('memories:u1', 'a%3Ab:50%25')
    >>> session_of_namespace(("memories",)) is None
    True
    """
    if len(namespace) < DEPTH:
        return None
    return ":".join(_escape(label) for label in namespace[:DEPTH])


def _session_labels(session_id: str) -> tuple[str, ...]:
    return tuple(_unescape(label) for label in session_id.split(":"))


class ShardedStore(BaseStore):  # type: ignore[misc,valid-type]
    """A LangGraph store over many journaled sessions of one ledger, one per user.

    Made by ``CorollaryStore.sharded(ledger, session_of=..., **options)`` or directly. A
    ``CorollaryStore`` over one base holds every user in that base: a search by one user's
    namespace walks every user's beliefs, and every replica holds them all. Here each
    namespace maps to a journaled session (``session_of``), served through a
    :class:`~corollary.serving.shards.SessionCache`: opened when first used, dropped (and later
    reopened from its journal) when the cache is full, synced with other replicas before each
    use. Within a session the items are what ``CorollaryStore`` makes of them (the same belief
    keys), so a search by a user's namespace costs that user's items only. A search or listing
    whose prefix names no single session spans every session of the ledger, one at a time:
    give the store a ledger (a PostgreSQL namespace, a SQLite file) of its own. See
    docs/many-users.md.

    Parameters
    ----------
    ledger : TrustLedger
        An open ledger (PostgreSQL or SQLite; in memory for tests) holding the sessions.
    session_of : callable, optional
        ``session_of(namespace) -> str``: the session a namespace's items live in. It is also
        asked for a search's or a listing's prefix, where ``None`` means "no single session":
        the search then spans every session of the ledger. It must depend on the namespace's
        first labels only (a prefix and the namespaces under it map alike). Default:
        :func:`session_of_namespace` (the first two labels; a one-label namespace is the
        session of that label).
    source, min_confidence :
        As :class:`~corollary.integrations.langgraph.CorollaryStore`'s, for every session.
    max_sessions, max_bytes :
        The bounds of the cache of open sessions (:class:`~corollary.serving.shards.SessionCache`).
    options
        Given to each :meth:`~corollary.BeliefBase.open_session` (``clock``, ``policy``,
        ``rules``, ``checkpoint_every``, ...).

    Examples
    --------
    >>> from corollary import TrustLedger
    >>> store = CorollaryStore.sharded(TrustLedger())
    >>> store.put(("memories", "u1"), "diet", {"text": "vegetarian"})
    >>> store.put(("memories", "u2"), "diet", {"text": "vegan"})
    >>> [i.value for i in store.search(("memories", "u1"))]
    [{'text': 'vegetarian'}]
    >>> store.cache.open_sessions()
    ['memories:u2', 'memories:u1']
    """

    __slots__ = ("cache", "session_of", "source", "min_confidence", "_default_mapping",
                 "_stores")

    def __init__(self, ledger: Any, *,
                 session_of: Callable[[tuple[str, ...]], str | None] | None = None,
                 source: str | Callable[[tuple[str, ...]], str] = SOURCE,
                 min_confidence: float | None = None, max_sessions: int = 1000,
                 max_bytes: int = 512 * 1024 * 1024, **options: Any) -> None:
        if session_of is not None and not callable(session_of):
            raise InvalidTypeError("session_of must be a callable (namespace) -> session id")
        from ..serving.shards import SessionCache

        self.cache = SessionCache(ledger, max_sessions=max_sessions, max_bytes=max_bytes,
                                  **options)
        self._default_mapping = session_of is None
        self.session_of = session_of_namespace if session_of is None else session_of
        self.source = source
        self.min_confidence = min_confidence
        self._stores: dict[str, CorollaryStore] = {}  # by session, while its base is open

    # -- which session ----------------------------------------------------------------------
    def _session(self, namespace: tuple[str, ...]) -> str | None:
        found = self.session_of(namespace)
        if found is not None and not isinstance(found, str):
            raise InvalidTypeError(f"session_of({namespace!r}) returned "
                                   f"{type(found).__name__}, not a session id")
        return found

    def _written_session(self, namespace: tuple[str, ...]) -> str:
        found = self._session(namespace)
        if found is None and len(namespace) == 1 and self._default_mapping:
            return _escape(namespace[0])  # one label: the session of that label
        if found is None:
            raise InvalidInputError(f"session_of({namespace!r}) named no session: a namespace "
                                    "an item lives in must map to one")
        return found

    def _sessions_under(self, prefix: tuple[str, ...]) -> list[str]:
        """The sessions a search or listing by ``prefix`` looks in: the one it names, else every
        session of the ledger (under the default mapping, those whose labels fit the prefix)."""
        named = self._session(prefix) if prefix else None
        if named is not None:
            return [named]
        every = list(self.cache.ledger.store.journal_sessions())  # type: ignore[attr-defined]
        if not self._default_mapping:
            return every
        return [s for s in every if _session_labels(s)[:len(prefix)] == prefix[:DEPTH]]

    def _store(self, session_id: str, kb: Any) -> CorollaryStore:
        """The ``CorollaryStore`` over a session's open base (made once while it stays open:
        making one checks the source against the base, a round trip to the ledger)."""
        found = self._stores.get(session_id)
        if found is None or found.kb is not kb:
            found = self._stores[session_id] = CorollaryStore(
                kb, source=self.source, min_confidence=self.min_confidence)
            if len(self._stores) > self.cache.max_sessions + 64:  # not the evicted ones' bases
                live = set(self.cache.open_sessions())
                for gone in [sid for sid in list(self._stores) if sid not in live]:
                    self._stores.pop(gone, None)
        return found

    # -- LangGraph's one abstract operation, both ways ----------------------------------------
    def batch(self, ops: Iterable[Any]) -> list[Any]:
        """Run LangGraph's operations: reads first, each in its session, against the store
        before the batch; then the writes (the last one of each key winning), session by
        session. One session is held at a time."""
        results: list[Any] = []
        writes: dict[tuple[tuple[str, ...], str], Any] = {}
        for op in ops:
            if isinstance(op, GetOp):
                namespace = _check_namespace(op.namespace)
                session_id = self._written_session(namespace)
                with self.cache.session(session_id) as kb:
                    results.append(self._store(session_id, kb).read(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                CorollaryStore.check_put(op)
                self._written_session(op.namespace)  # a namespace that maps to no session fails here
                writes.pop((op.namespace, op.key), None)  # the last write keeps its place
                writes[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise InvalidTypeError(f"unknown store operation {type(op).__name__}")
        by_session: dict[str, list[Any]] = {}
        for op in writes.values():
            by_session.setdefault(self._written_session(op.namespace), []).append(op)
        for session_id, session_ops in by_session.items():
            # no sync first: each change applies other writers' entries before its own
            with self.cache.session(session_id, sync=False) as kb:
                store = self._store(session_id, kb)
                for op in session_ops:
                    store.write(op)
        return results

    async def abatch(self, ops: Iterable[Any]) -> list[Any]:
        """:meth:`batch`, in a worker thread (sessions wait on their database)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def forget(self, namespace: tuple[str, ...], key: str | None = None, *,
               reason: str | None = None) -> Any:
        """Erase the item ``key`` of ``namespace``, or (no ``key``) every item under the
        namespace, nested ones too, as :meth:`CorollaryStore.forget` does (``kb.forget`` in
        the session the items live in: no value, proof or history of them stays readable or
        in the ledger's storage). A namespace that names no single session (``("memories",)``
        under the default mapping) is forgotten in every session under it, one at a time.
        Returns ``kb.forget``'s counts, summed over the sessions; a session that does not
        exist is not made to forget nothing.

        Raises
        ------
        UnknownBeliefError
            An item ``key`` the store does not hold.

        Examples
        --------
        >>> from corollary import TrustLedger
        >>> store = CorollaryStore.sharded(TrustLedger())
        >>> store.put(("memories", "u1"), "diet", {"text": "vegan"})
        >>> store.put(("memories", "u2"), "diet", {"text": "vegetarian"})
        >>> store.forget(("memories", "u1")).beliefs
        1
        >>> store.get(("memories", "u1"), "diet") is None, store.get(("memories", "u2"), "diet").value
        (True, {'text': 'vegetarian'})
        """
        from ..facade.forgetting import Forgotten

        namespace = _check_namespace(namespace)
        if key is not None:
            session_id = self._written_session(namespace)
            with self.cache.session(session_id) as kb:
                return self._store(session_id, kb).forget(namespace, key, reason=reason)
        total = Forgotten()
        store: Any = self.cache.ledger.store  # a journal store: the sessions are journals
        for session_id in self._sessions_under(namespace):
            if session_id not in self.cache and not store.journal_head(session_id) and (
                    store.read_checkpoint(session_id) is None):
                continue  # no such session: nothing to forget, and none made
            with self.cache.session(session_id) as kb:
                done = self._store(session_id, kb).forget(namespace, reason=reason)
            total = Forgotten(**{f.name: getattr(total, f.name) + getattr(done, f.name)
                                 for f in attrs.fields(Forgotten)})
        return total

    def _search(self, op: Any) -> list[Any]:
        prefix = _check_namespace(tuple(op.namespace_prefix), empty=True)
        if not isinstance(op.limit, int) or not isinstance(op.offset, int):
            raise InvalidTypeError("limit and offset must be integers")
        limit, offset = max(op.limit, 0), max(op.offset, 0)
        sessions = self._sessions_under(prefix)
        if len(sessions) == 1:
            with self.cache.session(sessions[0]) as kb:
                found: list[Any] = self._store(sessions[0], kb).read(op)
            return found
        found = []
        wide = op._replace(offset=0, limit=offset + limit)  # each session's first pages
        for session_id in sessions:
            with self.cache.session(session_id) as kb:
                found.extend(self._store(session_id, kb).read(wide))
        if op.query:  # best first across sessions, as within one
            found.sort(key=lambda item: -(item.score or 0.0))
        else:
            found.sort(key=lambda item: belief_key(item.namespace, item.key))
        return found[offset:offset + limit]

    def _list_namespaces(self, op: Any) -> list[tuple[str, ...]]:
        prefix: tuple[str, ...] = ()
        for condition in op.match_conditions or ():
            if condition.match_type == "prefix":
                path = tuple(condition.path)
                prefix = path[:path.index("*")] if "*" in path else path
        every = op._replace(offset=0, limit=2 ** 62, max_depth=None)
        found: set[tuple[str, ...]] = set()
        for session_id in self._sessions_under(prefix):
            with self.cache.session(session_id) as kb:
                found.update(self._store(session_id, kb).read(every))
        if op.max_depth is not None:
            found = {ns[:op.max_depth] for ns in found}
        return sorted(found)[op.offset:op.offset + op.limit]

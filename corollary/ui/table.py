"""The beliefs table: every belief of a base as columns, sorted, filtered and cut into pages on
the server, so a base of a million beliefs sends the browser one page at a time.

The columns are read once from the engine (after :meth:`~corollary.BeliefBase.refresh`) into
numpy arrays, with each sort order computed the first time it is asked for and kept; a page is
then a mask and a slice. :class:`BeliefTable` is rebuilt when the base changed (a change seen by
``watch``, another belief count, or the clock moved on).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
from numpy.typing import NDArray

from ..foundations.errors import InvalidInputError
from ..foundations.values import plain
from ..tms import IN, Belief
from ..tms.records import record_at, record_source

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

__all__ = ["FACETS", "SORTS", "BeliefTable", "Page", "row_of", "source_of", "value_text"]

#: The columns a table sorts by.
SORTS = ("key", "confidence", "label", "source", "age")
#: The most sources the page's filter lists.
FACETS = 500
#: The longest value text a row carries (the belief's page shows it whole).
_MAX_VALUE = 200


def source_of(b: Belief) -> tuple[str, str]:
    """``(source, kind)`` of a belief: its first premise's source (``tool:quote``, kind ``tool``)
    or, when it has none, the name and kind of its first step (``model:analyst``, ``formula``).

    >>> from corollary import BeliefBase
    >>> kb = BeliefBase()
    >>> kb.assert_("a", 1, source="tool:crm")
    >>> source_of(kb.engine.values_of("a")[0])
    ('tool:crm', 'tool')
    """
    records = b.records()
    if records:
        source = record_source(records[0])
        return source, source.partition(":")[0]
    if b.justs:
        j = b.justs[0]
        return j.name, j.kind.name
    return "", ""


def value_text(value: Any) -> str:
    """A value as the page shows it: as Python prints it, cut at a few hundred characters
    (exact, where a JSON number would reach the page as a double)."""
    text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 1] + "…"


def _latest(b: Belief) -> float:
    records = b.records()
    if not records:
        return float("nan")
    return float(max(record_at(r) for r in records))


def row_of(b: Belief, now: float) -> dict[str, Any]:
    """The table row of a belief (synced by the caller): what the page shows of it."""
    source, kind = source_of(b)
    at = _latest(b)
    return {"key": b.key, "value": plain(b.value), "value_text": value_text(b.value),
            "label": b.label, "confidence": b.conf if b.label is IN else 0.0,
            "source": source, "kind": kind,
            "age": None if at != at else max(now - at, 0.0)}


@attrs.frozen
class Page:
    """One page of the table: its rows, and how many rows the filter kept in all."""

    rows: list[dict[str, Any]]
    total: int
    offset: int
    limit: int


class BeliefTable:
    """Every belief of ``kb`` at ``kb.now()`` as sortable, filterable columns.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_many([("b", 1, "tool:x"), ("a", 2, "document:y")])
    2
    >>> t = BeliefTable(kb)
    >>> [r["key"] for r in t.page(sort="key").rows]
    ['a', 'b']
    >>> t.page(kind="tool").total
    1
    """

    def __init__(self, kb: BeliefBase) -> None:
        kb.refresh()
        self.now = kb.now()
        self.count = len(kb)
        beliefs = list(kb.engine.beliefs())
        n = len(beliefs)
        self.beliefs = beliefs
        conf: list[float] = [0.0] * n
        held: list[bool] = [False] * n
        at: list[float] = [math.nan] * n
        source_ids: list[int] = [0] * n
        kind_ids: list[int] = [0] * n
        sources: dict[str, int] = {}
        kinds: dict[str, int] = {}
        # a bulk load gives the premises of one source one record: read each record once
        seen: dict[int, tuple[int, int, float]] = {}
        for i, b in enumerate(beliefs):
            if b.best is not None:
                held[i] = True
                conf[i] = b.conf
            ev = b.evidence
            known = seen.get(id(ev)) if type(ev) is tuple else None
            if known is None:
                source, kind = source_of(b)
                s = sources.get(source)
                if s is None:
                    s = sources[source] = len(sources)
                k = kinds.get(kind)
                if k is None:
                    k = kinds[kind] = len(kinds)
                known = (s, k, _latest(b))
                if type(ev) is tuple:
                    seen[id(ev)] = known
            source_ids[i], kind_ids[i], at[i] = known
        self.conf = np.array(conf, dtype=np.float64)
        self.held = np.array(held, dtype=np.bool_)
        self.at = np.array(at, dtype=np.float64)
        self.source_ids = np.array(source_ids, dtype=np.int32)
        self.kind_ids = np.array(kind_ids, dtype=np.int32)
        self.sources, self.kinds = sources, kinds
        self._orders: dict[str, NDArray[np.intp]] = {}
        self.order("key")  # the first page's order: sorted now, not on the first request
        # an open conflict holds two values or more at once: a key that merely keeps a
        # retracted or superseded value beside its held one is not contested
        self.contested = sum(1 for _, values in kb.engine.contested()
                             if sum(1 for b in values if b.label is IN) > 1)

    def order(self, sort: str) -> NDArray[np.intp]:
        """Row numbers in ascending ``sort`` order (ties by key), computed once."""
        if sort not in SORTS:
            raise InvalidInputError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        found = self._orders.get(sort)
        if found is not None:
            return found
        by_key = self._orders.get("key")
        if by_key is None:
            keys = [b.key for b in self.beliefs]
            by_key = np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)
            self._orders["key"] = by_key
        if sort == "key":
            return by_key
        column: NDArray[Any]
        if sort == "confidence":
            column = self.conf
        elif sort == "label":
            column = ~self.held  # IN first
        elif sort == "age":
            column = -self.at  # the newest first; no premise (nan) last
        else:
            names = sorted(self.sources)
            rank = np.empty(len(names), dtype=np.int32)
            for r, name in enumerate(names):
                rank[self.sources[name]] = r
            column = rank[self.source_ids]
        found = by_key[np.argsort(column[by_key], kind="stable")]
        self._orders[sort] = found
        return found

    def page(self, *, sort: str = "key", descending: bool = False, label: str | None = None,
             source: str | None = None, kind: str | None = None,
             min_confidence: float | None = None, max_confidence: float | None = None,
             offset: int = 0, limit: int = 50) -> Page:
        """The rows the filters keep, in order, from ``offset``: at most ``limit`` of them."""
        order = self.order(sort)
        if descending:
            order = order[::-1]
        mask = self._mask(label, source, kind, min_confidence, max_confidence)
        if mask is not None:
            order = order[mask[order]]
        chosen = order[offset:offset + limit]
        rows = [row_of(self.beliefs[i], self.now) for i in chosen]
        return Page(rows, int(order.shape[0]), offset, limit)

    def _mask(self, label: str | None, source: str | None, kind: str | None,
              low: float | None, high: float | None) -> NDArray[np.bool_] | None:
        masks: list[NDArray[np.bool_]] = []
        if label is not None:
            if label not in ("IN", "OUT"):
                raise InvalidInputError(f"label must be IN or OUT, got {label!r}")
            masks.append(self.held if label == "IN" else ~self.held)
        for name, ids, names in ((source, self.source_ids, self.sources),
                                 (kind, self.kind_ids, self.kinds)):
            if name is not None:
                number = names.get(name)
                masks.append(ids == number if number is not None
                             else np.zeros(len(self.beliefs), dtype=np.bool_))
        if low is not None:
            masks.append(self.conf >= low)
        if high is not None:
            masks.append(self.conf <= high)
        if not masks:
            return None
        mask = masks[0]
        for more in masks[1:]:
            mask = mask & more
        return mask

    def facets(self) -> dict[str, Any]:
        """The sources and kinds a filter may name (the first :data:`FACETS` sources by name;
        ``?source=`` takes any)."""
        names = sorted(s for s in self.sources if s)
        return {"sources": names[:FACETS], "sources_total": len(names),
                "kinds": sorted(k for k in self.kinds if k)}

"""What each page of the inspector shows, as plain data (the JSON of ``/api/``, docs/ui.md).

:class:`Inspector` reads one base through its public API (``beliefs`` through the table of
:mod:`corollary.ui.table`, ``explain``, ``what_to_check``, ``conflicts``, ``faded``,
``expired``, ``recall``, ``reliability``, the ledger's outcomes and routing, the promises) and
never changes it. The journal's ``history`` and ``watch`` are used where the base has them; a
base without them says so (``"history": null``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations._format import format_confidence
from ..foundations.errors import (
    AmbiguousValueError,
    InvalidInputError,
    UnknownBeliefError,
    UnknownSourceError,
)
from ..foundations.values import canon, plain, shown_value
from ..promises.guarantee import GroupedPromise, Promise
from ..tms import IN, Belief
from ..trust.ledger import DEFAULT_PRIOR
from ..trust.outcomes import EMPTY_TOTALS, check_source
from .table import SORTS, BeliefTable, row_of, value_text

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

__all__ = ["FADED_AT", "HISTORY_FIELDS", "HISTORY_PAGE", "SOURCES_PAGE", "TABLE_FOR",
           "Inspector"]

#: The fields of a journal entry the history shows (the journal's ``kb.history``).
HISTORY_FIELDS = ("seq", "time", "operation", "key", "value", "source", "reason", "label",
                  "confidence")
#: How many history entries a page shows (the belief page, ``/api/history``).
HISTORY_PAGE = 100
#: How many sources a page of ``/api/sources`` lists.
SOURCES_PAGE = 100
#: How long (seconds of the base's clock) the beliefs table is shown before it is read again:
#: confidences fade with time, and reading a million beliefs takes a second or two.
TABLE_FOR = 30.0
#: Below this confidence a faded premise is listed, when the policy sets no min_confidence.
FADED_AT = 0.5
#: How many nodes the graph around a belief shows on each side at most.
_GRAPH_LIMIT = 16
#: The most outcomes a source's page lists (the plot uses them all).
_OUTCOME_ROWS = 200
#: The most recall hits a search shows.
_SEARCH_MAX = 200


def _data(item: Any) -> dict[str, Any]:
    """An attrs value (or a mapping) as plain data."""
    if isinstance(item, dict):
        found = dict(item)
    elif attrs.has(type(item)):
        found = attrs.asdict(item, recurse=False)
    else:
        found = {f: getattr(item, f, None) for f in HISTORY_FIELDS}
    return {k: plain(v) for k, v in found.items()}


def _number(x: float | None) -> float | None:
    """A float JSON can carry (inf and NaN as None)."""
    return None if x is None or not math.isfinite(x) else float(x)


class Inspector:
    """The pages' data for one base (read only).

    Parameters
    ----------
    kb : BeliefBase
        The base to show; the inspector reads it at ``kb.now()``.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("hq", "Austin", source="tool:registry")
    >>> ins = Inspector(kb)
    >>> ins.beliefs()["rows"][0]["key"], ins.belief("hq")["values"][0]["label"]
    ('hq', 'IN')
    """

    def __init__(self, kb: BeliefBase) -> None:
        self.kb = kb
        self._table: BeliefTable | None = None
        self.dirty = False

    # -- the table ---------------------------------------------------------------------
    def table(self) -> BeliefTable:
        """The beliefs table, rebuilt when the base changed since it was built (a change
        ``watch`` saw, another count of beliefs) or its clock moved on by :data:`TABLE_FOR`."""
        t = self._table
        if t is None or self.dirty or t.count != len(self.kb) \
                or abs(self.kb.now() - t.now) > TABLE_FOR:
            self.dirty = False
            t = self._table = BeliefTable(self.kb)
        return t

    def beliefs(self, *, sort: str = "key", descending: bool = False, label: str | None = None,
                source: str | None = None, kind: str | None = None,
                min_confidence: float | None = None, max_confidence: float | None = None,
                offset: int = 0, limit: int = 50, q: str | None = None) -> dict[str, Any]:
        """A page of the beliefs table, or with ``q`` the beliefs ``kb.recall(q)`` finds."""
        if not 1 <= limit <= 500 or offset < 0:
            raise InvalidInputError("limit must be in [1, 500] and offset at least 0")
        if sort not in SORTS:
            raise InvalidInputError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        t = self.table()
        if q is not None and q.strip():
            found = self.kb.recall(q, min(offset + limit, _SEARCH_MAX), min_confidence=0.0)
            rows = []
            for r in found[offset:]:
                b = self.kb.engine.find(r.key, canon(r.value))
                if b is not None:
                    rows.append({**row_of(b, t.now), "score": r.score, "why": list(r.why)})
            return {"rows": rows, "total": len(found), "offset": offset, "limit": limit,
                    "query": q, "count": len(t.beliefs), "at": t.now, **t.facets()}
        page = t.page(sort=sort, descending=descending, label=label, source=source, kind=kind,
                      min_confidence=min_confidence, max_confidence=max_confidence,
                      offset=offset, limit=limit)
        return {"rows": page.rows, "total": page.total, "offset": offset, "limit": limit,
                "query": None, "count": len(t.beliefs), "at": t.now, **t.facets()}

    # -- one belief --------------------------------------------------------------------
    def belief(self, key: str) -> dict[str, Any]:
        """A belief's page: its values, proof (text and tree), the graph around it, what to
        check next, its history, and the sources its proof names."""
        kb = self.kb
        if key not in kb:
            raise UnknownBeliefError(f"no belief about {key!r}")
        proof = kb.explain(key)
        blocks = proof.to_blocks()
        values = kb.engine.values_of(key)
        try:
            checks: list[dict[str, Any]] | None = [_data(c) for c in kb.what_to_check(key, limit=10)]
        except AmbiguousValueError:  # an open conflict: which value to rank is not known
            checks = None
        now = kb.now()
        timeline = timeline_rows(kb, key)
        # a superseded value is OUT because the world changed: say so, not "lost"
        replaced = {t["value_text"]: f"superseded by {t['superseded_by_text']}"
                    for t in timeline if t["status"] == "superseded"}
        return {
            "key": key, "at": now,
            "values": [{**row_of(b, now), "why": None if b.label is IN
                        else replaced.get(_clip(repr(b.value), 200), b.why)}
                       for b in sorted(values, key=lambda b: (b.label != IN, -b.conf))],
            "text": str(proof), "proof": blocks["proof"], "continued": blocks["continued"],
            "graph": self.graph(values),
            "what_to_check": checks,
            **self._history_of(key),
            "sources": sorted(_sources_in(blocks["proof"])),
            "timeline": timeline,
        }

    def _history_of(self, key: str) -> dict[str, Any]:
        page = self.history_page(key)
        return {"history": page["history"], "history_more": page["more"],
                "history_next": page["next"]}

    def graph(self, roots: list[Belief]) -> dict[str, Any]:
        """The beliefs around ``roots``: their reasons below (two levels), what rests on them
        above (two levels), each side at most a few nodes wide. OUT beliefs, invalid steps and
        expired premises are ``dashed``."""
        now = self.kb.now()
        nodes: dict[str, dict[str, Any]] = {}
        edges: list[dict[str, Any]] = []

        def belief_node(b: Belief, level: int) -> str:
            bid = f"b{b.seq}"
            if bid not in nodes:
                held = b.label is IN
                text = f"{b.key} = {_clip(repr(b.value), 40)} " + (
                    f"[IN {format_confidence(b.conf)}]" if held else "[OUT]")
                nodes[bid] = {"id": bid, "kind": "belief", "label": text, "key": b.key,
                              "level": level, "dashed": not held, "root": level == 0}
            return bid

        for b in roots:
            belief_node(b, 0)
        # below: premises and steps, and the steps' inputs
        frontier = list(roots)
        for depth in (1, 2):
            nxt: list[Belief] = []
            for b in frontier:
                bid = f"b{b.seq}"
                for i, p in enumerate(b.premises[:_GRAPH_LIMIT]):
                    pid = f"p{b.seq}_{i}"
                    gone = p.expired(now)
                    nodes[pid] = {"id": pid, "kind": "premise", "source": p.source,
                                  "label": f"premise from {p.source}", "level": -2 * depth + 1,
                                  "dashed": gone}
                    edges.append({"from": pid, "to": bid, "dashed": gone})
                for k, j in enumerate(islice(b.justs, _GRAPH_LIMIT)):
                    jid = f"j{b.seq}_{k}"
                    valid = all(x.label is IN for x in j.inputs)
                    nodes[jid] = {"id": jid, "kind": "step", "label": j.kind.caption(j),
                                  "level": -2 * depth + 1, "dashed": not valid}
                    edges.append({"from": jid, "to": bid, "dashed": not valid})
                    for x in islice(dict.fromkeys(j.inputs), _GRAPH_LIMIT):
                        if f"b{x.seq}" not in nodes:
                            nxt.append(x)
                        edges.append({"from": belief_node(x, -2 * depth), "to": jid,
                                      "dashed": x.label is not IN})
            frontier = nxt[:_GRAPH_LIMIT] if depth == 1 else []
        # above: the steps that read them, and what those steps give
        frontier = list(roots)
        for depth in (1, 2):
            nxt = []
            for b in frontier:
                for j in islice(b.users, _GRAPH_LIMIT):  # a key many steps read: the first few
                    out = j.output
                    jid = f"u{out.seq}_{j.seq}"
                    valid = all(x.label is IN for x in j.inputs)
                    if jid not in nodes:
                        nodes[jid] = {"id": jid, "kind": "step", "label": j.kind.caption(j),
                                      "level": 2 * depth - 1, "dashed": not valid}
                        edges.append({"from": jid, "to": belief_node(out, 2 * depth),
                                      "dashed": not valid})
                        nxt.append(out)
                    edges.append({"from": f"b{b.seq}", "to": jid,
                                  "dashed": b.label is not IN})
            frontier = nxt[:_GRAPH_LIMIT]
        return {"nodes": list(nodes.values()), "edges": edges}

    def history(self, key: str | None = None, *, limit: int = HISTORY_PAGE,
                before: int | None = None) -> list[dict[str, Any]] | None:
        """The journal's newest ``limit`` entries (about ``key``; numbered below ``before``),
        newest first; ``None`` without a journal."""
        return self.history_page(key, limit=limit, before=before)["history"]

    def history_page(self, key: str | None = None, *, limit: int = HISTORY_PAGE,
                     before: int | None = None) -> dict[str, Any]:
        """A page of the history, newest first: ``history`` (``None`` without a journal),
        ``more`` (whether older entries remain: ask again with ``before`` = ``next``). Only the
        entries of the page are read and decoded, from the journal's end."""
        if not 1 <= limit <= 1000:
            raise InvalidInputError("limit must be in [1, 1000]")
        history: Callable[..., Iterable[Any]] | None = getattr(self.kb, "history", None)
        if history is None:
            return {"history": None, "more": False, "next": None}
        try:
            entries = list(history(key, limit=limit + 1, before=before))
        except (InvalidInputError, TypeError):
            raise
        except Exception:  # noqa: BLE001 - a base whose session has no journal says so
            return {"history": None, "more": False, "next": None}
        more = len(entries) > limit
        entries = entries[-limit:]
        # value_text: the value as Python prints it, exact (a browser reads JSON numbers as
        # doubles: 9007199254740993 would show as ...992)
        rows = [{**_data(e), "value_text": None if getattr(e, "value", None) is None
                 else value_text(e.value)} for e in reversed(entries)]
        return {"history": rows, "more": more, "next": rows[-1]["seq"] if more else None}

    # -- lists -------------------------------------------------------------------------
    def problems(self, min_confidence: float | None = None) -> dict[str, Any]:
        """Open conflicts, faded and expired beliefs. Faded is below ``min_confidence``
        (default: the policy's ``min_confidence``, or :data:`FADED_AT` when that is 0). The
        page's field is ``threshold``."""
        kb = self.kb
        threshold = min_confidence
        if threshold is None:
            threshold = kb.policy.min_confidence or FADED_AT
        conflicts = []
        for c in sorted(kb.conflicts(), key=lambda c: c.key):
            conflicts.append({"key": c.key, "nogood": c.nogood, "candidates": [
                {"key": getattr(x, "key", None) or c.key, "value": plain(x.value),
                 "value_text": _clip(shown_value(x.value), 200), "confidence": x.confidence,
                 "sources": list(x.sources)} for x in c.candidates]})
        faded = [{**_data(f), "value_text": _clip(repr(f.value), 200)}
                 for f in sorted(kb.faded(threshold), key=lambda f: (f.confidence, f.key))]
        expired = [{**_data(e), "value_text": _clip(repr(e.value), 200)}
                   for e in sorted(kb.expired(), key=lambda e: (e.expired_at, e.key))]
        return {"at": kb.now(), "threshold": threshold, "conflicts": conflicts, "faded": faded,
                "expired": expired}

    def sources(self, *, offset: int = 0, limit: int = SOURCES_PAGE) -> dict[str, Any]:
        """A page of the sources the base or its ledger knows, by name: reliability now, right
        and wrong counts, and routing tier (:meth:`~corollary.TrustLedger.route`, no
        exploration), read for the page's sources only; ``total`` counts them all."""
        if not 1 <= limit <= 1000 or offset < 0:
            raise InvalidInputError("limit must be in [1, 1000] and offset at least 0")
        kb = self.kb
        names = set(kb.ledger.sources())
        names.update(s for s in self.table().sources if _is_source(s))
        shown = sorted(names)[offset:offset + limit]
        routes = {r.source: r for r in kb.ledger.route(shown, explore=0)} if shown else {}
        rows = [self._source_row(name, routes.get(name)) for name in shown]
        return {"at": kb.now(), "sources": rows, "total": len(names), "offset": offset,
                "limit": limit}

    def _source_row(self, name: str, route: Any) -> dict[str, Any]:
        kb = self.kb
        try:
            reliability = kb.reliability(name)
        except (UnknownSourceError, InvalidInputError):
            reliability = None
        prior = _prior(kb, name)
        record = kb.ledger.record_of(name, prior=prior)
        return {"source": name, "reliability": reliability, "prior": prior,
                "right": record.correct, "wrong": record.wrong,
                "tier": None if route is None else route.tier,
                "route_score": None if route is None else route.score,
                "route_why": None if route is None else route.why,
                "declared_tier": kb.ledger.tier_of(name)}

    def source(self, name: str) -> dict[str, Any]:
        """One source: its row, its outcomes (newest first) and its reliability after each
        outcome, in time order (the plot)."""
        if not _is_source(name):
            raise UnknownSourceError(f"not a source: {name!r}")
        kb = self.kb
        ledger = kb.ledger
        route = ledger.route([name], explore=0)[0]
        row = self._source_row(name, route)
        kept = sorted(ledger.outcomes(name), key=lambda o: o.at)
        series = []
        totals = EMPTY_TOTALS
        prior = row["prior"]
        for o in kept:
            totals = totals.add(o.correct, o.at, ledger.memory_half_life)
            right, total = totals.weighted_at(o.at, ledger.memory_half_life)
            series.append({"at": o.at, "correct": o.correct,
                           "reliability": (ledger.prior_weight * prior + right)
                           / (ledger.prior_weight + total)})
        outcomes = [_data(o) for o in reversed(kept[-_OUTCOME_ROWS:])]
        return {**row, "at": kb.now(), "series": series, "outcomes": outcomes,
                "outcome_count": len(kept)}

    def promises(self) -> dict[str, Any]:
        """Each promise: threshold, method, the statement it makes, and the answers given or
        withheld under it (the verdicts the base keeps)."""
        kb = self.kb
        answers: dict[str | None, list[dict[str, Any]]] = {}

        def by_time(a: dict[str, Any]) -> float:
            return -(a["at"] or 0)

        for record in kb.verdicts.values():
            promise = record.get("promise")  # a promise's name (None: none)
            answers.setdefault(promise if isinstance(promise, str) else None, []).append({
                "key": record.get("key"), "value": record.get("value"),
                "value_text": value_text(record.get("value")),
                "status": record.get("status"), "why": record.get("why"),
                "signal": record.get("signal"), "signal_value": record.get("signal_value"),
                "threshold": _number(_float(record.get("threshold"))),
                "group": record.get("group"), "at": record.get("at")})
        rows: list[dict[str, Any]] = []
        for name, p in sorted(kb.promises.items()):
            groups: dict[Any, Promise] = (dict(p.promises) if isinstance(p, GroupedPromise)
                                          else {None: p})
            rows.append({"name": name, "groups": [{
                "group": plain(g), "group_text": None if g is None else value_text(g),
                "threshold": _number(q.threshold), "method": q.method,
                "max_error": q.max_error, "max_risk": q.max_risk, "delta": q.delta, "n": q.n,
                "statement": q.report.get("promise"), "answered": q.report.get("answered"),
                "error": q.report.get("error"), "warnings": list(q.report.get("warnings") or [])}
                for g, q in groups.items()],
                "answers": sorted(answers.get(name, []), key=by_time)})
        unguarded = sorted(answers.get(None, []), key=by_time)
        return {"at": kb.now(), "promises": rows, "unguarded": unguarded}

    def summary(self) -> dict[str, Any]:
        """What the header shows: counts, the time, whether the base is journaled (live)."""
        t = self.table()
        journaled = self.kb.journal is not None  # every base has history(): only a session logs it
        return {"at": t.now, "beliefs": len(t.beliefs), "held": int(t.held.sum()),
                "keys": len(self.kb.engine.keys), "contested": t.contested,
                "journal": journaled, "live": journaled}


def timeline_rows(kb: BeliefBase, key: str) -> list[dict[str, Any]]:
    """The belief page's timeline: every value the key has had, oldest validity first, with
    when it held (``valid_from``/``valid_until``, POSIX seconds, ``None`` open), its status now
    (held, superseded, contested, out) and what superseded it (``kb.timeline``)."""
    return [{"value_text": _clip(repr(e.value), 200), "valid_from": e.valid_from,
             "valid_until": e.valid_until, "label": e.label,
             "confidence": e.confidence if e.label == IN else 0.0,
             "sources": list(e.sources), "status": e.status,
             "superseded_by_text": None if e.status != "superseded"
             else _clip(repr(e.superseded_by), 200)}
            for e in kb.timeline(key)]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _float(x: Any) -> float | None:
    if x is None:
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _is_source(name: str) -> bool:
    try:
        check_source(name)
    except (InvalidInputError, UnknownSourceError, TypeError):
        return False
    return True


def _prior(kb: BeliefBase, name: str) -> float:
    """The prior the base gives ``name``: a tool's declared trust, else its policy's (the
    uniform prior for a kind the policy does not know)."""
    declared = next((spec.trust for spec in kb.tools.values() if spec.source == name), None)
    try:
        return kb.policy.prior(name, declared)
    except UnknownSourceError:
        return DEFAULT_PRIOR


def _sources_in(tree: Any) -> set[str]:
    """The sources a proof names: its premises' sources and its model steps' models."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for reason in node.get("reasons", ()):
            for p in reason.get("premises", ()):
                found.add(p["source"])
            name = reason.get("name")
            if isinstance(name, str) and _is_source(name):
                found.add(name)
            stack.extend(reason.get("inputs", ()))
    return found

"""Outcomes: one right/wrong verdict on a source, and the totals a reliability is folded from.

Every store keeps :class:`Outcome` records and folds them, in order, into :class:`Totals` with
:func:`fold_totals`, so every backend gives the same reliabilities bit for bit. A saved ledger
(:meth:`corollary.TrustLedger.to_dict`, a ledger file, the JSON-file store's file) is a
*ledger document*; :func:`validate_ledger_document` checks one field by field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..evidence import confidence as formulas
from ..foundations._fields import Fields
from ..foundations._io import LEDGER_FORMAT, LEDGER_VERSION
from ..foundations.errors import InvalidInputError, SnapshotError
from .policy import STEP_KINDS, TrustPolicy, policy_fields, split_source

__all__ = ["EMPTY_TOTALS", "LedgerDocument", "Outcome", "Totals", "check_correct", "check_source",
           "fold_totals", "names_forgotten", "totals_rows", "validate_ledger_document"]


def names_forgotten(key: str | None, reason: str | None, evidence: str | None,
                    source: str, keys: Iterable[str], prefixes: Iterable[str],
                    forgotten_source: str | None) -> bool:
    """Whether an outcome names what ``kb.forget`` erased (docs/model.md, "Forgetting"): its
    key is a forgotten key or in a forgotten scope (``prefixes``), its reason or evidence
    quotes one, or it is about the forgotten source. Such an outcome keeps its count, but not
    its key, reason and evidence.

    >>> names_forgotten("ann:pin", None, None, "model:m", ["ann:pin"], [], None)
    True
    >>> names_forgotten(None, "citation in doc:1 for ann:pin found", None, "model:m", [],
    ...                 ["ann"], None)
    True
    >>> names_forgotten("bob:pin", "ok", None, "model:m", ["ann:pin"], ["ann"], None)
    False
    """
    if key is None and reason is None and evidence is None:
        return False
    keys = frozenset(keys)
    if forgotten_source is not None and source == forgotten_source:
        return True
    heads = [(p, p + ":") for p in prefixes]
    if key is not None and (key in keys or any(key == p or key.startswith(h) for p, h in heads)):
        return True
    texts = [t for t in (reason, evidence) if t]
    return any(k in t for t in texts for k in (*keys, *(p for p, _ in heads)))


def check_source(source: object) -> str:
    """Validate a ledger source: a ``kind:name`` string that is not a reasoning step."""
    kind, name = split_source(source)
    if kind in STEP_KINDS:
        raise InvalidInputError(f"{source!r} is a reasoning step; only sources have track records")
    return f"{kind}:{name}"  # a plain str, whatever subclass came in


def check_correct(correct: object) -> bool:
    """Accept exactly right/wrong: ``True``/``False`` (numpy bools too) or the integers 1/0."""
    if isinstance(correct, bool):
        return correct
    if type(correct).__name__ == "bool_":  # numpy.bool_ without importing numpy here
        return bool(correct)
    if isinstance(correct, int) and correct in (0, 1):
        return bool(correct)
    raise InvalidInputError(f"an outcome is right (True) or wrong (False), not {correct!r}")


@attrs.frozen(slots=True)
class Outcome:
    """One verdict on a source. ``at`` is when it was observed, ``recorded_at`` when stored."""

    source: str
    correct: bool
    at: float
    recorded_at: float
    event_id: str
    topic: str | None = None
    reason: str | None = None
    evidence: str | None = None
    key: str | None = None
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Rebuild an outcome from :meth:`to_dict` output, checking every field.

        Raises ``SnapshotError`` (a ``ValueError``) naming the field that is wrong.
        """
        return _read_outcome(Fields(None, "outcome"), data, "outcome")


@attrs.frozen(slots=True)
class Totals:
    """Aggregates of a source's outcomes: plain counts, and decayed sums anchored at ``anchor``."""

    right: int = 0
    total: int = 0
    anchor: float = 0.0
    weighted_right: float = 0.0
    weighted_total: float = 0.0

    def add(self, correct: bool, at: float, half_life: float | None) -> Totals:
        if half_life is None:
            r = self.right + correct
            return Totals(r, self.total + 1, max(self.anchor, at) if self.total else at, r, self.total + 1)
        if self.total == 0:
            return Totals(int(correct), 1, at, float(correct), 1.0)
        if at >= self.anchor:
            shrink = formulas.decay_weight(at - self.anchor, half_life)
            return Totals(
                self.right + correct,
                self.total + 1,
                at,
                self.weighted_right * shrink + correct,
                self.weighted_total * shrink + 1.0,
            )
        w = formulas.decay_weight(self.anchor - at, half_life)
        return Totals(
            self.right + correct,
            self.total + 1,
            self.anchor,
            self.weighted_right + w * correct,
            self.weighted_total + w,
        )

    def weighted_at(self, now: float, half_life: float | None) -> tuple[float, float]:
        """(Σ w·right, Σ w) at time ``now``; outcomes later than ``now`` count as fresh."""
        if half_life is None:
            return float(self.right), float(self.total)
        factor = formulas.decay_weight(max(now - self.anchor, 0.0), half_life)
        return self.weighted_right * factor, self.weighted_total * factor


EMPTY_TOTALS = _EMPTY = Totals()


def fold_totals(totals: dict[tuple[str, str | None], Totals], source: str, topic: str | None,
                correct: bool, at: float, half_life: float | None) -> None:
    """Fold one outcome into ``source``'s totals over all topics and, if it has one, its topic's.

    Every store folds with this, in its outcomes' order, so all give the same aggregates.
    """
    slot: tuple[str, str | None] = (source, None)
    totals[slot] = totals.get(slot, _EMPTY).add(correct, at, half_life)
    if topic is not None:
        slot = (source, topic)
        totals[slot] = totals.get(slot, _EMPTY).add(correct, at, half_life)


def totals_rows(totals: Mapping[tuple[str, str | None], Totals]) -> list[list[Any]]:
    """``[source, topic, right, total, anchor, weighted_right, weighted_total]`` rows, sorted
    by source, then the all-topics row, then topics: the ``totals`` of a saved ledger."""
    rows = []
    for (source, topic), t in sorted(totals.items(), key=lambda kv: (
            kv[0][0], kv[0][1] is not None, kv[0][1] or "")):
        if t.total:
            rows.append([source, topic, t.right, t.total, t.anchor, t.weighted_right,
                         t.weighted_total])
    return rows


_OUTCOME_KEYS = ("source", "correct", "at", "recorded_at", "event_id", "topic", "reason",
                 "evidence", "key", "confidence")
_LEDGER_KEYS = ("format", "version", "prior_weight", "memory_half_life", "max_history", "policy",
                "totals", "outcomes")
#: Header fields the JSON-file store adds to the documents it writes.
_STORE_KEYS = {"store": "text", "generation": "count"}
#: Slack for the float sums of decayed totals (a sum of weights <= 1 may round a hair over).
_SLACK = 1e-9


@attrs.frozen(slots=True)
class LedgerDocument:
    """A checked ledger document (:func:`validate_ledger_document`): settings, totals rows
    ``[source, topic, right, total, anchor, weighted_right, weighted_total]`` and outcomes, ready
    for :meth:`MemoryStore.restore`; ``header`` holds the other top-level fields present."""

    version: int
    prior_weight: float
    memory_half_life: float | None
    max_history: int
    policy: TrustPolicy
    totals: list[list[Any]]
    outcomes: list[Outcome]
    header: dict[str, Any]


def _read_outcome(f: Fields, data: Any, field: str) -> Outcome:
    d = f.mapping(data, field, _OUTCOME_KEYS)
    return Outcome(
        source=f.source(d["source"], f"{field}.source"),
        correct=f.boolean(d["correct"], f"{field}.correct"),
        at=f.number(d["at"], f"{field}.at"),
        recorded_at=f.number(d["recorded_at"], f"{field}.recorded_at"),
        event_id=f.text(d["event_id"], f"{field}.event_id"),
        topic=f.maybe_text(d["topic"], f"{field}.topic"),
        reason=f.maybe_text(d["reason"], f"{field}.reason"),
        evidence=f.maybe_text(d["evidence"], f"{field}.evidence"),
        key=None if d["key"] is None else f.key(d["key"], f"{field}.key"),
        confidence=f.maybe_unit(d["confidence"], f"{field}.confidence"),
    )


def validate_ledger_document(data: Any, where: object = None, *, extra: Iterable[str] = (),
                             prefix: str = "", what: str = "ledger") -> LedgerDocument:
    """Check a ledger document (:meth:`TrustLedger.to_dict`, a ledger file, the JSON-file
    store's file) field by field; build nothing, change nothing.

    Parameters
    ----------
    data : object
        The decoded document.
    where : object, optional
        What to name in errors (a path, a session).
    extra : iterable of str
        Further top-level fields the caller allows (and checks itself); ``"store"`` (a string)
        and ``"generation"`` (a count), which the JSON-file store writes, are always allowed.
    prefix : str
        Prepended to field names in errors (``"ledger."`` inside a snapshot).

    Returns
    -------
    LedgerDocument

    Raises
    ------
    SnapshotError
        Naming ``where`` and the first field that is not what :meth:`TrustLedger.to_dict`
        writes: wrong types, NaN or infinite times, a confidence outside [0, 1], counts that
        contradict each other (more right than total, weighted sums above the counts), a
        source that is not ``kind:name``, repeated totals rows or event ids, outcomes of a
        source without totals, unknown or missing fields, a newer format version.
    """
    f = Fields(where, what)
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        raise SnapshotError(f"not a corollary ledger{f' ({prefix[:-1]})' if prefix else ''}",
                            where)
    version = f.integer(data.get("version"), f"{prefix}version", 1, 2**31)
    if version > LEDGER_VERSION:
        raise SnapshotError(f"ledger format version {version} is newer than this corollary "
                            f"reads ({LEDGER_VERSION}); upgrade corollary", where)
    header = _read_header(f, data, prefix, extra)
    prior_weight = f.number(data["prior_weight"], f"{prefix}prior_weight", above=0.0)
    half_life = f.duration(data["memory_half_life"], f"{prefix}memory_half_life")
    max_history = f.integer(data["max_history"], f"{prefix}max_history", 1, 2**62)
    policy = policy_fields(f, data["policy"], f"{prefix}policy")
    totals, counts = _read_totals(f, data["totals"], prefix, half_life)
    outcomes = _read_outcomes(f, data["outcomes"], prefix, counts)
    return LedgerDocument(version, prior_weight, half_life, max_history, policy, totals,
                          outcomes, header)


def _read_header(f: Fields, data: dict[str, Any], prefix: str,
                 extra: Iterable[str]) -> dict[str, Any]:
    """The fields beside a ledger's own (the JSON-file store's, the caller's ``extra``),
    after checking that the document has exactly the fields it may."""
    allowed = set(_STORE_KEYS) | set(extra)
    f.mapping(data, prefix.rstrip(".") or "the document", _LEDGER_KEYS, allowed)
    header = {k: v for k, v in data.items() if k not in _LEDGER_KEYS}
    for name, kind in _STORE_KEYS.items():
        if name in header:
            if kind == "text":
                f.text(header[name], f"{prefix}{name}")
            else:
                f.integer(header[name], f"{prefix}{name}", 0, 2**63 - 1)
    return header


def _read_totals(f: Fields, rows: Any, prefix: str, half_life: float | None
                 ) -> tuple[list[list[Any]], dict[tuple[str, str | None], int]]:
    """The totals rows, checked, and the count of each ``(source, topic)``."""
    totals: list[list[Any]] = []
    seen: dict[tuple[str, str | None], int] = {}
    for i, row in enumerate(f.items(rows, f"{prefix}totals")):
        field = f"{prefix}totals[{i}]"
        source, topic, right, total, anchor, wr, wt = f.items(row, field, 7)
        source = f.source(source, f"{field}[0] (source)")
        topic = f.maybe_text(topic, f"{field}[1] (topic)")
        if (source, topic) in seen:
            f.fail(field, f"repeats the totals of {source!r}, topic {topic!r}")
        total = f.integer(total, f"{field}[3] (total)", 1, 2**63 - 1)
        right = f.integer(right, f"{field}[2] (right)", 0, total)
        anchor = f.number(anchor, f"{field}[4] (anchor)")
        wt = f.number(wt, f"{field}[6] (weighted total)", lo=0.0, hi=total * (1 + _SLACK))
        wr = f.number(wr, f"{field}[5] (weighted right)", lo=0.0,
                      hi=min(wt, right) * (1 + _SLACK))
        if half_life is None and (wr != right or wt != total):
            f.fail(field, "has weighted sums other than its counts in a ledger that never "
                          "forgets")
        seen[(source, topic)] = total
        totals.append([source, topic, right, total, anchor, wr, wt])
    for (source, topic), total in seen.items():
        if topic is not None and seen.get((source, None), 0) < total:
            f.fail(f"{prefix}totals", f"count more outcomes of {source!r} in topic {topic!r} "
                                      "than over all topics")
    return totals, seen


def _read_outcomes(f: Fields, items: Any, prefix: str,
                   counts: Mapping[tuple[str, str | None], int]) -> list[Outcome]:
    """The kept outcomes, checked: each event once, none beyond what the totals count."""
    outcomes = []
    events: set[str] = set()
    kept: dict[tuple[str, str | None], int] = {}
    for i, item in enumerate(f.items(items, f"{prefix}outcomes")):
        field = f"{prefix}outcomes[{i}]"
        outcome = _read_outcome(f, item, field)
        if outcome.event_id in events:
            f.fail(f"{field}.event_id", f"repeats event {outcome.event_id!r}")
        events.add(outcome.event_id)
        slots: list[tuple[str, str | None]] = [(outcome.source, None)]
        if outcome.topic is not None:
            slots.append((outcome.source, outcome.topic))
        for slot in slots:
            count = kept[slot] = kept.get(slot, 0) + 1
            if count > counts.get(slot, 0):
                topic_text = "" if slot[1] is None else f" in topic {slot[1]!r}"
                f.fail(field, f"is one more outcome of {slot[0]!r}{topic_text} than its totals "
                              "count")
        outcomes.append(outcome)
    return outcomes

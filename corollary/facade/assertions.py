"""Assertions: what their arguments must be, and what asserting a checked one does.

Checking (:func:`check_assertion`, :func:`check_rows`) reads the trust view alone (a source's
kind; a tool's declared origin, half-life and ttl): nothing there changes a belief, so a bad row
found anywhere in a batch leaves the base as it was. Every checked row is one typed value, a
:class:`Row`; a batch of them is a :class:`CheckedRows`, which also says when every row is a
plain ``(key, value, source)`` triple (kept as given: the engine makes those a run at a time).

Asserting (:func:`confirmations`, :func:`put`, :func:`assert_rows`) gives the meaning of
``BeliefBase.assert_`` and ``assert_many``: a source repeating a value renews its premise, a
new value from it replaces its earlier one, a withdrawn value asserted afresh comes back on this
premise alone, and an independent origin confirming a held value is a right outcome for every
source of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from ..changes.base_changes import Assert, AssertMany
from ..foundations._collector import collector_paused
from ..foundations._validate import plain_text
from ..foundations.clock import Duration, Instant, to_instant, to_seconds
from ..foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    UnknownSourceError,
)
from ..foundations.values import (
    INT_MAX,
    INT_MIN,
    Value,
    canon,
    check_key,
    check_text,
    is_end,
    refuse_end,
)
from ..tms import Premise, premise_record
from ..trust.policy import STEP_KINDS
from ..trust.view import TrustView
from .blame import Verdict
from .making import make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from ..tms import Belief, Engine
    from .base import BeliefBase
    from .lookup import Lookup

#: The fields of a row of ``BeliefBase.assert_many``, in order.
ROW_FIELDS = ("key", "value", "source", "origin", "half_life", "ttl", "valid_from", "valid_until")


class Row(NamedTuple):
    """A checked assertion: ``assert_``'s arguments with the value's identity (``vid``) and a
    tool's declared origin, half-life and ttl applied. A tuple, as the engine's bulk path
    unpacks it."""

    key: str
    value: Any
    vid: Any
    source: str
    origin: str
    half_life: float | None
    ttl: float | None
    valid_from: float | None = None
    valid_until: float | None = None


_row = tuple.__new__  # a Row made from its seven fields without the keyword-handling __new__

#: :class:`Row`'s first seven fields as a plain tuple: what :func:`check_assertion` returns.
Checked = tuple[str, Any, Any, str, str, "float | None", "float | None"]


@attrs.frozen(slots=True)
class CheckedRows:
    """The rows of an ``assert_many`` batch, every one checked.

    The first ``plain`` rows are ``(key, value, source)`` triples as given, whose value is its
    own identity and whose source is its own origin, with no half-life or ttl: what most bulk
    loads are, kept as they came so that the engine makes them with no copy (a run at a time
    when every row is one, :attr:`uniform`). Every later row is a :class:`Row`.
    """

    rows: list[tuple[Any, ...]]
    plain: int

    @property
    def uniform(self) -> bool:
        """Whether every row is a plain triple."""
        return self.plain == len(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, i: int) -> Row:
        """Row ``i`` as a :class:`Row` (a plain triple spelled out)."""
        r = self.rows[i]
        if i < self.plain:
            return _row(Row, (r[0], r[1], r[1], r[2], r[2], None, None, None, None))
        return r  # type: ignore[return-value]

    def __iter__(self) -> Iterator[Row]:
        return map(self.row, range(len(self.rows)))


def check_rows(trust: TrustView, rows: Iterable[Any]) -> CheckedRows:
    """Each row checked as ``BeliefBase.assert_`` checks its arguments, in order; the first bad
    row raises, naming its index. The leading rows that are plain ``(key, value, source)``
    triples (a value that is its own identity, no tool behind the source) are kept as given;
    the rest become :class:`Row` values (see :class:`CheckedRows`)."""
    rows = rows if type(rows) is list else list(rows)
    start = 0
    if not trust.tools:
        start = _plain_prefix(trust, rows)
        if start == len(rows):
            return CheckedRows(rows, start)
    checked: list[tuple[Any, ...]] = rows[:start]
    append = checked.append
    for i in range(start, len(rows)):
        row = rows[i]
        try:
            if isinstance(row, Mapping):
                unknown = set(row) - set(ROW_FIELDS)
                if unknown:
                    raise InvalidInputError(f"unknown fields {sorted(map(str, unknown))}")
                missing = [f for f in ROW_FIELDS[:3] if f not in row]
                if missing:
                    raise InvalidInputError(f"missing fields {missing}")
                append(_row(Row, (*check_assertion(trust, *(row.get(f) for f in ROW_FIELDS[:6])),
                                  *check_valid_time(row.get("valid_from"),
                                                    row.get("valid_until")))))
            elif isinstance(row, (tuple, list)):
                if not 3 <= len(row) <= len(ROW_FIELDS):
                    raise InvalidInputError(f"a row holds 3 to {len(ROW_FIELDS)} fields "
                                            f"({', '.join(ROW_FIELDS)}), not {len(row)}")
                row = (*row, *(None,) * (len(ROW_FIELDS) - len(row)))
                append(_row(Row, (*check_assertion(trust, *row[:6]),
                                  *check_valid_time(row[6], row[7]))))
            else:
                raise InvalidTypeError(f"a row is a tuple or a dict, not {type(row).__name__}")
        except (InvalidInputError, InvalidTypeError, UnknownSourceError) as exc:
            raise type(exc)(f"row {i}: {exc}") from exc
    return CheckedRows(checked, start)


def _plain_prefix(trust: TrustView, rows: list[Any]) -> int:
    """How many rows from the first are ``(key, value, source)`` tuples that need nothing
    but the check: an ascii key, a value that is its own identity (an ascii string, a finite
    float, an integer in range) and a known source that is no reasoning step. Checked inline,
    as most rows of a bulk load are such rows; the first other row is left to the full check,
    which says what is wrong with it."""
    plain: dict[Any, bool] = {}  # the sources seen here that may assert
    start = 0
    try:
        for start, row in enumerate(rows):  # noqa: B007 (start is read after the loop)
            if type(row) is not tuple:
                return start
            key, value, source = row  # ValueError: not three fields
            if type(source) is not str:  # (before the lookup: a str subclass or another
                return start             # object may hash and compare like a known source)
            if plain.get(source) is None:
                kind = trust.kinds.get(source)
                if kind is None:  # a source met for the first time
                    try:
                        kind = trust.kind_of(source)
                    except CorollaryError:
                        return start
                if kind in STEP_KINDS:
                    return start
                plain[source] = True
            if type(key) is not str or not key.isascii() or not key or key.isspace():
                return start
            t = type(value)
            if t is int:
                if not INT_MIN <= value <= INT_MAX:
                    return start
            elif t is str:
                if not value.isascii():
                    return start
            elif t is not float or value - value != 0.0:
                return start
    except ValueError:  # a tuple of other than three fields
        return start
    return len(rows)


def check_assertion(trust: TrustView, key: Any, value: Any, source: Any, origin: Any,
                    half_life: Any, ttl: Any) -> Checked:
    """``BeliefBase.assert_``'s arguments checked, with the tool's declared defaults applied:
    the fields of a :class:`Row`, as a plain tuple (``assert_`` unpacks it at once, and one
    assertion at a time is a path measured against a bar; a batch's rows are made Rows)."""
    if type(key) is not str or not key or key.isspace() or not key.isascii():
        key = check_key(key)
    vid = value if type(value) is str and value.isascii() else canon(value)
    if type(value) is dict:
        refuse_end(value)
    kind = trust.kinds.get(source) if type(source) is str else None
    if kind is None:  # a source not seen yet (or not a plain string)
        source = plain_text(source)
        trust.check_source(source, "rules derive, they don't assert")
    elif kind in STEP_KINDS:
        raise InvalidInputError(f"{source!r} is a reasoning step: rules derive, they don't assert")
    spec = trust.tool_of(source) if trust.tools else None
    if origin is None:
        origin = spec.origin if spec is not None and spec.origin else source
    elif not isinstance(origin, str) or not origin:
        raise InvalidInputError(f"origin must be a non-empty string, got {origin!r}")
    else:
        origin = check_text(plain_text(origin), "origin")
    hl = None if half_life is None else positive_seconds(half_life, "half_life")
    tl = None if ttl is None else positive_seconds(ttl, "ttl")
    if spec is not None:
        hl = spec.half_life if hl is None else hl
        tl = spec.ttl if tl is None else tl
    return key, value, vid, source, origin, hl, tl


def check_valid_time(valid_from: Any, valid_until: Any) -> tuple[float | None, float | None]:
    """``valid_from`` and ``valid_until`` as POSIX seconds (each a number of seconds or an
    aware ``datetime``; ``None``: from when it is observed, and open-ended); the end must come
    after the start.

    >>> check_valid_time(10, None), check_valid_time(None, None)
    ((10.0, None), (None, None))
    """
    start = valid_from if type(valid_from) is float and valid_from - valid_from == 0.0 else (
        to_instant(valid_from, "valid_from"))
    end = None if valid_until is None else to_instant(valid_until, "valid_until")
    if start is not None and end is not None and not end > start:
        raise InvalidInputError(f"valid_until ({valid_until!r}) must come after valid_from "
                                f"({valid_from!r})")
    return start, end


def check_span(valid_from: float | None, valid_until: float | None, now: float,
               where: str = "") -> None:
    """Refuse a fact that would hold at no time: with no ``valid_from`` it holds from ``now``
    (when it is observed), so its ``valid_until`` must come later (``where`` prefixes the
    message: the row of a batch)."""
    if valid_from is None and valid_until is not None and not valid_until > now:
        raise InvalidInputError(f"{where}valid_until ({valid_until!r}) is not after the time the fact "
                                f"is observed ({now!r}) and no valid_from says when it began: "
                                "it would hold at no time")


def check_certainty(value: Any) -> float | None:
    """A certainty stated with an assertion: a real number in (0, 1] (``None``: none stated).

    >>> check_certainty(0.83), check_certainty(None), check_certainty(1)
    (0.83, None, 1.0)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(
            value, "__float__"):
        raise InvalidTypeError(f"certainty must be a number in (0, 1], not {type(value).__name__}")
    try:
        c = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidTypeError(f"certainty must be a number in (0, 1], not "
                               f"{type(value).__name__}") from None
    if not 0.0 < c <= 1.0:  # NaN too
        raise InvalidInputError(f"certainty must be in (0, 1], got {value!r}")
    return c


def positive_seconds(value: Duration | None, name: str) -> float | None:
    """A duration in seconds that must be > 0 (``None`` stays ``None``)."""
    seconds = to_seconds(value, name)
    if seconds is not None and seconds <= 0:
        raise InvalidInputError(f"{name} must be > 0, got {value!r}")
    return seconds


# ---------------------------------------------------------------------------------------------
# What asserting a checked row does
# ---------------------------------------------------------------------------------------------


def confirmations(lookup: Lookup, b: Belief | None, key: str, value: Any, source: str,
                  origin: str, now: float) -> list[Verdict]:
    """The outcomes asserting ``b`` from ``source`` and ``origin`` records: an independent
    origin confirming a held value is a right outcome for every source."""
    if b is None or b.withdrawn is not None or b.premise_from(source) is not None:
        return []
    confirmed = sorted({p.source for p in b.premises
                        if p.origin != origin and not p.expired(now)})
    if not confirmed or any(p.origin == origin for p in b.premises):
        return []
    conf = lookup.confidence_of(b)
    why = f"confirmed {key} = {value!r} from another origin"
    return [(s, True, why, key, conf) for s in [source, *confirmed]]


def put(engine: Engine, b: Belief | None, key: str, value: Any, vid: Any, source: str,
        origin: str, hl: float | None, tl: float | None, now: float,
        certainty: float | None = None, valid_from: float | None = None,
        valid_until: float | None = None, history: bool = False) -> None:
    """The change asserting a checked row on a known key makes (``b``: the belief ``key =
    value``, if there is one). ``history``: the source's values at other times stay, as under
    PreferNewer (an end, ``kb.end``, keeps what it ends, whatever the policy)."""
    start = now if valid_from is None else valid_from
    earlier: tuple[tuple[float, float | None], ...] = ()
    keeps_history = history or getattr(engine.conflict_policy, "mode", None) == "time"
    # a source's earlier premise on this key: renew it (same value) or replace it; under
    # PreferNewer, or when its valid time ended by the new one's start, it is history and is
    # kept (it holds in its own interval, docs/model.md "Time and change")
    for other in engine.values_of(key):
        if other is not b:
            old = other.premise_from(source)
            if old is None:
                continue
            if (keeps_history or type(other.value) is dict and is_end(other.value)) and (
                    old.valid_from != start) or (
                    old.valid_until is not None and old.valid_until <= start):
                continue  # another time's value (one starting at the same time is corrected)
            engine.drop_premise(other, source)
            engine.forget_if_unused(other)
    if b is None:
        b = engine.belief(key, value, vid)
    if b.withdrawn is not None:  # a withdrawn value asserted afresh: its old evidence stays withdrawn
        engine.withdraw_reasons(b, keep_source=source)
        engine.reinstate(b)
    elif valid_from is None:
        # a renewal without a stated start keeps the start the value was first seen holding
        # from: the value has held since then (a stale re-read must not look newer)
        old = b.premise_from(source)
        if (old is not None and (keeps_history or old.stated_valid_time)
                and old.valid_from < now and (old.valid_until is None or old.valid_until > now)):
            valid_from = old.valid_from
            valid_until = old.valid_until if valid_until is None else valid_until
    else:
        # a source giving a value for another interval: it held then too (a manager back at
        # a club); the same interval again is a renewal
        old = b.premise_from(source)
        if old is not None and old.stated_valid_time:
            earlier = tuple(span for span in old.intervals if span != (valid_from, valid_until))
    engine.set_premise(b, Premise(source, origin, now, hl, tl, certainty, valid_from,
                                  valid_until, earlier))


def assert_rows(engine: Engine, lookup: Lookup, checked: CheckedRows, now: float,
                record: Callable[[Sequence[Verdict]], None]) -> int:
    """Assert checked rows at ``now`` as one batch (no rules or watching policy to run between
    them): new keys through the engine's bulk path, known keys one by one, the confirmations
    handed to ``record`` at once; on any failure (of ``record`` too) the batch is rolled back.
    Returns how many rows."""
    rows = checked.rows
    n = len(rows)
    batch = engine.begin_batch()
    verdicts: list[Verdict] = []
    i = 0
    try:
        while True:
            i = engine.add_premised_rows(rows, i, now, batch, checked.uniform)
            if i == n:
                break
            key, value, vid, source, origin, hl, tl, vf, vu = checked.row(i)
            if vu is not None:
                check_span(vf, vu, now, f"row {i}: ")
            b = engine.find(key, vid)
            verdicts.extend(confirmations(lookup, b, key, value, source, origin, now))
            engine.save_key(batch, key)
            put(engine, b, key, value, vid, source, origin, hl, tl, now, None, vf, vu)
            i += 1
        record(verdicts)
    except BaseException:
        engine.rollback(batch)
        raise
    return n


# a checked assertion was a bare tuple type; it is a Row now (or Checked, its plain fields)


@operation(change=AssertMany)
def assert_many(kb: BeliefBase, rows: Iterable[Sequence[object] | Mapping[str, object]]) -> int:
    """Assert many rows at once, as repeated :meth:`assert_` would; return how many.

    A row holds :meth:`assert_`'s arguments: a tuple ``(key, value, source[, origin[,
    half_life[, ttl]]])`` or a dict with those names. Every row is checked before anything
    changes: a bad row raises the error :meth:`assert_` would, naming the row, and the base
    is left as it was. The rows then take effect in order, all at the clock's time now,
    with :meth:`assert_`'s meaning (renewals, replacements, a tool's declared half-life,
    ttl and origin), and the outcomes of confirmations are recorded as one ledger batch:
    if the ledger fails, no row takes effect. Written together, those outcomes keep the
    reliabilities of the batch's start in their confidences (one by one, a later
    confirmation would see the earlier ones' outcomes; see docs/model.md). With rules, or
    a policy that watches changes, the rows are asserted one by one (rules fire after each
    row, as after each :meth:`assert_`, each row with the rules' budget of its own); a
    rule failing on any row undoes every row, and the confirmations are recorded once all
    rows have fired.
    """
    made: int = make(kb, check_assert_many(kb, AssertMany(rows)))  # a generator read once
    return made


def check_assert_many(kb: BeliefBase, change: AssertMany) -> AssertMany:
    """An :class:`~corollary.changes.AssertMany`'s checks (``kb.assert_many``'s and
    ``apply``'s): its rows an iterable (each row is checked by its effect, before any
    changes); the value."""
    rows = change.rows
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
        raise InvalidTypeError("assert_many takes an iterable of rows (tuples or dicts)")
    return change


def check_assert(kb: BeliefBase, change: Assert) -> Assert:
    """An :class:`~corollary.changes.Assert`'s checks: none before its effect, whose one body
    (:func:`assert_one`) checks its fields on its way to the engine, for the plain base's
    fast lane (docs/extending.md, "the hot path")."""
    return change


def apply_assert_many(kb: BeliefBase, change: AssertMany) -> int:
    """The effect of a :class:`~corollary.changes.AssertMany` (``kb.assert_many``'s, and its
    replay's): every row checked, then all asserted or none."""
    rows = change.rows
    with collector_paused():  # a bulk load allocates objects it keeps
        checked = check_rows(kb.parts.trust, rows)
        if not checked.rows:
            return 0
        if kb.parts.hooks:
            # a rule failing on any row undoes them all
            with kb.parts.rules.transaction() if kb.parts.rules.active else nullcontext():
                for row in checked:
                    kb.assert_(row.key, row.value, row.source, row.origin,  # noqa: UP005
                               row.half_life, row.ttl, valid_from=row.valid_from,
                               valid_until=row.valid_until)
            return len(checked)
        return assert_rows(kb.parts.engine, kb.parts.lookup, checked, kb.now(),
                           kb.parts.record)


def assert_one(kb: BeliefBase, key: str, value: Value, source: str, origin: str | None,
               half_life: Duration | None, ttl: Duration | None, certainty: float | None,
               valid_from: Instant | None, valid_until: Instant | None) -> None:
    """``kb.assert_``: its arguments checked, then ``key = value`` on the word of ``source``
    (the plain base's fast lane calls it straight, a session's through :func:`apply_assert`)."""
    parts = kb.parts
    key, value, vid, source, origin, hl, tl = check_assertion(
        parts.trust, key, value, source, origin, half_life, ttl)
    if certainty is not None:
        certainty = check_certainty(certainty)
    vf = vu = None
    if type(valid_from) is float and valid_until is None and valid_from - valid_from == 0.0:
        vf = valid_from  # a start in finite seconds: the common case, checked inline
    elif valid_from is not None or valid_until is not None:
        vf, vu = check_valid_time(valid_from, valid_until)
    now = kb.clock()
    if type(now) is not float or now - now != 0.0:  # not a float, or NaN/inf: validate
        now = kb.now()
    if vu is not None:
        check_span(vf, vu, now)
    engine = parts.engine
    # with rules, the change is noted so that a rule failing undoes it (and its outcomes
    # are recorded after the rules, with it: all or nothing)
    rules = parts.rules
    batch = rules.batch() if rules.active else None
    items: list[Verdict] = []
    if key not in engine.keys:  # a new key: nothing to renew, replace or confirm
        if batch is not None:
            batch.runs.append(([(key,)], 0, 1))
        engine.add_premised(key, value, vid,
                            premise_record(source, origin, now, hl, tl, certainty, vf, vu))
    else:
        b = engine.find(key, vid)
        items = confirmations(parts.lookup, b, key, value, source, origin, now)
        if batch is None:
            parts.record(items)
        else:
            engine.save_key(batch, key)
        put(engine, b, key, value, vid, source, origin, hl, tl, now, certainty, vf, vu)
    if parts.hooks:
        parts.after_change(kb, batch=batch, then=parts.recorder(batch, items))


def apply_assert(kb: BeliefBase, change: Assert) -> None:
    """The effect of an :class:`~corollary.changes.Assert` (``kb.assert_``'s in a session,
    and its replay's)."""
    assert_one(kb, change.key, change.value, change.source, change.origin, change.half_life,
               change.ttl, change.certainty, change.valid_from, change.valid_until)

"""The three record types of the TMS, as in a classic JTMS: the belief (a node: one value of one
key), the premise (a reason straight from a source, kept on its belief) and the justification (a
derived reason: a step over input beliefs). The engine (:mod:`corollary.tms.engine`) owns them;
everything else reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..evidence.confidence import decay_weight
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.values import canon, check_key
from .kinds import DATED

if TYPE_CHECKING:  # pragma: no cover
    from .kinds import StepKind

IN = "IN"
OUT = "OUT"
PREMISES = "premises"  # marker for "the premise agreement" as a belief's best support


class _Any:
    """In an item ``(key, value, vid)``: any value of the key."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()

#: A belief named by an exception or a nogood: ``(key, value, vid)``; ``value`` and ``vid`` are
#: :data:`ANY` for "any value of the key".
Item = tuple[str, Any, Any]


def make_items(spec: object, what: str) -> tuple[Item, ...]:
    """Items from what a caller wrote: a list of keys (any value of the key) and ``(key,
    value)`` pairs (that value), validated; duplicates dropped, order kept.

    >>> make_items(["closure:notice", ("status", "closed")], "unless")
    (('closure:notice', ANY, ANY), ('status', 'closed', 'closed'))
    """
    if isinstance(spec, (str, bytes)) or not isinstance(spec, (list, tuple)):
        raise InvalidTypeError(f"{what} takes a list of keys and (key, value) pairs, not "
                               f"{type(spec).__name__}")
    items: list[Item] = []
    for entry in spec:
        if isinstance(entry, str):
            item: Item = (check_key(entry), ANY, ANY)
        elif isinstance(entry, (list, tuple)) and len(entry) == 2:
            item = (check_key(entry[0]), entry[1], canon(entry[1]))
        else:
            raise InvalidInputError(f"{what}: each item is a key or a (key, value) pair, not "
                                    f"{entry!r:.80}")
        if all((item[0], item[2]) != (i[0], i[2]) for i in items):
            items.append(item)
    return tuple(items)


def matches(item: Item, b: Belief) -> bool:
    """Whether ``item`` names ``b`` (its key, and its value unless the item is any value)."""
    return item[0] == b.key and (item[2] is ANY or item[2] == b.vid)


def item_text(item: Item) -> str:
    """``key`` for any value of a key, else ``key = value``."""
    key, value, vid = item
    return key if vid is ANY else f"{key} = {value!r}"


#: A premise as a belief keeps it, an exact tuple of strings and numbers laid out as only this
#: module knows (every other module reads it through the ``record_*`` accessors below or a
#: :class:`Premise` view; tests/architecture/test_premise_records.py holds that):
#: ``(source, origin, at, life)``, ``life`` being
#:
#: - ``None`` for most premises: no fading, no expiry, no stated certainty, no valid time;
#: - ``(half_life, ttl)``, or ``(half_life, ttl, certainty)`` for a certainty below 1;
#:
#: and for a stated valid time ``(source, origin, at, life, valid_from, valid_until)``
#: (``valid_from`` ``None``: from ``at``; ``life`` ``(half_life, ttl, certainty)``, one tuple
#: shared by every such record that has none of the three), with a seventh field, the other
#: intervals of the same value ``((start, end or None), ...)``, when the source gave it more
#: than one. The valid time is a field of the record and not of ``life``: a read at a world
#: time (:func:`lone_held_at`) reads the record and its start, and reading a second tuple
#: for them made ``kb.at(t)`` over keys spread through a large base miss the cache once more
#: (benchmarks/RESULTS.md, "kb.at(t).confidence under 2x, forget's watch list (branch at3)").
#:
#: A tuple and not a class: the cyclic garbage collector stops tracking a tuple of untracked
#: items after its first pass, so a base of a million premises costs the collector one object
#: a belief, not two (an instance of a class, or a named tuple, stays tracked; measured in
#: benchmarks/RESULTS.md, "Issue 36 item 5").
PremiseRecord = tuple[Any, ...]

#: An interval of valid time: ``(start, end or None)``, ``end`` excluded.
Interval = tuple[float, "float | None"]

#: The ``life`` of a record with a valid time and no half-life, ttl or stated certainty: one
#: tuple for all of them (most dated facts), so that such a record is one object.
_UNFADING = (None, None, 1.0)


def premise_record(source: str, origin: str, at: float, half_life: float | None,
                   ttl: float | None, certainty: float | None = None,
                   valid_from: float | None = None,
                   valid_until: float | None = None,
                   earlier: tuple[Interval, ...] = ()) -> PremiseRecord:
    """The record of a premise (see :data:`PremiseRecord`); a certainty of 1 (or ``None``) is
    not kept: it changes nothing. A valid time (when the fact holds in the world,
    docs/model.md "Time and change") makes the record six long; premises without one keep
    their short record, so a base that never says when pays nothing. ``earlier``: other intervals
    the source gave the same value (a value held twice, as a manager who comes back to a club).

    >>> premise_record("tool:crm", "tool:crm", 10.0, None, None)
    ('tool:crm', 'tool:crm', 10.0, None)
    >>> record_span(premise_record("tool:crm", "tool:crm", 10.0, None, None, valid_until=50.0))
    (10.0, 50.0)
    """
    if valid_from is not None or valid_until is not None:
        sure = 1.0 if certainty is None else certainty
        life: tuple[Any, ...] = (_UNFADING if half_life is None and ttl is None and sure == 1.0
                                 else (half_life, ttl, sure))
        if earlier:
            return (source, origin, at, life, valid_from, valid_until, earlier)
        return (source, origin, at, life, valid_from, valid_until)
    if certainty is not None and certainty < 1.0:
        return (source, origin, at, (half_life, ttl, certainty))
    return (source, origin, at, None if half_life is None and ttl is None else (half_life, ttl))


def plain_source(record: PremiseRecord) -> str | None:
    """The source of a plain premise (no half-life, ttl, stated certainty or valid time: it
    counts at its source's reliability from when it was asserted on), else ``None``: the one
    test the hot paths make before reading anything else of a record."""
    return record[0] if record[3] is None else None


def record_source(record: PremiseRecord) -> str:
    """Who said it (``kind:name``)."""
    return record[0]


def record_origin(record: PremiseRecord) -> str:
    """Where it came from: premises of one origin do not confirm each other."""
    return record[1]


def record_at(record: PremiseRecord) -> float:
    """When it was asserted (POSIX seconds)."""
    return record[2]


def record_half_life(record: PremiseRecord) -> float | None:
    """Seconds for its weight to halve (``None``: it does not fade)."""
    life = record[3]
    return None if life is None else life[0]  # type: ignore[no-any-return]


def record_ttl(record: PremiseRecord) -> float | None:
    """Seconds it stays valid (``None``: it does not expire)."""
    life = record[3]
    return None if life is None else life[1]  # type: ignore[no-any-return]


def record_certainty(record: PremiseRecord) -> float:
    """The certainty its source stated, in (0, 1] (1: none was stated)."""
    life = record[3]
    return 1.0 if life is None or len(life) < 3 else life[2]  # type: ignore[no-any-return]


def record_is_timed(record: PremiseRecord) -> bool:
    """Whether its source stated a valid time (else it holds from when it was asserted)."""
    return len(record) > 4


def record_stated_span(record: PremiseRecord) -> tuple[float | None, float | None]:
    """``(valid_from, valid_until)`` as the source stated them (``None``: not stated; both
    ``None`` for a premise with no valid time)."""
    if len(record) < 5:
        return None, None
    return record[4], record[5]


def record_span(record: PremiseRecord) -> Interval:
    """The interval stated last: ``(valid_from, valid_until)``, ``valid_from`` being when it
    was asserted unless one was stated, ``valid_until`` ``None`` while open."""
    if len(record) < 5:
        return record[2], None
    return (record[2] if record[4] is None else record[4]), record[5]


def record_earlier(record: PremiseRecord) -> tuple[Interval, ...]:
    """The other intervals the source gave the same value, before the one stated last."""
    return record[6] if len(record) > 6 else ()  # type: ignore[no-any-return]


def record_start(record: PremiseRecord) -> float:
    """A premise record's valid-from: the stated one, else when it was asserted."""
    return record_span(record)[0]


def record_intervals(record: PremiseRecord) -> tuple[Interval, ...]:
    """A premise record's intervals ``(start, end or None)``: from when it was asserted, open,
    unless a valid time was stated; the interval stated last comes last."""
    if len(record) < 5:
        return ((record[2], None),)
    last = (record[2] if record[4] is None else record[4], record[5])
    return (*record[6], last) if len(record) > 6 else (last,)


def record_valid_at(record: PremiseRecord, world: float) -> bool:
    """Whether one of a premise record's intervals ``[valid_from, valid_until)`` holds
    ``world``."""
    if len(record) < 5:
        return record[2] <= world  # type: ignore[no-any-return]
    start = record[4]
    if start is None:
        start = record[2]
    end = record[5]
    if start <= world and (end is None or world < end):
        return True
    if len(record) > 6:
        for s, e in record[6]:
            if s <= world and (e is None or world < e):
                return True
    return False


def lone_held_at(b: Belief, world: float) -> bool | None:
    """Whether ``b``, a belief held by one premise and nothing else (no reason) and up to date
    now, holds at world time ``world``, when its record and its label now decide it: ``False``
    when it is withdrawn or its premise is not valid at ``world``; ``True`` when the premise is
    valid then and ``b`` is held now (valid now as then, it counts as it does now: evidence ages
    by the clock, not the world, docs/model.md "Time and change"); a premise stated with no
    valid time holds from when it was asserted on, so OUT now is OUT at any later time too.
    ``None`` otherwise (several premises, a reason, or valid at ``world`` but OUT now): the
    caller computes it. The one call a read at a time makes of a key with one value, beside a
    plain read's (a caller checks the key's nogoods: a rival valid at ``world`` but not now may
    defeat it).

    >>> b = Belief("ceo", "Ann", "Ann", 0, premise_record("tool:crm", "tool:crm", 10.0, None,
    ...                                                   None, valid_until=50.0), best=PREMISES)
    >>> [lone_held_at(b, t) for t in (5.0, 20.0, 60.0)]
    [False, True, False]
    >>> b.best = None  # OUT now, valid at 20: only a computation at 20 can say
    >>> [lone_held_at(b, t) for t in (5.0, 20.0, 60.0)]
    [False, None, False]
    """
    record = b.evidence
    if type(record) is not tuple or b.justs:
        return None  # several premises or none, or a reason
    # b.best before b.withdrawn: an up-to-date belief held now is not withdrawn (a withdrawal
    # marks it), and the withdrawal is the one field of the belief a plain read does not touch
    # (another cache line, over keys spread through a large base)
    if len(record) < 5:  # no valid time: from when it was asserted on
        return b.best is not None and record[2] <= world
    start = record[4]
    if start is None:
        start = record[2]
    if start <= world:
        end = record[5]
        if end is None or world < end:
            return True if b.best is not None else None if b.withdrawn is None else False
    if len(record) > 6:
        for s, e in record[6]:  # a loop, not any(): no generator made on a read at a time
            if s <= world and (e is None or world < e):
                return True if b.best is not None else None if b.withdrawn is None else False
    return False


def record_schedule(record: PremiseRecord) -> tuple[str, float | None, bool]:
    """``(source, when it expires or None, whether its valid time starts or stops after it
    was asserted)``: what the engine schedules for a new premise, in one call (the hot path
    of an assertion with a ttl or a valid time)."""
    source, at, life = record[0], record[2], record[3]
    if life is None:
        return source, None, False
    ttl = life[1]
    return source, None if ttl is None else at + ttl, len(record) > 4 and (
        record[5] is not None or len(record) > 6 or (record[4] is not None and record[4] > at))


def record_changes(record: PremiseRecord) -> list[tuple[float, int]]:
    """The instants at which it starts (``0``) or stops (``1``) holding in the world that a
    clock reaches after it was asserted: a start after ``at``, every end."""
    at = record[2]
    due = []
    for start, end in record_intervals(record):
        if start > at:  # a start already past changes nothing
            due.append((start, 0))
        if end is not None:
            due.append((end, 1))
    return due


def record_expires_at(record: PremiseRecord) -> float | None:
    """When it expires (``at + ttl``), or ``None``."""
    life = record[3]
    return None if life is None or life[1] is None else record[2] + life[1]  # type: ignore[no-any-return]


def record_expired(record: PremiseRecord, now: float) -> bool:
    """Whether its ttl has run out at ``now``."""
    life = record[3]
    return life is not None and life[1] is not None and now >= record[2] + life[1]


def record_strength(record: PremiseRecord, reliability: float, now: float) -> tuple[float, bool]:
    """``(confidence, fades)`` at ``now`` given its source's ``reliability``: that times the
    certainty the source stated, times its freshness when it has a half-life (then it fades:
    the value reads the time)."""
    life = record[3]
    if life is None:
        return reliability, False
    if len(life) > 2:
        reliability *= life[2]
    if life[0] is None:
        return reliability, False
    return reliability * decay_weight(max(now - record[2], 0.0), life[0]), True


def renewed(record: PremiseRecord, now: float, start: float | None = None) -> PremiseRecord:
    """The record asserted again at ``now``: the same source, origin, half-life, ttl,
    certainty and stated valid time; ``start`` gives a premise that stated no valid time one
    from ``start`` on (a value keeps the start it was first seen holding from)."""
    source, origin, life = record[0], record[1], record[3]
    if life is None and start is None:
        return (source, origin, now, None)
    if record_is_timed(record):
        return premise_record(source, origin, now, record_half_life(record), record_ttl(record),
                              record_certainty(record), *record_stated_span(record),
                              record_earlier(record))
    return premise_record(source, origin, now, record_half_life(record), record_ttl(record),
                          record_certainty(record), start)


class Premise:
    """A reason straight from a source: who said it, when, and how long it stays good.

    A view of the record a belief keeps (:data:`PremiseRecord`): two views of one record are
    equal (and hash alike), two records made apart are not, even with equal fields, as a
    premise renewed at the same instant is a new premise. A bulk load gives the plain
    premises it makes from one source one record (a record holds no belief), so their views
    are equal across beliefs; one belief's premises are always distinct records.
    """

    __slots__ = ("record",)

    def __init__(self, source: str, origin: str, at: float, half_life: float | None,
                 ttl: float | None, certainty: float | None = None,
                 valid_from: float | None = None, valid_until: float | None = None,
                 earlier: tuple[tuple[float, float | None], ...] = ()) -> None:
        self.record = premise_record(source, origin, at, half_life, ttl, certainty, valid_from,
                                     valid_until, earlier)

    @classmethod
    def of(cls, record: PremiseRecord) -> Premise:
        """The view of a record."""
        p = cls.__new__(cls)
        p.record = record
        return p

    @property
    def source(self) -> str:
        """Who said it (``kind:name``)."""
        return self.record[0]

    @property
    def origin(self) -> str:
        """Where it came from: premises of one origin do not confirm each other."""
        return self.record[1]

    @property
    def at(self) -> float:
        """When it was asserted (POSIX seconds)."""
        return self.record[2]

    @property
    def half_life(self) -> float | None:
        """Seconds for the premise's weight to halve (``None``: it does not fade)."""
        return record_half_life(self.record)

    @property
    def ttl(self) -> float | None:
        """Seconds the premise stays valid (``None``: it does not expire)."""
        return record_ttl(self.record)

    @property
    def certainty(self) -> float:
        """How sure the source said it was of this assertion, in (0, 1] (1: no certainty was
        stated); the premise's confidence is the source's reliability times this."""
        return record_certainty(self.record)

    @property
    def valid_from(self) -> float:
        """When the fact starts to hold in the world: the stated ``valid_from``, else when it
        was asserted."""
        return record_start(self.record)

    @property
    def valid_until(self) -> float | None:
        """When the fact stops holding in the world (``None``: open-ended)."""
        return record_span(self.record)[1]

    @property
    def intervals(self) -> tuple[tuple[float, float | None], ...]:
        """Every interval the fact holds in, ``(start, end or None)``, the last stated last."""
        return record_intervals(self.record)

    @property
    def stated_valid_time(self) -> bool:
        """Whether the source said when the fact holds (else it holds from :attr:`at`)."""
        return record_is_timed(self.record)

    def valid_at(self, world: float) -> bool:
        """Whether the fact holds at world time ``world`` by its own interval."""
        return record_valid_at(self.record, world)

    @property
    def expires_at(self) -> float | None:
        """When the premise expires (``at + ttl``), or ``None``."""
        return record_expires_at(self.record)

    def expired(self, now: float) -> bool:
        """Whether the premise's ttl has run out at ``now``."""
        return record_expired(self.record, now)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Premise) and other.record is self.record

    def __hash__(self) -> int:
        return id(self.record)

    def __repr__(self) -> str:
        return f"<Premise {self.source} at {self.at}>"


class Justification:
    """A derived reason: a step of some kind (:mod:`corollary.tms.kinds`) over input beliefs.

    ``step`` is the constant part of the step confidence (a rule's confidence, a claim's
    certainty); a kind that reads reliability multiplies it by the live reliability of
    ``name`` (the model). ``info`` carries what the proof shows (formula, stated value,
    citation check, input names). ``unless`` is its out-list: items (:data:`Item`) whose being
    held makes the justification invalid ("x unless y"), as in Doyle's TMS.
    """

    __slots__ = ("kind", "name", "output", "inputs", "distinct", "step", "info", "seq", "live",
                 "unless")

    def __init__(self, kind: StepKind, name: str, output: Belief, inputs: tuple[Belief, ...],
                 step: float, info: dict[str, Any] | None = None,
                 unless: tuple[Item, ...] = ()) -> None:
        self.kind = kind
        # how a sweep gets the step (:attr:`StepKind.step_mode`), kept here as the hot loops
        # read it for every reason they settle
        self.live = kind.step_mode
        if info and ("valid_from" in info or "valid_until" in info):
            self.live = DATED  # a claim's own valid time: the sweep asks the step rule
        self.name = name
        self.output = output
        self.inputs = inputs
        # the inputs once each (a claim may name one input twice): what the sweep counts down
        self.distinct = inputs if len(set(inputs)) == len(inputs) else tuple(dict.fromkeys(inputs))
        self.step = step
        self.info = info or {}
        self.seq = 0
        self.unless = unless

    def __repr__(self) -> str:
        return f"<Justification {self.kind.name}:{self.name} -> {self.output.key}>"


class Nogood:
    """Beliefs that cannot all be held: while every item is held, a conflict policy gives one
    up (or the conflict stays open)."""

    __slots__ = ("name", "items", "seq")

    def __init__(self, name: str, items: tuple[Item, ...], seq: int) -> None:
        self.name = name
        self.items = items
        self.seq = seq

    def __repr__(self) -> str:
        return f"<Nogood {self.name}: {', '.join(item_text(i) for i in self.items)}>"


class Belief:
    """One value of one key, with its reasons and its last computed label and confidence.

    ``evidence`` holds the premises as stored: ``None``, the one premise's record (most
    beliefs; :data:`PremiseRecord`), or a list of the records of several (replaced whole, never
    changed in place); :attr:`premises` gives them as :class:`Premise` views. ``justs`` is a
    tuple until a belief has many reasons (then a list), and ``users``, the justifications that
    read the belief, a tuple until many do (then a dict, as an ordered set): most beliefs have
    one reason and few readers, and a tuple of one costs less than any mutable container.

    The engine's memo, to read only after the engine has synced the belief: ``best`` (what
    gives the confidence: ``PREMISES`` or a justification; ``None`` exactly when the belief is
    OUT, so :attr:`label` is derived from it), ``conf``, ``as_of`` (the time a time-dependent
    value was computed at; ``None`` for a value that does not read the time) and ``note``,
    why an OUT belief that is not withdrawn is OUT when it is not plainly unsupported:
    ``"expired"``, ``"an exception holds"``, or ``(defeated_by, potential)`` for a value that
    lost to a rival or a nogood (:attr:`why`, :attr:`defeated_by` and :attr:`potential` read
    it). Twelve slots: a belief costs 128 bytes. CPython lays slots out in the order of their
    names, so what a read of an up-to-date belief touches (``as_of``, ``best``, ``conf``)
    comes first, beside the object's header: one cache line where it would be two.
    """

    __slots__ = ("key", "value", "vid", "seq", "evidence", "justs", "users", "withdrawn",
                 "conf", "best", "as_of", "note")

    def __init__(self, key: str, value: Any, vid: Any, seq: int, evidence: Any = None,
                 conf: float = 0.0, best: Any = None) -> None:
        self.key = key
        self.value = value
        self.vid = vid
        self.seq = seq
        # PremiseRecord | list[PremiseRecord] | None (a record is a tuple: told apart by type)
        self.evidence: Any = evidence
        self.justs: tuple[Justification, ...] | list[Justification] = ()
        self.users: tuple[Justification, ...] | dict[Justification, None] = ()
        self.withdrawn: str | None = None  # why it was withdrawn (retracted, rejected)
        self.conf = conf
        self.best: Any = best
        self.as_of: float | None = None
        self.note: Any = None

    @property
    def premises(self) -> tuple[Premise, ...]:
        """The premises, as a tuple of views."""
        ev = self.evidence
        if ev is None:
            return ()
        if type(ev) is tuple:
            return (Premise.of(ev),)
        return tuple(Premise.of(r) for r in ev)

    def records(self) -> list[PremiseRecord]:
        """The premises' records."""
        ev = self.evidence
        if ev is None:
            return []
        return [ev] if type(ev) is tuple else list(ev)

    @property
    def label(self) -> str:
        """``IN`` or ``OUT``, as last computed."""
        return OUT if self.best is None else IN

    @property
    def timed(self) -> bool:
        """Whether the value, as last computed, depends on the time."""
        return self.as_of is not None

    @property
    def why(self) -> str:
        """Why the belief is IN or OUT, as last computed: ``held``, the reason it was withdrawn,
        ``lost``, ``expired``, ``an exception holds`` or ``unsupported``."""
        if self.best is not None:
            return "held"
        if self.withdrawn is not None:
            return self.withdrawn
        note = self.note
        if note is None:
            return "unsupported"
        return "lost" if type(note) is tuple else note  # type: ignore[no-any-return]

    @property
    def defeated_by(self) -> Belief | None:
        """The value this one lost to (a rival, or a nogood's item), if it lost."""
        note = self.note
        return note[0] if type(note) is tuple else None

    @defeated_by.setter
    def defeated_by(self, winner: Belief | None) -> None:
        self.note = None if winner is None else (winner, self.potential)

    @property
    def potential(self) -> float:
        """The confidence a value that lost would have had (0.0 otherwise)."""
        note = self.note
        return note[1] if type(note) is tuple else 0.0  # type: ignore[no-any-return]

    def record_from(self, source: str) -> PremiseRecord | None:
        """The record of this belief's premise from ``source``, if any."""
        ev = self.evidence
        if type(ev) is tuple:
            return ev if ev[0] == source else None  # type: ignore[no-any-return]
        if ev is not None:
            for r in ev:
                if r[0] == source:
                    return r
        return None

    def premise_from(self, source: str) -> Premise | None:
        """This belief's premise from ``source``, if any."""
        r = self.record_from(source)
        return None if r is None else Premise.of(r)

    def __repr__(self) -> str:
        return f"<Belief {self.key}={self.value!r} {self.label} {self.conf:.4g}>"

"""Loading many beliefs at once: the bulk path behind ``BeliefBase.assert_many``, and the bulk
restore behind loading a snapshot.

:func:`add_premised_rows` adds checked rows whose keys are new, in order, as
:meth:`Engine.add_premised` would one by one, and stops at the first row whose key exists (the
caller applies that one with the full one-by-one meaning). Uniform ``(key, value, source)`` rows
are made a run at a time, with C-level loops (``map``, ``itemgetter``, ``dict.setdefault``);
the beliefs of plain premises are settled as they are made (:class:`_Settled`). Everything made
is noted in the batch first, so that :meth:`Engine.rollback` can undo it from any point.

:func:`restore_beliefs` and :func:`restore_premises` recreate a saved base's beliefs and
premises at once, as :meth:`Engine.restore_belief` and :meth:`Engine.set_premise` would one
by one. An engine-internal module: it works on the engine's own tables, and asks the engine
for numbers and counts (:meth:`Engine.next_number`, :meth:`Engine.continue_numbering`,
:meth:`Engine.counted`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import is_not, itemgetter
from typing import TYPE_CHECKING, Any

from ..foundations.values import is_end
from .records import PREMISES, Belief, Premise, PremiseRecord, premise_record

if TYPE_CHECKING:  # pragma: no cover
    from .batch import Batch
    from .engine import Engine

#: The first run's length after rows of known keys (made row by row until then), and the
#: longest run.
RUN_FIRST = 256
RUN_MOST = 65_536
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def add_premised_rows(engine: Engine, rows: list[tuple[Any, ...]], start: int, now: float,
                      batch: Batch, uniform: bool = False) -> int:
    """Add the rows from ``start`` on whose keys are new, each as :meth:`Engine.add_premised`
    would (``(key, value, vid, source, origin, half_life, ttl)``, or ``(key, value, source)``
    for a value that is its own identity and the source its own origin, checked, asserted at
    ``now``), until a row whose key exists; return that row's index (``len(rows)`` when all
    were added). ``uniform``: every row is of the second form. The rows whose keys were made
    are noted in ``batch``, for :meth:`Engine.rollback`.

    Uniform rows are added a run at a time while their keys keep being new (a run is
    made whole, then cut at its first known key): runs grow while they succeed and give
    way to row-by-row adding once one is cut, so rows of known keys cost little more
    than row by row, and a load of new keys costs far less."""
    if not (uniform and engine.touched is None and not engine.unless_watch):
        return add_rows(engine, rows, start, len(rows), now, batch)
    n = len(rows)
    i = start
    while i < n:
        if batch.run:
            end = min(i + batch.run, n)
            j = add_run(engine, rows, i, end, now, batch)
            batch.run = 0 if j < end else min(batch.run * 2, RUN_MOST)
        else:
            end = min(i + RUN_FIRST, n)
            j = add_rows(engine, rows, i, end, now, batch)
            batch.run = RUN_FIRST if j == end else 0
        if j < end:
            return j
        i = j
    return n


def add_rows(engine: Engine, rows: list[tuple[Any, ...]], start: int, stop: int, now: float,
             batch: Batch) -> int:
    """:func:`add_premised_rows` row by row, up to ``stop`` at most."""
    keys = engine.keys
    simple = engine.touched is None and not engine.unless_watch
    settled = _Settled(engine, now) if simple and not engine.nogoods_by_key else None
    add = engine.dirty.add
    seq = engine.next_number()  # numbered here, as one by one: a belief, then its expiry
    holders = _Holders(engine.by_source)
    records = _Records(now)  # one record for the plain premises of a source
    i = start
    batch.runs.append((rows, start, stop))  # before any key is made: a rollback finds all
    try:
        for i in range(start, stop):  # noqa: B007 (i is read after the loop)
            row = rows[i]
            if len(row) == 3:
                key, value, source = row
                b = Belief(key, value, value, seq)
                if keys.setdefault(key, b) is not b:
                    return i  # a known key
                b.evidence = records[source]
                seq += 1
                plain = True
            else:
                key, value, vid, source, origin, half_life, ttl, *valid = row
                if valid and (valid[0] is not None or valid[1] is not None):
                    return i  # a valid time: made by the caller, as one by one
                b = Belief(key, value, vid, seq)
                if keys.setdefault(key, b) is not b:
                    return i
                record = b.evidence = premise_record(source, origin, now, half_life, ttl)
                seq += 1
                if ttl is not None:
                    engine.push_expiry(b, record, seq)
                    seq += 1
                plain = False
            holders[source].append(b)
            if plain and settled is not None:  # settled as it is made (see _Settled)
                b.conf = settled[source]
                b.best = PREMISES
                if settled.timed:
                    settled.stamp(b, source)
            elif simple:
                add(b)
            else:
                engine.mark(b)
        i = stop
        return i
    finally:
        engine.continue_numbering(seq)
        engine.counted(i - start)
        # narrowed to the rows up to the one being made (a known key, or the one an error
        # stopped), so that a rollback reads each row once however many calls a batch takes
        batch.runs[-1] = (rows, start, min(i + 1, stop))


def add_run(engine: Engine, rows: list[tuple[Any, ...]], start: int, stop: int, now: float,
            batch: Batch) -> int:
    """Make the beliefs of the uniform rows ``start:stop`` at once; keep those before the
    first row whose key exists (or repeats one of the run) and return its index."""
    part = rows[start:stop]
    seq = engine.next_number()
    batch.runs.append((rows, start, stop))  # before any key is made: a rollback finds all
    try:
        keys = engine.keys
        names = list(map(_FIRST, part))
        values = list(map(_SECOND, part))
        sources = list(map(_THIRD, part))
        records = _Records(now)  # one record for the premises of a source
        settled = None if engine.nogoods_by_key else _Settled(engine, now)
        made = list(map(Belief, names, values, values, range(seq, seq + len(part)),
                        map(records.__getitem__, sources),
                        *(() if settled is None else
                          (map(settled.__getitem__, sources), repeat(PREMISES)))))
        kept = list(map(keys.setdefault, names, made))
        if any(map(is_not, kept, made)):  # a known key: keep the run before it
            cut = next(x for x, (a, b) in enumerate(zip(kept, made, strict=True))
                       if a is not b)
            for x in range(cut + 1, len(part)):
                if kept[x] is made[x]:
                    del keys[names[x]]
            del made[cut:]
        holders = _Holders(engine.by_source)
        for b, source in zip(made, sources, strict=False):  # made may be cut short
            holders[source].append(b)
        if settled is None:
            engine.dirty.update(made)
        elif settled.timed:
            for b, source in zip(made, sources, strict=False):
                settled.stamp(b, source)
    except BaseException:
        engine.continue_numbering(seq + len(part))  # what was made is the rollback's
        raise
    engine.continue_numbering(seq + len(made))
    engine.counted(len(made))
    return start + len(made)


def restore_beliefs(engine: Engine, rows: Sequence[Sequence[Any]], vids: Sequence[Any]
                    ) -> list[Belief]:
    """Recreate saved beliefs at once (snapshots), as :meth:`Engine.restore_belief` would one
    by one: ``rows`` hold ``(key, value, seq, withdrawn)``, ``vids`` the values' identities;
    every one is marked dirty."""
    keys = engine.keys
    made: list[Belief] = []
    append = made.append
    count = 0
    for (key, value, seq, withdrawn), vid in zip(rows, vids, strict=True):
        b = Belief(key, value, vid, seq)
        slot = keys.setdefault(key, b)
        if slot is not b:  # a key with several values (or a belief twice: it is renumbered)
            if type(slot) is Belief:
                if slot.vid == vid:
                    b = slot
                    b.seq = seq
                else:
                    keys[key] = {slot.vid: slot, vid: b}
                    count += 1
            else:
                found = slot.get(vid)  # type: ignore[union-attr]
                if found is None:
                    slot[vid] = b  # type: ignore[index]
                    count += 1
                else:
                    b = found
                    b.seq = seq
        else:
            count += 1
        if withdrawn is not None:
            b.withdrawn = withdrawn
        if type(value) is dict and is_end(value):
            engine.ended.add(key)
        append(b)
    engine.counted(count)
    if engine.touched is None and not engine.unless_watch:
        engine.dirty.update(made)  # nothing reads them yet: marking is adding
    else:
        for b in made:
            engine.mark(b)
    return made


def restore_premises(engine: Engine, beliefs: Sequence[Belief], rows: Iterable[Sequence[Any]],
                     strings: Sequence[str]) -> None:
    """Attach saved premises at once (snapshots), in order, as :meth:`Engine.set_premise`
    would one by one (numbering each expiry the same way). A row is ``(belief index, source,
    origin or -1 for the source's own, at, half_life, ttl[, certainty])``, sources and origins being
    indices into ``strings``."""
    by_source = engine.by_source
    lists: dict[str, list[Belief]] = {}
    dirty = engine.dirty
    for i, source, origin, at, half_life, ttl, *certainty in rows:
        b = beliefs[i]
        source = strings[source]
        # the optional columns: certainty, then valid_from, valid_until[, earlier intervals]
        record = premise_record(
            source, source if origin == -1 else strings[origin], float(at), _seconds(half_life),
            _seconds(ttl), float(certainty[0]) if certainty else None,
            valid_from=_seconds(certainty[1]) if len(certainty) > 1 else None,
            valid_until=_seconds(certainty[2]) if len(certainty) > 2 else None,
            earlier=tuple((float(s), _seconds(e)) for s, e in certainty[3])
            if len(certainty) > 3 else ())
        ev = b.evidence
        if ev is None:
            b.evidence = record
        elif b.record_from(source) is not None:  # a source twice: the later replaces
            engine.set_premise(b, Premise.of(record))
            continue
        elif type(ev) is tuple:
            b.evidence = [ev, record]
        else:
            b.evidence = [*ev, record]
        holders = lists.get(source)
        if holders is None:
            holders = lists[source] = by_source.setdefault(source, [])
        holders.append(b)
        if ttl is not None:
            engine.push_expiry(b, record)
        if len(certainty) >= 3:
            engine.push_valid_time(b, record)
        if b not in dirty:
            engine.mark(b)


def _seconds(x: Any) -> float | None:
    return None if x is None else float(x)


class _Records(dict):  # type: ignore[type-arg]
    """source -> the record of a plain premise from it at ``now`` (made when first asked)."""

    def __init__(self, now: float) -> None:
        super().__init__()
        self.now = now

    def __missing__(self, source: str) -> PremiseRecord:
        record = self[source] = premise_record(source, source, self.now, None, None)
        return record


class _Settled(dict):  # type: ignore[type-arg]
    """source -> the confidence of a new belief held by one plain premise from it, at ``now``.

    Such a belief (a new key: no rival value, no reader, no exception or nogood naming it) is
    settled as it is made, with what a sweep would give it: the source's reliability, held by
    its premises. A source whose reliability moves with time stamps it with ``now`` and puts it
    among the time-dependent beliefs, as a sweep would. A later outcome about the source marks
    it as it marks every belief the source holds.
    """

    def __init__(self, engine: Engine, now: float) -> None:
        super().__init__()
        self.engine = engine
        self.now = now
        self.timed: set[str] = set()  # the sources whose reliability moves with time

    def __missing__(self, source: str) -> float:
        conf, timed = self.engine.reliability(source, self.now)
        if timed:
            self.timed.add(source)
        self[source] = conf
        return conf

    def stamp(self, b: Belief, source: str) -> None:
        """Mark ``b``, held by ``source``, as computed at now if its value moves with time."""
        if source in self.timed:
            b.as_of = self.now
            self.engine.timed.add(b)


class _Holders(dict):  # type: ignore[type-arg]
    """source -> its list in ``by_source`` (made when first asked)."""

    def __init__(self, by_source: dict[str, list[Belief]]) -> None:
        super().__init__()
        self.by_source = by_source

    def __missing__(self, source: str) -> list[Belief]:
        holders = self[source] = self.by_source.setdefault(source, [])
        return holders

"""Finding what a query names, brought up to the clock's time: the read side of a base.

A :class:`Lookup` turns a key (or a key and a value) into the engine's beliefs, synchronised
first: outcomes other processes recorded, rules due now, then the stale cone of what is read,
and nothing else. A read of a belief whose memo is current takes no synchronisation at all
(:func:`current_reader`). Errors name the key: never heard of, holding no value, or in an open
conflict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from ..foundations.clock import Clock
from ..foundations.errors import AmbiguousValueError, InvalidInputError, UnknownBeliefError
from ..foundations.values import canon, check_key, is_end
from ..reasons.rule_engine import RuleEngine
from ..tms import IN, Belief, Engine
from ..tms.conflicts import Candidate, Conflict
from ..trust.view import TrustView
from .blame import accountable


class EngineSync:
    """Brings the engine up to the clock's time: outcomes first, then what is stale.

    Three spellings, one per extent: :meth:`outcomes` (outcomes recorded since, and expiries
    due: what rests on them is marked stale, nothing is recomputed), :meth:`beliefs` (and the
    stale part of some beliefs' ancestry) and :meth:`everything` (and every stale belief). Each
    returns the time it synchronised to (``now``, default: the clock's).
    """

    __slots__ = ("clock", "trust", "engine")

    def __init__(self, clock: Clock, trust: TrustView, engine: Engine) -> None:
        self.clock = clock
        self.trust = trust
        self.engine = engine

    def now(self) -> float:
        """The clock's time, checked: finite POSIX seconds."""
        t = self.clock()
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
            raise InvalidInputError(f"the clock returned {t!r}, not finite POSIX seconds")
        return float(t)

    def outcomes(self, now: float | None = None) -> float:
        """Apply the outcomes recorded since and the expiries due: what rests on them is marked
        stale, for a later read to recompute."""
        return self._sync((), now)

    def beliefs(self, targets: Iterable[Belief], now: float | None = None) -> float:
        """:meth:`outcomes`, then bring ``targets`` up to now (the stale part of their
        ancestry)."""
        return self._sync(targets, now)

    def everything(self, now: float | None = None) -> float:
        """:meth:`outcomes`, then bring every stale belief up to now."""
        return self._sync(None, now)

    def _sync(self, targets: Iterable[Belief] | None, now: float | None) -> float:
        now = self.now() if now is None else now
        if self.trust.changed:
            for source in self.trust.take_changed():
                self.engine.mark_source(source)
        self.engine.sync(now, targets)
        return now


def conflict_between(key: str, held: list[Belief]) -> Conflict:
    """The open conflict of ``key``'s held values, most confident first."""
    held = sorted(held, key=lambda b: (-b.conf, b.seq))
    return Conflict(key, tuple(
        Candidate(b.value, b.conf, tuple(sorted(accountable(b)))) for b in held))


def current_reader(clock: Clock, trust: TrustView, engine: Engine,
                   rules: RuleEngine) -> Callable[[object], Belief | None]:
    """A function of a key: its one value when reading it needs no synchronisation now, else
    ``None`` (the read then takes the full path, which also validates the key and the clock).

    Nothing is due when: the clock reads a finite float; the ledger has nothing new (it is
    polled first when other processes may write its store); no outcome is waiting to be
    applied (another base's on a shared ledger included); no premise expires by now; no rule
    is due (every rule fired at this very time and no key was touched since); and the
    belief's memo is current (not dirty, and computed at this time if it reads the time). See
    docs/model.md, "Incremental evaluation". A closure over the base's parts, which never
    change, as it runs on every read.
    """
    keys = engine.keys
    ended = engine.ended  # the keys an end was ever said of (one set, only added to)

    def current(key: object) -> Belief | None:
        if type(key) is not str:
            return None
        b = keys.get(key)
        if type(b) is not Belief:
            return None  # unknown, or several values
        now = clock()
        if type(now) is not float or now - now != 0.0:
            return None  # not a float, or not finite
        if trust.polls:
            trust.poll()
        if trust.changed or now >= engine.next_expiry or b in engine.dirty:
            return None
        stamp = b.as_of
        if stamp is not None and stamp != now:
            return None
        if rules.active and (rules.fired_at != now or engine.touched):
            return None
        if ended and key in ended and type(b.value) is dict and is_end(b.value):
            # an end left alone (kb.forget of what it ended) holds no value, which the readers
            # of the one value do not ask: it takes the full path (docs/model.md, "Ending a
            # fact"); checked last, so that a read the memo sends there anyway pays nothing,
            # and only on keys an end was said of, so that a read of any other key touches
            # no value object (a scan over many keys would miss the cache on each)
            return None
        return b

    return current


def quiet_reader(clock: Clock, trust: TrustView, engine: Engine,
                 rules: RuleEngine) -> Callable[[], float | None]:
    """A function giving the clock's time when nothing is due to be brought up to it (what
    :meth:`Lookup.catch_up` would do nothing for: the conditions of :func:`current_reader`
    that do not depend on the belief read), else ``None``. The one-value read keeps its own
    copy of these checks written out, as it runs on every read and a call would cost it a
    fifth."""

    def quiet() -> float | None:
        now = clock()
        if type(now) is not float or now - now != 0.0:
            return None
        if trust.polls:
            trust.poll()
        if trust.changed or now >= engine.next_expiry:
            return None
        if rules.active and (rules.fired_at != now or engine.touched):
            return None
        return now

    return quiet


def held_reader(engine: Engine,
                quiet: Callable[[], float | None]) -> Callable[[str], list[Belief] | None]:
    """A function of a key of several values: the values held now when reading them needs no
    synchronisation (nothing is due, ``quiet``, and no value is stale: none dirty, none
    computed at another time if it reads the time), else ``None``, as for a key of one value
    or never seen, or a key an end was said of (the full path reads those). A value's memo is
    current under the same conditions as :func:`current_reader`'s one value: its rivals and
    nogood partners are marked with it (docs/model.md, "Incremental evaluation")."""
    keys = engine.keys
    ended = engine.ended

    def held_now(key: str) -> list[Belief] | None:
        slot = keys.get(key)
        if type(slot) is not dict or (ended and key in ended):
            return None
        now = quiet()
        if now is None:
            return None
        dirty = engine.dirty
        held = []
        for b in slot.values():
            if b in dirty:
                return None
            stamp = b.as_of
            if stamp is not None and stamp != now:
                return None
            if b.best is not None:
                held.append(b)
        return held

    return held_now


class Lookup:
    """The beliefs a query names, synchronised to now (see the module docstring)."""

    __slots__ = ("clock", "trust", "engine", "rules", "sync_engine", "current", "quiet",
                 "held_now", "pins", "picks")

    def __init__(self, clock: Clock, trust: TrustView, engine: Engine, rules: RuleEngine,
                 sync_engine: EngineSync) -> None:
        self.clock = clock
        self.trust = trust
        self.engine = engine
        self.rules = rules
        self.sync_engine = sync_engine
        #: ``current(key)``: the one value of ``key`` when reading it needs no
        #: synchronisation now, else ``None`` (see :func:`current_reader`).
        self.current = current_reader(clock, trust, engine, rules)
        #: ``quiet()``: the clock's time when nothing is due, else ``None`` (see
        #: :func:`quiet_reader`).
        self.quiet = quiet_reader(clock, trust, engine, rules)
        #: ``held_now(key)``: the held values of a key of several values when reading them
        #: needs no synchronisation now, else ``None`` (see :func:`held_reader`).
        self.held_now = held_reader(engine, self.quiet)
        #: A journaled base's record of "the held value" a change resolved (``picks``: key ->
        #: value, filled while the change runs) and, while an entry is replayed, the values it
        #: resolved then (``pins``), so a replay resolves the same (docs/journal.md).
        self.pins: dict[str, Any] | None = None
        self.picks: dict[str, Any] | None = None

    def sync(self, targets: Iterable[Belief] | None = None) -> float:
        """Bring ``targets`` (default: everything) up to now: other processes' outcomes, due
        rules, then the stale cone; return now."""
        now = self._due()
        if targets is None:
            return self.sync_engine.everything(now)
        return self.sync_engine.beliefs(targets, now)

    def catch_up(self) -> float:
        """Other processes' outcomes and the rules due now (which may add beliefs), then the
        outcomes and expiries: what rests on them is marked stale, nothing else is recomputed;
        return now."""
        return self.sync_engine.outcomes(self._due())

    def _due(self) -> float:
        """Poll other processes' outcomes and fire the rules due now; return now."""
        now = self.sync_engine.now()
        if self.trust.polls:
            self.trust.poll()
        if self.rules.active:
            # outcomes first: they can bring a rule's inputs IN (a conflict flips)
            self.sync_engine.outcomes(now)
            self.rules.catch_up(now)
        return now

    def values(self, key: str) -> list[Belief]:
        """Every value of ``key``, synchronised (``UnknownBeliefError`` for a key never seen)."""
        key = check_key(key)
        if self.rules.active:
            self.catch_up()  # rules due now (after an outcome or a clock move) may add values
        values = self.engine.values_of(key)
        if not values:
            raise UnknownBeliefError(f"no belief about {key!r}")
        self.sync(values)
        return values

    def held(self, key: str) -> list[Belief]:
        """The values of ``key`` held now (an end that holds is no value: alone it leaves
        nothing held, beside a value it did not end it stands in an open conflict with it)."""
        held = self.held_now(key) if type(key) is str else None
        if held is not None:  # (no end: held_now leaves the keys of ends to this path)
            return held
        return without_ends([b for b in self.values(key) if b.label is IN])

    def held_belief(self, key: str, what: str) -> Belief:
        """The one value of ``key`` held now; ``what`` names the key in errors."""
        values = self.values(key)
        pins = self.pins
        if pins is not None and key in pins:  # a replay: the value resolved when it was made
            vid = canon(pins[key])
            for b in values:
                if b.vid == vid:
                    return b
        held = [b for b in values if b.label is IN]
        if what != "key":  # an input reads a value; retracting the key's held end takes the end
            held = without_ends(held)
        if not held:
            out = "; ".join(f"{b.value!r} is OUT ({b.why})" for b in sorted(values, key=lambda b: b.seq))
            raise UnknownBeliefError(f"{what} {key!r} holds no value: {out}")
        if len(held) > 1:
            raise AmbiguousValueError(
                f"{what} {key!r} is in an open conflict: {conflict_between(key, held)}")
        if self.picks is not None:
            self.picks.setdefault(key, held[0].value)
        return held[0]

    def one_held(self, key: str) -> Belief | None:
        """The value of ``key`` held now, ``None`` if none (an open conflict raises)."""
        held = self.held(key)
        if len(held) > 1:
            raise AmbiguousValueError(f"{key!r} is in an open conflict: {conflict_between(key, held)}")
        return held[0] if held else None

    def held_confidence(self, key: str) -> float | None:
        """The highest confidence among ``key``'s held values (``None``: a key never seen)."""
        if not self.engine.values_of(key):
            return None
        return max((b.conf for b in self.held(key)), default=0.0)

    def confidence_of(self, b: Belief) -> float:
        """``b``'s confidence now."""
        self.sync([b])
        return b.conf

    def target(self, key: str, value: Any) -> Belief:
        """The belief ``key = value`` (the held value of ``key`` when ``value`` is ``None``)."""
        if value is None:
            return self.held_belief(key, "key")
        key = check_key(key)
        vid = canon(value)
        if self.rules.active:
            self.catch_up()  # rules due now may derive this very value
        b = self.engine.find(key, vid)
        if b is None:
            raise UnknownBeliefError(f"no belief {key} = {value!r}")
        self.sync([b])
        return b


# who answers for a belief is corollary.facade.blame's now


def without_ends(held: list[Belief]) -> list[Belief]:
    """``held`` as reads see it: ends (``kb.end``) hold no value, so when only ends hold,
    nothing does; an end beside a value it did not end stays, as the open conflict it is."""
    if held and type(held[0].value) is dict and all(is_end(b.value) for b in held):
        return []
    return held

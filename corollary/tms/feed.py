"""The engine's one change feed: what changed, told to whoever follows the engine.

Everything that follows an engine subscribes here: the rule engine (the keys touched by a
change, to fire the rules reading them), a journaled session's ``kb.watch`` (the labels that
changed), the retrievers behind recall and the inspector's live events. A listener is a callable
``listener(changes)``, given a :class:`Changes` at each publication:

- ``touched``: the keys whose beliefs changed structurally (a belief, premise or reason added
  or dropped, a withdrawal, an expiry, a rival's change) since the last publication;
- ``settled``: each belief a sweep settled, or that was removed, since then, with whether it
  was IN before (labels and confidences change nowhere else): :meth:`Changes.relabelled` are
  those whose label differs now, :meth:`Changes.added` those made since;
- ``removed``: the beliefs :meth:`~corollary.tms.engine.Engine.forget_if_unused` removed.

The feed publishes after a settle: at the end of each sweep that settled something (outside a
what-if trial), after each change that has rules to fire (the rule engine publishes, and again
while it fires), before recall's retrievers rank, after each change a served base makes
(:mod:`corollary.serving.served`), and whenever :meth:`ChangeFeed.publish` is called. So a
listener has heard of every change at the latest when the engine is next read. Collecting costs
nothing while no listener asks for it: the engine's write paths fill two buffers that are
``None`` until a subscription turns them on (:attr:`Engine.touched
<corollary.tms.engine.Engine.touched>`, a set of keys the marking walk adds to, and
:attr:`Engine.settled <corollary.tms.engine.Engine.settled>`, a :class:`LabelFeed` the sweep
notes into); the feed owns both, and they go back to ``None`` when the last subscription that
asked for them stops.

Examples
--------
>>> from corollary import BeliefBase, ManualClock
>>> kb = BeliefBase(clock=ManualClock(0))
>>> heard = []
>>> sub = kb.engine.feed.subscribe(lambda c: heard.append(sorted(c.touched)), labels=False)
>>> kb.assert_("hq", "Austin", source="human:ann")
>>> kb.engine.feed.publish()
>>> heard
[['hq']]
>>> sub.stop()
"""

from __future__ import annotations

import contextlib
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import attrs

from .records import Belief

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine

__all__ = ["ChangeFeed", "Changes", "LabelFeed", "LabelRecord", "Listener", "Subscription"]


class LabelFeed:
    """The labels beliefs had before a sweep first settled them (or they were removed), since
    the feed was set on :attr:`Engine.settled <corollary.tms.engine.Engine.settled>`;
    ``removed``: how many beliefs were removed, ``gone``: which."""

    __slots__ = ("was_in", "removed", "gone")

    def __init__(self) -> None:
        self.was_in: dict[Belief, bool] = {}
        self.removed = 0
        self.gone: list[Belief] = []

    def note(self, beliefs: Iterable[Belief]) -> None:
        """Keep the label of each of ``beliefs`` not noted yet (the sweep calls this before
        it writes them)."""
        was_in = self.was_in
        for b in beliefs:
            if b not in was_in:
                was_in[b] = b.best is not None

    def forget(self, b: Belief) -> None:
        """``b`` was removed from the engine (its label before is kept as for a sweep)."""
        self.removed += 1
        self.gone.append(b)
        self.note((b,))

@attrs.frozen(slots=True)
class Changes:
    """What changed in an engine between two publications of its :class:`ChangeFeed`.

    Attributes
    ----------
    touched : frozenset of str
        The keys whose beliefs changed structurally (empty unless a subscription asked for
        touched keys).
    settled : mapping of Belief to bool
        Each belief a sweep settled or that was removed, with whether it was IN before (empty
        unless a subscription asked for labels).
    removed : tuple of Belief
        The beliefs removed from the engine.
    first : int
        The number of the first belief made since the publication before (beliefs are
        numbered in the order they are made).
    """

    touched: frozenset[str]
    settled: Mapping[Belief, bool]
    removed: tuple[Belief, ...]
    first: int

    def relabelled(self) -> list[Belief]:
        """The beliefs whose label now differs from the one they had before (removed beliefs
        that were IN among them), in the order they were settled."""
        gone = set(self.removed)
        return [b for b, was in self.settled.items()
                if (False if b in gone else b.best is not None) != was]

    def added(self, engine: Engine) -> list[Belief]:
        """The beliefs of touched keys made since the publication before (all of them made
        since, when touched keys are followed: a new belief marks its key)."""
        found: list[Belief] = []
        for key in self.touched:
            found.extend(b for b in engine.values_of(key) if b.seq >= self.first)
        return found


#: ``listener(changes)``: told after a settle what changed (:class:`Changes`).
Listener = Callable[[Changes], object]


class Subscription:
    """One listener of a :class:`ChangeFeed`; :meth:`stop` ends it.

    Each call of the listener runs holding the subscription's lock, and :meth:`stop` takes it:
    once ``stop`` returns, no call of this listener is running or will start (a listener may
    stop its own subscription: the lock is re-entrant).
    """

    __slots__ = ("feed", "listener", "touched", "labels", "_lock", "_on")

    def __init__(self, feed: ChangeFeed, listener: Listener, touched: bool,
                 labels: bool) -> None:
        self.feed = feed
        self.listener = listener
        self.touched = touched
        self.labels = labels
        self._lock = threading.RLock()
        self._on = True

    @property
    def active(self) -> bool:
        """Whether the listener is still told."""
        return self._on

    def tell(self, changes: Changes) -> None:
        """Call the listener with ``changes`` unless stopped. A listener's failure is warned
        about, never raised: the feed publishes from inside changes and reads, which are not
        the listener's to fail."""
        with self._lock:
            if not self._on:
                return
            try:
                self.listener(changes)
            except Exception as exc:
                with contextlib.suppress(Exception):  # not even under -W error
                    warnings.warn(f"a change feed listener raised {type(exc).__name__}: {exc}",
                                  RuntimeWarning, stacklevel=2)

    def stop(self) -> None:
        """Stop telling the listener (a second call does nothing); returns once no call of it
        can run."""
        self._on = False  # first: a call about to start sees it
        with self._lock:  # then wait for one running in another thread
            pass
        self.feed.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ChangeFeed:
    """The change feed of one engine (``engine.feed``): see the module docstring."""

    __slots__ = ("_engine", "subscriptions", "first", "_publishing")

    def __init__(self, engine: Engine) -> None:
        # held weakly: the engine holds its feed, and a cycle would keep a dropped base's
        # engine (and through its trust view, the ledger's open connection) until a collection
        self._engine = weakref.ref(engine)
        self.subscriptions: tuple[Subscription, ...] = ()
        #: the number of the first belief made since the last publication
        self.first = engine.next_number()
        self._publishing = False

    @property
    def engine(self) -> Engine:
        """The engine this feed tells of."""
        engine = self._engine()
        if engine is None:  # pragma: no cover - the feed is reached through its engine
            raise ReferenceError("the engine of this change feed is gone")
        return engine

    def subscribe(self, listener: Listener, *, touched: bool = True,
                  labels: bool = True) -> Subscription:
        """Tell ``listener`` what changes from now on; returns its :class:`Subscription`.

        ``touched``: the listener reads :attr:`Changes.touched` (the engine then records the
        keys every change touches); ``labels``: it reads :attr:`Changes.settled` (each sweep
        then notes what it settles). Ask only for what the listener reads: each costs the
        engine's write paths a little while any subscription holds it.

        >>> from corollary.tms import Engine
        >>> engine = Engine(lambda source, now: (0.9, False))
        >>> sub = engine.feed.subscribe(print, labels=False)
        >>> engine.touched, engine.settled
        (set(), None)
        >>> sub.stop()
        >>> engine.touched is None
        True
        """
        if not callable(listener):
            from ..foundations.errors import InvalidTypeError
            raise InvalidTypeError("a listener of the change feed must be callable")
        self.publish()  # what changed before is the other subscriptions', not this one's
        engine = self.engine
        if touched and engine.touched is None:
            engine.touched = set()
        if labels and engine.settled is None:
            engine.settled = LabelFeed()
        sub = Subscription(self, listener, touched, labels)
        self.subscriptions = (*self.subscriptions, sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget ``sub`` (:meth:`Subscription.stop` calls this); the buffers no subscription
        asks for any more are turned off."""
        self.subscriptions = tuple(s for s in self.subscriptions if s is not sub)
        engine = self.engine
        if not any(s.touched for s in self.subscriptions):
            engine.touched = None
        if not any(s.labels for s in self.subscriptions):
            engine.settled = None

    def publish(self) -> None:
        """Tell every subscription what changed since the last publication (nothing when
        nothing did). A listener that changes the engine is told of that at the next one."""
        subs = self.subscriptions
        engine = self.engine
        if not subs or self._publishing:
            return
        touched, settled = engine.touched, engine.settled
        if not touched and (settled is None or not settled.was_in):
            return
        keys: frozenset[str] = frozenset()
        if touched:
            keys = frozenset(touched)
            touched.clear()  # the same set: a trial keeps a reference to it to put back
        was: Mapping[Belief, bool] = {}
        gone: tuple[Belief, ...] = ()
        if settled is not None and settled.was_in:
            was, gone = settled.was_in, tuple(settled.gone)
            engine.settled = LabelFeed()
        changes = Changes(keys, was, gone, self.first)
        self.first = engine.next_number()
        self._publishing = True
        try:
            for sub in subs:
                sub.tell(changes)
        finally:
            self._publishing = False


class LabelRecord(LabelFeed):
    """A :class:`LabelFeed` kept by a subscription: the labels beliefs had before they were
    first settled (or removed) since the record started, across publications (a journaled
    session's watch compares only those, entry by entry).

    >>> from corollary.tms import Engine
    >>> engine = Engine(lambda source, now: (0.9, False))
    >>> record = LabelRecord(engine.feed)
    >>> b = engine.belief("k", 1, 1)
    >>> engine.sync(0.0)
    >>> record.stop()  # publishes what is pending first
    >>> record.was_in == {b: False}, engine.settled is None
    (True, True)
    """

    __slots__ = ("subscription",)

    def __init__(self, feed: ChangeFeed) -> None:
        super().__init__()
        self.subscription = feed.subscribe(self.hear, touched=False)

    def hear(self, changes: Changes) -> None:
        """Add what ``changes`` settled (the first label noted wins)."""
        was_in = self.was_in
        for b, was in changes.settled.items():
            if b not in was_in:
                was_in[b] = was
        self.removed += len(changes.removed)
        self.gone.extend(changes.removed)

    def stop(self) -> None:
        """Take what is pending, then stop recording."""
        sub = self.subscription
        if sub.active:
            sub.feed.publish()
            sub.stop()

"""The handle on a ``kb.watch`` callback of a journaled session (:meth:`corollary.Session.watch`).

A session tells its watches of each entry it applies (its own change or another writer's) as
:class:`~corollary.facade.journal_entries.WatchEvent` values; a :class:`Watch` is one callback
and the keys it watches, with the lock that lets :meth:`Watch.stop` return only once no
callback of it can run.

>>> from corollary import BeliefBase, ManualClock, TrustLedger
>>> kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
>>> heard = []
>>> with kb.watch(lambda event: heard.append((event.key, event.after))):
...     kb.assert_("hq", "Austin", source="human:ann")
>>> kb.assert_("ceo", "Ada", source="human:ann")  # after the block: not heard
>>> heard
[('hq', 'IN')]
"""

from __future__ import annotations

import contextlib
import threading
import warnings

from .journal_entries import WatchCallback, WatchEvent

__all__ = ["Watch"]


class Watch:
    """A handle on a :meth:`~corollary.Session.watch` callback: :meth:`stop` ends it (also on
    leaving a ``with`` block).

    Each callback runs holding the watch's own lock, and :meth:`stop` takes it: once ``stop``
    returns no callback of this watch is running or will run (a callback may stop its own
    watch: the lock is re-entrant).
    """

    __slots__ = ("_watchers", "callback", "keys", "_lock", "_on")

    def __init__(self, watchers: list[Watch], callback: WatchCallback,
                 keys: frozenset[str] | None) -> None:
        self._watchers = watchers
        self.callback = callback
        self.keys = keys
        self._lock = threading.RLock()
        self._on = True

    def stop(self) -> None:
        """Stop calling back (a second call does nothing); returns once no callback of this
        watch can run."""
        self._on = False  # first: a callback about to start sees it
        with self._lock:  # then wait for one running in another thread
            pass
        with contextlib.suppress(ValueError):
            self._watchers.remove(self)

    def hear(self, event: WatchEvent) -> None:
        """Call back with ``event`` unless stopped (a callback's failure is warned about, never
        raised: it is not the change's, which is committed)."""
        with self._lock:
            if not self._on:
                return
            try:
                self.callback(event)
            except Exception as exc:
                # never raised, not even under -W error: the change is made and must not
                # look failed to a caller who would retry it
                with contextlib.suppress(Exception):
                    warnings.warn(f"a kb.watch callback raised {type(exc).__name__}: {exc}",
                                  RuntimeWarning, stacklevel=4)

    @property
    def active(self) -> bool:
        """Whether it still calls back."""
        return self._on

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

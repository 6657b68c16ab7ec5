"""One base served to many callers: the MCP server's tools, the inspector's pages, the CLI.

:class:`ServedBase` is the one place that knows how a served base is kept: one lock around it
(tools run in worker threads, pages in a thread pool), other writers' entries applied before
each read and change (``sync``) and while idle (:meth:`ServedBase.follow`, woken by the store:
PostgreSQL's LISTEN/NOTIFY, a poll elsewhere), changes saved (a journaled session's entry is
its save; a whole-snapshot session is saved after each change; a change that cannot be saved
is dropped, the session as stored served again), and whether the base is still *live*.

A failure to follow other writers is never silent: the base records why
(:attr:`ServedBase.not_live`, shown by the inspector as "not live: <reason>" and by
``/api/summary``), logs it once on the ``corollary.serving`` logger (and once more when
following works again), and the next MCP call that reads or changes the base fails with it.
See docs/ui.md and docs/mcp.md.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

import attrs

from ..facade.base import BeliefBase
from ..foundations.errors import CorollaryError
from ..storage.waiting import wait_journal
from ..tms.feed import Changes, Subscription

__all__ = ["LOG", "Changed", "NotLive", "ServedBase", "Unsaved", "log_to_stderr"]

T = TypeVar("T")

#: Where a served base says it stopped (and started again) following other writers.
LOG = logging.getLogger("corollary.serving")
#: How often a follower looks at a store that cannot notify it (seconds).
POLL = 0.2


class NotLive(CorollaryError):
    """The served base cannot apply other writers' changes (its reason is the message)."""


class Unsaved(CorollaryError):
    """A change was applied but could not be saved: the base serves the session as stored."""


@attrs.frozen(slots=True)
class Changed:
    """What :meth:`ServedBase.watch` tells of a base that is not journaled: a key whose beliefs
    changed (structurally, or in label), heard on the engine's change feed."""

    key: str


class _FeedWatch:
    """A watch of a base that is not journaled: its engine's change feed, each changed key
    told once a publication (see :meth:`ServedBase.watch`)."""

    def __init__(self, served: ServedBase, callback: Callable[[Any], Any],
                 keys: frozenset[str] | None, among: list[_FeedWatch]) -> None:
        self.served = served
        self.callback = callback
        self.keys = keys
        #: the served base's list of its feed watches, which :meth:`stop` leaves
        self.among = among
        self.subscription: Subscription | None = None
        self.attach()

    def attach(self) -> None:
        """Follow the served base's engine (again, after :meth:`ServedBase.drop` replaced it)."""
        if self.subscription is not None:
            self.subscription.stop()
        self.subscription = self.served.kb.engine.feed.subscribe(self.hear)

    def hear(self, changes: Changes) -> None:
        keys = set(changes.touched)
        keys.update(b.key for b in changes.relabelled())
        for key in sorted(keys):
            if self.keys is None or key in self.keys:
                self.callback(Changed(key))

    def stop(self) -> None:
        """Stop telling (returns once no callback of it can run)."""
        if self.subscription is not None:
            self.subscription.stop()
        with contextlib.suppress(ValueError):
            self.among.remove(self)


class ServedBase:
    """A base served to many callers, one call at a time.

    Parameters
    ----------
    kb : BeliefBase
        The base. A journaled session (``BeliefBase.open_session``) follows its other writers
        and saves each change as its journal entry.
    session : str, optional
        For a base that is not journaled: the whole-snapshot session saved after each change
        (``None``: changes are kept in memory only).

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> served = ServedBase(BeliefBase(clock=ManualClock(0)))
    >>> served.change(lambda kb: kb.assert_("hq", "Austin", source="tool:registry"))
    (None, None)
    >>> with served.reading() as kb:
    ...     kb.value("hq")
    'Austin'
    >>> served.live, served.not_live
    (False, None)
    """

    def __init__(self, kb: BeliefBase, session: str | None = None) -> None:
        self.kb = kb
        found = getattr(kb, "session_id", None)
        #: whether the base is a journaled session (it follows other writers)
        self.journaled = isinstance(found, str)
        #: the session kept: the journal's id, else the snapshot session given (or None)
        self.session: str | None = found if self.journaled else session
        #: one caller at a time (re-entrant: a change reads the belief back inside it)
        self.lock = threading.RLock()
        #: why the base stopped following other writers (None while it follows, or when it
        #: has nothing to follow)
        self.not_live: str | None = None
        self._stuck_at: int | None = None  # the journal head the last failed sync met
        self._follower = threading.Lock()  # one follower at a time
        self._stopped = False  # the server is stopping: a follower's last failure is no news
        self._feed_watches: list[_FeedWatch] = []  # watches of a base that is not journaled

    @property
    def live(self) -> bool:
        """Whether the base follows other writers now (a journaled base that can apply them)."""
        return self.journaled and self.not_live is None

    def describe(self) -> str:
        """What the base is, for messages: ``session 'x'`` or ``the base``."""
        return f"session {self.session!r}" if self.session is not None else "the base"

    # -- following other writers ---------------------------------------------------------------
    def sync(self) -> int:
        """Apply other writers' entries now; how many. A failure is recorded (the base is not
        live), logged, and raised as :class:`NotLive`."""
        if not self.journaled:
            return 0
        with self.lock:
            try:
                applied = int(self.kb.sync())  # type: ignore[attr-defined]
            except Exception as exc:  # noqa: BLE001 - whatever stops it, it is said, not hidden
                self._lost(exc)
                raise NotLive(f"not live: {self.not_live}") from exc
            self._regained()
        return applied

    def follow(self, wait: float) -> int:
        """Wait (at most ``wait`` seconds) for other writers' entries, then apply them; how
        many. Never raises: a failure is recorded and logged (see :attr:`not_live`), and the
        entry that failed is tried again only once the journal moves on past it."""
        if not self.journaled or not self._follower.acquire(blocking=False):
            time.sleep(wait)  # nothing to follow, or another caller follows already
            return 0
        try:
            seen = int(self.kb.journal_seq)  # type: ignore[attr-defined]
            after = seen if self._stuck_at is None else max(seen, self._stuck_at)
            try:
                head = wait_journal(self.kb.ledger.store, str(self.session), after, wait,
                                    interval=POLL)
            except Exception as exc:  # noqa: BLE001 - the store's own failure, said, not hidden
                self._lost(exc)
                time.sleep(wait)
                return 0
            if head <= after:
                return 0
            try:
                return self.sync()
            except NotLive:
                self._stuck_at = head
                return 0
        finally:
            self._follower.release()

    def stop(self) -> None:
        """The server stops: a follower still waiting ends without a word (its ledger may be
        closing under it)."""
        self._stopped = True

    def _lost(self, exc: BaseException) -> None:
        if self._stopped:
            return
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        if reason != self.not_live:
            LOG.warning("%s: not live: %s", self.describe(), reason)
        self.not_live = reason

    def _regained(self) -> None:
        if self.not_live is not None:
            LOG.warning("%s: live again (other writers' changes applied)", self.describe())
        self.not_live = None
        self._stuck_at = None

    # -- reading and changing ------------------------------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[BeliefBase]:
        """The base, synced with other writers, held for one caller (raises
        :class:`NotLive` when it cannot be synced: an answer would be stale)."""
        with self.lock:
            self.sync()
            yield self.kb

    def change(self, apply: Callable[[BeliefBase], T]) -> tuple[T, int | None]:
        """Apply a change and save it; what ``apply`` returned and the saved version (a
        journaled session's entry number; ``None`` when no session is kept)."""
        with self.lock:
            self.sync()
            result = apply(self.kb)
            saved = self.save()
            self.kb.engine.feed.publish()  # its watchers (the inspector's live events) hear it
            return result, saved

    def save(self) -> int | None:
        """Save the base as it is now (a journaled change saved itself: its entry number). A
        whole-snapshot save that fails drops the change (:meth:`drop`)."""
        if self.journaled:
            return int(self.kb.journal_seq)  # type: ignore[attr-defined]
        if self.session is None:
            return None
        try:
            return self.kb.save_session(self.session)
        except CorollaryError as exc:
            self.drop(exc, "saving it failed")

    def drop(self, exc: CorollaryError, why: str) -> NoReturn:
        """Drop an applied change that cannot be kept: serve the session as stored (the base
        before the change), so the base never runs ahead of its session, and raise
        :class:`Unsaved` saying so."""
        if self.session is None:
            raise Unsaved(f"{exc} ({why}; the server keeps no session to go back to, so the "
                          "change stays in the base)") from exc
        try:
            self.kb = BeliefBase.load_session(self.kb.ledger, self.session, clock=self.kb.clock)
            for watch in self._feed_watches:
                watch.attach()  # the base served now has an engine of its own
        except CorollaryError as again:
            raise Unsaved(f"{exc}; reloading the session failed too ({again}): the server's "
                          "base holds the change but the session does not") from exc
        raise Unsaved(f"{exc}. This change was not saved ({why}): the server now serves the "
                      "session as stored; read it again and reapply the change") from exc

    def watch(self, callback: Callable[[Any], Any], keys: Iterable[str] | None = None) -> Any:
        """``kb.watch(callback, keys)`` of a journaled base (a ``WatchEvent`` per changed value,
        its own changes and other writers'); for a base that is not journaled, the changes
        made through this served base (:meth:`change`), heard on the engine's change feed
        (:mod:`corollary.tms.feed`): a :class:`Changed` per key. The handle has ``stop()``.

        >>> from corollary import BeliefBase, ManualClock
        >>> served = ServedBase(BeliefBase(clock=ManualClock(0)))
        >>> heard = []
        >>> handle = served.watch(lambda event: heard.append(event.key))
        >>> _ = served.change(lambda kb: kb.assert_("hq", "Austin", source="tool:registry"))
        >>> heard
        ['hq']
        >>> handle.stop()
        """
        if self.journaled:
            return self.kb.watch(callback, keys=keys)  # type: ignore[attr-defined]
        watch = _FeedWatch(self, callback, None if keys is None else frozenset(keys),
                           self._feed_watches)
        self._feed_watches.append(watch)
        return watch


def log_to_stderr(name: str) -> None:
    """Print what :data:`LOG` says (a served base that stops, or starts again, following other
    writers) on stderr as ``NAME: ...``, unless the application gave it a handler already.

    Examples
    --------
    >>> log_to_stderr("corollary ui")
    >>> LOG.handlers[0].formatter._fmt
    'corollary ui: %(message)s'
    """
    if not LOG.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(f"{name}: %(message)s"))
        LOG.addHandler(handler)
        LOG.setLevel(logging.INFO)
        LOG.propagate = False  # said once, not again by a handler a library gave the root

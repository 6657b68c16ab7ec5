"""The base's doors to journaled sessions: ``BeliefBase.open_session`` and ``convert_session``,
and the session's questions (``sync``, ``session_id``, ``journal_seq``, ``history``, ``as_of``,
``watch``, ``checkpoint``), which a base answers through the :class:`Journal` it has
(``kb.journal``), or as a base that is no session. A part of the facade (its methods are the
base's own); the journal itself is :mod:`corollary.facade.journaled`, and what a session is,
:mod:`corollary.facade.session`.

A session is *composed*, never made: ``Shop.open_session(...)`` returns a ``Shop`` whose
operation log is its journal; no class is built for it (docs/journal.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from ..foundations.errors import JournalError
from .journal_entries import HistoryEntry, WatchCallback
from .journaled import (
    CHECKPOINT_EVERY,
    CHECKPOINT_SECONDS,
    Journal,
    convert_to_journal,
    open_journaled,
)
from .operations import OperationLog
from .watching import Watch

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Self

    from ..foundations.clock import Clock
    from ..trust.ledger import TrustLedger
    from .base import BeliefBase
    from .lookup import Lookup

__all__ = ["SessionMethods"]


class SessionMethods:
    """``BeliefBase.open_session``, ``convert_session``, and ``sync``/``session_id``/
    ``journal_seq`` of a base that is no session (a :class:`~corollary.Session` has its own)."""

    _lookup: Lookup
    _oplog: OperationLog | None

    @property
    def journal(self) -> Journal | None:
        """The session journal this base keeps its changes in (``None``: it is no session).

        >>> from corollary import BeliefBase, TrustLedger
        >>> BeliefBase().journal is None, BeliefBase.open_session(TrustLedger(), "s").journal.sid
        (True, 's')
        """
        log = self._oplog
        return log if type(log) is Journal else None

    def _session_journal(self, what: str) -> Journal:
        journal = self.journal
        if journal is None:
            raise JournalError(f"this base is no session: {what} reads a session's journal "
                               "(open one with BeliefBase.open_session, docs/journal.md)")
        return journal

    @classmethod
    def open_session(cls, ledger: TrustLedger, session_id: str, *, clock: Clock | None = None,
                     checkpoint_every: int = CHECKPOINT_EVERY,
                     checkpoint_seconds: float = CHECKPOINT_SECONDS,
                     **options: Any) -> Self:
        """Open (or create) the journaled session ``session_id`` in ``ledger``'s store.

        Every change of the base returned (``assert_``, ``claim``, ``retract``, ``call``, ...)
        is one entry of the session's journal, committed with the outcomes it records before
        the change returns; many processes may open one session and change it together (one
        order, the store's). ``kb.sync()`` applies other writers' entries; ``kb.history()``,
        ``kb.as_of(t)`` and ``kb.watch(callback)`` read the journal. A checkpoint (a snapshot)
        is written after ``checkpoint_every`` entries or ``checkpoint_seconds`` seconds, so
        opening reads the newest one and replays the rest. ``options`` are the base's
        (``policy``, ``conflict_policy``, ``rules``, ``tools``, ``learn_from_checks``,
        ``max_rule_firings``, ``max_rule_seconds``, ``embedder``; ``functions`` for promises):
        ``policy`` and ``learn_from_checks`` apply to a new session only. The session keeps the
        ``conflict_policy`` it was created with, and every open reads with it: another one
        given is refused with :class:`~corollary.foundations.errors.SessionPolicyError` (a
        session created before sessions kept it takes the one given, as before; docs/journal.md,
        "What a session keeps"). The ledger must be
        SQLite, PostgreSQL or in memory (:class:`~corollary.foundations.errors.JournalUnsupportedError`
        otherwise). See docs/journal.md.

        Examples
        --------
        >>> from corollary import BeliefBase, ManualClock, TrustLedger
        >>> ledger = TrustLedger()
        >>> kb = BeliefBase.open_session(ledger, "demo", clock=ManualClock(10))
        >>> kb.assert_("hq", "Austin", source="tool:registry")
        >>> BeliefBase.open_session(ledger, "demo").history()[0].operation
        'assert_'
        """
        opened = open_journaled(cast("type[BeliefBase]", cls), ledger, session_id, clock=clock,
                                checkpoint_every=checkpoint_every,
                                checkpoint_seconds=checkpoint_seconds, **options)
        return cast("Self", opened)

    @classmethod
    def convert_session(cls, ledger: TrustLedger, session_id: str, *, overwrite: bool = False,
                        **options: Any) -> int:
        """Turn the whole-snapshot session ``session_id`` (:meth:`save_session`) into a journaled
        session (its snapshot is the journal's checkpoint at seq 0); return 0. ``options``:
        ``rules``, ``tools``, ``functions`` to check the snapshot with. The whole-snapshot
        session is left as it is. See :func:`corollary.facade.journaled.convert_to_journal`.

        Examples
        --------
        >>> from corollary import BeliefBase, TrustLedger
        >>> shared = TrustLedger()
        >>> _ = BeliefBase(ledger=shared).save_session("notes")   # a whole-snapshot session
        >>> BeliefBase.convert_session(shared, "notes"), BeliefBase.open_session(
        ...     shared, "notes").journal_seq
        (0, 0)
        """
        return convert_to_journal(cast("type[BeliefBase]", cls), ledger, session_id,
                                  overwrite=overwrite, **options)

    def sync(self) -> int:
        """Bring every label and confidence up to now, with the outcomes other processes
        recorded in a shared ledger since; return how many journal entries were applied.

        A session (:meth:`open_session`) first applies the entries other writers appended to
        it (:meth:`Journal.sync <corollary.facade.journaled.Journal.sync>`); a base that is no
        session always returns 0.

        Examples
        --------
        >>> from corollary import BeliefBase
        >>> BeliefBase().sync()
        0
        """
        journal = self.journal
        if journal is not None:
            return journal.sync()
        self._lookup.sync()
        return 0

    @property
    def session_id(self) -> str | None:
        """The journaled session this base belongs to (``None``: none, this base)."""
        journal = self.journal
        return None if journal is None else journal.session

    @property
    def journal_seq(self) -> int:
        """The seq of the last journal entry this base has applied (0: no journal)."""
        journal = self.journal
        return 0 if journal is None else int(journal.seen)

    def history(self, key: str | None = None, *, since: float | None = None,
                limit: int | None = None, before: int | None = None) -> list[HistoryEntry]:
        """The session's changes, oldest first (see :meth:`Journal.history
        <corollary.facade.journaled.Journal.history>`); a base that is no session raises
        :class:`~corollary.foundations.errors.JournalError`."""
        return self._session_journal("history").history(key, since=since, limit=limit,
                                                         before=before)

    def as_of(self, t: float) -> Self:
        """A read-only base as this session stood at journal time ``t``, of this base's class
        (see :meth:`Journal.as_of <corollary.facade.journaled.Journal.as_of>`)."""
        return cast("Self", self._session_journal("as_of").as_of(t))

    def watch(self, callback: WatchCallback, keys: Iterable[str] | None = None) -> Watch:
        """Call ``callback(event)`` after each entry applied here that changes a watched
        key's label (see :meth:`Journal.watch <corollary.facade.journaled.Journal.watch>`)."""
        return self._session_journal("watch").watch(callback, keys)

    def checkpoint(self) -> int:
        """Write a checkpoint of this session now; return its seq (see
        :meth:`Journal.checkpoint <corollary.facade.journaled.Journal.checkpoint>`)."""
        return self._session_journal("checkpoint").checkpoint()

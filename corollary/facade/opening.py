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
from typing import TYPE_CHECKING, TypeVar, cast

from ..foundations.errors import JournalError
from .journal_entries import HistoryEntry, WatchCallback
from .journaled import (
    Journal,
)
from .watching import Watch

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

B = TypeVar("B", bound="BeliefBase")


def _session_journal(kb: BeliefBase, what: str) -> Journal:
    journal = kb.journal
    if journal is None:
        raise JournalError(f"this base is no session: {what} reads a session's journal "
                           "(open one with BeliefBase.open_session, docs/journal.md)")
    return journal


def sync(kb: BeliefBase) -> int:
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
    journal = kb.journal
    if journal is not None:
        return journal.sync()
    kb.parts.lookup.sync()
    return 0


def history(kb: BeliefBase, key: str | None = None, *, since: float | None = None,
            limit: int | None = None, before: int | None = None) -> list[HistoryEntry]:
    """The session's changes, oldest first (see :meth:`Journal.history
    <corollary.facade.journaled.Journal.history>`); a base that is no session raises
    :class:`~corollary.foundations.errors.JournalError`."""
    return _session_journal(kb, "history").history(key, since=since, limit=limit,
                                                   before=before)


def as_of(kb: B, t: float) -> B:
    """A read-only base as this session stood at journal time ``t``, of this base's class
    (see :meth:`Journal.as_of <corollary.facade.journaled.Journal.as_of>`)."""
    return cast("B", _session_journal(kb, "as_of").as_of(t))


def watch(kb: BeliefBase, callback: WatchCallback, keys: Iterable[str] | None = None) -> Watch:
    """Call ``callback(event)`` after each entry applied here that changes a watched
    key's label (see :meth:`Journal.watch <corollary.facade.journaled.Journal.watch>`)."""
    return _session_journal(kb, "watch").watch(callback, keys)


def checkpoint(kb: BeliefBase) -> int:
    """Write a checkpoint of this session now; return its seq (see
    :meth:`Journal.checkpoint <corollary.facade.journaled.Journal.checkpoint>`)."""
    return _session_journal(kb, "checkpoint").checkpoint()

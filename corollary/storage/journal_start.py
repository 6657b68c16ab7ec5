"""What opening a journaled session reads: its newest checkpoint, the entries from there, the
head.

A SQL store reads the three in one statement (``journal_start``,
:class:`~corollary.storage.queries.SQLQueries`), one round trip and one snapshot of the
database; :func:`journal_start` asks any other :class:`~corollary.storage.protocols.JournalStore`
one method at a time (the protocol's methods stay as they are: a store of one's own need not
offer it).
"""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen(slots=True)
class JournalStart:
    """A session's start as one read saw it (``consistent``) or as several did.

    Attributes
    ----------
    checkpoint : tuple of (int, bytes) or None
        The newest checkpoint's ``(seq, data)``; ``None``: the session has none.
    entries : list of (int, bytes)
        The journal's ``(seq, entry)`` from the checkpoint's own entry on (the entry at its
        seq, when the seq is above 0, then every later one), ascending.
    head : int
        The head's seq (``0``: no entry).
    consistent : bool
        Whether the three were read together (one statement): then nothing another writer
        did can fall between them.

    Examples
    --------
    >>> from corollary.storage.sqlite import SQLiteStore
    >>> store = SQLiteStore(":memory:")
    >>> store.write_checkpoint("s", 0, b"state")
    >>> store.journal_start("s")
    JournalStart(checkpoint=(0, b'state'), entries=[], head=0, consistent=True)
    >>> store.close()
    """

    checkpoint: tuple[int, bytes] | None
    entries: list[tuple[int, bytes]]
    head: int
    consistent: bool = True


def journal_start(store: Any, session_id: str) -> JournalStart:
    """``store.journal_start(session_id)`` if the store offers it (one statement), else the
    same read one method at a time (checkpoint, entry at its seq, head, entries after):
    ``consistent=False``.

    Examples
    --------
    >>> from corollary.storage.memory import MemoryStore
    >>> journal_start(MemoryStore(), "s")
    JournalStart(checkpoint=None, entries=[], head=0, consistent=False)
    """
    own = getattr(store, "journal_start", None)
    if own is not None:
        return own(session_id)  # type: ignore[no-any-return]
    found = store.read_checkpoint(session_id)
    if found is None:
        return JournalStart(None, [], store.journal_head(session_id), consistent=False)
    seq = found[0]
    head = store.journal_head(session_id)  # before the entries: others may append meanwhile
    entries = store.journal_entries(session_id, max(seq - 1, 0))
    return JournalStart(found, entries, head, consistent=False)

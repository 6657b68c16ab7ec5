"""What opening a journaled session reads: its newest checkpoint, the entries from there, the
head.

A SQL store reads the three in one statement (``journal_start``,
:class:`~corollary.storage.queries.SQLQueries`), one round trip and one snapshot of the
database; :func:`journal_start` asks any other :class:`~corollary.storage.protocols.JournalStore`
one method at a time (the protocol's methods stay as they are: a store of one's own need not
offer it).

What each read held, by size (:class:`StartSizes`), is kept for the thread that read it until it
asks (:func:`sizes_read`): a cache deciding whether a checkpoint would pay for itself weighs
the entries an open replayed against the checkpoint it decoded (docs/many-users.md,
"Checkpoints").
"""

from __future__ import annotations

import threading
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


@attrs.frozen(slots=True)
class StartSizes:
    """What one read of a session's start held, by size: what opening from it decodes and
    replays.

    Attributes
    ----------
    session_id : str
        The session read.
    checkpoint_seq, checkpoint_bytes : int
        The newest checkpoint's seq and size (``-1`` and ``0``: the session had none).
    replayed, replayed_bytes : int
        The entries after the checkpoint (an open replays them) and their total size.
    """

    session_id: str
    checkpoint_seq: int
    checkpoint_bytes: int
    replayed: int
    replayed_bytes: int


_LAST = threading.local()  # .sizes: the StartSizes of this thread's last read


def sizes_read(session_id: str) -> StartSizes | None:
    """The sizes of the last start of ``session_id`` that this thread read
    (:func:`journal_start`), then forgotten; ``None`` if its last read was of another
    session, or it has read none since it last asked.

    Examples
    --------
    >>> from corollary.storage.memory import MemoryStore
    >>> store = MemoryStore()
    >>> store.write_checkpoint("s", 0, b"state")
    >>> _ = journal_start(store, "s")
    >>> sizes_read("s"), sizes_read("s")
    (StartSizes(session_id='s', checkpoint_seq=0, checkpoint_bytes=5, replayed=0, replayed_bytes=0), None)
    """
    found: StartSizes | None = getattr(_LAST, "sizes", None)
    if found is None or found.session_id != session_id:
        return None
    _LAST.sizes = None
    return found


def journal_start(store: Any, session_id: str) -> JournalStart:
    """``store.journal_start(session_id)`` if the store offers it (one statement), else the
    same read one method at a time (checkpoint, entry at its seq, head, entries after):
    ``consistent=False``. Its sizes are kept for this thread (:func:`sizes_read`).

    Examples
    --------
    >>> from corollary.storage.memory import MemoryStore
    >>> journal_start(MemoryStore(), "s")
    JournalStart(checkpoint=None, entries=[], head=0, consistent=False)
    """
    start = _read_start(store, session_id)
    seq, data = start.checkpoint if start.checkpoint is not None else (-1, b"")
    replayed = [len(entry) for at, entry in start.entries if at > seq]
    _LAST.sizes = StartSizes(session_id, seq, len(data), len(replayed), sum(replayed))
    return start


def _read_start(store: Any, session_id: str) -> JournalStart:
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

"""Waiting for a journaled session to move: notified where the store can, polled elsewhere.

A follower (a process that reads a session others change) calls :func:`wait_journal` to sleep
until the session has an entry it has not seen. :class:`~corollary.storage.postgres.PostgresStore`
wakes it with LISTEN/NOTIFY (``store.wait_journal``); any other journal-capable store is polled
(``store.journal_head``) every ``interval`` seconds. See docs/journal.md.
"""

from __future__ import annotations

import time
from typing import Any

from ..foundations._validate import check_int, check_number


def wait_journal(store: Any, session_id: str, after: int, timeout: float, *,
                 interval: float = 0.05) -> int:
    """Wait until ``session_id`` has an entry past ``after`` (at most ``timeout`` seconds).

    Returns the session's head: ``> after`` if something was appended, else the head when the
    time ran out. Stores with a ``wait_journal`` of their own (PostgreSQL) are asked to wait;
    others are polled every ``interval`` seconds.

    Examples
    --------
    >>> from corollary.storage.waiting import wait_journal
    >>> class Store:  # any object with journal_head will do
    ...     def journal_head(self, session_id): return 3
    >>> wait_journal(Store(), "s", after=2, timeout=1.0)
    3
    >>> wait_journal(Store(), "s", after=3, timeout=0.0)
    3
    """
    after = check_int(after, "after", low=0)
    timeout = check_number(timeout, "timeout", low=0)
    interval = check_number(interval, "interval", low=0.001)
    own = getattr(store, "wait_journal", None)
    if own is not None:
        return int(own(session_id, after, timeout))
    deadline = time.monotonic() + timeout
    while True:
        head = int(store.journal_head(session_id))
        left = deadline - time.monotonic()
        if head > after or left <= 0:
            return head
        time.sleep(min(interval, left))

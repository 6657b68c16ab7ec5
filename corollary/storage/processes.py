"""A store's connections belong to the process that opened them: what a fork does to them.

Every live SQL store is tracked, and :func:`os.register_at_fork` hooks hand a forked child
fresh locks, an emptied cache and no connection (the store reconnects on first use in the
child); what the child inherited is never used by it, and what it must not finalise
(PostgreSQL sockets the parent still uses) is kept alive for the child's whole life
(:func:`keep_forever`).
"""

from __future__ import annotations

import os
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .cached import CachedSQLStore

#: Every SQL store alive in this process, for the fork hooks.
_LIVE: weakref.WeakSet[CachedSQLStore] = weakref.WeakSet()
#: What forked children inherited and must never finalise (see :func:`keep_forever`).
_KEPT: list[object] = []


def keep_forever(obj: object) -> None:
    """Never let ``obj`` be finalised in this process, not even at interpreter exit.

    Used in forked children for connections the parent opened: finalising a PostgreSQL
    connection sends the server a goodbye over the parent's socket (ending the parent's
    session), and finalising a SQLite connection closes the parent's database in this process.
    A module list alone is cleared at interpreter exit, so the reference is also leaked.
    """
    _KEPT.append(obj)
    try:
        import ctypes

        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    except Exception:  # pragma: no cover - not CPython: the list is the best we can do
        pass


class Owned:
    """What a store opened (a connection, a pool) and the process that opened it.

    The store's finalizer calls :meth:`release`, so a store that is dropped without being
    closed closes what it opened at once: a ``sqlite3.Connection`` is a reference cycle of its
    own (it holds its statement cache, which holds it), and a connection pool is held by its
    worker threads, so neither would otherwise close before a garbage collection (or ever).
    """

    __slots__ = ("resource", "pid")

    def __init__(self) -> None:
        self.resource: Any = None
        self.pid = os.getpid()

    def set(self, resource: Any) -> None:
        self.resource = resource
        self.pid = os.getpid()

    def release(self) -> None:
        """Close the resource in the process that opened it; in any other, keep it forever."""
        resource, self.resource = self.resource, None
        if resource is None:
            return
        if self.pid == os.getpid():
            resource.close()
        else:
            keep_forever(resource)


def owned_by(store: object) -> Owned:
    """A new :class:`Owned` released when ``store`` is dropped."""
    owned = Owned()
    weakref.finalize(store, owned.release)
    return owned


def track(store: CachedSQLStore) -> None:
    """Call ``store``'s fork hooks (``prepare_fork``, ``finish_fork_in_parent``,
    ``finish_fork_in_child``) at every fork of this process while it is alive."""
    _LIVE.add(store)


def _before_fork() -> None:
    for store in list(_LIVE):
        store.prepare_fork()


def _after_fork_in_parent() -> None:
    for store in list(_LIVE):
        store.finish_fork_in_parent()


def _after_fork_in_child() -> None:
    for store in list(_LIVE):
        store.finish_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                         after_in_child=_after_fork_in_child)

"""``corollary.Session``: a belief base kept as a session journal (docs/journal.md).

A session is *composed*, not made: :meth:`BeliefBase.open_session
<corollary.BeliefBase.open_session>` (and ``load_session`` on a store that keeps journals)
returns a base of the class it is called on, which *has* a journal
(:class:`~corollary.facade.journaled.Journal`, ``kb.journal``) installed as its operation log
(:mod:`corollary.facade.operations`): every public change is one journal entry, and the
journal's questions (:meth:`~corollary.BeliefBase.sync`, :meth:`~corollary.BeliefBase.history`,
:meth:`~corollary.BeliefBase.as_of`, :meth:`~corollary.BeliefBase.watch`,
:meth:`~corollary.BeliefBase.checkpoint`, ``session_id``, ``journal_seq``) are the base's own
methods, visible to type checkers on the base's class. No class is built at run time for it.

:class:`Session` is the kind of such a base: ``isinstance(kb, Session)`` is true of a base that
has a journal, whatever its class (a ``Shop`` opened as a session is a ``Shop`` and a
``Session``). A subclass of ``Session`` is an ordinary subclass of the base.

Examples
--------
>>> from corollary import BeliefBase, ManualClock, Session, TrustLedger
>>> kb = BeliefBase.open_session(TrustLedger(), "team", clock=ManualClock(10))
>>> isinstance(kb, Session), isinstance(kb, BeliefBase), isinstance(BeliefBase(), Session)
(True, True, False)
>>> kb.assert_("hq", "Austin", source="tool:registry")
>>> [h.operation for h in kb.history()], kb.as_of(10).value("hq")
(['assert_'], 'Austin')
"""

from __future__ import annotations

from typing import Any

from .base import BeliefBase

__all__ = ["Session"]


class _SessionKind(type):
    """The metaclass of :class:`Session`: a base is a ``Session`` when it has a journal."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Session:
            return isinstance(instance, BeliefBase) and instance.journal is not None
        return super().__instancecheck__(instance)


class Session(BeliefBase, metaclass=_SessionKind):
    """A :class:`~corollary.BeliefBase` kept as a session journal (see
    :mod:`corollary.facade.session`): ``isinstance(kb, Session)`` tells a base opened with
    ``open_session`` (of any class) from one that is no session.

    Its changes (``assert_``, ``claim``, ``retract``, ``call``, ...) have the base's own
    signatures; each one runs as one journal entry through the journal the base holds, so it
    holds no copy of any change.
    """

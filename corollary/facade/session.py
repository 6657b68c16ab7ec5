"""``corollary.Session``: a belief base kept as a session journal (docs/journal.md).

:meth:`BeliefBase.open_session <corollary.BeliefBase.open_session>` (and ``load_session`` on a
store that keeps journals) returns a :class:`Session`. It is a :class:`~corollary.BeliefBase`
whose every public change is one journal entry, plus the journal's own methods
(:meth:`~Session.sync`, :meth:`~Session.history`, :meth:`~Session.as_of`,
:meth:`~Session.watch`, :meth:`~Session.checkpoint`, :attr:`~Session.session_id`,
:attr:`~Session.journal_seq`), all visible to type checkers. The machinery is
:mod:`corollary.facade.journaled`; each change reaches it through the operation log
(:mod:`corollary.facade.operations`).

Examples
--------
>>> from corollary import BeliefBase, ManualClock, Session, TrustLedger
>>> kb = BeliefBase.open_session(TrustLedger(), "team", clock=ManualClock(10))
>>> isinstance(kb, Session), isinstance(kb, BeliefBase)
(True, True)
>>> kb.assert_("hq", "Austin", source="tool:registry")
>>> [h.operation for h in kb.history()], kb.as_of(10).value("hq")
(['assert_'], 'Austin')
"""

from __future__ import annotations

from .base import BeliefBase
from .journaled import SESSION_CLASSES, JournaledMethods

__all__ = ["Session"]


class Session(JournaledMethods, BeliefBase):
    """A :class:`~corollary.BeliefBase` kept as a session journal: made by
    ``BeliefBase.open_session`` (see :mod:`corollary.facade.session`), never directly.

    Its changes (``assert_``, ``claim``, ``retract``, ``call``, ...) have the base's own
    signatures; each one runs as one journal entry: the session installs its journal as the
    base's operation log (:mod:`corollary.facade.operations`), so it holds no copy of any
    change. A base's subclass opened as a session is a subclass of both (``<Name>Session``).
    """


SESSION_CLASSES[BeliefBase] = Session  # what BeliefBase.open_session makes

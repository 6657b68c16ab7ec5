"""The snapshot methods of :class:`~corollary.BeliefBase`: to and from data, files and sessions.

A part of the facade (its methods are the base's own). :mod:`corollary.snapshot` writes and
checks the documents; here the base hands it its state (:class:`~corollary.snapshot.BaseState`)
and is rebuilt from a checked plan, through each part's explicit restore.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..foundations._collector import collector_paused
from ..foundations._validate import check_bool
from ..foundations.clock import Clock
from ..foundations.errors import InvalidTypeError
from ..reasons.rules import Rule
from ..snapshot.state import (
    BaseState,
    SnapshotPlan,
    read_file,
    read_session,
    read_snapshot,
    restore_engine,
    restore_ledger,
    save_session,
    state_to_dict,
    write_file,
)
from ..storage.base import check_session, keeps_journals
from ..trust.ledger import TrustLedger

if TYPE_CHECKING:  # pragma: no cover
    from ..promises.book import PromiseBook
    from ..reasons.calls import CallMemory
    from ..reasons.rule_engine import RuleEngine
    from ..tms import Engine
    from ..tms.conflicts import ConflictPolicy
    from ..trust.policy import TrustPolicy
    from ..trust.view import TrustView
    from .base import BeliefBase

_KEEP: Any = object()  # conflict_policy not given: the snapshot's own
#: ``conflict_policy=KEEP_SAVED``: the policy the snapshot (or checkpoint) was saved with
KEEP_SAVED: Any = _KEEP


class SnapshotMethods:
    """``kb.to_dict``, ``BeliefBase.from_dict``, ``save`` / ``load`` and sessions."""

    policy: TrustPolicy
    conflict_policy: ConflictPolicy | None
    learn_from_checks: bool
    _trust: TrustView
    _engine: Engine
    _rules: RuleEngine
    _promises: PromiseBook
    _calls: CallMemory
    _sessions: dict[str, int]
    _hooks: bool
    _embedder: Callable[[list[str]], Any] | None
    clock: Clock

    if TYPE_CHECKING:  # provided by BeliefBase
        @property
        def ledger(self) -> TrustLedger: ...

        @property
        def shared_ledger(self) -> bool: ...

        def now(self) -> float: ...

        @property
        def session_id(self) -> str | None: ...

        @property
        def journal_seq(self) -> int: ...

    def _state(self) -> BaseState:
        return BaseState(
            taken_at=self.now(), policy=self.policy, conflicts=self.conflict_policy,
            learn_from_checks=self.learn_from_checks, shared_ledger=self.shared_ledger,
            ledger=self.ledger, tools=sorted(self._trust.tools),
            rules=[r.name for r in self._rules.rules], fired=self._rules.fired,
            engine=self._engine, promises=self._promises, calls=self._calls)

    #: What a base's state is, as :meth:`_take_state` takes it: its parts, as a snapshot
    #: restores them. Not in it: the configuration of this process (``conflict_policy``,
    #: ``max_rule_firings``, ``max_rule_seconds``), the whole-session versions it saved
    #: (``_sessions``), its operation count and id (``_ops``, ``_uid``: outcome event ids),
    #: its operation log (``_oplog``) and anything a subclass adds (a subclass whose own
    #: attributes are state extends :meth:`_take_state`).
    STATE_PARTS = ("policy", "clock", "learn_from_checks", "_trust", "_engine", "_sync_engine",
                   "_rules", "_lookup", "_promises", "_calls", "_recaller", "_embedder",
                   "_hooks")
    #: What a base holds besides its state (:attr:`STATE_PARTS`): every attribute a base sets is
    #: in one of the two (a test holds it, so a new one is placed when it is added).
    OWN_PARTS = ("conflict_policy", "max_rule_firings", "max_rule_seconds", "_sessions", "_ops",
                 "_uid", "_oplog")

    def _take_state(self, other: BeliefBase) -> None:
        """Take ``other``'s state (:attr:`STATE_PARTS`) as this base's own, the parts
        themselves, not copies: ``other`` is not used again. A journaled session takes the
        state another writer's promise change left, and a base rebuilt from its journal
        (:mod:`corollary.facade.journaled`)."""
        for name in self.STATE_PARTS:
            setattr(self, name, getattr(other, name))

    def to_dict(self) -> dict[str, Any]:
        """The whole base as plain data (schema-versioned); see :mod:`corollary.snapshot`."""
        return state_to_dict(self._state())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], ledger: TrustLedger | None = None,
                  clock: Clock | None = None, *, rules: Iterable[Rule] = (),
                  tools: Iterable[Callable[..., Any]] = (), conflict_policy: Any = _KEEP,
                  functions: Iterable[Callable[..., Any]] = (),
                  path: object = None,
                  embedder: Callable[[list[str]], Any] | None = None) -> BeliefBase:
        """Rebuild a base from :meth:`to_dict` output, re-binding rules and tools by name, and
        the signal and group functions of promises from ``functions`` (by qualified name).

        The document is checked field by field first (:func:`corollary.snapshot.read_snapshot`);
        nothing is built from a document that fails. ``conflict_policy`` replaces the saved
        policy (needed for :class:`~corollary.AskHuman`, whose person is not saved).
        """
        if clock is not None and not callable(clock):
            raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
        with collector_paused():  # a restore allocates millions of objects and frees none
            options = {} if conflict_policy is _KEEP else {"conflicts": conflict_policy}
            plan = read_snapshot(data, path, ledger=ledger, rules=rules, tools=tools,
                                 functions=functions, **options)
            if plan.missing_ledger:
                warnings.warn("this snapshot was taken with a shared ledger; pass ledger= to "
                              "attach it (using an empty one)", stacklevel=2)
            return cls._from_plan(plan, clock, embedder)

    @classmethod
    def _from_plan(cls, plan: SnapshotPlan, clock: Clock | None,
                   embedder: Callable[[list[str]], Any] | None = None) -> BeliefBase:
        """Build a base from a checked snapshot, through each part's explicit restore."""
        own = plan.own_ledger
        kb = cast("type[BeliefBase]", cls)(
            policy=plan.policy, ledger=restore_ledger(plan, clock), clock=clock,
            conflict_policy=plan.conflicts, tools=plan.tools,
            learn_from_checks=plan.learn_from_checks, embedder=embedder)
        kb._trust.shared = own is None and plan.ledger is not None
        beliefs = restore_engine(kb._engine, plan)
        for r in plan.rules:
            kb._rules.add(r)
        kb._watch_changes()
        kb._rules.restore(plan.fired)
        kb._promises.restore(plan.promises, plan.bindings, plan.verdicts, plan.calibrator)
        kb._calls.restore((beliefs[i], source, arguments) for i, source, arguments in plan.calls)
        # rules and tools passed in that the snapshot did not use join the restored base
        for t in plan.extra_tools:
            kb.add_tool(t)
        for r in plan.extra_rules:
            kb.add_rule(r)
        if kb._engine.touched:
            kb._engine.touched.clear()
        return kb

    def save(self, path: str | os.PathLike[str], *, format: str | None = None) -> None:
        """Write a snapshot atomically (msgpack by default, JSON for ``.json``)."""
        write_file(self._state(), path, format=format)

    @classmethod
    def load(cls, path: str | os.PathLike[str], ledger: TrustLedger | None = None,
             clock: Clock | None = None, **options: Any) -> BeliefBase:
        """Read a snapshot written by :meth:`save`; a corrupt, truncated, foreign or newer file
        raises ``SnapshotError``."""
        return cls.from_dict(read_file(path), ledger=ledger, clock=clock, path=path, **options)

    def save_session(self, session_id: str, *, overwrite: bool = False) -> int:
        """Save a snapshot under ``session_id`` in the ledger's store (beside a shared ledger).

        On a store that keeps journals (memory, SQLite, PostgreSQL) a session that has a
        journal is changed through it, never by a whole snapshot: on the base that journal
        opened (:meth:`load_session`, :meth:`open_session`) this returns the journal's seq
        (every change is already saved); from any other base it raises
        :class:`~corollary.foundations.errors.SessionJournaledError` and writes nothing.
        A session without a journal is a whole snapshot until it is next opened, which turns
        it into a journal (docs/journal.md).

        Saves are versioned, so that two processes that load, change and save one session
        cannot silently lose a change: the save succeeds only if the stored session is the
        version this base loaded or last saved (or, for a base that never did either, if there
        is none yet). Otherwise it raises :class:`~corollary.foundations.errors.ConcurrentWriteError` and
        writes nothing: reload the session with :meth:`load_session` and reapply the change.
        ``overwrite=True`` replaces whatever is stored. Returns the session's new version.
        """
        check_bool(overwrite, "overwrite")
        if session_id == self.session_id:  # a journal: every change was saved as it was made
            return self.journal_seq
        expected = None if overwrite else self._sessions.get(session_id, 0)
        version = save_session(self._state(), self.ledger.store, session_id, expected)
        self._sessions[session_id] = version
        return version

    def open_as_session(self, session_id: str) -> BeliefBase | None:
        """This base as the journaled session ``session_id``, on a ledger whose store keeps
        journals (``None`` on one that keeps none: a JSON file, where :meth:`save_session`
        keeps the whole snapshot).

        The base is saved under ``session_id`` first (so a session this base never loaded or
        saved is refused, as by :meth:`save_session`, and one that is a journal already raises
        :class:`~corollary.foundations.errors.SessionJournaledError`: open it instead), then
        opened as the journal's start with this base's rules and conflict policy. What serves a
        base under a session id (``corollary.mcp.make_server``) serves that journal, so every
        change commits with its outcomes or not at all (docs/journal.md).

        Examples
        --------
        >>> from corollary import BeliefBase, ManualClock, TrustLedger
        >>> kb = BeliefBase(ledger=TrustLedger(), clock=ManualClock(0))
        >>> kb.assert_("hq", "Austin", source="tool:registry")
        >>> session = kb.open_as_session("s")
        >>> session.session_id, session.value("hq")
        ('s', 'Austin')
        """
        if session_id == self.session_id:
            return cast("BeliefBase", self)
        if not keeps_journals(self.ledger.store):
            return None
        self.save_session(session_id)
        return type(self).load_session(
            self.ledger, session_id, clock=self.clock, rules=list(self._rules.rules),
            conflict_policy=self.conflict_policy, embedder=self._embedder)

    @classmethod
    def load_session(cls, ledger: TrustLedger, session_id: str, clock: Clock | None = None,
                     **options: Any) -> BeliefBase:
        """Resume the base saved under ``session_id`` in ``ledger``'s store, attached to it.

        On a store that keeps journals (memory, SQLite, PostgreSQL) the session is read
        through its journal: this is :meth:`open_session` (a whole-snapshot session becomes the
        journal's start on this first open), except that a conflict policy not given is the
        one the session was saved with. On a JSON-file ledger it is the whole snapshot last
        saved, and the base remembers the version it loaded, for its next
        :meth:`save_session`. No session under that id: ``SessionNotFoundError``.
        """
        if not isinstance(ledger, TrustLedger):
            raise InvalidTypeError("ledger must be a TrustLedger")
        if keeps_journals(ledger.store):
            session_id = check_session(session_id)
            if ledger.store.read_checkpoint(session_id) is None:  # type: ignore[attr-defined]
                read_session(ledger.store, session_id)  # none at all: SessionNotFoundError
            options.setdefault("conflict_policy", KEEP_SAVED)
            return cls.open_session(  # type: ignore[attr-defined,no-any-return]
                ledger, session_id, clock=clock, **options)
        data, version = read_session(ledger.store, session_id)
        kb = cls.from_dict(data, ledger=ledger, clock=clock, path=f"session {session_id!r}",
                           **options)
        kb._sessions[session_id] = version
        return kb


"""The snapshot methods of :class:`~corollary.BeliefBase`: to and from data, files and sessions.

A part of the facade (its methods are the base's own). :mod:`corollary.snapshot` writes and
checks the documents; here the base hands it its state (:class:`~corollary.snapshot.BaseState`)
and is rebuilt from a checked plan, through each part's explicit restore.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..foundations._collector import collector_paused
from ..foundations._validate import check_bool
from ..foundations.clock import Clock
from ..foundations.errors import InvalidTypeError
from ..foundations.values import Value
from ..reasons.rules import Rule
from ..snapshot.state import (
    BaseState,
    SnapshotPlan,
    read_file,
    read_session,
    read_snapshot,
    restore_engine,
    restore_ledger,
    state_to_dict,
    write_file,
)
from ..snapshot.state import save_session as write_session
from ..storage.base import check_session, keeps_journals
from ..trust.ledger import TrustLedger

if TYPE_CHECKING:  # pragma: no cover
    from ..retrieval.vectors import Embedder
    from .base import BeliefBase

B = TypeVar("B", bound="BeliefBase")

_KEEP: Any = object()  # conflict_policy not given: the snapshot's own
#: ``conflict_policy=KEEP_SAVED``: the policy the snapshot (or checkpoint) was saved with
KEEP_SAVED: Any = _KEEP


#: What a base's state is, as :func:`take_state` takes it: these attributes of the base and its
#: parts' state (:attr:`Parts.STATE <corollary.facade.parts.Parts.STATE>`), as a snapshot
#: restores them. Not in it: the configuration of this process (``conflict_policy``,
#: ``max_rule_firings``, ``max_rule_seconds``), the whole-session versions it saved, its
#: operation count and id (outcome event ids), its operation log and anything a subclass adds.
STATE_ATTRIBUTES = ("policy", "clock", "learn_from_checks")


def state_of(kb: BeliefBase) -> BaseState:
    """What a snapshot of ``kb`` writes (:class:`~corollary.snapshot.BaseState`)."""
    parts = kb.parts
    return BaseState(
        taken_at=kb.now(), policy=kb.policy, conflicts=kb.conflict_policy,
        learn_from_checks=kb.learn_from_checks, shared_ledger=kb.shared_ledger,
        ledger=kb.ledger, tools=sorted(parts.trust.tools),
        rules=[r.name for r in parts.rules.rules], fired=parts.rules.fired,
        engine=parts.engine, promises=parts.promises, calls=parts.calls,
        removed_rules=sorted(parts.rules.removed))


def take_state(kb: BeliefBase, other: BeliefBase) -> None:
    """``kb`` takes ``other``'s state (:data:`STATE_ATTRIBUTES` and its parts' state) as its
    own, the parts themselves, not copies: ``other`` is not used again. A journaled session
    takes the state another writer's promise change left, and a base rebuilt from its journal
    (:mod:`corollary.facade.journaled`)."""
    for name in STATE_ATTRIBUTES:
        setattr(kb, name, getattr(other, name))
    kb.parts.take_state(other.parts)


def to_dict(kb: BeliefBase) -> dict[str, Value]:
    """The whole base as plain data (schema-versioned); see :mod:`corollary.snapshot`."""
    return state_to_dict(state_of(kb))


def save(kb: BeliefBase, path: str | os.PathLike[str], *, format: str | None = None) -> None:
    """Write a snapshot atomically (msgpack by default, JSON for ``.json``)."""
    write_file(state_of(kb), path, format=format)


def save_session(kb: BeliefBase, session_id: str, *, overwrite: bool = False) -> int:
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
    if session_id == kb.session_id:  # a journal: every change was saved as it was made
        return kb.journal_seq
    expected = None if overwrite else kb.parts.sessions.get(session_id, 0)
    version = write_session(state_of(kb), kb.ledger.store, session_id, expected)
    kb.parts.sessions[session_id] = version
    return version


def open_as_session(kb: BeliefBase, session_id: str) -> BeliefBase | None:
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
    if session_id == kb.session_id:
        return kb
    if not keeps_journals(kb.ledger.store):
        return None
    kb.save_session(session_id)
    return type(kb).load_session(
        kb.ledger, session_id, clock=kb.clock, rules=list(kb.parts.rules.rules),
        conflict_policy=kb.conflict_policy, embedder=kb.parts.embedder)


def from_dict(cls: type[B], data: Mapping[str, Any], ledger: TrustLedger | None = None,
              clock: Clock | None = None, *, rules: Iterable[Rule] = (),
              tools: Iterable[Callable[..., object]] = (), conflict_policy: object = _KEEP,
              functions: Iterable[Callable[..., object]] = (), path: object = None,
              embedder: Embedder | None = None) -> B:
    """A ``cls`` rebuilt from :meth:`~corollary.BeliefBase.to_dict` output (see
    :meth:`BeliefBase.from_dict <corollary.BeliefBase.from_dict>`)."""
    if clock is not None and not callable(clock):
        raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
    with collector_paused():  # a restore allocates millions of objects and frees none
        options = {} if conflict_policy is _KEEP else {"conflicts": conflict_policy}
        plan = read_snapshot(data, path, ledger=ledger, rules=rules, tools=tools,
                             functions=functions, **options)
        if plan.missing_ledger:
            warnings.warn("this snapshot was taken with a shared ledger; pass ledger= to "
                          "attach it (using an empty one)", stacklevel=3)
        return from_plan(cls, plan, clock, embedder)


def from_plan(cls: type[B], plan: SnapshotPlan, clock: Clock | None,
              embedder: Embedder | None = None) -> B:
    """A ``cls`` built from a checked snapshot, through each part's explicit restore."""
    own = plan.own_ledger
    kb = cls(policy=plan.policy, ledger=restore_ledger(plan, clock), clock=clock,
             conflict_policy=plan.conflicts, tools=plan.tools,
             learn_from_checks=plan.learn_from_checks, embedder=embedder)
    parts = kb.parts
    parts.trust.shared = own is None and plan.ledger is not None
    beliefs = restore_engine(parts.engine, plan)
    for r in plan.rules:
        parts.rules.add(r)
    parts.watch_changes(kb.conflict_policy)
    parts.rules.restore(plan.fired)
    parts.rules.removed = set(plan.removed_rules)
    parts.promises.restore(plan.promises, plan.bindings, plan.verdicts, plan.calibrator)
    parts.calls.restore((beliefs[i], source, arguments) for i, source, arguments in plan.calls)
    # rules and tools passed in that the snapshot did not use join the restored base, but for
    # the rules its changes removed (read_snapshot leaves those out, docs/journal.md)
    for t in plan.extra_tools:
        kb.add_tool(t)
    for r in plan.extra_rules:
        kb.add_rule(r)
    if parts.engine.touched:
        parts.engine.touched.clear()
    return kb


def load(cls: type[B], path: str | os.PathLike[str], ledger: TrustLedger | None = None,
         clock: Clock | None = None, **options: Any) -> B:
    """The ``cls`` a snapshot file holds (see :meth:`BeliefBase.load <corollary.BeliefBase.load>`;
    ``options``: those of :func:`from_dict`, checked there)."""
    return from_dict(cls, read_file(path), ledger=ledger, clock=clock, path=path, **options)


def load_session(cls: type[B], ledger: TrustLedger, session_id: str,
                 clock: Clock | None = None, **options: Any) -> B:
    """The ``cls`` saved under ``session_id`` (see :meth:`BeliefBase.load_session
    <corollary.BeliefBase.load_session>`)."""
    if not isinstance(ledger, TrustLedger):
        raise InvalidTypeError("ledger must be a TrustLedger")
    if keeps_journals(ledger.store):
        session_id = check_session(session_id)
        if ledger.store.read_checkpoint(session_id) is None:  # type: ignore[attr-defined]
            read_session(ledger.store, session_id)  # none at all: SessionNotFoundError
        options.setdefault("conflict_policy", KEEP_SAVED)
        return cls.open_session(ledger, session_id, clock=clock, **options)
    data, version = read_session(ledger.store, session_id)
    kb = from_dict(cls, data, ledger=ledger, clock=clock, path=f"session {session_id!r}",
                   **options)
    kb.parts.sessions[session_id] = version
    return kb

"""The :class:`BeliefBase`: what an agent runtime talks to.

A facade: it validates every input before touching anything, then delegates to the parts it
composes, and answers queries at the clock's current time.

- the TMS (:mod:`corollary.tms`) holds beliefs and reasons and labels them;
- the rule engine (:mod:`corollary.reasons.rule_engine`) fires rules on what the TMS holds;
- the trust view (:mod:`corollary.trust`) gives the TMS priors and learned reliabilities;
- the promises (:mod:`corollary.promises`) answer or abstain under statistical guarantees;
- proofs (:mod:`corollary.tms.proof`) and snapshots (:mod:`corollary.snapshot`) read the TMS
  through its public API and the state the base hands over.

Operations that record outcomes hand the ledger one batch, before anything changes, so an
operation and its outcomes are all or nothing.

The base is one class, with no mixins: this module holds its making, ``assert_`` (the hot
path) and the class body that binds its other methods, each a function ``name(kb, ...)`` of the
module of its concept: claims (:mod:`corollary.facade.claiming`), retractions
(:mod:`corollary.facade.retracting`), many assertions (:mod:`corollary.facade.assertions`),
queries (:mod:`corollary.facade.queries`), tool calls (:mod:`corollary.facade.calling`),
promises (:mod:`corollary.facade.promising`), snapshots (:mod:`corollary.facade.saving`),
nogoods and conflicts (:mod:`corollary.facade.resolving`), remember, end, forget, depend and
the doors to journaled sessions (:mod:`corollary.facade.opening`). What they share is one
object, ``kb.parts`` (:mod:`corollary.facade.parts`), never the base's private attributes.
Each changing method is declared once with ``@operation`` (:mod:`corollary.facade.operations`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

from ..changes.base_changes import (
    AddRule,
    AddTool,
    Assert,
    Call,
    RecordOutcome,
    Remember,
    RemoveRule,
)
from ..foundations._validate import check_bool, check_int, check_number, plain_text
from ..foundations.clock import Clock, Duration, Instant, system_clock
from ..foundations.errors import (
    InvalidTypeError,
)
from ..foundations.values import Value
from ..reasons.rules import Rule
from ..reasons.tools import ToolSpec
from ..retrieval.vectors import check_embedder
from ..tms.conflicts import ConflictPolicy
from ..tms.reading import EngineView
from ..trust.ledger import TrustLedger
from ..trust.policy import TrustPolicy
from . import (
    assertions,
    calling,
    claiming,
    depending,
    ending,
    forgetting,
    opening,
    promising,
    queries,
    remembering,
    resolving,
    retracting,
    saving,
)
from .assertions import assert_one
from .calling import check_call
from .effects import (
    EFFECTS,
    check_add_rule,
    check_add_tool,
    check_record_outcome,
    check_remove_rule,
)
from .forgetting import REDACTED_OP
from .journaled import (
    CHECKPOINT_EVERY,
    CHECKPOINT_SECONDS,
    Journal,
    convert_to_journal,
    open_journaled,
)
from .making import Effect, make
from .operations import declare_overrides, operation
from .parts import Parts
from .queries import Faded, Held
from .remembering import check_remember

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Self

    from ..promises.guarantee import GroupedPromise, Promise
    from ..promises.platt import Platt
    from ..reasons.calls import PreparedCall
    from .remembering import Remembered

__all__ = ["BeliefBase", "Faded", "Held"]


class BeliefBase:
    """Beliefs with their reasons, labels and confidences, kept right as evidence changes.

    Parameters
    ----------
    policy : TrustPolicy, optional
        Priors and thresholds.
    ledger : TrustLedger, optional
        Where reliability is learned. A ledger passed in is *shared*: it is saved apart from
        this base's snapshots. Without one the base makes its own and snapshots carry it.
    clock : callable, optional
        POSIX seconds now; :class:`corollary.ManualClock` for tests and simulations.
    conflict_policy : ConflictPolicy, optional
        How two held values of one key, and nogoods, are settled; ``None`` leaves conflicts
        open (:meth:`conflicts` lists them).
    tools : iterable of @tool functions
        Their declared trust, half-life, ttl and origin apply to premises from ``tool:<name>``.
    rules : iterable of @rule functions
        Fired whenever their inputs are held.
    learn_from_checks : bool
        Whether re-executed formulas and checked citations record outcomes for the model.
    max_rule_firings : int
        How many times rules may fire within one operation (an assertion, a query...) before
        :class:`~corollary.foundations.errors.RuleLimitError` says they do not settle.
    max_rule_seconds : float
        How many seconds of work rules may take within one operation before the same error
        (default 2). An operation whose rules fail is undone whole (docs/model.md).
    embedder : callable, optional
        ``texts -> 2-D array``: :meth:`recall` then fuses lexical and vector ranks (see
        :mod:`corollary.retrieval.vectors`). Not saved in snapshots: pass it again on load.

    Examples
    --------
    >>> from corollary import ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("hq", "Austin", source="tool:registry")
    >>> kb.assert_("hq", "Austin", source="document:10-K")
    >>> round(kb.confidence("hq"), 4)
    0.9959
    """

    def __init__(
        self,
        policy: TrustPolicy | None = None,
        ledger: TrustLedger | None = None,
        clock: Clock | None = None,
        conflict_policy: ConflictPolicy | None = None,
        tools: Iterable[Callable[..., object]] = (),
        rules: Iterable[Rule] = (),
        learn_from_checks: bool = True,
        max_rule_firings: int = 10_000,
        max_rule_seconds: float = 2.0,
        embedder: Callable[[list[str]], object] | None = None,
    ) -> None:
        if policy is not None and not isinstance(policy, TrustPolicy):
            raise InvalidTypeError("policy must be a TrustPolicy")
        if ledger is not None and not isinstance(ledger, TrustLedger):
            raise InvalidTypeError("ledger must be a TrustLedger")
        if clock is not None and not callable(clock):
            raise InvalidTypeError("clock must be a zero-argument callable returning seconds")
        if conflict_policy is not None and not isinstance(conflict_policy, ConflictPolicy):
            raise InvalidTypeError("conflict_policy must be a conflict policy or None")
        check_bool(learn_from_checks, "learn_from_checks")
        self.max_rule_firings = check_int(max_rule_firings, "max_rule_firings", low=1, high=2**62)
        self.max_rule_seconds = check_number(max_rule_seconds, "max_rule_seconds", finite=False,
                                             low=1e-6)
        self.policy = policy or TrustPolicy()
        self.clock: Clock = clock or system_clock
        self.conflict_policy = conflict_policy
        self.learn_from_checks = learn_from_checks
        shared = ledger is not None
        if ledger is None:
            ledger = TrustLedger(policy=self.policy, clock=self.clock)
        #: the base's collaborators, owned by one object (:mod:`corollary.facade.parts`)
        self.parts = Parts(self.policy, ledger, shared, self.clock, conflict_policy,
                           self.max_rule_firings, self.max_rule_seconds,
                           check_embedder(embedder))
        self.parts.watch_changes(self.conflict_policy)
        for t in tools:
            self.add_tool(t)
        for r in rules:
            self.add_rule(r)

    #: what each of its own changes does to it, by value class: one table
    #: (:mod:`corollary.facade.effects`), which :func:`~corollary.facade.making.make` reads
    effects: ClassVar[Mapping[type[Any], Effect]] = EFFECTS

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declare_overrides(cls)  # an override of a changing method is the same operation

    # -- configuration and parts -----------------------------------------------------------
    @property
    def ledger(self) -> TrustLedger:
        """The trust ledger."""
        return self.parts.trust.ledger

    @property
    def shared_ledger(self) -> bool:
        """Whether the ledger was passed in (and is saved apart from this base's snapshots)."""
        return self.parts.trust.shared

    @property
    def engine(self) -> EngineView:
        """The TMS, for reading (tools, pictures, tests): a view whose changing methods warn
        (:class:`~corollary.tms.reading.EngineView`); change the base through its methods."""
        return EngineView(self.parts.engine)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in the order they were added."""
        return self.parts.rules.rules

    @property
    def tools(self) -> dict[str, ToolSpec]:
        """The tools' declarations, by name."""
        return dict(self.parts.trust.tools)

    @operation(change=AddTool)
    def add_tool(self, fn: Callable[..., object]) -> None:
        """Apply a tool's declared trust, half-life, ttl and origin to its premises.

        A tool of a name this base holds with another declaration is refused
        (:class:`~corollary.foundations.errors.NameTakenError`); the same one again changes
        nothing.
        """
        make(self, check_add_tool(self, AddTool(fn)))

    @operation(change=AddRule)
    def add_rule(self, r: Rule) -> None:
        """Add a rule; it fires at once for inputs already held."""
        make(self, check_add_rule(self, AddRule(r)))

    @operation(change=RemoveRule)
    def remove_rule(self, r: Rule) -> None:
        """Remove a rule and every justification it made (what rested only on them goes OUT)."""
        make(self, check_remove_rule(self, RemoveRule(r)))

    def now(self) -> float:
        """The clock's current time."""
        return self.parts.sync.now()

    # -- trust and outcomes ----------------------------------------------------------------
    def reliability(self, source: str) -> float:
        """``source``'s learned reliability now (its prior until outcomes come in)."""
        source = plain_text(source)
        self.parts.trust.check_source(source, "only sources have a reliability")
        self.parts.trust.poll()
        return self.parts.trust.reliability(source, self.parts.sync.outcomes())[0]

    @operation(change=RecordOutcome)
    def record_outcome(self, source: str, correct: bool, *, reason: str | None = None,
                       at: float | None = None, topic: str | None = None,
                       key: str | None = None) -> None:
        """Record your own ground truth about ``source`` (an audit, a ticket) in the ledger.

        With ``key``, the outcome keeps that belief's confidence now, for calibration. A call
        that raised (a store that failed) may be repeated: it never records twice.
        """
        make(self, check_record_outcome(self, RecordOutcome(source, correct, reason=reason,
                                                            at=at, topic=topic, key=key)))

    # -- changes ---------------------------------------------------------------------------
    @operation(change=Assert)
    def assert_(self, key: str, value: Value, source: str, origin: str | None = None,
                half_life: Duration | None = None, ttl: Duration | None = None,
                certainty: float | None = None, *, valid_from: Instant | None = None,
                valid_until: Instant | None = None) -> None:
        """Assert ``key = value`` on the word of ``source``.

        A source repeating a value renews its premise in place; a source giving a new value
        for a key replaces its earlier premise on that key. An independent origin asserting a
        value another origin already holds records a right outcome for both.

        ``certainty`` (in (0, 1]) is how sure the source says it is of this one assertion (a
        model's own probability, a retriever's score): the premise's confidence is then the
        source's reliability times it, so never above what the source is trusted for
        (docs/model.md, "A stated certainty").

        ``valid_from`` / ``valid_until`` (POSIX seconds or aware datetimes) say when the fact
        holds in the world (default: from now, open-ended); ``kb.at(t)`` reads it at a time,
        and ``PreferNewer`` lets a later-starting value supersede it (docs/model.md, "Time
        and change").

        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> kb.assert_("capital:au", "Canberra", source="model:qwen", certainty=0.83)
        >>> round(kb.confidence("capital:au"), 3)            # 0.9 (a model's prior) x 0.83
        0.747
        """
        if self.parts.log is not None:  # a session's: its value, one journal entry
            make(self, Assert(key, value, source, origin, half_life, ttl, certainty,
                              valid_from, valid_until))
            return
        # a plain base: the fast lane, no value built (docs/extending.md, "the hot path")
        assert_one(self, key, value, source, origin, half_life, ttl, certainty, valid_from,
                   valid_until)

    # -- the base's other methods, one concept per module, bound here (one class) -----------
    # changes (each declared with @operation in its module)
    assert_many = assertions.assert_many
    claim = claiming.claim
    retract = retracting.retract
    end = ending.end
    forget = forgetting.forget
    depend = depending.depend
    replace_when = depending.replace_when
    nogood = resolving.nogood
    resolve = resolving.resolve
    call = calling.call
    acall = calling.acall
    remember = remembering.remember
    aremember = remembering.aremember
    guarantee = promising.guarantee
    remove_guarantee = promising.remove_guarantee
    fit_calibrator = promising.fit_calibrator
    answer = promising.answer
    # queries
    value = queries.value
    confidence = queries.confidence
    label = queries.label
    beliefs = queries.beliefs
    recall = queries.recall
    add_retriever = queries.add_retriever
    project = queries.project
    faded = queries.faded
    expired = queries.expired
    what_to_check = queries.what_to_check
    refresh = queries.refresh
    keys = queries.keys
    __len__ = queries.length
    __contains__ = queries.contains
    at = queries.at
    timeline = queries.timeline
    explain = queries.explain
    conflicts = resolving.conflicts
    calls = calling.calls
    calibration_pairs = promising.calibration_pairs
    replay = promising.replay
    # snapshots and sessions
    to_dict = saving.to_dict
    save = saving.save
    save_session = saving.save_session
    open_as_session = saving.open_as_session
    sync = opening.sync
    history = opening.history
    as_of = opening.as_of
    watch = opening.watch
    checkpoint = opening.checkpoint

    # the changes other methods make through their values (corollary.changes): a tool call's
    # and a remember's, made after the tool or the model answered (a replay asks neither)
    @operation("call", change=Call)
    def _called(self, fn: Callable[..., object] | None, call: PreparedCall, result: Any) -> Any:
        """A tool call's change, once the tool returned (``kb.call`` makes its value)."""
        return make(self, check_call(self, Call(fn, call, result)))

    @operation("remember", change=Remember)
    def _remembered(self, docs: Sequence[Sequence[object]], source: str,
                    facts: Sequence[Sequence[object]], refusals: Sequence[object],
                    ends: Sequence[Sequence[object]] = (),
                    links: Sequence[Sequence[object]] = ()) -> list[Remembered]:
        """A remember's change, once the model answered (``kb.remember`` makes its value)."""
        made: list[Remembered] = make(self, check_remember(self, Remember(
            docs, source, facts, refusals, ends, links)))
        return made

    @operation(REDACTED_OP, replay=lambda kb, entry: None)
    def _redacted(self) -> None:
        """What an entry ``kb.forget`` erased replays as: nothing (never called otherwise;
        declared so that every process replays the operation, docs/journal.md)."""

    @property
    def promises(self) -> dict[str, Promise | GroupedPromise]:
        """The attached promises, by name (see :meth:`guarantee`)."""
        return self.parts.promises.promises

    @property
    def verdicts(self) -> dict[tuple[str, Value], dict[str, Value]]:
        """The verdict record of the last answer given for each belief, by ``(key, value
        identity)`` (:func:`corollary.foundations.values.canon` of the value)."""
        return dict(self.parts.promises.verdicts)

    @property
    def calibrator(self) -> Platt | None:
        """The calibrator fitted by :meth:`fit_calibrator` (``None`` until then)."""
        return self.parts.promises.calibrator


    @property
    def journal(self) -> Journal | None:
        """The session journal this base keeps its changes in (``None``: it is no session).

        >>> from corollary import BeliefBase, TrustLedger
        >>> BeliefBase().journal is None, BeliefBase.open_session(TrustLedger(), "s").journal.sid
        (True, 's')
        """
        log = self.parts.log
        return log if type(log) is Journal else None

    @classmethod
    def open_session(cls, ledger: TrustLedger, session_id: str, *, clock: Clock | None = None,
                     checkpoint_every: int = CHECKPOINT_EVERY,
                     checkpoint_seconds: float = CHECKPOINT_SECONDS,
                     **options: object) -> Self:
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
                        functions: Iterable[Callable[..., object]] = (),
                        rules: Iterable[Rule] = (),
                        tools: Iterable[Callable[..., object]] = ()) -> int:
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
        return convert_to_journal(cls, ledger, session_id, overwrite=overwrite,
                                  functions=functions, rules=rules, tools=tools)

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

    @classmethod
    def from_dict(cls, data: Mapping[str, object], ledger: TrustLedger | None = None,
                  clock: Clock | None = None, *, rules: Iterable[Rule] = (),
                  tools: Iterable[Callable[..., object]] = (),
                  conflict_policy: object = saving.KEEP_SAVED,
                  functions: Iterable[Callable[..., object]] = (), path: object = None,
                  embedder: Callable[[list[str]], object] | None = None) -> Self:
        """Rebuild a base from :meth:`to_dict` output, re-binding rules and tools by name, and
        the signal and group functions of promises from ``functions`` (by qualified name).

        The document is checked field by field first (:func:`corollary.snapshot.read_snapshot`);
        nothing is built from a document that fails. ``conflict_policy`` replaces the saved
        policy (needed for :class:`~corollary.AskHuman`, whose person is not saved).
        """
        return saving.from_dict(cls, data, ledger, clock, rules=rules, tools=tools,
                                conflict_policy=conflict_policy, functions=functions, path=path,
                                embedder=embedder)

    @classmethod
    def load(cls, path: str | os.PathLike[str], ledger: TrustLedger | None = None,
             clock: Clock | None = None, **options: object) -> Self:
        """Read a snapshot written by :meth:`save`; a corrupt, truncated, foreign or newer file
        raises ``SnapshotError``."""
        return saving.load(cls, path, ledger, clock, **options)

    @classmethod
    def load_session(cls, ledger: TrustLedger, session_id: str, clock: Clock | None = None,
                     **options: object) -> Self:
        """Resume the base saved under ``session_id`` in ``ledger``'s store, attached to it.

        On a store that keeps journals (memory, SQLite, PostgreSQL) the session is read
        through its journal: this is :meth:`open_session` (a whole-snapshot session becomes the
        journal's start on this first open), except that a conflict policy not given is the
        one the session was saved with. On a JSON-file ledger it is the whole snapshot last
        saved, and the base remembers the version it loaded, for its next
        :meth:`save_session`. No session under that id: ``SessionNotFoundError``.
        """
        return saving.load_session(cls, ledger, session_id, clock, **options)

    def __repr__(self) -> str:
        return f"<BeliefBase {len(self)} beliefs, {len(self.parts.engine.keys)} keys>"

"""The rule engine: fires ``@rule`` functions on held inputs and adds what they conclude.

It lives beside the TMS, as a JTMS's rule engine does, and is joined to it by one hook: it
subscribes to the engine's change feed (:mod:`corollary.tms.feed`) for the keys whose beliefs
changed, and fires the rules reading those keys, until nothing new changes. Each firing adds a
justification ``rule × min(inputs)`` for the value the rule returns; the TMS then keeps it right
as the inputs come and go, so a rule fires once per combination of input values, ever.

An operation whose rules fail (a rule raised, a firing would close a cycle through an
'unless', or they did not settle within the budget of firings or seconds) is undone whole:
every firing of the operation and the change that set them off (the facade's batch,
:mod:`corollary.tms.batch`) are rolled back, and the combinations that failed are held back
(:attr:`RuleEngine.failed`) until their input values change, so later operations and queries
do not try them again.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..foundations.errors import NameTakenError, RuleError, RuleLimitError, StratificationError
from ..foundations.values import canon, is_end
from ..tms import IN, Belief, Engine, Justification, strata
from ..tms.batch import Batch
from ..tms.feed import Subscription
from .rules import Rule

#: How many firings pass between two looks at the clock (the time budget's granularity).
_CLOCK_EVERY = 32


class _Journal:
    """What one operation's firings did, so that a failure undoes them whole."""

    __slots__ = ("batch", "made", "fired", "last", "fired_at", "tried", "failing", "later")

    def __init__(self, batch: Batch, made: Sequence[Justification], fired_at: float | None
                 ) -> None:
        self.batch = batch
        self.made = list(made)  # justifications added (by the operation, then by firings)
        self.fired: list[tuple[set[tuple[int, ...]], tuple[int, ...]]] = []
        self.last: dict[str, dict[str, set[int]] | None] = {}
        self.fired_at = fired_at
        # (rule, combination) of every firing tried: a runaway's roots are among them
        self.tried: list[tuple[Rule, tuple[Belief, ...]]] = []
        self.failing: list[tuple[Rule, tuple[Belief, ...]]] = []  # the firing that raised
        self.later: list[Callable[[], object]] = []  # run when the whole operation has fired


class RuleEngine:
    """The rules of one base, their firing memo, and the loop that fires them.

    Parameters
    ----------
    engine : Engine
        The TMS the rules read and add to.
    sync : callable
        ``sync(beliefs)``: bring those beliefs' labels up to date before a rule reads them.
    max_firings : int
        How many times rules may fire within one operation before :class:`RuleLimitError`
        says they do not settle.
    max_seconds : float
        How long (``time.perf_counter``) the rules of one operation may work before
        :class:`RuleLimitError` says the same; checked every few firings.
    """

    def __init__(self, engine: Engine, sync: Callable[[Iterable[Belief]], object],
                 max_firings: int, max_seconds: float = 2.0) -> None:
        self.engine = engine
        self.sync = sync
        self.max_firings = max_firings
        self.max_seconds = max_seconds
        self._deadline = 0.0
        self._journal: _Journal | None = None
        #: rule name -> the input value ids of combinations that failed; held back (not
        #: fired) until an input's value changes. Not saved in snapshots.
        self.failed: dict[str, set[tuple[Any, ...]]] = {}
        #: How many firings were tried, ever (tests count work with it).
        self.firings = 0
        self._rules: list[Rule] = []
        self._by_key: dict[str, list[Rule]] = {}
        # rule name -> input belief numbers of every combination fired (snapshots keep it)
        self.fired: dict[str, set[tuple[int, ...]]] = {}
        #: The names of the rules the base's changes removed and did not add again (snapshots
        #: keep it): ``rules=`` passed to a load or a session's open do not bring them back,
        #: as a replay of the removal would not (docs/journal.md, "What a replay assumes").
        #: Kept by the base's own add and remove changes, not by :meth:`add` and :meth:`remove`.
        self.removed: set[str] = set()
        # rule name -> key -> numbers of the values held at the rule's last complete firing
        self._last: dict[str, dict[str, set[int]]] = {}
        self._left = max_firings
        # the keys the change feed said were touched, not fired for yet; the subscription is
        # taken with the first rule (a base without rules has the engine record nothing)
        self._touched: set[str] = set()
        self._subscription: Subscription | None = None
        #: The time every rule last fired at (:meth:`catch_up`); a query at that time with
        #: nothing touched since has no rule to fire.
        self.fired_at: float | None = None
        #: Whether there is any rule (read on every query: a plain attribute, not a call).
        self.active = False

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in the order they were added."""
        return tuple(self._rules)

    def __bool__(self) -> bool:
        return bool(self._rules)

    def __contains__(self, r: object) -> bool:
        return r in self._rules

    def add(self, r: Rule) -> bool:
        """Add ``r`` (not firing it yet); ``False`` if it was there already. Another rule of
        ``r``'s name is refused (:class:`~corollary.foundations.errors.NameTakenError`)."""
        if r in self._rules:
            return False
        if any(other.name == r.name for other in self._rules):
            raise NameTakenError(f"this base has another rule named {r.name!r}: remove it "
                                 "first (kb.remove_rule), or give the new one another name")
        self._rules.append(r)
        self.active = True
        if self._subscription is None:  # a listener holding the set, not this rule engine:
            keys = self._touched            # the engine holds its feed, and no cycle is made
            self._subscription = self.engine.feed.subscribe(
                lambda changes: keys.update(changes.touched), labels=False)
        for key in set(r.inputs):
            self._by_key.setdefault(key, []).append(r)
        self.fired.setdefault(r.name, set())
        return True

    def remove(self, r: Rule) -> bool:
        """Forget ``r`` and its firing memo (its justifications are the TMS's to remove);
        ``False`` if it was not there."""
        if r not in self._rules:
            return False
        self._rules.remove(r)
        self.active = bool(self._rules)
        for key in set(r.inputs):
            readers = self._by_key[key]
            readers.remove(r)
            if not readers:
                del self._by_key[key]
        self.fired.pop(r.name, None)
        self._last.pop(r.name, None)
        self.failed.pop(r.name, None)
        return True

    def restore(self, fired: dict[str, set[tuple[int, ...]]]) -> None:
        """Take a saved firing memo (with the rules already added)."""
        for name, combos in fired.items():
            self.fired[name] = set(combos)

    # -- firing --------------------------------------------------------------------------
    def settle(self, extra: Sequence[Rule] = (), batch: Batch | None = None,
               made: Sequence[Justification] = (), then: Callable[[], object] | None = None
               ) -> None:
        """After a change: fire the rules reading touched keys (and ``extra``) until nothing
        new changes, within the budget.

        ``batch`` notes the change itself (keys saved before it, see
        :func:`corollary.tms.batch.save_key`) and ``made`` the justifications it added: if
        the rules fail, the change is rolled back with their firings and the error raised.
        ``then`` runs last, and is undone the same way if it raises (the facade records the
        operation's outcomes there: all or nothing with the change).
        """
        if not self.active:
            engine = self.engine
            if engine.touched is not None or engine.settled is not None:  # someone follows
                engine.feed.publish()  # after a change: the feed's subscribers are told
                self._touched.clear()
                touched = engine.touched
                if touched:  # recorded for no subscriber
                    touched.clear()
            if then is not None:
                then()
            return

        self._run(batch, made, lambda: self._fire_touched(extra), then)

    def catch_up(self, now: float) -> None:
        """Before a query at ``now``: rules fire when their inputs come IN, and inputs can come
        IN without an assertion (an outcome flips a conflict, another base's outcome arrives,
        time passes), so fire every rule once at each new time, then what that touched. If
        they fail, their firings are rolled back and the query raises."""
        if self.fired_at == now and not self.engine.touched and not self._touched:
            return

        def fire() -> None:
            if self.fired_at != now:
                self._fire(self._rules)
                self.fired_at = now
            if self.engine.touched or self._touched:
                self._fire_touched(())

        self._run(None, (), fire)

    def batch(self) -> Batch:
        """The batch a change notes itself in: the :meth:`transaction`'s, or a new one."""
        journal = self._journal
        return self.engine.begin_batch() if journal is None else journal.batch

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Batch]:
        """One operation made of several changes, each settled as it comes (``assert_many``
        with rules): if any of them fails, all of them are undone. What the changes hand
        :meth:`settle` as ``then`` runs once all have fired."""
        if self._journal is not None:
            yield self._journal.batch
            return
        journal = self._journal = _Journal(self.engine.begin_batch(), (), self.fired_at)
        try:
            yield journal.batch
            for later in journal.later:
                later()
        except BaseException as exc:
            self._undo(journal, exc)
            raise
        finally:
            self._journal = None

    def _run(self, batch: Batch | None, made: Sequence[Justification],
             fire: Callable[[], None], then: Callable[[], object] | None = None) -> None:
        """Fire within the budget, noting what changes; on failure undo it all and raise."""
        self._left = self.max_firings  # each change of a transaction has a budget of its own
        self._deadline = time.perf_counter() + self.max_seconds
        journal = self._journal
        if journal is not None:  # within a transaction: its undo covers this change
            journal.made.extend(made)
            fire()
            if then is not None:
                journal.later.append(then)
            return
        journal = self._journal = _Journal(batch or self.engine.begin_batch(), made,
                                           self.fired_at)
        try:
            fire()
            if then is not None:
                then()
        except BaseException as exc:
            self._undo(journal, exc)
            raise
        finally:
            self._journal = None

    def _undo(self, journal: _Journal, exc: BaseException) -> None:
        """Put the base back as it was before the operation, and hold back what failed."""
        engine = self.engine
        # hold back what failed on inputs that were there before the operation (a value that
        # came IN by a query's time, or by a retraction): what the operation brought is
        # rolled back with it, and brought again is tried again. A runaway is held back at
        # the firings it started from.
        start = journal.batch.next_seq
        for r, combo in journal.tried if isinstance(exc, RuleLimitError) else journal.failing:
            if all(b.seq < start for b in combo):
                self.failed.setdefault(r.name, set()).add(tuple(b.vid for b in combo))
        for j in reversed(journal.made):
            engine.remove_justification(j)
        engine.rollback(journal.batch)
        for fired, ident in journal.fired:
            fired.discard(ident)
        for name, last in journal.last.items():
            if last is None:
                self._last.pop(name, None)
            else:
                self._last[name] = last
        self.fired_at = journal.fired_at
        self._touched.clear()
        touched = engine.touched
        if touched:
            touched.clear()

    def _fire_touched(self, extra: Sequence[Rule]) -> None:
        engine = self.engine
        while True:
            engine.feed.publish()  # what the change (or the last firings) touched
            touched = set(self._touched)  # the set itself stays: the feed's listener fills it
            self._touched.clear()
            due = list(extra)
            extra = ()
            for key in touched:
                due.extend(self._by_key.get(key, ()))
            if not due:
                return
            self._fire(due)

    def _fire(self, due: Iterable[Rule]) -> None:
        seen = set()
        for r in due:
            if r.name in seen:
                continue
            seen.add(r.name)
            held: dict[str, list[Belief]] = {}
            for key in set(r.inputs):
                values = self.engine.values_of(key)
                if values:
                    self.sync(values)
                held[key] = [b for b in values if b.label is IN and not is_end(b.value)]
                if not held[key]:
                    break
            else:
                self._fire_new(r, held)

    def _fire_new(self, r: Rule, held: dict[str, list[Belief]]) -> None:
        """Fire ``r`` on the combinations of held inputs that include a newly held one.

        Every combination of values held at the rule's last complete firing was enumerated
        then (or before), so only those with a value held since are new (semi-naive
        evaluation): a rule over open conflicts does not re-enumerate its whole product.
        """
        last = self._last.get(r.name, {})
        fired = self.fired.setdefault(r.name, set())
        failed = self.failed.get(r.name)
        journal = self._journal
        engine = self.engine
        # in the order of the inputs' numbers, not of the enumeration: a base restored from a
        # snapshot (which keeps what fired, not when) then makes new values in the same order
        new = sorted((tuple(b.seq for b in combo), combo)
                     for combo in self._new_combinations(r.inputs, held, last))
        for ident, combo in new:
            if ident in fired:
                continue
            if failed is not None and tuple(b.vid for b in combo) in failed:
                continue  # held back until an input's value changes
            self._spend(r)
            if journal is not None:
                journal.tried.append((r, combo))
            try:
                result = r.fn(*(b.value for b in combo))
                vid = None if result is None else canon(result)
            except Exception as exc:
                # the operation is undone (see _run and _undo)
                if journal is not None:
                    journal.failing.append((r, combo))
                inputs = ", ".join(f"{k} = {b.value!r}" for k, b in zip(r.inputs, combo, strict=True))
                raise RuleError(f"rule {r.name} failed on {inputs or 'no inputs'}: {exc!r}; "
                                "the operation was undone") from exc
            fired.add(ident)
            if journal is not None:
                journal.fired.append((fired, ident))
            if result is None:
                continue
            # refuse a firing that would make a belief rest on its own absence (its own
            # exceptions, or another reason's that its conclusion would feed): it fails like a
            # rule that raised, so a combination whose inputs were there before the operation
            # (a query's time brought them IN) is held back, not refused at every query
            try:
                strata.check_reason(engine, r.output, vid, combo, r.unless)
            except StratificationError:
                if journal is not None:
                    journal.failing.append((r, combo))
                raise
            if journal is not None:
                if r.output in engine.keys:
                    engine.save_key(journal.batch, r.output)
                else:  # a new key: the rollback drops it (a run of one row)
                    journal.batch.runs.append(([(r.output,)], 0, 1))
            out = engine.belief(r.output, result, vid)
            j = engine.add_justification(Justification(
                r.kind, r.name, out, tuple(combo), r.confidence, {"names": list(r.params)},
                r.unless))
            if journal is not None:
                journal.made.append(j)
        if journal is not None and r.name not in journal.last:
            old = self._last.get(r.name)
            journal.last[r.name] = old
        self._last[r.name] = {k: {b.seq for b in bs} for k, bs in held.items()}

    @staticmethod
    def _new_combinations(inputs: tuple[str, ...], held: dict[str, list[Belief]],
                          last: dict[str, set[int]]) -> Iterator[tuple[Belief, ...]]:
        """The combinations of held inputs that include one held since the last firing (a rule
        with no inputs has one combination, the empty one: it fires once, at once)."""
        if not inputs:
            yield ()
            return
        for i in range(len(inputs)):
            new_i = [b for b in held[inputs[i]] if b.seq not in last.get(inputs[i], ())]
            if not new_i:
                continue
            lists = [[b for b in held[k] if b.seq in last.get(k, ())] for k in inputs[:i]]
            lists.append(new_i)
            lists.extend(held[k] for k in inputs[i + 1:])
            yield from itertools.product(*lists)

    def _spend(self, r: Rule) -> None:
        self.firings += 1
        spent = self.max_firings - self._left
        if self._left <= 0 or (spent % _CLOCK_EVERY == 0 and spent
                               and time.perf_counter() > self._deadline):
            budget = (f"{self.max_firings:,} times" if self._left <= 0
                      else f"{spent:,} times in {self.max_seconds:g} s")
            raise RuleLimitError(
                f"rules fired {budget} in one operation without reaching a fixed point "
                f"(last: {r.name}); rules that keep deriving new values from each other, or a rule over "
                "many conflicting input values, never settle. The operation was undone. Resolve "
                "the conflicts, fix the rules, or raise BeliefBase(max_rule_firings=..., "
                "max_rule_seconds=...)")
        self._left -= 1

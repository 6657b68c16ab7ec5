"""The rule engine: fires ``@rule`` functions on held inputs and adds what they conclude.

It lives beside the TMS, as a JTMS's rule engine does, and is joined to it by one hook: the
engine records the keys whose beliefs changed (:attr:`corollary.tms.Engine.touched`), and the
rule engine fires the rules reading those keys, until nothing new changes. Each firing adds a
justification ``rule × min(inputs)`` for the value the rule returns; the TMS then keeps it right
as the inputs come and go, so a rule fires once per combination of input values, ever.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..foundations.errors import RuleError, RuleLimitError
from ..foundations.values import canon
from ..tms import IN, Belief, Engine, Justification, strata
from .rules import Rule


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
    """

    def __init__(self, engine: Engine, sync: Callable[[Iterable[Belief]], object],
                 max_firings: int) -> None:
        self.engine = engine
        self.sync = sync
        self.max_firings = max_firings
        self._rules: list[Rule] = []
        self._by_key: dict[str, list[Rule]] = {}
        # rule name -> input belief numbers of every combination fired (snapshots keep it)
        self.fired: dict[str, set[tuple[int, ...]]] = {}
        # rule name -> key -> numbers of the values held at the rule's last complete firing
        self._last: dict[str, dict[str, set[int]]] = {}
        self._left = max_firings
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
        """Add ``r`` (not firing it yet); ``False`` if it was there already."""
        if r in self._rules:
            return False
        self._rules.append(r)
        self.active = True
        self.engine.watch()
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
        return True

    def restore(self, fired: dict[str, set[tuple[int, ...]]]) -> None:
        """Take a saved firing memo (with the rules already added)."""
        for name, combos in fired.items():
            self.fired[name] = set(combos)

    # -- firing --------------------------------------------------------------------------
    def settle(self, extra: Sequence[Rule] = ()) -> None:
        """After a change: fire the rules reading touched keys (and ``extra``) until nothing
        new changes, within the firing budget."""
        if not self.active:
            touched = self.engine.touched
            if touched:
                touched.clear()
            return
        self._left = self.max_firings
        self._fire_touched(extra)

    def catch_up(self, now: float) -> None:
        """Before a query at ``now``: rules fire when their inputs come IN, and inputs can come
        IN without an assertion (an outcome flips a conflict, another base's outcome arrives,
        time passes), so fire every rule once at each new time, then what that touched."""
        self._left = self.max_firings
        if self.fired_at != now:
            self._fire(self._rules)
            self.fired_at = now
        if self.engine.touched:
            self._fire_touched(())

    def _fire_touched(self, extra: Sequence[Rule]) -> None:
        engine = self.engine
        while True:
            touched = engine.watch()
            engine.touched = set()
            due = list(extra)
            extra = ()
            for key in touched:
                due.extend(self._by_key.get(key, ()))
            if not due:
                return
            try:
                self._fire(due)
            except BaseException:
                # a rule that raised or a spent budget: keep these rules due, so the next
                # operation tries again instead of leaving the base short of a fixed point
                engine.watch().update(touched)
                engine.watch().update(k for r in due for k in r.inputs)
                raise

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
                held[key] = [b for b in values if b.label is IN]
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
        # in the order of the inputs' numbers, not of the enumeration: a base restored from a
        # snapshot (which keeps what fired, not when) then makes new values in the same order
        new = sorted((tuple(b.seq for b in combo), combo)
                     for combo in self._new_combinations(r.inputs, held, last))
        for ident, combo in new:
            if ident in fired:
                continue
            self._spend(r)
            try:
                result = r.fn(*(b.value for b in combo))
                vid = None if result is None else canon(result)
            except Exception as exc:
                # the change that brought the inputs IN stands; this combination is
                # not marked fired, so the rule is tried again at the next change
                raise RuleError(f"rule {r.name} failed on "
                                f"{[b.value for b in combo]!r}: {exc!r}") from exc
            fired.add(ident)
            if result is None:
                continue
            # refuse a firing that would make a belief rest on its own absence (its own
            # exceptions, or another reason's that its conclusion would feed)
            strata.check_reason(self.engine, r.output, vid, combo, r.unless)
            out = self.engine.belief(r.output, result, vid)
            self.engine.add_justification(Justification(
                r.kind, r.name, out, tuple(combo), r.confidence, {"names": list(r.params)},
                r.unless))
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
        if self._left <= 0:
            raise RuleLimitError(
                f"rules fired {self.max_firings:,} times in one operation without reaching "
                f"a fixed point (last: {r.name}); rules that keep deriving new values from each "
                "other, or a rule over many conflicting input values, never settle. Resolve the "
                "conflicts, fix the rules, or raise BeliefBase(max_rule_firings=...)")
        self._left -= 1

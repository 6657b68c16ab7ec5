"""What to check next: which stale premise under a belief would raise it most if refreshed.

``kb.what_to_check(key, n)`` ranks the premises under a belief (its own and those of every
belief its reasons read, transitively) whose evidence is stale: faded (freshness below 1) or
expired. A premise's **gain** is exact:

    gain = c'(belief) − c(belief)

where ``c`` is the belief's confidence now and ``c'`` its confidence now if that one premise
were renewed (the same source, origin, half-life and ttl, asserted now: age 0, so freshness 1,
and valid), everything else unchanged. Two stale premises that are both needed (two expired
inputs of one step) each gain nothing alone, so each item also says how much the belief would
lose if every other stale premise were refreshed but not this one (``needed``); the ranking
breaks ties of gain by it, so a re-fetch budget spent greedily (``Agent.reverify``) starts on
a premise that is needed.

**Which premises are listed.** A stale premise is listed only when refreshing it changes the
belief: alone (``gain != 0``), or as one of all the stale premises refreshed together
(``needed != 0``). A premise whose refresh changes nothing either way is left out. An item with
``gain == 0.0`` is therefore marked by its gain: refreshing it alone changes nothing, and it is
listed because it is needed with the others; such items rank after every item that gains.

**How ``c'`` is computed.** On the engine itself (:meth:`corollary.tms.Engine.trial`): the
premise is renewed in place, exactly as re-asserting the same value from the same source
renews it, the belief is settled by the engine's own sweep (exceptions, nogoods, conflict
policies, every kind of step), its confidence is read, and everything is put back exactly
(premises, memos, labels, the expiry heap, numbering); nothing is recorded in the ledger. So
``c'`` is the number a real refresh would then give, for every structure. What a refresh would
set off outside the engine is not counted: a rule that would fire anew (the structure is what it
is now), and a person asked by an ``AskHuman`` policy. The cost is one settling of the stale
premises' cone per what-if, two what-ifs per stale premise.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ..tms import Belief, Engine, Premise

__all__ = ["Check", "ancestry", "what_to_check", "whatif_confidence"]


@attrs.frozen(slots=True)
class Check:
    """A stale premise under a belief, and what refreshing it would gain.

    Attributes
    ----------
    key : str
        The key of the belief the premise is on.
    value : object
    source : str
        The premise's source.
    gain : float
        How much the ranked belief's confidence would rise now if this premise alone were
        refreshed: exactly 0.0 when that changes nothing (another input is the weakest link,
        or another stale premise is needed too); below 0 when the refreshed value would
        defeat one the belief rests on (a rival, or a nogood partner).
    needed : float
        How much lower the belief would be with every other stale premise under it refreshed
        but this one left as it is.
    confidence : float
        The premise's own confidence now (0.0 when expired).
    expired : bool
        Whether its ttl has passed.
    """

    key: str
    value: object
    source: str
    gain: float
    needed: float
    confidence: float
    expired: bool


def ancestry(root: Belief) -> list[Belief]:
    """``root`` and every belief its reasons read, transitively (each once, root first)."""
    seen = {root}
    order = [root]
    stack = [root]
    while stack:
        b = stack.pop()
        for j in b.justs:
            for x in j.inputs:
                if x not in seen:
                    seen.add(x)
                    order.append(x)
                    stack.append(x)
    return order


def whatif_confidence(engine: Engine, root: Belief, now: float,
                      fresh: Iterable[tuple[Belief, Premise]] = ()) -> float:
    """``root``'s confidence at ``now`` if the premises ``fresh`` (each with its belief) were
    renewed now; with none, the base's own number.

    The engine runs the what-if and puts everything back exactly (:meth:`Engine.trial`).

    >>> from corollary import BeliefBase, ManualClock
    >>> clock = ManualClock(0)
    >>> kb = BeliefBase(clock=clock)
    >>> kb.assert_("price", 101.5, source="tool:quote", half_life=60)
    >>> _ = clock.advance(60)
    >>> b = kb.engine.find("price", 101.5)
    >>> kb.confidence("price"), whatif_confidence(kb.parts.engine, b, kb.now(), [(b, b.premises[0])])
    (0.475, 0.95)
    >>> kb.confidence("price")
    0.475
    """
    with engine.trial(now, (root,)) as trial:
        for b, premise in fresh:
            trial.renew(b, premise)
        return trial.confidence(root)


def what_to_check(engine: Engine, root: Belief, now: float, n: int | None = 5) -> list[Check]:
    """The stale premises under ``root`` whose refresh changes it, most gain first (ties: most
    needed, then key, then source); at most ``n`` (``None``: all). See the module docstring."""
    stale = [(b, part) for b in ancestry(root) if b.withdrawn is None
             for part in engine.premise_parts(b, now) if part.expired or part.freshness < 1.0]
    if not stale:
        return []
    with engine.trial(now, (root,)) as trial:
        baseline = trial.confidence(root)

        def refreshed(premises: Iterable[tuple[Belief, Premise]]) -> float:
            for b, premise in premises:
                trial.renew(b, premise)
            found = trial.confidence(root)
            trial.reset()
            return found

        everything = [(b, part.premise) for b, part in stale]
        all_fresh = refreshed(everything)
        found = []
        for i, (b, part) in enumerate(stale):
            gain = refreshed(everything[i:i + 1]) - baseline
            needed = all_fresh - refreshed(everything[:i] + everything[i + 1:])
            if gain != 0.0 or needed != 0.0:
                found.append(Check(b.key, b.value, part.premise.source, gain, needed,
                                   part.confidence, part.expired))
    found.sort(key=lambda c: (-c.gain, -c.needed, c.key, c.source))
    return found if n is None else found[:n]

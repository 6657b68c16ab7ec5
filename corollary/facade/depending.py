"""``kb.depend`` and ``kb.replace_when``: dependencies and declared replacements as data
(docs/model.md, "Dependencies and declared replacements"; issue 37).

Both are claims, the engine's own justifications, with nothing new underneath:

- a **dependency** ``kb.depend(key, value, on=[...])`` is a claim of ``key = value`` whose
  inputs are the values the keys of ``on`` hold now (and the declaring document, when cited):
  it holds only while each of them holds as it was, and goes OUT when one changes, ends or is
  retracted (and is erased with it when one is forgotten);
- a **declared replacement** ``kb.replace_when(key, value, changes=x)`` is a claim of ``key =
  value`` with the exception ``unless=[(x, what x holds now)]``: it counts for nothing while
  ``x`` keeps that value, and once ``x`` changes it is a newer value of ``key``, which under
  ``PreferNewer`` supersedes the value it replaces.

The justification's ``info`` says which it is (``rests_on``: the keys it rests on;
``replaces``/``since``: the value it replaces and the key whose change it waits for), so a
proof says ``rests on user:health_condition = 'asthma'`` or ``replaces 'running' since
user:health_condition changed``, and snapshots and journals keep it as they keep any claim.
Each method is one operation: a journaled session keeps one entry and replays it in any
process, the values it resolved pinned (docs/journal.md).

A part of the facade (its methods are the base's own).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..changes.base_changes import Depend, ReplaceWhen
from ..foundations.clock import Instant, to_instant
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.values import Value, canon, check_key
from ..reasons.claims import named_inputs
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from ..tms import Engine, Justification
    from .base import BeliefBase

__all__ = ["REPLACES", "RESTS_ON", "SINCE", "declare"]

#: The ``info`` field of a claim that is a dependency: the keys it rests on.
RESTS_ON = "rests_on"
#: The ``info`` fields of a claim that is a declared replacement: the value of its key it
#: replaces (absent when the key held none) and the key whose change it waits for.
REPLACES, SINCE = "replaces", "since"


def _on_keys(on: Any) -> dict[str, str]:
    """``on`` as ``{name: key}`` (a list of keys names each by its key), at least one."""
    if isinstance(on, str):
        raise InvalidTypeError("on takes a list of keys (or a dict name -> key), not one string")
    named = named_inputs(on)
    if not named:
        raise InvalidInputError("a dependency rests on at least one key (on=[...])")
    return named


def _the_claim(engine: Engine, key: str, value: Any, source: str,
               inputs: Sequence[str], unless: tuple[Any, ...]) -> Justification | None:
    """The claim just made (or found again): ``source``'s, over ``inputs``, with ``unless``."""
    b = engine.find(key, canon(value))
    if b is None:
        return None
    want = set(inputs)
    for j in reversed(list(b.justs)):
        if (j.name == source and want <= {x.key for x in j.inputs}
                and tuple(j.unless) == unless):
            return j
    return None


@operation(change=Depend)
def depend(kb: BeliefBase, key: str, value: Value, on: Sequence[str] | Mapping[str, str], *,
           source: str = "model:default", citation: object = None,
           certainty: float | None = None, formula: str | None = None,
           valid_from: Instant | None = None, learn: bool | None = None) -> Value:
    """Say that ``key = value`` rests on the values the keys of ``on`` hold now.

    A claim by ``source`` whose inputs are those values (and the cited document, when
    ``citation=(document, quote)`` names the sentence that said it): it holds only while
    each of them holds as it was. When one changes, ends or is retracted, the fact goes
    OUT until it is said again; when one is forgotten (or the declaring document is), the
    fact is erased with it (docs/model.md, "Dependencies and declared replacements"). A
    ``formula`` over the inputs' names (``on`` as a dict ``{name: key}``) is re-executed as
    a claim's is. Each key of ``on`` must hold one value now. ``certainty``, ``valid_from``
    and ``learn`` are a claim's (:meth:`claim`). Returns the value believed.

    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    >>> kb.assert_("user:condition", "asthma", source="human:ann", valid_from=100)
    >>> kb.depend("user:medication", "inhaler", on=["user:condition"], source="model:m")
    'inhaler'
    >>> kb.assert_("user:condition", "none", source="human:ann", valid_from=500)
    >>> kb.value("user:medication") is None
    True
    """
    made: Value = make(kb, check_depend(kb, Depend(
        key, value, on, source=source, citation=citation, certainty=certainty, formula=formula,
        valid_from=valid_from, learn=learn)))
    return made


def check_depend(kb: BeliefBase, change: Depend) -> Depend:
    """A :class:`~corollary.changes.Depend`'s checks (``kb.depend``'s and ``apply``'s): its key
    and the keys it rests on (the claim's own are its effect's); the checked value."""
    key = check_key(change.key)
    if key in _on_keys(change.on).values():
        raise InvalidInputError(f"{key!r} cannot rest on itself")
    return checked(change, key=key)


def apply_depend(kb: BeliefBase, change: Depend) -> Value:
    """The effect of a :class:`~corollary.changes.Depend` (``kb.depend``'s, its key and keys
    checked, and its replay's): the claim over the keys it rests on."""
    (key, value, on, source, citation, certainty, formula, valid_from, learn) = (
        change.key, change.value, change.on, change.source, change.citation, change.certainty,
        change.formula, change.valid_from, change.learn)
    named = _on_keys(on)
    believed = kb.claim(key, value, source, named, certainty, formula, citation,
                        valid_from=valid_from, learn=learn)
    j = _the_claim(kb.parts.engine, key, believed, source, list(named.values()), ())
    if j is not None:
        j.info[RESTS_ON] = list(dict.fromkeys(named.values()))
    return believed


@operation(change=ReplaceWhen)
def replace_when(kb: BeliefBase, key: str, value: Value, changes: str, *,
                 source: str = "model:default", citation: object = None,
                 certainty: float | None = None, valid_from: Instant | None = None,
                 learn: bool | None = None) -> Value:
    """Say that ``key`` becomes ``value`` once ``changes`` no longer holds the value it holds
    now; until then ``key`` keeps what it holds.

    A claim by ``source`` (over the cited document, when ``citation=(document, quote)``)
    with the exception ``unless=[(changes, its value now)]``: it counts for nothing while
    that value holds, and once it stops holding (a newer value, an end, a retraction or a
    forgetting of it) the claim is a value of ``key`` like any other, which under
    ``PreferNewer`` supersedes the value it replaces; retracting or forgetting the
    declaring document withdraws it. The claim is dated from ``valid_from`` (default: now,
    when the replacement is declared; just after the start of the value it replaces when
    that is not earlier, as when one message says both), so a value said before the
    declaration is older than it and one said after is newer. ``changes`` must hold one value now and differ from
    ``key``. ``certainty`` and ``learn`` are a claim's (:meth:`claim`). Returns ``value``.

    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    >>> kb.assert_("user:condition", "asthma", source="human:ann", valid_from=100)
    >>> kb.assert_("user:exercise", "running", source="human:ann", valid_from=101)
    >>> kb.replace_when("user:exercise", "cycling", changes="user:condition",
    ...                 source="model:m")
    'cycling'
    >>> kb.value("user:exercise")
    'running'
    >>> kb.assert_("user:condition", "none", source="human:ann", valid_from=500)
    >>> kb.value("user:exercise")
    'cycling'
    """
    made: Value = make(kb, check_replace_when(kb, ReplaceWhen(
        key, value, changes, source=source, citation=citation, certainty=certainty,
        valid_from=valid_from, learn=learn)))
    return made


def check_replace_when(kb: BeliefBase, change: ReplaceWhen) -> ReplaceWhen:
    """A :class:`~corollary.changes.ReplaceWhen`'s checks (``kb.replace_when``'s and
    ``apply``'s): its two keys, not the same; the checked value."""
    key, changes = check_key(change.key), change.changes
    if not isinstance(changes, str):
        raise InvalidTypeError("changes is the key whose change the replacement waits for")
    changes = check_key(changes)
    if changes == key:
        raise InvalidInputError(f"{key!r} cannot be replaced when it changes itself: say "
                                "its new value")
    return checked(change, key=key, changes=changes)


def apply_replace_when(kb: BeliefBase, change: ReplaceWhen) -> Value:
    """The effect of a :class:`~corollary.changes.ReplaceWhen` (``kb.replace_when``'s, its keys
    checked, and its replay's): the claim that waits for ``changes`` to change."""
    (key, value, changes, source, citation, certainty, valid_from, learn) = (
        change.key, change.value, change.changes, change.source, change.citation, change.certainty,
        change.valid_from, change.learn)
    now = kb.parts.lookup.held_belief(changes, "changing key").value
    held = kb.parts.lookup.held(key) if kb.parts.engine.values_of(key) else []
    exceptions = ((changes, now, canon(now)),)
    start = kb.now() if valid_from is None else to_instant(valid_from, "valid_from")
    if len(held) == 1:  # said with it (one message): it still comes after what it replaces
        began = [t.valid_from for t in kb.timeline(key) if t.value == held[0].value]
        if began and began[0] is not None and start is not None and began[0] >= start:
            start = math.nextafter(began[0], math.inf)
    believed = kb.claim(key, value, source, (), certainty, None, citation,
                        unless=[(changes, now)], learn=learn, valid_from=start)
    j = _the_claim(kb.parts.engine, key, believed, source, (), exceptions)
    if j is not None:
        j.info[SINCE] = changes
        if len(held) == 1 and held[0].vid != canon(believed):
            j.info[REPLACES] = held[0].value
    return believed


def declare(kb: Any, key: str, value: Any, *, source: str,
            on: Sequence[str] | Mapping[str, str] | None = None, if_changes: str | None = None,
            citation: Any = None, certainty: float | None = None) -> Any:
    """``kb.depend`` (``on``) or ``kb.replace_when`` (``if_changes``): exactly one of them; the
    one door the MCP tool, the toolsets and the CLI share. Returns the value believed.

    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("user:condition", "asthma", source="human:ann")
    >>> declare(kb, "user:medication", "inhaler", source="model:m", on=["user:condition"])
    'inhaler'
    >>> declare(kb, "user:medication", "x", source="model:m")
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: give the keys it rests on (on) or the key whose change it waits for (if_changes), one of them
    """
    if (not on) == (if_changes is None):
        raise InvalidInputError("give the keys it rests on (on) or the key whose change it "
                                "waits for (if_changes), one of them")
    if if_changes is not None:
        return kb.replace_when(key, value, if_changes, source=source, citation=citation,
                               certainty=certainty)
    return kb.depend(key, value, on=on, source=source, citation=citation, certainty=certainty)

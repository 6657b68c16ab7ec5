"""The three record types of the TMS, as in a classic JTMS: the belief (a node: one value of one
key), the premise (a reason straight from a source, kept on its belief) and the justification (a
derived reason: a step over input beliefs). The engine (:mod:`corollary.tms.engine`) owns them;
everything else reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError, InvalidTypeError
from ..values import canon, check_key

if TYPE_CHECKING:  # pragma: no cover
    from .kinds import StepKind

IN = "IN"
OUT = "OUT"
PREMISES = "premises"  # marker for "the premise agreement" as a belief's best support


class _Any:
    """In an item ``(key, value, vid)``: any value of the key."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()

#: A belief named by an exception or a nogood: ``(key, value, vid)``; ``value`` and ``vid`` are
#: :data:`ANY` for "any value of the key".
Item = tuple[str, Any, Any]


def make_items(spec: object, what: str) -> tuple[Item, ...]:
    """Items from what a caller wrote: a list of keys (any value of the key) and ``(key,
    value)`` pairs (that value), validated; duplicates dropped, order kept.

    >>> make_items(["closure:notice", ("status", "closed")], "unless")
    (('closure:notice', ANY, ANY), ('status', 'closed', 'closed'))
    """
    if isinstance(spec, (str, bytes)) or not isinstance(spec, (list, tuple)):
        raise InvalidTypeError(f"{what} takes a list of keys and (key, value) pairs, not "
                               f"{type(spec).__name__}")
    items: list[Item] = []
    for entry in spec:
        if isinstance(entry, str):
            item: Item = (check_key(entry), ANY, ANY)
        elif isinstance(entry, (list, tuple)) and len(entry) == 2:
            item = (check_key(entry[0]), entry[1], canon(entry[1]))
        else:
            raise InvalidInputError(f"{what}: each item is a key or a (key, value) pair, not "
                                    f"{entry!r:.80}")
        if all((item[0], item[2]) != (i[0], i[2]) for i in items):
            items.append(item)
    return tuple(items)


def item_text(item: Item) -> str:
    """``key`` for any value of a key, else ``key = value``."""
    key, value, vid = item
    return key if vid is ANY else f"{key} = {value!r}"


class Premise:
    """A reason straight from a source: who said it, when, and how long it stays good."""

    __slots__ = ("source", "origin", "at", "half_life", "ttl", "expires_at")

    def __init__(self, source: str, origin: str, at: float, half_life: float | None,
                 ttl: float | None) -> None:
        self.source = source
        self.origin = origin
        self.at = at
        self.half_life = half_life
        self.ttl = ttl
        self.expires_at = None if ttl is None else at + ttl

    def expired(self, now: float) -> bool:
        """Whether the premise's ttl has run out at ``now``."""
        return self.expires_at is not None and now >= self.expires_at

    def __repr__(self) -> str:
        return f"<Premise {self.source} at {self.at}>"


class Justification:
    """A derived reason: a step of some kind (:mod:`corollary.tms.kinds`) over input beliefs.

    ``step`` is the constant part of the step confidence (a rule's confidence, a claim's
    certainty); a kind that reads reliability multiplies it by the live reliability of
    ``name`` (the model). ``info`` carries what the proof shows (formula, stated value,
    citation check, input names). ``unless`` is its out-list: items (:data:`Item`) whose being
    held makes the justification invalid ("x unless y"), as in Doyle's TMS.
    """

    __slots__ = ("kind", "name", "output", "inputs", "distinct", "step", "info", "seq", "live",
                 "unless")

    def __init__(self, kind: StepKind, name: str, output: Belief, inputs: tuple[Belief, ...],
                 step: float, info: dict[str, Any] | None = None,
                 unless: tuple[Item, ...] = ()) -> None:
        self.kind = kind
        # whether the step is more than the constant ``step`` (it reads its source's live
        # reliability, or its kind computes it): the sweep's hot path asks the kind only then
        # how the sweep gets the step: 0 the constant, 1 reliability × step (inlined on the hot
        # path), 2 the kind computes it
        self.live = 0 if not kind.computes_step else 2 if kind.custom_step else 1
        self.name = name
        self.output = output
        self.inputs = inputs
        # the inputs once each (a claim may name one input twice): what the sweep counts down
        self.distinct = inputs if len(set(inputs)) == len(inputs) else tuple(dict.fromkeys(inputs))
        self.step = step
        self.info = info or {}
        self.seq = 0
        self.unless = unless

    def __repr__(self) -> str:
        return f"<Justification {self.kind.name}:{self.name} -> {self.output.key}>"


class Nogood:
    """Beliefs that cannot all be held: while every item is held, a conflict policy gives one
    up (or the conflict stays open)."""

    __slots__ = ("name", "items", "seq")

    def __init__(self, name: str, items: tuple[Item, ...], seq: int) -> None:
        self.name = name
        self.items = items
        self.seq = seq

    def __repr__(self) -> str:
        return f"<Nogood {self.name}: {', '.join(item_text(i) for i in self.items)}>"


class Belief:
    """One value of one key, with its reasons and its last computed label and confidence.

    ``premises`` is a tuple and ``justs`` a tuple until a belief has many reasons (then a
    list): most beliefs have one reason, and a tuple of one costs less than any mutable
    container. ``label``, ``conf``, ``best`` (``PREMISES`` or the justification that gives the
    confidence), ``defeated_by``, ``potential`` (what a defeated value would have had),
    ``why`` and ``stamp`` (the time they were computed at) are the engine's memo: read them
    only after the engine has synced the belief.
    """

    __slots__ = (
        "key", "value", "vid", "seq", "premises", "justs", "blocked",
        "label", "conf", "best", "defeated_by", "potential", "timed", "stamp", "why",
    )

    def __init__(self, key: str, value: Any, vid: Any, seq: int) -> None:
        self.key = key
        self.value = value
        self.vid = vid
        self.seq = seq
        self.premises: tuple[Premise, ...] = ()
        self.justs: tuple[Justification, ...] | list[Justification] = ()
        self.blocked: str | None = None  # why it was withdrawn (retracted, rejected)
        self.label = OUT
        self.conf = 0.0
        self.best: Any = None
        self.defeated_by: Belief | None = None
        self.potential = 0.0
        self.timed = False
        self.stamp: float | None = None
        self.why = "unsupported"

    def premise_from(self, source: str) -> Premise | None:
        """This belief's premise from ``source``, if any."""
        for p in self.premises:
            if p.source == source:
                return p
        return None

    def __repr__(self) -> str:
        return f"<Belief {self.key}={self.value!r} {self.label} {self.conf:.4g}>"

"""Conflict policies: which of two held values of one key wins while both stand.

A key holds one value. When two values are both supported, the base's policy decides:

* :class:`PreferHigherConfidence` keeps the more confident value (ties: the older belief);
* :class:`PreferSource` keeps the value asserted by the source (or kind) earliest in its list;
  values none of whose premises is listed, and derived-only values, rank last, and ties fall
  back to confidence;
* :class:`AskHuman` calls a function with the conflict and takes its answer as a human
  resolution (final, and learned from unless ``learn=False``);
* no policy (``conflicts=None``) leaves the conflict open: both values stay IN and
  ``kb.conflicts()`` lists it.

A policy's decision is not learned from: the more trusted side would only win more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from .errors import InvalidInputError, InvalidTypeError


@attrs.frozen(slots=True)
class Candidate:
    """One value in a conflict, with its confidence and the sources behind it."""

    value: Any
    confidence: float
    sources: tuple[str, ...]


@attrs.frozen(slots=True)
class Conflict:
    """Two or more supported values of one key."""

    key: str
    candidates: tuple[Candidate, ...]

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(c.value for c in self.candidates)

    def __str__(self) -> str:
        options = ", ".join(f"{c.value!r} ({c.confidence:.2f})" for c in self.candidates)
        return f"{self.key}: {options}"


class ConflictPolicy:
    """Base class of conflict policies."""

    mode = "open"

    def to_dict(self) -> dict[str, Any]:
        return {"policy": type(self).__name__}


@attrs.frozen(slots=True)
class PreferHigherConfidence(ConflictPolicy):
    """The more confident value holds; the other is OUT while it loses.

    >>> PreferHigherConfidence().mode
    'confidence'
    """

    mode = "confidence"

    def to_dict(self) -> dict[str, Any]:
        return {"policy": "PreferHigherConfidence"}


def _order(value: Sequence[str]) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidTypeError("PreferSource takes a list of sources or kinds, most trusted first")
    for entry in value:
        if not isinstance(entry, str) or not entry:
            raise InvalidInputError(f"PreferSource entries must be non-empty strings, got {entry!r}")
    return tuple(value)


@attrs.frozen(slots=True)
class PreferSource(ConflictPolicy):
    """The value from the most preferred source wins (an entry is a source or a kind).

    >>> PreferSource(["human", "tool:registry"]).rank_of("tool:registry")
    1
    """

    order: tuple[str, ...] = attrs.field(converter=_order)
    mode = "rank"

    def rank_of(self, source: str) -> int:
        kind = source.partition(":")[0]
        for i, entry in enumerate(self.order):
            if entry == source or entry == kind:
                return i
        return len(self.order)

    def to_dict(self) -> dict[str, Any]:
        return {"policy": "PreferSource", "order": list(self.order)}


@attrs.frozen(slots=True)
class AskHuman(ConflictPolicy):
    """Ask a person: ``ask(conflict)`` returns the winning value (or ``None`` to leave it open)."""

    ask: Callable[[Conflict], Any] = attrs.field()
    learn: bool = attrs.field(default=True)
    mode = "ask"

    @ask.validator
    def _check(self, _attribute: Any, value: Any) -> None:
        if not callable(value):
            raise InvalidTypeError("AskHuman needs a callable: ask(conflict) -> winning value")

    @learn.validator
    def _check_learn(self, _attribute: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise InvalidTypeError(f"learn must be True or False, not {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"policy": "AskHuman", "learn": self.learn}


def policy_from_dict(data: dict[str, Any] | None, ask: Callable[[Conflict], Any] | None = None
                     ) -> ConflictPolicy | None:
    """Rebuild a policy saved with a snapshot (an ``AskHuman`` needs its ``ask`` again)."""
    if data is None:
        return None
    name = data.get("policy")
    if name == "PreferHigherConfidence":
        return PreferHigherConfidence()
    if name == "PreferSource":
        return PreferSource(data["order"])
    if name == "AskHuman":
        if ask is None:
            return None
        return AskHuman(ask, learn=bool(data.get("learn", True)))
    raise InvalidInputError(f"unknown conflict policy {name!r}")

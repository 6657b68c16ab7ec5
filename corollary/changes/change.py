"""What every change value knows: its operation, its journal entry (to and from), its subjects.

A change is a frozen, slotted attrs class (:class:`Change`), one per kind of change. Its fields
are the change's arguments, already plain data where the journal keeps them; ``op`` names the
journal entry's operation. The entry a value makes is its fields by name (``to_entry``), and a
value is read back from an entry's arguments (``from_entry``), so an entry's bytes are those the
change's method writes with the same arguments: journals written before values existed read
the same (tests/changes/test_old_journals.py).

Examples
--------
>>> import attrs
>>> @attrs.frozen(slots=True)
... class Rename(Change):
...     op = "rename"
...     key: str
...     to: str
...     def subjects(self, result, resolved):
...         return [[self.key, self.to, None, None]]
>>> Rename("hq", "head office").to_entry()
((), {'key': 'hq', 'to': 'head office'})
>>> Rename.from_entry((), {"key": "hq", "to": "head office"})
Rename(key='hq', to='head office')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import attrs

from ..foundations.errors import InvalidInputError

__all__ = ["Change", "fields_said"]

#: ``[key, value, source, reason]`` of each belief a change names, for its history row.
Subject = list[object]


@attrs.frozen(slots=True)
class Change:
    """A change to a base, as a value (subclass it with ``@attrs.frozen(slots=True)``).

    ``op`` is the name of its journal entry's operation: for the base's own changes, the name
    of the method that makes it (``"assert_"``), so entries are those the method writes.
    """

    op: ClassVar[str] = ""

    def to_entry(self) -> tuple[tuple[object, ...], dict[str, object]]:
        """The arguments its journal entry keeps: every field by name, those left at their
        default omitted (an entry holds what was said, as a call's keyword arguments)."""
        return (), fields_said(self)

    @classmethod
    def from_entry(cls, args: Sequence[object], kwargs: Mapping[str, object]) -> Change:
        """The value an entry's arguments make (positional arguments in field order, as the
        change's method takes them); ``InvalidInputError`` when they do not fit."""
        try:
            return cls(*args, **kwargs)
        except TypeError as exc:
            raise InvalidInputError(f"an entry of {cls.op!r} whose arguments do not make a "
                                    f"{cls.__name__}: {exc}") from None

    def subjects(self, result: object, resolved: Mapping[str, object]) -> list[Subject]:
        """``[key, value, source, reason]`` of each belief it names (its history rows);
        ``result`` is what applying it returned, ``resolved`` what it decided on the way."""
        return []


def fields_said(change: Change) -> dict[str, object]:
    """``change``'s fields by name, those left at their default omitted: what was said, as a
    call's keyword arguments (a journal entry's, and a base method's call by
    :meth:`~corollary.changes.base_changes.BaseChange.apply_to`)."""
    said: dict[str, object] = {}
    for field in attrs.fields(type(change)):
        value = getattr(change, field.name)
        if field.default is attrs.NOTHING or not _at_default(value, field.default):
            said[field.name] = value
    return said


def _at_default(value: object, default: object) -> bool:
    """Whether ``value`` is its field's default; an array, whose comparison has no one truth
    value, is not (it is said, and the base's own check refuses it with a typed error)."""
    try:
        return value is default or bool(value == default)
    except Exception:
        return False

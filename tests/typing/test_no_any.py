"""Issue 36, "Done when": no ``Any`` in the public signatures of the facade (``BeliefBase``'s
public methods and properties, its constructor included) and of the changes (``corollary.changes``:
its functions, and its value classes' fields and methods).

A value is a :data:`corollary.Value` (plain data), anything the base checks itself is ``object``,
a callable is ``Callable[..., object]``. The few left are listed here, each with its reason:
the test fails on any other, and on one listed that is gone (so the list stays exact).
Before: 111 ``Any`` in 59 signatures."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator

import corollary.changes as changes
from corollary import BeliefBase

ANY = re.compile(r"\bAny\b")

#: The signatures that keep an ``Any``, each with its reason.
REMAINING: dict[str, str] = {}


def _signatures() -> Iterator[tuple[str, Callable[..., object]]]:
    for name in sorted(vars(BeliefBase)):
        if name.startswith("_") and name != "__init__":
            continue
        member = inspect.getattr_static(BeliefBase, name)
        if isinstance(member, property):
            member = member.fget
        elif isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if callable(member):
            yield f"BeliefBase.{name}", member
    for name in changes.__all__:
        obj = getattr(changes, name)
        if inspect.isclass(obj):
            yield f"changes.{name}", obj.__init__
            for attr, member in vars(obj).items():
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if not attr.startswith("_") and callable(member):
                    yield f"changes.{name}.{attr}", member
        elif callable(obj):
            yield f"changes.{name}", obj


def _with_any() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for where, fn in _signatures():
        typed = [parameter for parameter, annotation in getattr(fn, "__annotations__", {}).items()
                 if ANY.search(str(annotation))]
        if typed:
            found[where] = typed
    return found


def test_the_public_signatures_of_the_facade_and_the_changes_name_no_any() -> None:
    found = _with_any()
    assert len(list(_signatures())) > 80  # the base's methods and the values were all read
    assert {where: ", ".join(names) for where, names in found.items()} == REMAINING

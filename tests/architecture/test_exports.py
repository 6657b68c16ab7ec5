"""The package root exports the public API: every error class, and every type a public method
of :class:`~corollary.BeliefBase` returns (read from its return annotations)."""

from __future__ import annotations

import inspect
import sys
import typing
from typing import Any

import numpy as np
import typing_extensions
from numpy.typing import NDArray

import corollary
import corollary.foundations.errors
from corollary import BeliefBase

#: Return types that are not corollary's own public API, each with the reason.
NOT_EXPORTED = {
    # kb.engine: the TMS for reading only, a view whose changing methods warn ("change the
    # base through its methods"): corollary.tms.reading
    "corollary.tms.reading.EngineView",
    # kb.journal: a session's journal (issue 36, item 3), whose questions are the base's own
    # methods (history, as_of, watch, checkpoint, sync): corollary.facade.journaled
    "corollary.facade.journaled.Journal",
}


def test_every_error_class_is_exported() -> None:
    errors = [c for _, c in inspect.getmembers(corollary.foundations.errors, inspect.isclass)
              if c.__module__ == "corollary.foundations.errors"]
    assert "StratificationError" in {c.__name__ for c in errors}
    missing = [c.__name__ for c in errors
               if getattr(corollary, c.__name__, None) is not c or c.__name__ not in corollary.__all__]
    assert missing == []


def _namespace() -> dict[str, Any]:
    """The names the base's annotations use, including those it imports only for checking."""
    names: dict[str, Any] = {}
    for cls in BeliefBase.__mro__[:-1]:
        names.update(vars(sys.modules[cls.__module__]))
    for _, member in _public_members():  # a method bound from the module that writes it
        names.update(vars(sys.modules[member.__module__]))
    names.update({n: getattr(corollary, n) for n in corollary.__all__})
    names.update(np=np, NDArray=NDArray, Self=typing_extensions.Self)
    return names


def _classes(tp: Any) -> set[type]:
    """The classes named anywhere in a resolved annotation (``list[Held]`` names ``Held``)."""
    found: set[type] = set()
    if isinstance(tp, type) and typing.get_origin(tp) is None:
        found.add(tp)
    for arg in typing.get_args(tp):
        found |= _classes(arg)
    origin = typing.get_origin(tp)
    if isinstance(origin, type):
        found.add(origin)
    return found


def _public_members() -> list[tuple[str, Any]]:
    """The base's public methods and properties (those its class binds from the facade's
    modules included)."""
    members = []
    seen: set[str] = set()
    for cls in BeliefBase.__mro__[:-1]:  # not object
        for name, member in vars(cls).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(member, property):
                member = member.fget
            elif isinstance(member, (classmethod, staticmethod)):
                member = member.__func__
            if callable(member):
                members.append((name, member))
    return members


def test_public_methods_return_exported_types() -> None:
    namespace = _namespace()
    unexported = []
    members = _public_members()
    assert len(members) > 40
    for name, fn in members:
        hints = typing.get_type_hints(fn, globalns=namespace)
        assert "return" in hints, f"BeliefBase.{name} has no return annotation"
        for cls in _classes(hints["return"]):
            module = cls.__module__
            if module == "builtins" or not module.startswith("corollary"):
                continue  # str, dict, numpy arrays...
            if f"{module}.{cls.__qualname__}" in NOT_EXPORTED:
                continue
            if getattr(corollary, cls.__name__, None) is not cls:
                unexported.append(f"BeliefBase.{name} -> {module}.{cls.__qualname__}")
    assert unexported == []


def test_the_unexported_list_names_real_return_types() -> None:
    """A type listed as not exported is still returned, and still not exported."""
    namespace = _namespace()
    returned = {f"{c.__module__}.{c.__qualname__}"
                for _, fn in _public_members()
                for c in _classes(typing.get_type_hints(fn, globalns=namespace)["return"])}
    for qualified in NOT_EXPORTED:
        assert qualified in returned
        assert qualified.rsplit(".", 1)[1] not in corollary.__all__


def test_importing_the_package_leaves_the_statistics_unloaded() -> None:
    """``Promise``, ``GroupedPromise`` and ``Platt`` are exported lazily: ``import corollary``
    does not import scipy, and the names load when first asked for."""
    import subprocess

    code = ("import sys, corollary; assert 'scipy' not in sys.modules; "
            "assert 'Promise' in dir(corollary); from corollary import Promise, Platt; "
            "assert 'scipy' in sys.modules and Promise.__name__ == 'Promise'")
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def _env() -> dict[str, str]:
    import os
    from pathlib import Path

    root = str(Path(corollary.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": root}

"""Old public names that keep working for one release, with a :class:`DeprecationWarning`.

A module lists its retired names in a table and hands it to :func:`module_getattr`, whose
result becomes the module's ``__getattr__`` (PEP 562): Python calls it only for a name the
module no longer defines, so current names cost nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def warn(old: str, new: str, stacklevel: int = 3) -> None:
    """Say that ``old`` is deprecated in favour of ``new`` (``new`` may be a sentence)."""
    warnings.warn(f"{old} is deprecated and goes in the next release: {new}",
                  DeprecationWarning, stacklevel=stacklevel)


def module_getattr(module: str, retired: Mapping[str, tuple[Callable[[], Any], str]]
                   ) -> Callable[..., Any]:
    """A module ``__getattr__`` serving ``retired`` names: ``{old: (value(), advice)}``.

    >>> getattr_ = module_getattr("m", {"OLD": (lambda: 1, "use NEW")})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     getattr_("OLD"), seen[0].category.__name__
    (1, 'DeprecationWarning')
    """

    def __getattr__(name: str, stacklevel: int = 3) -> Any:
        # stacklevel: a package re-exporting the module's names passes one more, so that the
        # warning names the line that imports from the package
        if name in retired:
            value, advice = retired[name]
            warn(f"{module}.{name}", advice, stacklevel)
            return value()
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__



def alias_modules(old: str, new: str, names: Iterable[str]) -> None:
    """Make ``old.<name>`` the module ``new.<name>`` itself, for each of ``names``.

    Called from the ``__init__`` of a package left at an old path (which warns): once it has
    run, ``import old.sqlite`` finds ``new.sqlite`` in ``sys.modules`` and gives it back (the
    same objects, so ``isinstance``, ``except`` and ``monkeypatch.setattr`` keep working).

    >>> import sys, types
    >>> sys.modules["corollary_old"] = types.ModuleType("corollary_old")
    >>> alias_modules("corollary_old", "email", ["message"])
    >>> import corollary_old.message, email.message
    >>> corollary_old.message is email.message
    True
    """
    import importlib
    import sys

    package = sys.modules[old]
    for name in names:
        module = importlib.import_module(f"{new}.{name}")
        sys.modules[f"{old}.{name}"] = module
        setattr(package, name, module)

"""Old public names that keep working for one release, with a :class:`DeprecationWarning`.

A module lists its retired names in a table and hands it to :func:`module_getattr`, whose
result becomes the module's ``__getattr__`` (PEP 562): Python calls it only for a name the
module no longer defines, so current names cost nothing.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


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


#: The default of a deprecated keyword: not given.
NOT_GIVEN: Any = type("NotGiven", (), {"__repr__": lambda self: "NOT_GIVEN"})()


def renamed_keyword(new_value: Any, old_value: Any, old: str, new: str, where: str,
                    default: Any = None, stacklevel: int = 4) -> Any:
    """The value of keyword ``new``, or of its deprecated spelling ``old`` (which warns);
    both given is an :class:`~corollary.foundations.errors.InvalidTypeError`.

    ``old_value`` is :data:`NOT_GIVEN` when the caller did not pass it; ``new_value`` is
    taken as not given when it is ``default``.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     renamed_keyword(None, 0.5, "threshold", "min_confidence", "kb.faded"), len(seen)
    (0.5, 1)
    >>> renamed_keyword(0.3, NOT_GIVEN, "threshold", "min_confidence", "kb.faded")
    0.3
    """
    if old_value is NOT_GIVEN:
        return new_value
    if new_value is not default:
        from .errors import InvalidTypeError

        raise InvalidTypeError(f"{where}() takes {new}= (or the deprecated {old}=), not both")
    warn(f"{where}({old}=)", f"pass {new}=", stacklevel)
    return old_value


def keyword_only(*names: str) -> Callable[[F], F]:
    """Make the keyword-only parameters ``names`` of the decorated function accept a position
    too, for one release, with a :class:`DeprecationWarning` (they were positional before).

    The function's runtime signature is the old one (``names`` by position too), so code that
    binds arguments before the call (a journal) keeps taking them; type checkers read the
    keyword-only definition.

    >>> @keyword_only("reason")
    ... def record(source, correct, *, reason=None):
    ...     return source, correct, reason
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     record("tool:a", True, "audit"), seen[0].category.__name__
    (('tool:a', True, 'audit'), 'DeprecationWarning')
    """
    def wrap(fn: F) -> F:
        signature = inspect.signature(fn)
        params = list(signature.parameters.values())
        by_position = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        n = len(by_position)
        old = [*by_position,
               *(signature.parameters[name].replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
                 for name in names),
               *(p for p in params if p not in by_position and p.name not in names)]

        @functools.wraps(fn)
        def shim(*args: Any, **kwargs: Any) -> Any:
            if len(args) > n:
                extra = args[n:n + len(names)]
                for name, value in zip(names, extra, strict=False):
                    if name in kwargs:
                        from .errors import InvalidTypeError

                        raise InvalidTypeError(f"{fn.__qualname__}() got {name!r} twice")
                    kwargs[name] = value
                warn(f"passing {', '.join(names[:len(extra)])} to {fn.__qualname__}() by "
                     "position", "pass it by name", 3)
                args = args[:n] + args[n + len(names):]
            return fn(*args, **kwargs)

        shim.__signature__ = signature.replace(parameters=old)  # type: ignore[attr-defined]
        return shim  # type: ignore[return-value]

    return wrap


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

"""Tools: functions whose results are premises from ``tool:<name>``.

``@tool`` leaves the function exactly as callable as before (signature, docstring, name), so
other frameworks' decorators stack on it; it only attaches a :class:`ToolSpec` that a
:class:`corollary.BeliefBase` reads: the declared trust (``high``/``medium``/``low`` or a
number), the evidence's half-life and ttl, and the independence origin.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from ._validate import check_unit
from .clock import Duration, to_seconds
from .errors import InvalidInputError, InvalidTypeError

F = TypeVar("F", bound=Callable[..., Any])

#: Tools by name, so snapshots can re-bind them on restore.
REGISTRY: dict[str, Callable[..., Any]] = {}


def _trust(value: Any) -> str | float | None:
    if value is None or isinstance(value, str):
        return value
    return check_unit(value, "a tool's numeric trust")


def _positive(value: Any, name: str) -> float | None:
    seconds = to_seconds(value, name)
    if seconds is not None and seconds <= 0:
        raise InvalidInputError(f"{name} must be > 0")
    return seconds


def _half_life(value: Any) -> float | None:
    return _positive(value, "half_life")


def _ttl(value: Any) -> float | None:
    return _positive(value, "ttl")


def _text(value: Any, what: str) -> Any:
    if value is not None and (not isinstance(value, str) or not value or value.isspace()):
        raise InvalidInputError(f"a tool's {what} must be a non-empty string, got {value!r}")
    return value


def _name(value: Any) -> str:
    if value is None:
        raise InvalidInputError("a tool needs a name")
    return _text(value, "name")  # type: ignore[no-any-return]


def _origin(value: Any) -> str | None:
    return _text(value, "origin")  # type: ignore[no-any-return]


@attrs.frozen(slots=True)
class ToolSpec:
    """What a tool declares about its results."""

    name: str = attrs.field(converter=_name)
    trust: str | float | None = attrs.field(default=None, converter=_trust)
    half_life: float | None = attrs.field(default=None, converter=_half_life)
    ttl: float | None = attrs.field(default=None, converter=_ttl)
    origin: str | None = attrs.field(default=None, converter=_origin)

    @property
    def source(self) -> str:
        return f"tool:{self.name}"


def spec_of(fn: Any) -> ToolSpec:
    """The :class:`ToolSpec` of a function decorated with :func:`tool`."""
    spec = getattr(fn, "__corollary_tool__", None)
    if not isinstance(spec, ToolSpec):
        raise InvalidTypeError(f"{fn!r} is not a corollary tool (decorate it with @tool)")
    return spec


def tool(fn: F | None = None, *, trust: str | float | None = None, half_life: Duration | None = None,
         ttl: Duration | None = None, origin: str | None = None, name: str | None = None) -> Any:
    """Declare a function a tool whose results are premises from ``tool:<name>``.

    Examples
    --------
    >>> from datetime import timedelta
    >>> @tool(trust="high", half_life=timedelta(minutes=1))
    ... def quote(symbol: str) -> float:
    ...     '''Last trade price.'''
    ...     return 101.5
    >>> quote("ACME"), quote.__doc__, quote.__corollary_tool__.source
    (101.5, 'Last trade price.', 'tool:quote')
    """
    def wrap(f: F) -> F:
        spec = ToolSpec(f.__name__ if name is None else name, trust, half_life, ttl, origin)

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return f(*args, **kwargs)

        wrapper.__corollary_tool__ = spec  # type: ignore[attr-defined]
        REGISTRY[spec.name] = wrapper
        return wrapper  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap

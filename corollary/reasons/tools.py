"""Tools: functions whose results are premises from ``tool:<name>``.

``@tool`` leaves the function exactly as callable as before (signature, docstring, name, and
``async def`` stays a coroutine function), so other frameworks' decorators stack on it; it only
attaches a :class:`ToolSpec` that a :class:`corollary.BeliefBase` reads: the declared trust
(``high``/``medium``/``low`` or a number), the evidence's half-life and ttl, the independence
origin, and the key its results are believed under (a template filled from the call's
arguments, ``"price:{symbol}"``; without one, ``name(arg=value, ...)``).

:func:`bind_arguments` and :func:`call_key` are what ``kb.call`` uses to name a call's result
and remember the call; :func:`split_arguments` turns remembered arguments back into a call.
"""

from __future__ import annotations

import functools
import inspect
import json
import string
import weakref
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs

from ..foundations._validate import check_unit
from ..foundations.clock import Duration, to_seconds
from ..foundations.errors import CorollaryError, InvalidInputError, InvalidTypeError
from ..foundations.values import canon, check_key, plain
from .registry import DEFINED

F = TypeVar("F", bound=Callable[..., Any])

# the process-wide table that a second tool of a name silently replaced the first in (for
# every base of the process): what a load by name finds is in corollary.reasons.registry now


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


def template_fields(template: str) -> list[str]:
    """The parameter names a key template reads (``"price:{symbol}"`` reads ``symbol``).

    Fields must be plain names (no ``{}``, ``{0}``, ``{a.b}`` or ``{a[0]}``); a format spec or
    conversion is allowed (``{x:.2f}``, ``{name!r}``) but may not hold fields of its own.

    >>> template_fields("price:{symbol}@{venue:>4}")
    ['symbol', 'venue']
    """
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:  # an unmatched brace
        raise InvalidInputError(f"the key template {template!r} is malformed: {exc}") from None
    names = []
    for _literal, field, spec, _conversion in parts:
        if field is None:
            continue
        if not field.isidentifier():
            raise InvalidInputError(
                f"the key template {template!r} must name parameters ({{symbol}}), not {{{field}}}")
        if spec and ("{" in spec or "}" in spec):
            raise InvalidInputError(f"the key template {template!r} nests a field in a format spec")
        names.append(field)
    return names


def _template(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or value.isspace():
        raise InvalidInputError(f"a tool's key template must be a non-empty string, got {value!r}")
    template_fields(value)
    return value


@attrs.frozen(slots=True)
class ToolSpec:
    """What a tool declares about its results."""

    name: str = attrs.field(converter=_name)
    trust: str | float | None = attrs.field(default=None, converter=_trust)
    half_life: float | None = attrs.field(default=None, converter=_half_life)
    ttl: float | None = attrs.field(default=None, converter=_ttl)
    origin: str | None = attrs.field(default=None, converter=_origin)
    key: str | None = attrs.field(default=None, converter=_template)

    @property
    def source(self) -> str:
        return f"tool:{self.name}"

    def key_for(self, arguments: Mapping[str, Any]) -> str:
        """The key a call's result is believed under: the template filled from ``arguments``
        (the call's bound arguments), else ``name(arg=value, ...)`` with the values as JSON.

        >>> ToolSpec("quote", key="price:{symbol}").key_for({"symbol": "ACME"})
        'price:ACME'
        >>> ToolSpec("quote").key_for({"symbol": "ACME", "venue": None})
        'quote(symbol="ACME", venue=null)'
        """
        if self.key is not None:
            try:
                key = self.key.format_map(arguments)
            except (KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
                raise InvalidInputError(
                    f"cannot fill the key template {self.key!r} of tool {self.name!r} from "
                    f"{dict(arguments)!r:.200}: {exc}") from None
            return check_key(key)
        shown = ", ".join(f"{name}={self._shown(name, value)}" for name, value in arguments.items())
        return check_key(f"{self.name}({shown})")

    def _shown(self, name: str, value: Any) -> str:
        try:
            canon(value)
        except CorollaryError:
            raise InvalidInputError(
                f"cannot name the result of {self.name}(): its argument {name!r} is not plain "
                "data; pass a key (or declare @tool(key=...))") from None
        return json.dumps(plain(value), sort_keys=True, ensure_ascii=False)


# weakly, so a signature read keeps no tool alive: a tool nothing refers to any more is not
# found by name (corollary.reasons.registry)
_SIGNATURES: weakref.WeakKeyDictionary[Any, inspect.Signature] = weakref.WeakKeyDictionary()


def _signature(fn: Callable[..., Any]) -> inspect.Signature:
    try:
        return _SIGNATURES[fn]
    except (KeyError, TypeError):  # not read yet, or not weakly referable (a builtin)
        pass
    try:
        signature = inspect.signature(fn)  # follows __wrapped__ to the decorated function
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(f"cannot read the signature of {fn!r}: {exc}") from None
    try:
        _SIGNATURES[fn] = signature
    except TypeError:
        pass
    return signature


def is_async(fn: Callable[..., Any]) -> bool:
    """Whether calling ``fn`` gives a coroutine to await (an ``async def`` tool)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(inspect.unwrap(fn))


def bind_arguments(fn: Callable[..., Any], args: tuple[Any, ...] | list[Any],
                   kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A call's arguments by parameter name, defaults applied, in the signature's order.

    ``*args`` and ``**kwargs`` parameters hold a tuple and a dict. A call that does not fit the
    signature raises :class:`~corollary.foundations.errors.InvalidTypeError` (a ``TypeError``) before
    anything runs.

    >>> def quote(symbol, venue="NYSE"): ...
    >>> bind_arguments(quote, ("ACME",), {})
    {'symbol': 'ACME', 'venue': 'NYSE'}
    """
    try:
        bound = _signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        name = getattr(fn, "__name__", repr(fn))
        raise InvalidTypeError(f"{name}() called with arguments that do not fit: {exc}") from None
    bound.apply_defaults()
    return dict(bound.arguments)


def bind_named(fn: Callable[..., Any], named: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`bind_arguments` for arguments given by name only (as a model gives them):
    positional-only parameters are passed by position.

    >>> def scale(x, /, by=2): ...
    >>> bind_named(scale, {"x": 3})
    {'x': 3, 'by': 2}
    """
    positional = [p.name for p in _signature(fn).parameters.values()
                  if p.kind is inspect.Parameter.POSITIONAL_ONLY]
    args = []
    for name in positional:
        if name not in named:
            break
        args.append(named[name])
    kwargs = {k: v for k, v in named.items() if k not in positional[:len(args)]}
    return bind_arguments(fn, args, kwargs)


def split_arguments(fn: Callable[..., Any], arguments: Mapping[str, Any]
                    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` that call ``fn`` with ``arguments`` (from :func:`bind_arguments`).

    >>> def quote(symbol, /, *more, venue="NYSE"): ...
    >>> split_arguments(quote, {"symbol": "ACME", "more": ["X"], "venue": "LSE"})
    (('ACME', 'X'), {'venue': 'LSE'})
    """
    signature = _signature(fn)
    ordered = {name: arguments[name] for name in signature.parameters if name in arguments}
    unknown = set(arguments) - set(ordered)
    if unknown:
        raise InvalidTypeError(f"{sorted(unknown)} are not parameters of {fn!r}")
    for name, parameter in signature.parameters.items():
        # remembered arguments are plain data: a *args tuple comes back as a list
        if parameter.kind is parameter.VAR_POSITIONAL and name in ordered:
            ordered[name] = tuple(ordered[name])
    bound = inspect.BoundArguments(signature, ordered)  # type: ignore[arg-type]
    return bound.args, bound.kwargs


def call_key(fn: Callable[..., Any], arguments: Mapping[str, Any]) -> str:
    """The key ``kb.call(fn, None, ...)`` believes a result under (see :meth:`ToolSpec.key_for`)."""
    return spec_of(fn).key_for(arguments)


def spec_of(fn: Any) -> ToolSpec:
    """The :class:`ToolSpec` of a function decorated with :func:`tool`."""
    spec = getattr(fn, "__corollary_tool__", None)
    if not isinstance(spec, ToolSpec):
        raise InvalidTypeError(f"{fn!r} is not a corollary tool (decorate it with @tool)")
    return spec


def tool(fn: F | None = None, *, trust: str | float | None = None, half_life: Duration | None = None,
         ttl: Duration | None = None, origin: str | None = None, name: str | None = None,
         key: str | None = None) -> Any:
    """Declare a function a tool whose results are premises from ``tool:<name>``.

    ``key`` is the key template its results are believed under when ``kb.call`` (or an agent)
    is given no key: ``"price:{symbol}"`` reads the call's ``symbol`` argument. Every field must
    be a parameter of the function (checked here, at decoration).

    Examples
    --------
    >>> from datetime import timedelta
    >>> @tool(trust="high", half_life=timedelta(minutes=1), key="price:{symbol}")
    ... def quote(symbol: str) -> float:
    ...     '''Last trade price.'''
    ...     return 101.5
    >>> quote("ACME"), quote.__doc__, quote.__corollary_tool__.source
    (101.5, 'Last trade price.', 'tool:quote')
    >>> call_key(quote, {"symbol": "ACME"})
    'price:ACME'
    """
    def wrap(f: F) -> F:
        spec = ToolSpec(f.__name__ if name is None else name, trust, half_life, ttl, origin, key)
        if spec.key is not None:
            _check_template(f, spec.key)

        if is_async(f):
            @functools.wraps(f)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                return await f(*args, **kwargs)

            wrapper: Any = awrapper
        else:
            @functools.wraps(f)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                return f(*args, **kwargs)

        wrapper.__corollary_tool__ = spec
        DEFINED.note(wrapper)  # found by name when a snapshot or journal is loaded
        return wrapper  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap


def _check_template(f: Callable[..., Any], template: str) -> None:
    parameters = _signature(f).parameters
    named = {n for n, p in parameters.items()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    unknown = [n for n in template_fields(template) if n not in named]
    if unknown:
        raise InvalidInputError(
            f"the key template {template!r} of {getattr(f, '__name__', f)!r} reads {unknown}, "
            f"which are not its parameters ({sorted(named)})")

"""OpenAI function schemas from Python functions: :func:`tool_schema`."""

from __future__ import annotations

import collections.abc
import enum
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from ..foundations.errors import InvalidInputError, InvalidTypeError

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                            type(None): "null"}
_ARRAYS = {list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence,
           collections.abc.Set, collections.abc.MutableSet, collections.abc.Iterable,
           collections.abc.Collection}
_OBJECTS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}
_UNIONS: tuple[Any, ...] = (typing.Union, types.UnionType)


def _json_type(value: Any) -> str | None:
    for kind, name in _SCALARS.items():
        if type(value) is kind:
            return name
    return None


def _enum(values: list[Any]) -> dict[str, Any]:
    """``{"enum": values}``, typed when every value has one JSON type; ``{}`` if not JSON."""
    kinds = {_json_type(value) for value in values}
    if None in kinds or not values:
        return {}
    schema: dict[str, Any] = {"enum": values}
    if len(kinds) == 1:
        schema = {"type": kinds.pop(), **schema}
    return schema


def _schema(annotation: Any) -> dict[str, Any]:
    """The JSON schema of one annotation; ``{}`` (no constraint) for what JSON cannot say."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _schema(args[0])
    if origin is typing.Literal:
        return _enum(list(args))
    if origin in _UNIONS:
        return _union([_schema(arg) for arg in args])
    try:
        hash(annotation)
    except TypeError:  # not a type at all (``x: {"a": 1}``)
        return {}
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum([member.value for member in annotation])
    if annotation in _ARRAYS or origin in _ARRAYS:
        schema: dict[str, Any] = {"type": "array"}
        # tuple[int, str] has one type per place: say only that it is an array
        item = args[0] if args and (origin is not tuple or len(args) == 1 or args[1] is Ellipsis) else None
        if item is not None and _schema(item):
            schema["items"] = _schema(item)
        return schema
    if annotation in _OBJECTS or origin in _OBJECTS:
        schema = {"type": "object"}
        if len(args) == 2 and _schema(args[1]):
            schema["additionalProperties"] = _schema(args[1])
        return schema
    return {}


def _union(members: list[dict[str, Any]]) -> dict[str, Any]:
    if not all(members):  # one member allows anything: so does the union
        return {}
    if all(set(member) == {"type"} for member in members):
        kinds: list[str] = []
        for member in members:
            more = member["type"] if isinstance(member["type"], list) else [member["type"]]
            kinds += [kind for kind in more if kind not in kinds]
        return {"type": kinds[0] if len(kinds) == 1 else kinds}
    nullable = [member for member in members if member != {"type": "null"}]
    if len(nullable) == 1 and isinstance(nullable[0].get("type"), str) and "enum" not in nullable[0]:
        # Optional[list[int]]: keep the single type and allow null beside it.
        return {**nullable[0], "type": [nullable[0]["type"], "null"]}
    return {"anyOf": members}


_DASHES = re.compile(r"\s*-{3,}\s*")
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|"
                      r"Other Parameters|Returns?|Yields?|Raises|Examples?|Notes?|See Also|"
                      r"Attributes|Warnings?|References|Methods)\s*:?\s*$")


def _is_header(lines: list[str], at: int) -> bool:
    """Whether ``lines[at]`` starts a section (a numpydoc title, a Google ``Args:``, a ``:param``)."""
    line = lines[at]
    underlined = at + 1 < len(lines) and bool(_DASHES.fullmatch(lines[at + 1])) and bool(line.strip())
    return underlined or bool(_SECTION.match(line)) or line.strip().startswith(":")


def _docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph, and the parameters' descriptions (numpydoc, Google, or Sphinx)."""
    lines = doc.splitlines()
    summary: list[str] = []
    for at, line in enumerate(lines):
        if _is_header(lines, at) or (summary and not line.strip()):
            break
        if line.strip():
            summary.append(line.strip())
    return " ".join(summary), {**_numpydoc(lines), **_google(lines), **_sphinx(doc)}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _numpydoc(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for at, line in enumerate(lines[:-1]):
        if line.strip() not in ("Parameters", "Other Parameters") or not _DASHES.fullmatch(lines[at + 1]):
            continue
        base = _indent(line)
        names: list[str] = []
        for entry_at in range(at + 2, len(lines)):
            entry = lines[entry_at]
            if not entry.strip():
                continue
            if _indent(entry) > base:
                for name in names:
                    found[name] = (found[name] + " " + entry.strip()).strip()
                continue
            if _is_header(lines, entry_at):
                break
            head = entry.split(" :", 1)[0] if " :" in entry else entry.split(":", 1)[0]
            names = [name.strip().lstrip("*") for name in head.split(",")]
            names = [name for name in names if name.isidentifier()]
            for name in names:
                found.setdefault(name, "")
    return {name: text for name, text in found.items() if text}


def _google(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for at, line in enumerate(lines):
        if line.strip() not in ("Args:", "Arguments:", "Parameters:", "Params:", "Keyword Args:",
                                "Keyword Arguments:"):
            continue
        base = _indent(line)
        entry_indent: int | None = None
        name: str | None = None
        for entry in lines[at + 1:]:
            if not entry.strip():
                continue
            if _indent(entry) <= base:
                break
            if entry_indent is None:
                entry_indent = _indent(entry)
            if _indent(entry) == entry_indent:
                match = re.match(r"\s*\**(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", entry)
                if not match:
                    name = None
                    continue
                name = match.group(1)
                found[name] = match.group(3).strip()
            elif name is not None:
                found[name] = (found[name] + " " + entry.strip()).strip()
    return {name: text for name, text in found.items() if text}


def _sphinx(doc: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in re.finditer(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:(.*(?:\n(?!\s*:)(?!\s*$).*)*)", doc, re.M):
        found[match.group(1)] = " ".join(match.group(2).split())
    return found


def _target(fn: Callable[..., Any]) -> Any:
    """The function whose annotations describe ``fn``'s parameters."""
    target: Any = inspect.unwrap(fn)
    while isinstance(target, functools.partial):
        target = inspect.unwrap(target.func)
    if not (inspect.isfunction(target) or inspect.ismethod(target)) and not isinstance(target, type) \
            and callable(getattr(target, "__call__", None)):  # noqa: B004 - an object with __call__
        target = target.__call__
    return target


def _annotations(fn: Callable[..., Any], signature: inspect.Signature) -> dict[str, Any]:
    """Each parameter's annotation, with string annotations (``from __future__ import
    annotations``) resolved where they can be; ``typing.Any`` where they cannot."""
    target = _target(fn)
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # noqa: BLE001 - one unresolvable annotation must not lose the others
        hints = {}
    namespace = dict(getattr(target, "__globals__", {}))
    found: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        annotation = hints.get(parameter.name, parameter.annotation)
        for _ in range(3):  # x: "list[int]" under postponed annotations is a string twice over
            if not isinstance(annotation, str):
                break
            try:
                # What typing.get_type_hints does, for this one annotation: the function's own code.
                annotation = eval(annotation, namespace)  # noqa: S307
            except Exception:  # noqa: BLE001 - a name that cannot be resolved: no constraint
                annotation = typing.Any
        if isinstance(annotation, str):
            annotation = typing.Any
        found[parameter.name] = typing.Any if annotation is inspect.Parameter.empty else annotation
    return found


def _annotated_text(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is typing.Annotated:
        for extra in typing.get_args(annotation)[1:]:
            if isinstance(extra, str) and extra.strip():
                return extra.strip()
    return None


def tool_schema(fn: Callable[..., Any], name: str | None = None,
                description: str | None = None) -> dict[str, Any]:
    """An OpenAI function schema for ``fn``, from its signature, annotations and docstring.

    Parameters
    ----------
    fn : callable
        The function; decorated functions (``functools.wraps``, corollary's ``@tool``) are read
        through to the function they wrap. ``*args`` and ``**kwargs`` are left out.
    name : str, optional
        The tool's name (default ``fn.__name__``): 1 to 64 letters, digits, ``_`` or ``-``.
    description : str, optional
        Default: the docstring's first paragraph.

    Returns
    -------
    dict
        ``{"type": "function", "function": {"name", "description", "parameters"}}``, where
        ``parameters`` is a JSON schema object: ``str``/``int``/``float``/``bool`` map to
        string/integer/number/boolean, ``list[X]`` (and tuples, sets, sequences) to arrays of X,
        ``dict`` to objects, ``X | None`` to X or null, ``Literal`` and ``Enum`` to enums, and
        anything else to no constraint. Parameters without a default are ``required``; a
        JSON-serialisable default is given as ``default``. Parameter descriptions come from a
        numpydoc, Google or Sphinx docstring, or a str in ``Annotated[X, "..."]``.

    Examples
    --------
    >>> from typing import Literal
    >>> def quote(symbol: str, venue: Literal["NYSE", "LSE"] = "NYSE") -> float:
    ...     '''Last trade price of a stock.
    ...
    ...     Parameters
    ...     ----------
    ...     symbol : str
    ...         Ticker, e.g. ACME.
    ...     '''
    >>> schema = tool_schema(quote)
    >>> schema["function"]["description"]
    'Last trade price of a stock.'
    >>> schema["function"]["parameters"]["properties"]["symbol"]
    {'type': 'string', 'description': 'Ticker, e.g. ACME.'}
    >>> schema["function"]["parameters"]["properties"]["venue"]
    {'type': 'string', 'enum': ['NYSE', 'LSE'], 'default': 'NYSE'}
    >>> schema["function"]["parameters"]["required"]
    ['symbol']
    """
    name = _tool_name(fn, name)
    if description is not None and not isinstance(description, str):
        raise InvalidTypeError(f"description must be a str, not {type(description).__name__}")
    try:
        signature = inspect.signature(fn)  # follows __wrapped__
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"cannot read the signature of {fn!r}: {exc}") from None
    doc = inspect.getdoc(fn) or inspect.getdoc(inspect.unwrap(fn)) or ""
    summary, described = _docstring(doc)
    properties, required = _parameters(fn, signature, described)
    function: dict[str, Any] = {"name": name}
    text = summary if description is None else description
    if text:
        function["description"] = text
    function["parameters"] = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": function}


def _tool_name(fn: Callable[..., Any], name: str | None) -> str:
    """The name a tool's schema gives it, checked (``fn.__name__`` unless ``name``)."""
    if not callable(fn):
        raise InvalidTypeError(f"tool_schema needs a function, not {type(fn).__name__}")
    if name is None:
        name = getattr(fn, "__name__", None)
        if name is None:
            raise InvalidInputError(f"{fn!r} has no __name__: pass name=")
    if not isinstance(name, str):
        raise InvalidTypeError(f"a tool's name must be a str, not {type(name).__name__}")
    if not _NAME.match(name):
        raise InvalidInputError(f"a tool's name must be 1 to 64 letters, digits, '_' or '-', not {name!r}")
    return name


def _parameters(fn: Callable[..., Any], signature: inspect.Signature,
                described: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The schema's ``properties`` and ``required`` parameters (``*args``/``**kwargs`` left
    out), each described from the docstring or its ``Annotated`` text."""
    annotations = _annotations(fn, signature)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        annotation = annotations[parameter.name]
        schema = _schema(annotation)
        text = described.get(parameter.name) or _annotated_text(annotation)
        if text:
            schema["description"] = text
        if parameter.default is parameter.empty:
            required.append(parameter.name)
        else:
            try:
                schema["default"] = json.loads(json.dumps(parameter.default, allow_nan=False))
            except (TypeError, ValueError, RecursionError):
                pass  # a default JSON cannot carry (an object, a NaN): the model need not see it
        properties[parameter.name] = schema
    return properties, required

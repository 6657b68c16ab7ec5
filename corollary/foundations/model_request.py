"""What one model request may carry beside its messages and tools: :class:`RequestOptions`.

A request made for one purpose (``kb.remember``'s, which must call ``facts``; the agent's forced
answer, which must call ``answer``) needs its own ``tool_choice`` and sometimes its own schema
for the reply, whatever the model instance's settings say (docs/models.md, "Per-request
options"). The options are plain data, so the facade (which must not import the model layer)
and the model layer share them from here; :func:`accepts_options` tells whether a model's
``complete`` takes them (a model written before them does not, and gets the request without).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .errors import InvalidInputError, InvalidTypeError

__all__ = ["RequestOptions", "accepts_options", "request_options", "tool_named"]

#: The string forms of ``tool_choice`` the OpenAI chat API knows.
TOOL_CHOICES = ("auto", "none", "required")


def tool_named(name: str) -> dict[str, Any]:
    """The ``tool_choice`` that requires a call of the tool ``name`` (OpenAI's form, which
    vLLM and llama.cpp's servers read too).

    >>> tool_named("facts")
    {'type': 'function', 'function': {'name': 'facts'}}
    """
    if not isinstance(name, str) or not name:
        raise InvalidInputError(f"a tool's name is a non-empty str, not {name!r}")
    return {"type": "function", "function": {"name": name}}


def _tool_choice(value: Any) -> str | dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value not in TOOL_CHOICES:
            raise InvalidInputError(f"tool_choice is one of {TOOL_CHOICES} or names a tool, "
                                    f"not {value!r}")
        return value
    if isinstance(value, Mapping):
        function = value.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if value.get("type") != "function" or not isinstance(name, str) or not name:
            raise InvalidInputError("a tool_choice object is {'type': 'function', 'function': "
                                    f"{{'name': ...}}}}, not {dict(value)!r}")
        return tool_named(name)
    raise InvalidTypeError(f"tool_choice must be a str or a dict, not {type(value).__name__}")


def _schema(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"a reply schema is a JSON schema object, not {type(value).__name__}")
    try:
        copied: dict[str, Any] = json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"a reply schema must be strict JSON: {exc}") from None
    return copied


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value or not all(c.isalnum() or c in "_-" for c in value):
        raise InvalidInputError(f"schema_name is letters, digits, '_' or '-', not {value!r}")
    return value


@attrs.frozen(slots=True)
class RequestOptions:
    """Options of one request, sent over the model instance's settings.

    Attributes
    ----------
    tool_choice : str or dict, optional
        ``"auto"``, ``"none"``, ``"required"``, or a tool named (:func:`tool_named`).
    schema : dict, optional
        A JSON schema the reply's text must follow (structured output): each server is sent
        it in the form it reads (:class:`corollary.models.OpenAIChat`, ``dialect=``).
    schema_name : str
        The schema's name, where the server's form has one (OpenAI's does).

    Examples
    --------
    >>> RequestOptions(tool_choice=tool_named("facts")).tool_choice["function"]["name"]
    'facts'
    >>> RequestOptions(tool_choice="sometimes")
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: tool_choice is one of ('auto', 'none', 'required') or names a tool, not 'sometimes'
    """

    tool_choice: str | dict[str, Any] | None = attrs.field(default=None, converter=_tool_choice)
    schema: dict[str, Any] | None = attrs.field(default=None, converter=_schema,
                                                eq=False, hash=False)
    schema_name: str = attrs.field(default="reply", converter=_name)

    @property
    def empty(self) -> bool:
        """Whether the options ask for nothing (the request goes as it always did)."""
        return self.tool_choice is None and self.schema is None

    @property
    def tool(self) -> str | None:
        """The tool ``tool_choice`` requires by name, or ``None``."""
        if isinstance(self.tool_choice, dict):
            name: str = self.tool_choice["function"]["name"]
            return name
        return None


def request_options(value: Any) -> RequestOptions:
    """``value`` as :class:`RequestOptions`: ``None`` (none), a mapping of its fields, or one.

    >>> request_options({"tool_choice": "required"}).tool_choice
    'required'
    >>> request_options(None).empty
    True
    """
    if value is None:
        return RequestOptions()
    if isinstance(value, RequestOptions):
        return value
    if isinstance(value, Mapping):
        unknown = set(value) - {"tool_choice", "schema", "schema_name"}
        if unknown:
            raise InvalidInputError(f"unknown request options {sorted(map(str, unknown))}")
        return RequestOptions(**value)
    raise InvalidTypeError(f"request options are RequestOptions or a dict, not {type(value).__name__}")


def accepts_options(method: Callable[..., Any]) -> bool:
    """Whether ``method`` (a model's ``complete`` or ``acomplete``) takes ``options=``.

    >>> accepts_options(lambda messages, tools, options=None: None)
    True
    >>> accepts_options(lambda messages, tools: None)
    False

    A model whose method takes them but passes them on to something that may not (a
    :class:`~corollary.models.FunctionModel`) says which with a bool ``takes_options``.
    """
    flag = getattr(getattr(method, "__self__", None), "takes_options", None)
    if isinstance(flag, bool):
        return flag
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "options" and p.kind is not p.POSITIONAL_ONLY
               or p.kind is p.VAR_KEYWORD for p in parameters)

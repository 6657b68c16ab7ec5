"""The tools every agent offers (``recall``, ``claim`` and ``answer``), their schemas, and the
check of a call's arguments against a schema before anything runs.

``claim`` and ``recall`` are tools of the tool table (:mod:`corollary.serving.tools`), the same
the MCP server and the toolsets offer: their schemas are the table's, declared as Python
functions (:func:`corollary.serving.tools.declared`) and read as any tool's
(:func:`corollary.models.tool_schema`), without the arguments the agent fills itself
(:data:`BOUND`: a claim is on the agent's own word, a recall reads at the agent's floor). The
agent runs them its own way (a claim is checked, and may be sampled, before it is believed).
``answer`` ends the agent's task and is no change to a base: it is declared in
:mod:`corollary.agent.prompts`, with every other text the model reads. None is called.
"""

from __future__ import annotations

import json
from typing import Any

from ..models import tool_schema
from ..serving import tools
from . import prompts

#: The agent's own tools, offered after the tools it is given; no tool may take their names.
BUILTINS = ("claim", "answer", "recall")
#: The arguments of the table's tools the agent fills itself, not offered to the model.
BOUND: dict[str, dict[str, Any]] = {"claim": {"source": "model:agent"},
                                   "recall": {"min_confidence": None}}
#: The arguments the agent requires though the table does not: its claims rest on beliefs.
REQUIRED = {"claim": ("inputs",)}


def builtin_schema(name: str) -> dict[str, Any]:
    """The function schema of the built-in ``name``: the tool table's (``claim``, ``recall``)
    or :mod:`corollary.agent.prompts`' (``answer``), as they read now.

    >>> builtin_schema("recall")["function"]["parameters"]["required"]
    ['query']
    """
    if name == "answer":
        source: Any = prompts.answer
        fn = lambda: prompts.answer  # noqa: E731 - the declaration itself
    else:
        source = tools.tool_named(name)
        fn = lambda: tools.declared(source, bound=BOUND[name],  # noqa: E731
                                    required=REQUIRED.get(name, ()))
    known = _SCHEMAS.get(name)
    # reading a docstring costs more than a step: made again only when the text changed
    if known is None or known[0] is not source or known[1] != getattr(source, "__doc__", None):
        known = _SCHEMAS[name] = (source, getattr(source, "__doc__", None), tool_schema(fn()))
    return known[2]


_SCHEMAS: dict[str, tuple[Any, str | None, dict[str, Any]]] = {}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _is(kind: str, value: Any) -> bool:
    found = _json_kind(value)
    return found == kind or (kind == "number" and found == "integer")


def _describe(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_describe(member) for member in schema["anyOf"])
    kinds = schema.get("type")
    if kinds is None:
        return "anything"
    text = " or ".join(kinds) if isinstance(kinds, list) else str(kinds)
    items = schema.get("items")
    if kinds == "array" and isinstance(items, dict) and "type" in items:
        text = f"an array of {_describe(items)}"
    extra = schema.get("additionalProperties")
    if kinds == "object" and isinstance(extra, dict) and "type" in extra:
        text = f"an object of {_describe(extra)}"
    return text


def mismatch(schema: dict[str, Any], value: Any) -> str | None:
    """Why ``value`` does not fit ``schema`` (the JSON schema subset ``tool_schema`` writes:
    ``type``, ``enum``, ``items``, ``additionalProperties``, ``anyOf``), or ``None``.

    >>> mismatch({"type": "string"}, 3)
    'must be string, not integer 3'
    >>> mismatch({"type": "array", "items": {"type": "string"}}, ["a", 1])
    'must be an array of string, not array ["a", 1]'
    >>> mismatch({"type": ["number", "null"]}, None) is None
    True
    """
    if "anyOf" in schema:
        if all(mismatch(member, value) for member in schema["anyOf"]):
            return f"must be {_describe(schema)}, not {_shown(value)}"
        return None
    if "enum" in schema and not any(value == option and type(value) is type(option)
                                    for option in schema["enum"]):
        return f"must be one of {schema['enum']}, not {_shown(value)}"
    kinds = schema.get("type")
    if kinds is None:
        return None
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if not any(_is(kind, value) for kind in kinds):
        return f"must be {_describe(schema)}, not {_shown(value)}"
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        if any(mismatch(items, item) for item in value):
            return f"must be {_describe(schema)}, not {_shown(value)}"
    extra = schema.get("additionalProperties")
    if isinstance(value, dict) and isinstance(extra, dict):
        if any(mismatch(extra, item) for item in value.values()):
            return f"must be {_describe(schema)}, not {_shown(value)}"
    return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return f"{_json_kind(value)} {text if len(text) <= 60 else text[:57] + '...'}"


def check_arguments(parameters: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """What is wrong with a call's ``arguments`` for a function schema's ``parameters``
    (missing, unknown, or mistyped arguments), or ``None``.

    >>> check_arguments(builtin_schema("claim")["function"]["parameters"], {"key": "g", "value": 1})
    "missing 'inputs'"
    """
    properties: dict[str, Any] = parameters.get("properties", {})
    problems = []
    missing = [name for name in parameters.get("required", []) if name not in arguments]
    if missing:
        problems.append("missing " + ", ".join(map(repr, missing)))
    unknown = [name for name in arguments if name not in properties]
    if unknown:
        problems.append(f"unknown {', '.join(map(repr, unknown))} (the parameters are "
                        f"{', '.join(properties)})")
    for name, value in arguments.items():
        if name in properties:
            why = mismatch(properties[name], value)
            if why is not None:
                problems.append(f"{name!r} {why}")
    return "; ".join(problems) or None

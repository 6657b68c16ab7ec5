"""What makes an answer supported, and the ``answer`` tool made for one forced request
(docs/agent.md, "Supported answers" and "A forced answer").

An answer rests on the held beliefs it cites. Citing none, or citing beliefs none of which
holds its value, it rests on nothing: issue 39 saw a small model end ``ok`` at 0.9 with
``{'value': 10, 'inputs': []}``, and a value no cited belief holds believed at 0.855.
:func:`unsupported` says why such an answer is not supported; the agent refuses it (or, under
``unsupported_answers="doubt"``, believes it at :data:`DOUBTED_CERTAINTY` at most). A value
made from the cited beliefs by arithmetic is claimed first, with its formula, and the answer
cites that claim.

:func:`answer_tool` is the ``answer`` tool of a request that requires it: its ``inputs`` limited
to the keys held (an ``enum``, at least one), so that a server constraining its output to the
schema cannot cite a key that does not exist; in small-model mode its ``value`` is one of the
values those keys hold. :func:`nearest_keys` names the held keys nearest to one that is not.
"""

from __future__ import annotations

import difflib
import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..facade.fact_support import value_in_quote
from ..foundations.errors import CorollaryError
from ..foundations.values import canon, plain

__all__ = ["DOUBTED_CERTAINTY", "MAX_ANSWER_KEYS", "answer_from_text", "answer_tool",
           "held_values", "nearest_keys", "unsupported"]

#: The certainty an unsupported answer is believed at, at most, under ``"doubt"``.
DOUBTED_CERTAINTY = 0.2
#: The most keys (and values) a forced answer offers.
MAX_ANSWER_KEYS = 64
#: The most inputs a forced answer may cite.
MAX_ANSWER_INPUTS = 8
_SCALAR = [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]


def _scalars(held: Any) -> list[Any]:
    """The values a held value holds: itself, and the members of a list or object."""
    if isinstance(held, dict):
        return [held, *(s for member in held.values() for s in _scalars(member))]
    if isinstance(held, (list, tuple)):
        return [held, *(s for member in held for s in _scalars(member))]
    return [held]


def _holds(held: Any, value: Any, tolerance: float) -> bool:
    """Whether an answer of ``value`` is the held value ``held``, or one of its members (an
    object's, a list's): equal, equal numbers within ``tolerance`` (relative), or a text that
    says it (every word of it, normalised)."""
    return any(_holds_one(member, value, tolerance) for member in _scalars(held))


def _holds_one(held: Any, value: Any, tolerance: float) -> bool:
    try:
        if canon(held) == canon(value):
            return True
    except CorollaryError:
        return False
    numbers = [v for v in (held, value) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(numbers) == 2:
        a, b = float(held), float(value)
        return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)
    if isinstance(value, str) and isinstance(held, (str, int, float)) and not isinstance(held, bool):
        return value_in_quote(held, value)
    return False


def held_values(values: Iterable[Any]) -> list[Any]:
    """The answers held ``values`` allow, for a forced answer's ``value``: each value, and the
    members of a list or object, as plain JSON.

    >>> held_values([7.25, ["a", "b"]])
    [7.25, ['a', 'b'], 'a', 'b']
    """
    return [s for value in values for s in _scalars(plain(value))]


def unsupported(value: Any, cited: Sequence[tuple[str, Any]], tolerance: float) -> str | None:
    """Why an answer of ``value`` citing ``cited`` (``(key, held value)`` pairs) is not
    supported, or ``None`` when a cited belief holds it.

    >>> unsupported("bo@example.com", [("customer:7:email", "bo@example.com")], 1e-6) is None
    True
    >>> unsupported("It is bo@example.com.", [("customer:7:email", "bo@example.com")], 1e-6) is None
    True
    >>> unsupported("42 Pine Ave", [("customer:42:address", {"text": "42 Pine Ave"})], 1e-6) is None
    True
    >>> unsupported(10, [("customer:7:email", "bo@example.com")], 1e-6)
    "no cited belief holds 10 (customer:7:email = 'bo@example.com'): answer a value a cited belief holds, or claim the value first with a formula over them and cite that claim"
    >>> unsupported(10, [], 1e-6)
    'the answer cites no belief: cite the keys of the held beliefs that give its value'
    """
    if not cited:
        return "the answer cites no belief: cite the keys of the held beliefs that give its value"
    if any(_holds(held, value, tolerance) for _key, held in cited):
        return None
    shown = ", ".join(f"{key} = {held!r}" for key, held in cited[:5])
    return (f"no cited belief holds {value!r} ({shown}): answer a value a cited belief holds, "
            "or claim the value first with a formula over them and cite that claim")


def _words(key: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", key.casefold()))


def nearest_keys(key: str, held: Iterable[str], n: int = 3) -> list[str]:
    """The held keys nearest to ``key`` (by their words: ``customer:7 email`` is nearest to
    ``customer:7:email``), most alike first.

    >>> nearest_keys("customer:7 email", ["revenue:Q3", "customer:42:plan", "customer:7:email"])
    ['customer:7:email', 'customer:42:plan']
    """
    by_words: dict[str, list[str]] = {}
    for k in held:
        by_words.setdefault(_words(k), []).append(k)
    close = difflib.get_close_matches(_words(key), list(by_words), n=n, cutoff=0.6)
    return [k for words in close for k in by_words[words]][:n]


def answer_tool(description: str, keys: Sequence[str], values: Sequence[Any] | None = None
                ) -> dict[str, Any]:
    """The ``answer`` tool of a forced request: ``inputs`` one to :data:`MAX_ANSWER_INPUTS` of
    ``keys`` (an ``enum``); ``value`` a string, number or boolean (a type every grammar
    converter takes: llama.cpp's refuses an untyped one), or one of ``values`` when given.

    >>> tool = answer_tool("Give your final answer.", ["customer:7:email"], ["bo@example.com"])
    >>> tool["function"]["parameters"]["properties"]["inputs"]
    {'type': 'array', 'items': {'type': 'string', 'enum': ['customer:7:email']}, 'minItems': 1, 'maxItems': 8, 'description': 'The keys of the held beliefs the answer rests on.'}
    >>> tool["function"]["parameters"]["properties"]["value"]["enum"]
    ['bo@example.com']
    """
    value: dict[str, Any] = {"anyOf": _SCALAR, "description": "The answer."}
    offered = [v for v in values or () if isinstance(v, (str, int, float, bool))]
    if values is not None and offered:
        value = {"enum": list(dict.fromkeys(offered))[:MAX_ANSWER_KEYS],
                 "description": "The answer: the value of a held belief."}
    inputs = {"type": "array",
              "items": {"type": "string", "enum": list(dict.fromkeys(keys))[:MAX_ANSWER_KEYS]},
              "minItems": 1, "maxItems": MAX_ANSWER_INPUTS,
              "description": "The keys of the held beliefs the answer rests on."}
    return {"type": "function", "function": {
        "name": "answer", "description": description,
        # inputs first: a server that constrains its output to the schema (llama.cpp's
        # grammars) writes the fields in this order, so the model picks the beliefs before the
        # value they must hold (docs/models.md, "Measured with real models")
        "parameters": {"type": "object", "properties": {"inputs": inputs, "value": value},
                       "required": ["inputs", "value"]}}}


def answer_from_text(text: str, held: Mapping[str, Any]) -> tuple[Any, str] | None:
    """The answer a text reply gives, grounded in one held belief: ``(value, key)`` of the one
    held belief whose key and value the text both name, else of the one held belief whose
    value it names; ``None`` when no belief, or more than one, is named so.

    Issue 39 measured the need: on look-ups, Qwen2.5-Coder-0.5B's words named the right key
    and value ("employee:chen:extension = 4388") while its forced ``answer`` call that followed
    cited the first keys offered, with another value (docs/agent.md, "A forced answer").

    >>> held = {"customer:7:email": "bo@example.com", "product:gizmo:price": 7.25}
    >>> answer_from_text("customer:7:email = &#34;bo@example.com&#34; [IN 0.95]", held)
    ('bo@example.com', 'customer:7:email')
    >>> answer_from_text("The price is 7.25", held)
    (7.25, 'product:gizmo:price')
    >>> answer_from_text("I do not know.", held) is None
    True
    """
    said = html.unescape(text)
    folded = said.casefold()
    named = [(key, value) for key, value in held.items()
             if isinstance(value, (str, int, float)) and value_in_quote(value, said)]
    for chosen in ([(k, v) for k, v in named if k.casefold() in folded], named):
        if len(chosen) == 1:
            return chosen[0][1], chosen[0][0]
        if chosen:
            return None  # more than one belief named: the forced answer chooses
    return None

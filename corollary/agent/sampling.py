"""Self-consistency: ask again for a claimed value, in fresh conversations, and count agreement.

A sample request holds the agent's system message and one user message: the projected beliefs
without the claimed key, and the question for that key. It never holds the claim, its value or
its text, nor the turns that led to it. A sample's answer is the value of a ``claim`` call for
that key in its reply, else the reply's text. Numbers agree within a relative tolerance; text
agrees after case and whitespace normalisation; a text answer to a non-text claim is read as
JSON first (``"0.1"``, ``"true"``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..foundations._validate import is_number
from ..foundations.errors import CorollaryError
from ..foundations.values import canon
from ..models import Reply
from . import prompts


def sample_messages(system: str, beliefs: str, key: str) -> list[dict[str, Any]]:
    """The messages of one sample request (a fresh list each time; texts from
    :mod:`corollary.agent.prompts`)."""
    text = prompts.SAMPLE.format(lines=beliefs or prompts.NO_SAMPLE_BELIEFS,
                                 question=prompts.QUESTION.format(key=key))
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def sample_answer(reply: Reply, key: str) -> tuple[bool, Any]:
    """``(found, value)``: the value of the reply's first ``claim`` call for ``key``, else its
    text (stripped); ``(False, None)`` for a reply with neither.

    >>> from corollary.models import ToolCall
    >>> sample_answer(Reply(None, [ToolCall("c", "claim", {"key": "k", "value": 3})]), "k")
    (True, 3)
    >>> sample_answer(Reply("  Up "), "k")
    (True, 'Up')
    """
    for call in reply.tool_calls:
        if call.name == "claim" and call.arguments.get("key") == key and "value" in call.arguments:
            return True, call.arguments["value"]
    if reply.text is not None and reply.text.strip():
        return True, reply.text.strip()
    return False, None


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def agrees(original: Any, answer: Any, tolerance: float) -> bool:
    """Whether a sampled ``answer`` agrees with the ``original`` claim's value.

    An answer that cannot be compared (nested past what the reader takes, a number past
    what a float holds) disagrees: a sample is the model's word, and may be anything.

    >>> agrees(0.1, "0.1000001", 1e-6), agrees(0.1, 0.11, 1e-6)
    (True, False)
    >>> agrees("revenue is  GROWING", "Revenue is growing", 0.0)
    True
    >>> agrees(0.1, "[" * 100_000, 1e-6), agrees(0.1, 10**400, 1e-6)
    (False, False)
    """
    try:
        return _agrees(original, answer, tolerance)
    except (RecursionError, OverflowError, ValueError, TypeError):
        return False


def _agrees(original: Any, answer: Any, tolerance: float) -> bool:
    if isinstance(original, str):
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return _normal(text) == _normal(original)
    if isinstance(answer, str):
        answer = json.loads(_normal(answer))  # not JSON: ValueError, so disagrees
    if is_number(original) and is_number(answer):
        return bool(answer == original or math.isclose(answer, original, rel_tol=tolerance))
    try:
        return bool(canon(answer) == canon(original))
    except CorollaryError:
        return False

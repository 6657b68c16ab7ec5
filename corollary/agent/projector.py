"""What the model is shown of the base: the held beliefs at or above a floor, one per line.

``key = value [IN 0.89]``: the value as JSON, the confidence rounded half-up to two places as
proofs print it, sorted by key (then by confidence, for the values of an open conflict).
Beliefs below the floor are never rendered. A ``projector=`` callable ``(kb) -> str`` replaces
this rendering.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring  # what json.dumps(ensure_ascii=False) writes for a str
from typing import TYPE_CHECKING, Any

from ..proof import format_confidence
from ..values import plain

if TYPE_CHECKING:  # pragma: no cover
    from ..base import BeliefBase

Projector = Callable[["BeliefBase"], str]


_SCALARS = {True: "true", False: "false", None: "null"}


def render_value(value: Any) -> str:
    """A value as the model reads it: JSON (``"up"``, ``0.1``, ``true``, ``[1, 2]``).

    >>> [render_value(v) for v in ("up", 0.1, 3, True, None, ("a", {"b": 1}))]
    ['"up"', '0.1', '3', 'true', 'null', '["a", {"b": 1}]']
    """
    kind = type(value)
    if kind is str:
        return encode_basestring(value)  # type: ignore[no-any-return]
    if kind is float or kind is int:  # finite (values are): repr is their JSON
        return repr(value)
    if kind is bool or value is None:
        return _SCALARS[value]
    return json.dumps(plain(value), ensure_ascii=False)


def project(kb: BeliefBase, floor: float, exclude: str | None = None) -> str:
    """The held beliefs of ``kb`` at or above ``floor``, one per line, without ``exclude``.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("trend", "up", source="model:analyst")
    >>> kb.assert_("growth", 0.1, source="tool:calc")
    >>> kb.assert_("hunch", True, source="assumption:me")
    >>> print(project(kb, 0.7))
    growth = 0.1 [IN 0.95]
    trend = "up" [IN 0.90]
    """
    held = sorted(((h.key, -h.confidence, h.value) for h in kb.beliefs(floor) if h.key != exclude),
                  key=lambda t: (t[0], t[1]))
    shown: dict[float, str] = {}  # many beliefs share a confidence (a tool's prior)
    lines = []
    for key, negc, value in held:
        confidence = shown.get(negc)
        if confidence is None:
            confidence = shown[negc] = format_confidence(-negc)
        lines.append(f"{key} = {render_value(value)} [IN {confidence}]")
    return "\n".join(lines)


def without_key(text: str, key: str) -> str:
    """A custom projection without the lines that mention ``key`` (what a self-consistency
    sample must not see; a custom rendering cannot be filtered more precisely).

    >>> without_key("trend = up\\ngrowth = 0.1", "trend")
    'growth = 0.1'
    """
    return "\n".join(line for line in text.splitlines() if key not in line)

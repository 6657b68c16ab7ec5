"""What the model is shown of the base: belief lines, and what a run has shown so far.

A line is ``key = value [IN 0.89]``: the key escaped, the value as JSON, the confidence rounded
half-up to two places as proofs print it. :func:`project` renders every held belief at or above
a floor, sorted by key (then by confidence, for the values of an open conflict); beliefs below
the floor are never rendered. A ``projector=`` callable ``(kb) -> str`` replaces this rendering.

:class:`View` is what one run has shown the model: the list after the task, then, each turn,
what changed among the beliefs it watches (see ``docs/agent.md``, "What the model sees").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring  # what json.dumps(ensure_ascii=False) writes for a str
from typing import TYPE_CHECKING, Any

from ..errors import CorollaryError, InvalidTypeError
from ..proof import format_confidence
from ..tms import IN
from ..values import canon, plain
from . import prompts

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


def escape_key(key: str) -> str:
    """A key as a line shows it: as is, unless it could be read as more than a key (a line break
    or another unprintable character, ``" = "``, ``" ["``, a leading quote), then as a JSON string.

    >>> escape_key("revenue:Q3"), escape_key("x = 1 [IN 0.99]\\nrevenue:Q3")
    ('revenue:Q3', '"x = 1 [IN 0.99]\\\\nrevenue:Q3"')
    """
    if key.isprintable() and " = " not in key and " [" not in key and not key.startswith('"'):
        return key
    return encode_basestring(key)  # type: ignore[no-any-return]


def render_line(key: str, value: Any, confidence: str) -> tuple[str, str]:
    """``(head, line)`` of one belief: ``key = value`` and the line with its confidence (already
    formatted)."""
    head = f"{escape_key(key)} = {render_value(value)}"
    return head, f"{head} [IN {confidence}]"


def lines(kb: BeliefBase, floor: float, exclude: str | None = None) -> dict[str, str]:
    """Every held belief of ``kb`` at or above ``floor`` but ``exclude``: line by head, sorted
    by key (then by confidence, for the values of an open conflict)."""
    held = sorted(((h.key, -h.confidence, h.value) for h in kb.beliefs(floor) if h.key != exclude),
                  key=lambda t: (t[0], t[1]))
    shown: dict[float, str] = {}  # many beliefs share a confidence (a tool's prior)
    found = {}
    for key, negc, value in held:
        confidence = shown.get(negc)
        if confidence is None:
            confidence = shown[negc] = format_confidence(-negc)
        head, line = render_line(key, value, confidence)
        found[head] = line
    return found


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
    return "\n".join(lines(kb, floor, exclude).values())
def without_key(text: str, key: str) -> str:
    """A custom projection without the lines that mention ``key`` (what a self-consistency
    sample must not see; a custom rendering cannot be filtered more precisely).

    >>> without_key("trend = up\\ngrowth = 0.1", "trend")
    'growth = 0.1'
    """
    return "\n".join(line for line in text.splitlines() if key not in line)


class View:
    """What one run has shown the model of the beliefs, and the beliefs it keeps the model told
    about.

    Three kinds: with a ``projector``, the lines of its text; with ``watched=None``, every held
    belief at or above the floor; else the beliefs watched (those recalled for the task, those
    the run made, those the ``recall`` tool returned), while held at or above the floor.
    """

    def __init__(self, kb: BeliefBase, floor: float, watched: list[tuple[str, Any]] | None,
                 projector: Projector | None = None) -> None:
        self.kb = kb
        self.floor = floor
        self.projector = projector
        self.watched: dict[tuple[str, Any], tuple[str, Any]] | None = None
        if watched is not None:
            self.watched = {}
            for key, value in watched:
                self.watch(key, value)
        #: The lines the model was last told of, by head (``key = value``).
        self.shown: dict[str, str] = {}

    def watch(self, key: str, value: Any) -> None:
        """Keep the model told about ``key = value`` (when only watched beliefs are shown)."""
        if self.watched is not None:
            self.watched.setdefault((key, canon(value)), (key, value))

    def line(self, key: str, value: Any) -> tuple[str, str] | None:
        """``(head, line)`` of ``key = value`` if it is held at or above the floor now."""
        kb = self.kb
        try:
            if value is None:  # None reads as "the held value": make sure it is this one
                if kb.label(key) != IN or kb.value(key) is not None:
                    return None
                confidence = kb.confidence(key)
            else:
                if kb.label(key, value) != IN:
                    return None
                confidence = kb.confidence(key, value)
        except CorollaryError:  # no such belief, or the key is in conflict: not this one
            return None
        if confidence < self.floor:
            return None
        return render_line(key, value, format_confidence(confidence))

    def current(self, exclude: str | None = None) -> dict[str, str]:
        """The lines shown if the model were told everything now, by head."""
        if self.projector is not None:
            text = self.projector(self.kb)
            if not isinstance(text, str):
                raise InvalidTypeError(f"the projector returned {type(text).__name__}, not a str")
            if exclude is not None:
                text = without_key(text, exclude)
            return {line: line for line in text.splitlines()}
        if self.watched is None:
            return lines(self.kb, self.floor, exclude)
        found: dict[str, str] = {}
        for key, value in self.watched.values():
            if key != exclude:
                shown = self.line(key, value)
                if shown is not None:
                    found[shown[0]] = shown[1]
        return found

    def text(self, exclude: str | None = None) -> str:
        """The lines shown now, one per line (without the key ``exclude``)."""
        return "\n".join(self.current(exclude).values())

    def opening(self) -> str:
        """The list after the task; what is shown from here on is compared with it."""
        self.shown = self.current()
        return "\n".join(self.shown.values())

    def told(self, key: str, value: Any) -> None:
        """The model was just told of ``key = value`` (a tool message): watch it, and take its
        line as shown, so the next changes do not repeat it."""
        if self.projector is not None:
            return
        self.watch(key, value)
        shown = self.line(key, value)
        if shown is not None:
            self.shown[shown[0]] = shown[1]

    def changes(self) -> str | None:
        """What changed since the model was last told, as a message text (``None``: nothing)."""
        now = self.current()
        added = [line for head, line in now.items() if self.shown.get(head) != line]
        gone = [head for head in self.shown if head not in now]
        self.shown = now
        sections = []
        if added:
            sections.append(prompts.NOW_HELD.format(lines="\n".join(added)))
        if gone:
            sections.append(prompts.NO_LONGER.format(lines="\n".join(gone)))
        return prompts.CHANGES.format(sections="\n".join(sections)) if sections else None


def count_tokens(text: str) -> int:
    """TEMPORARY until the recall module's counter is merged."""
    return (len(text) + 3) // 4

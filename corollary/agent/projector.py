"""What the model is shown of the base: belief lines, and what a run has shown so far.

A line is ``key = value [IN 0.89]``: the key escaped, the value as JSON, the confidence rounded
half-up to two places as proofs print it. :func:`project` renders every held belief at or above
a floor, sorted by key (then by confidence, for the values of an open conflict); beliefs below
the floor are never rendered. A ``projector=`` callable ``(kb) -> str`` replaces this rendering.

:class:`View` is what one run has shown the model: the list after the task, then, each turn,
what changed among the beliefs it watches (see ``docs/agent.md``, "What the model sees").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..facade.recall import Recalled, render_key, render_recalled, render_value
from ..foundations.errors import AmbiguousValueError, CorollaryError, InvalidTypeError
from ..foundations.scope import Scope
from ..foundations.values import canon
from ..tms import IN
from . import prompts

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase

Projector = Callable[["BeliefBase"], str]


def render_line(key: str, value: Any, confidence: float, conflict: bool = False
                ) -> tuple[str, str]:
    """``(head, line)`` of one held belief: the line as :func:`corollary.facade.recall.render_recalled`
    writes every belief line (key and value escaped), and its head ``key = value``, which names
    the belief whatever its confidence.

    >>> render_line("x = 1 [IN 0.99]\\nrevenue:Q3", "a [b", 0.5)
    ('"x = 1 [IN 0.99]\\\\nrevenue:Q3" = "a [b"', '"x = 1 [IN 0.99]\\\\nrevenue:Q3" = "a [b" [IN 0.50]')
    """
    line = render_recalled(Recalled(key, value, confidence, IN, 0.0, (), conflict))
    return line[:line.rindex(" [")], line  # the tail " [IN ...]" is always last


def lines(kb: BeliefBase, floor: float, exclude: str | None = None,
          scope: Scope | None = None) -> dict[str, str]:
    """Every held belief of ``kb`` at or above ``floor`` but ``exclude`` (and inside ``scope``):
    line by head, sorted by key (then by confidence, for the values of an open conflict, which
    are marked)."""
    everything = kb.beliefs()
    if scope is not None:
        everything = [h for h in everything if scope.contains(h.key)]
    values: dict[str, int] = {}
    for h in everything:
        values[h.key] = values.get(h.key, 0) + 1
    held = sorted(((h.key, -h.confidence, h.value) for h in everything
                   if h.confidence >= floor and h.key != exclude), key=lambda t: (t[0], t[1]))
    # render_line's lines, made faster for a whole base: many beliefs share a confidence (a
    # tool's prior), so each tail " [IN 0.95]" is rendered once (tests/agent/test_prompts.py
    # checks the lines are render_line's)
    tails: dict[tuple[float, bool], str] = {}
    found = {}
    for key, negc, value in held:
        conflict = values[key] > 1
        tail = tails.get((negc, conflict))
        if tail is None:
            tail = tails[negc, conflict] = render_line("k", 0, -negc, conflict)[1][len("k = 0"):]
        head = f"{render_key(key)} = {render_value(value)}"
        found[head] = head + tail
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
                 projector: Projector | None = None, scope: Scope | None = None) -> None:
        self.kb = kb
        self.scope = scope
        self.floor = floor
        self.projector = projector
        self.watched: dict[tuple[str, Any], tuple[str, Any]] | None = None
        if watched is not None:
            self.watched = {}
            for key, value in watched:
                self.watch(key, value)
        #: The lines the model was last told of, by head (``key = value``).
        self.shown: dict[str, str] = {}
        self._rendered: dict[tuple[str, float, bool], tuple[Any, tuple[str, str]]] = {}

    def watch(self, key: str, value: Any) -> None:
        """Keep the model told about ``key = value`` (when only watched beliefs are shown)."""
        if self.watched is not None:
            self.watched.setdefault((key, canon(value)), (key, value))

    def line(self, key: str, value: Any) -> tuple[str, str] | None:
        """``(head, line)`` of ``key = value`` if it is held at or above the floor now (and in
        the scope)."""
        kb = self.kb
        if self.scope is not None and not self.scope.contains(key):
            return None
        try:
            confidence = kb.confidence(key, value)  # 0.0 when OUT
            if confidence < self.floor or (confidence == 0.0 and kb.label(key, value) != IN):
                return None
            try:
                held = kb.value(key)
                conflict = False
            except AmbiguousValueError:  # an open conflict: this value and another are held
                held, conflict = value, True
        except CorollaryError:  # no such belief (an unknown key or value)
            return None
        if held is not value and canon(held) != canon(value):
            return None  # None read as "the held value" is another one
        # most turns change nothing: the line of an unchanged belief is not rendered again
        state = (key, confidence, conflict)
        made = self._rendered.get(state)
        if made is None or made[0] is not value:
            made = (value, render_line(key, value, confidence, conflict))
            self._rendered[state] = made
        return made[1]

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
            return lines(self.kb, self.floor, exclude, self.scope)
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


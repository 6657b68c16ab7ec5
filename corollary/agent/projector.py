"""What the model is shown of the base: belief lines, and what a run has shown so far.

A line is ``key = value [IN 0.89]``: the key escaped, the value as JSON, the confidence rounded
half-up to two places as proofs print it. :func:`project` renders every held belief at or above
a floor, sorted by key (then by confidence, for the values of an open conflict); beliefs below
the floor are never rendered. A ``projector=`` callable ``(kb) -> str`` replaces this rendering.

:class:`View` is what one run has shown the model: the list after the task, then, each turn,
what changed among the beliefs it watches (see ``docs/agent.md``, "What the model sees").
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..facade.recall import (
    Recalled,
    Supported,
    count_tokens,
    render_key,
    render_recalled,
    render_value,
    source_mark,
)
from ..foundations.errors import AmbiguousValueError, CorollaryError, InvalidTypeError
from ..foundations.scope import Scope
from ..foundations.values import canon
from ..tms import IN
from ..tms.feed import LabelRecord
from . import prompts
from .marks import (
    by_time,
    conflicts_by_key,
    held_mark,
    superseded,
    timeline_of,
)
from .ripple import gone_reason

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..tms.records import Belief, Justification

Projector = Callable[["BeliefBase"], str]


def render_line(key: str, value: Any, confidence: float, conflict: bool = False,
                mark: str | None = None) -> tuple[str, str]:
    """``(head, line)`` of one held belief: the line as :func:`corollary.facade.recall.render_recalled`
    writes every belief line (key and value escaped), and its head ``key = value``, which names
    the belief whatever its confidence. A ``mark`` (:mod:`corollary.agent.marks`: the open
    conflict the value is in) goes inside the brackets, in place of ``open conflict``.

    >>> render_line("x = 1 [IN 0.99]\\nrevenue:Q3", "a [b", 0.5)
    ('"x = 1 [IN 0.99]\\\\nrevenue:Q3" = "a [b"', '"x = 1 [IN 0.99]\\\\nrevenue:Q3" = "a [b" [IN 0.50]')
    >>> render_line("addr", "Oak St", 0.95, True, 'conflict: "Oak St" (0.95, tool:crm) vs "Pine Ave" (0.90, document:email)')[1]
    'addr = "Oak St" [IN 0.95, conflict: "Oak St" (0.95, tool:crm) vs "Pine Ave" (0.90, document:email)]'
    """
    line = render_recalled(Recalled(key, value, confidence, IN, 0.0, (), conflict and not mark))
    head = line[:line.rindex(" [")]  # the tail " [IN ...]" is always last
    if mark:
        line = f"{line[:-1]}, {mark}]"
    return head, line


def lines(kb: BeliefBase, floor: float, exclude: str | None = None,
          named: dict[str, tuple[str, Any]] | None = None,
          scope: Scope | None = None) -> dict[str, str]:
    """Every held belief of ``kb`` at or above ``floor`` but ``exclude`` (and inside ``scope``):
    line by head, sorted by key (then by confidence, for the values of an open conflict, which
    are marked; a value that superseded another is marked too). ``named`` gets each head's
    ``(key, value)``."""
    everything = kb.beliefs()
    if scope is not None:
        everything = [h for h in everything if scope.contains(h.key)]
    conflicts = conflicts_by_key(kb)
    held = sorted(((h.key, -h.confidence, h.value) for h in everything
                   if h.confidence >= floor and h.key != exclude), key=lambda t: (t[0], t[1]))
    # render_line's lines, made faster for a whole base: many beliefs share a confidence (a
    # tool's prior), so each tail " [IN 0.95]" is rendered once (tests/agent/test_prompts.py
    # checks the lines are render_line's)
    tails: dict[tuple[float, str | None], str] = {}
    found = {}
    timed = by_time(kb)  # else no value supersedes another: no timeline to read
    for key, negc, value in held:
        mark = conflicts.get(key)
        if timed:
            mark = held_mark(timeline_of(kb, key), value, mark)
        tail = tails.get((negc, mark))
        if tail is None:
            tail = tails[negc, mark] = render_line("k", 0, -negc, False, mark)[1][len("k = 0"):]
        head = f"{render_key(key)} = {render_value(value)}"
        found[head] = head + tail
        if named is not None:
            named[head] = (key, value)
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
    the run made, those the ``recall`` tool returned), while held at or above the floor. A
    recalled document's line is marked with the facts recall found it the source of
    (``sources``), each said held or not as it stands at each pass, so its text never reads as
    if all it states held.
    """

    def __init__(self, kb: BeliefBase, floor: float, watched: list[tuple[str, Any]] | None,
                 projector: Projector | None = None, scope: Scope | None = None,
                 sources: dict[tuple[str, Any], tuple[Supported, ...]] | None = None,
                 budget: int | None = None) -> None:
        self.kb = kb
        #: The most tokens a change message takes (``None``: no limit).
        self.budget = budget
        #: Each line shown's belief, with its reasons then (a forget takes them away), by head.
        self.kept: dict[str, tuple[Belief, tuple[Justification, ...]]] = {}
        self._record: LabelRecord | None = None  # the feed's labels while a run follows it
        #: The facts a recalled document is the source of, by ``(key, canon(value))``.
        self.sources: dict[tuple[str, Any], tuple[Supported, ...]] = dict(sources or {})
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
        self._rendered: dict[tuple[str, float, str | None], tuple[Any, tuple[str, str]]] = {}
        self._marks: dict[str, str] | None = None  # the conflicts' marks, read once a pass
        self._timelines: dict[str, Any] = {}  # the keys' timelines, read once a pass
        #: What each line shown names: ``(key, value)`` by head.
        self.named: dict[str, tuple[str, Any]] = {}

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
        conflicted = None
        if conflict:
            if self._marks is None:
                self._marks = conflicts_by_key(kb)
            conflicted = self._marks.get(key)
        mark = held_mark(self.timeline(key), value, conflicted)
        if self.sources:
            facts = self.sources.get((key, canon(value)))
            if facts:
                source = source_mark(tuple(Supported(f.key, f.value, self.holds(f.key, f.value))
                                           for f in facts))
                mark = source if mark is None else f"{mark}; {source}"
        # most turns change nothing: the line of an unchanged belief is not rendered again
        state = (key, confidence, mark)
        made = self._rendered.get(state)
        if made is None or made[0] is not value:
            made = (value, render_line(key, value, confidence, conflict, mark))
            self._rendered[state] = made
        self.named[made[1][0]] = (key, value)
        return made[1]

    def holds(self, key: str, value: Any) -> bool:
        """Whether ``key = value`` is held now at or above the floor (a fact a shown document
        states)."""
        try:
            return (self.kb.label(key, value) == IN
                    and self.kb.confidence(key, value) >= self.floor)
        except CorollaryError:  # a value forgotten since: not held
            return False

    def timeline(self, key: str) -> Any:
        """``key``'s timeline (:func:`corollary.agent.marks.timeline_of`), read once a pass."""
        found = self._timelines.get(key)
        if found is None:
            found = self._timelines[key] = timeline_of(self.kb, key)
        return found

    def _fresh(self) -> None:
        """The base may have changed since the last pass: read conflicts and timelines anew."""
        self._marks = None
        self._timelines = {}

    def current(self, exclude: str | None = None) -> dict[str, str]:
        """The lines shown if the model were told everything now, by head. A watched value
        that a newer one superseded brings the newer one into view: the model is told of the
        value that replaced the one it knew."""
        self._fresh()
        if self.projector is not None:
            text = self.projector(self.kb)
            if not isinstance(text, str):
                raise InvalidTypeError(f"the projector returned {type(text).__name__}, not a str")
            if exclude is not None:
                text = without_key(text, exclude)
            return {line: line for line in text.splitlines()}
        if self.watched is None:
            return lines(self.kb, self.floor, exclude, self.named, self.scope)
        found: dict[str, str] = {}
        pending = list(self.watched.values())
        while pending:
            key, value = pending.pop(0)
            if key == exclude:
                continue
            shown = self.line(key, value)
            if shown is not None:
                found[shown[0]] = shown[1]
                continue
            entry = superseded(self.timeline(key), value)
            if entry is not None and (key, canon(entry.superseded_by)) not in self.watched:
                self.watch(key, entry.superseded_by)
                pending.append((key, entry.superseded_by))
        return found

    def text(self, exclude: str | None = None) -> str:
        """The lines shown now, one per line (without the key ``exclude``)."""
        return "\n".join(self.current(exclude).values())

    def opening(self) -> str:
        """The list after the task; what is shown from here on is compared with it."""
        self.shown = self.current()
        self._keep(self.shown)
        return "\n".join(self.shown.values())

    @contextlib.contextmanager
    def following(self) -> Iterator[View]:
        """Follow the engine's change feed while a run goes on: :meth:`changes` then names
        the beliefs shown that went OUT (or were removed) with why
        (:func:`corollary.agent.ripple.gone_reason`)."""
        if self.projector is not None:  # lines of a custom text name no belief
            yield self
            return
        self._record = LabelRecord(self.kb.engine.feed)
        try:
            yield self
        finally:
            record, self._record = self._record, None
            record.stop()

    def _keep(self, heads: Any) -> None:
        """Keep the belief of each of ``heads`` (lines just shown) with its reasons now."""
        find = self.kb.engine.find
        for head in heads:
            named = self.named.get(head)
            if named is None:
                continue
            b = find(named[0], canon(named[1]))
            if b is not None:
                self.kept[head] = (b, tuple(b.justs))

    def _went_out(self) -> set[tuple[str, Any]]:
        """``(key, vid)`` of each belief the feed heard go from IN to OUT, or be removed, since
        the last call (the record starts anew)."""
        record = self._record
        if record is None:
            return set()
        record.subscription.feed.publish()
        went = {(b.key, b.vid) for b, was in record.was_in.items() if was and b.best is None}
        went.update((b.key, b.vid) for b in record.gone)
        record.was_in.clear()
        record.gone.clear()
        return went

    def told(self, key: str, value: Any, source_of: tuple[Supported, ...] = ()) -> None:
        """The model was just told of ``key = value`` (a tool message): watch it, and take its
        line as shown, so the next changes do not repeat it. ``source_of``: the facts recall
        found it the source of (a document)."""
        if self.projector is not None:
            return
        if source_of:
            self.sources[key, canon(value)] = source_of
        self.watch(key, value)
        self._fresh()
        shown = self.line(key, value)
        if shown is not None:
            self.shown[shown[0]] = shown[1]
            self._keep((shown[0],))

    def _gone(self, head: str, went: set[tuple[str, Any]]) -> str:
        """A line no longer shown: its head and why, when the base says (``went``: the beliefs
        the feed heard go OUT, whose cause is read from their reasons)."""
        kept = self.kept.pop(head, None)
        if kept is None:
            return head
        b, justs = kept
        if (b.key, b.vid) in went:
            why = gone_reason(self.kb, b, justs, self.floor)
        else:  # still IN: below the floor, or a value shown as None that is another now
            why = gone_reason(self.kb, b, (), self.floor) if self.kb.engine.find(
                b.key, b.vid) is not None else None
        return head if why is None else prompts.GONE.format(head=head, why=why)

    def changes(self) -> str | None:
        """What changed since the model was last told, as a message text (``None``: nothing):
        the lines held now that it was not shown, then those it was shown that went, each with
        why; within :attr:`budget` tokens, the lines that went first."""
        now = self.current()
        went = self._went_out()
        added = [head for head, line in now.items() if self.shown.get(head) != line]
        gone = [self._gone(head, went) for head in self.shown if head not in now]
        self.shown = now
        self._keep(added)
        gone, left_gone = self._within(gone, self.budget)
        room = None if self.budget is None else self.budget - sum(map(count_tokens, gone))
        held, left_held = self._within([now[head] for head in added], room)
        sections = []
        if held or left_held:
            sections.append(prompts.NOW_HELD.format(lines="\n".join(
                held + self._more(left_held))))
        if gone or left_gone:
            sections.append(prompts.NO_LONGER.format(lines="\n".join(
                gone + self._more(left_gone))))
        return prompts.CHANGES.format(sections="\n".join(sections)) if sections else None

    @staticmethod
    def _within(lines: list[str], room: int | None) -> tuple[list[str], int]:
        """The first of ``lines`` that fit in ``room`` tokens, and how many did not."""
        if room is None:
            return lines, 0
        taken = []
        for line in lines:
            cost = count_tokens(line)
            if cost > room:
                break
            taken.append(line)
            room -= cost
        return taken, len(lines) - len(taken)

    @staticmethod
    def _more(count: int) -> list[str]:
        return [prompts.OVER_BUDGET.format(count=count)] if count else []


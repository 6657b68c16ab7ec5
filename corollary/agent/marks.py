"""What the model is told of change: the mark of a contested key, and of a superseded value.

A key in an open conflict (two values held, no policy settled it) is marked on every line and
tool message that shows one of its values, with every value held, its confidence and its
sources, most confident first::

    conflict: "Oak St" (0.95, tool:crm) vs "Pine Ave" (0.90, document:email)

A value that replaced an older one (``PreferNewer``: its validity starts later) is marked with
what it supersedes and when that held, and the older value, OUT now, with what superseded it::

    supersedes "Oak St" (valid 2024-01-02 → 2025-03-02)
    superseded by "Pine Ave" (valid 2024-01-02 → 2025-03-02)

Values are written as the belief lines write them (JSON, escaped), so a value cannot break the
line it is on. See ``docs/agent.md``, "Change: conflicts and supersession".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..facade.recall import render_value
from ..foundations._format import format_confidence
from ..foundations.clock import format_instant
from ..foundations.errors import CorollaryError
from ..foundations.values import canon, end_reason, is_end

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..facade.world import TimelineEntry
    from ..tms.conflicts import Conflict

#: How the mark of a contested key starts.
CONFLICT = "conflict: "


def conflict_mark(conflict: Conflict) -> str:
    """The mark of an open conflict between values of one key.

    Examples
    --------
    >>> from corollary import BeliefBase
    >>> kb = BeliefBase()
    >>> kb.assert_("addr", "Oak St", source="tool:crm")
    >>> kb.assert_("addr", "Pine Ave", source="document:email")
    >>> conflict_mark(kb.conflicts()[0])
    'conflict: "Oak St" (0.95, tool:crm) vs "Pine Ave" (0.90, document:email)'
    """
    ranked = sorted(conflict.candidates, key=lambda c: -c.confidence)
    return CONFLICT + " vs ".join(
        f"{render_value(c.value)} ({format_confidence(c.confidence)}, {', '.join(c.sources)})"
        for c in ranked)


def conflicts_by_key(kb: BeliefBase) -> dict[str, str]:
    """The mark of every open conflict between values of a key in ``kb``, by key (nogoods,
    which span keys, are not marks of one key)."""
    return {c.key: conflict_mark(c) for c in kb.conflicts() if not c.nogood}


def valid_span(entry: TimelineEntry) -> str:
    """When a value held: ``2024-01-02 → 2025-03-02`` (``…`` for no start, ``now`` while
    open), dates as proofs print them."""
    start = "…" if entry.valid_from is None else format_instant(entry.valid_from)
    end = "now" if entry.valid_until is None else format_instant(entry.valid_until)
    return f"{start} → {end}"


def by_time(kb: BeliefBase) -> bool:
    """Whether ``kb``'s policy supersedes by time (``PreferNewer``): only then is a value
    marked with what it supersedes."""
    return getattr(kb.conflict_policy, "mode", None) == "time"


def timeline_of(kb: BeliefBase, key: str) -> Sequence[TimelineEntry]:
    """``kb.timeline(key)`` when a value of the key can have superseded another (the base's
    policy supersedes by time, and the key has had more than one value); else nothing, read
    without building a timeline (a base without such a policy pays nothing for the marks)."""
    if not by_time(kb) or len(kb.engine.values_of(key)) < 2:
        return ()
    try:
        return kb.timeline(key)
    except CorollaryError:  # an unknown key: nothing to mark
        return ()


def _same(a: Any, b: Any) -> bool:
    return a is b or canon(a) == canon(b)


def supersedes(entries: Sequence[TimelineEntry], value: Any) -> list[TimelineEntry]:
    """The entries ``value`` superseded, oldest first."""
    return [e for e in entries if e.status == "superseded" and _same(e.superseded_by, value)]


def supersedes_mark(entries: Sequence[TimelineEntry], value: Any) -> str | None:
    """The mark of a held value that superseded older ones, ``None`` if it superseded none.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(1.8e9), conflict_policy=PreferNewer())
    >>> kb.assert_("addr", "Oak St", source="tool:crm", valid_from=1704153600)
    >>> kb.assert_("addr", "Pine Ave", source="document:email", valid_from=1740873600)
    >>> supersedes_mark(kb.timeline("addr"), "Pine Ave")
    'supersedes "Oak St" (valid 2024-01-02 → 2025-03-02)'
    """
    older = supersedes(entries, value)
    if not older:
        return None
    return "supersedes " + ", ".join(f"{mark_value(e.value)} (valid {valid_span(e)})"
                                     for e in older)


def mark_value(value: Any) -> str:
    """A value as a mark names it: JSON, or for an end (``kb.end``) ``the end`` and its
    reason, never the end's reserved marker.

    >>> mark_value("Oak St"), mark_value({"$ended": "moved"})
    ('"Oak St"', 'the end ("moved")')
    """
    if is_end(value):
        why = end_reason(value)
        return "the end" if why is None else f"the end ({render_value(why)})"
    return render_value(value)


def superseded(entries: Sequence[TimelineEntry], value: Any) -> TimelineEntry | None:
    """The entry of ``value`` if a newer value superseded it, else ``None``."""
    return next((e for e in entries if e.status == "superseded" and _same(e.value, value)),
                None)


def superseded_mark(entry: TimelineEntry) -> str:
    """The mark of a superseded value: what replaced it, and when it held.

    >>> from corollary import BeliefBase, ManualClock, PreferNewer
    >>> kb = BeliefBase(clock=ManualClock(1.8e9), conflict_policy=PreferNewer())
    >>> kb.assert_("addr", "Oak St", source="tool:crm", valid_from=1704153600)
    >>> kb.assert_("addr", "Pine Ave", source="document:email", valid_from=1740873600)
    >>> superseded_mark(kb.timeline("addr")[0])
    'superseded by "Pine Ave" (valid 2024-01-02 → 2025-03-02)'
    """
    newer = entry.superseded_by
    if is_end(newer):  # an end (kb.end): nothing replaced it, it stopped holding
        why = end_reason(newer)
        return f"ended{'' if why is None else f' ({render_value(why)})'} (valid {valid_span(entry)})"
    return f"superseded by {render_value(newer)} (valid {valid_span(entry)})"


def held_mark(entries: Sequence[TimelineEntry], value: Any, conflict: str | None
              ) -> str | None:
    """Everything the line of a held value is marked with: the open conflict it is in
    (``conflict``, its mark), then what it supersedes (``entries``: its key's timeline);
    ``None`` for neither."""
    marks = [m for m in (conflict, supersedes_mark(entries, value)) if m]
    return "; ".join(marks) if marks else None

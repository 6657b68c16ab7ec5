"""What the model is told of change: the mark of a contested key, and of a superseded value.

A key in an open conflict (two values held, no policy settled it) is marked on every line and
tool message that shows one of its values, with every value held, its confidence and its
sources, most confident first::

    conflict: "Oak St" (0.95, tool:crm) vs "Pine Ave" (0.90, document:email)

Values are written as the belief lines write them (JSON, escaped), so a value cannot break the
line it is on. See ``docs/agent.md``, "Change: conflicts and supersession".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..facade.recall import render_value
from ..foundations._format import format_confidence

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
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

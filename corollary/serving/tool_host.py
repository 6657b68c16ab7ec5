"""The base a tool of the tool table runs on (:mod:`corollary.serving.tools`): a
:class:`~corollary.serving.served.ServedBase` (one lock, other writers followed, changes saved)
with what every surface adds to it: the keys its callers may see (a scope), the model
``remember`` extracts with, and the state of a belief a change touched.

MCP (:mod:`corollary.mcp.server`), the native toolsets (:mod:`corollary.integrations.operations`)
and the many-users server run their tools on one of these, so none of them keeps a lock or a
sync of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from ..facade.base import BeliefBase
from ..foundations.errors import CorollaryError
from ..foundations.scope import Scope
from ..foundations.values import plain
from .served import ServedBase, Unsaved

__all__ = ["ToolHost", "belief_state", "json_tree"]


class ToolHost(ServedBase):
    """A served base the tools of the table run on.

    Parameters
    ----------
    kb : BeliefBase
        The base (a journaled session follows its other writers).
    session : str, optional
        As :class:`~corollary.serving.served.ServedBase`'s.
    scope : Scope, optional
        The keys the callers may see and change (``None``: every key).
    model : Model, optional
        What ``remember`` extracts facts with (``None``: ``remember`` is refused).

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> from corollary.foundations.scope import Scope
    >>> host = ToolHost(BeliefBase(clock=ManualClock(0)), scope=Scope.of("user:7"))
    >>> from corollary.changes import Assert, apply
    >>> def move(kb):
    ...     apply(kb, Assert("user:7:city", "Oslo", "human:u7"))
    ...     return "user:7:city", "Oslo"
    >>> host.change_belief(move)["label"]
    'IN'
    >>> host.inside("user:42:city")
    False
    """

    def __init__(self, kb: BeliefBase, session: str | None = None, scope: Scope | None = None,
                 model: Any = None) -> None:
        super().__init__(kb, session)
        #: the keys the callers may see and change (None: every key)
        self.scope = scope
        #: what ``remember`` extracts facts with (None: it is refused)
        self.model = model

    def inside(self, key: Any) -> bool:
        """Whether ``key`` is in the scope (any key when there is none)."""
        return self.scope is None or not isinstance(key, str) or self.scope.contains(key)

    def check(self, *keys: Any, what: str = "key") -> None:
        """Raise unless every key is in the scope (nothing is read or changed:
        docs/integrations.md, "Scope")."""
        if self.scope is not None:
            for key in keys:
                self.scope.check(key, what)

    def narrowed(self, scope: str | None) -> Scope | None:
        """The scope a read asks for, inside the host's own: never wider."""
        if scope is None:
            return self.scope
        asked = Scope.of(scope)
        self.check(*asked.prefixes, what="scope")
        return asked

    def change_belief(self, apply: Callable[[BeliefBase], tuple[str, Any]]) -> dict[str, Any]:
        """Apply a change that returns the ``(key, value)`` it touched; answer that belief's
        state after the change and the version it was saved as (``saved_version``)."""
        with self.lock:
            self.sync()
            key, value = apply(self.kb)
            try:
                state = belief_state(self.kb, key, value)
            except CorollaryError as exc:
                if self.journaled:  # the entry is committed: say so rather than drop it
                    raise Unsaved(f"{exc} (reading the change back failed; the change "
                                  f"itself was saved as entry {self.save()} of the "
                                  "session's journal: read it again)") from exc
                # all or nothing: a change whose answer cannot be given is not kept either
                self.drop(exc, "reading the change back failed")
            state["saved_version"] = self.save()
            self.kb.engine.feed.publish()
        return state


def belief_state(kb: BeliefBase, key: str, value: Any) -> dict[str, Any]:
    """``{key, value, label, confidence}`` of ``key = value`` now (``value`` ``None``: the
    null value, read from an open conflict when the key is in one)."""
    if value is None:
        label, confidence = _null_state(kb, key)
        return {"key": key, "value": None, "label": label, "confidence": confidence}
    return {"key": key, "value": plain(value), "label": kb.label(key, value),
            "confidence": kb.confidence(key, value)}


def _null_state(kb: BeliefBase, key: str) -> tuple[Literal["IN", "OUT"], float]:
    """The state of ``key = null``. To the base's queries a null value means "the held value",
    which raises while ``key`` is in an open conflict (a null asserted into one, say): read
    the null value's own state from the conflict then."""
    for c in kb.conflicts():
        if not c.nogood and c.key == key:
            return next((("IN", x.confidence) for x in c.candidates if x.value is None),
                        ("OUT", 0.0))
    if kb.label(key) == "IN" and kb.value(key) is None:
        return "IN", kb.confidence(key)
    return "OUT", 0.0


def json_tree(tree: Any) -> Any:
    """A proof tree as JSON data (values are plain already; tuples become lists)."""
    return json.loads(json.dumps(tree, default=lambda v: plain(v)))

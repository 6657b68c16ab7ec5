"""A base's view of trust: priors, the tools it was given, and a reliability cache kept current.

The engine asks :meth:`TrustView.reliability` for every premise and model step it evaluates, so
the answer is cached per source and dropped when the ledger records an outcome for that source.
Outcomes may be recorded by another base on the same ledger, from another thread: the ledger's
notification only queues the source here, and the base applies the queue
(:meth:`TrustView.take_changed`) in its own thread before it next evaluates.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..foundations.errors import InvalidInputError
from ..reasons.tools import ToolSpec
from ..sources.policy import STEP_KINDS, TrustPolicy
from .ledger import CAPABILITY_TIERS, TrustLedger


class TrustView:
    """Priors, tools and reliabilities as one base sees them.

    Parameters
    ----------
    policy : TrustPolicy
        Priors by source kind and per source.
    ledger : TrustLedger
        Where outcomes are recorded and reliability is learned.
    shared : bool
        Whether the ledger was passed in (saved apart from the base's snapshots).
    """

    def __init__(self, policy: TrustPolicy, ledger: TrustLedger, shared: bool) -> None:
        self.policy = policy
        self.ledger = ledger
        self.shared = shared
        self.tools: dict[str, ToolSpec] = {}
        #: The kind of each source seen so far (filled by :meth:`kind_of`): a cache the base's
        #: hot paths read to skip checking a known source again.
        self.kinds: dict[str, str] = {}
        self._priors: dict[str, float] = {}
        self._cache: dict[str, tuple[float, float, bool]] = {}
        #: The sources whose reliability changed and that the base has not applied yet (read
        #: it; :meth:`take_changed` empties it): an empty set means nothing is waiting.
        self.changed: set[str] = set()
        #: Whether :meth:`poll` can find outcomes (other processes may write the store).
        self.polls = ledger.polled
        self._lock = threading.Lock()
        ledger.subscribe(self._on_outcomes)

    # -- sources and tools ---------------------------------------------------------------
    def kind_of(self, source: object) -> str:
        """The kind of a ``kind:name`` source the policy knows (typed errors otherwise)."""
        kind = self.kinds.get(source) if isinstance(source, str) else None
        if kind is None:
            kind = self.policy.kind_of(source)  # type: ignore[arg-type]
            self.kinds[source] = kind  # type: ignore[index]
        return kind

    def check_source(self, source: str, doing: str) -> str:
        """``source``'s kind, refusing reasoning steps (``doing``: what was attempted)."""
        kind = self.kind_of(source)
        if kind in STEP_KINDS:
            raise InvalidInputError(f"{source!r} is a reasoning step, not a source ({doing})")
        return kind

    def add_tool(self, spec: ToolSpec) -> None:
        """Use a tool's declared trust for its premises (the ledger learns it too)."""
        prior = self.policy.prior(spec.source, spec.trust)  # an unknown trust level fails here
        if spec.trust is not None:
            self.ledger.declare_prior(spec.source, prior)  # so the ledger's own answers agree
        if isinstance(spec.trust, str) and spec.trust in CAPABILITY_TIERS:
            self.ledger.declare_tier(spec.source, spec.trust)  # its routing tier
        self.tools[spec.name] = spec
        self._priors.pop(spec.source, None)
        self.forget(spec.source)

    def remove_tool(self, name: str) -> None:
        """Stop applying the tool ``name``'s declared trust to its premises (a call that added
        it failed). What :meth:`add_tool` told the ledger stays: this process's
        configuration, which the base's own reads do not use (they pass its prior)."""
        spec = self.tools.pop(name, None)
        if spec is not None:
            self._priors.pop(spec.source, None)
            self.forget(spec.source)

    def tool_of(self, source: str) -> ToolSpec | None:
        """The tool behind a ``tool:<name>`` source, if the base was given it."""
        return self.tools.get(source[5:]) if source.startswith("tool:") and self.tools else None

    def prior(self, source: str) -> float:
        """``source``'s prior: a tool's declared trust, else the policy's."""
        prior = self._priors.get(source)
        if prior is None:
            spec = self.tool_of(source)
            prior = self.policy.prior(source, spec.trust if spec is not None else None)
            self._priors[source] = prior
        return prior

    # -- reliability ---------------------------------------------------------------------
    def reliability(self, source: str, now: float) -> tuple[float, bool]:
        """``(reliability at now, whether it moves with time)``, cached per source."""
        cached = self._cache.get(source)
        if cached is not None and (not cached[2] or cached[0] == now):
            return cached[1], cached[2]
        value = self.ledger.reliability(source, at=now, prior=self.prior(source))
        timed = self.ledger.is_time_dependent(source)
        self._cache[source] = (now, value, timed)
        return value, timed

    def forget(self, source: str) -> None:
        """Drop ``source``'s cached reliability and report it changed."""
        self._cache.pop(source, None)
        with self._lock:
            self.changed.add(source)

    def _on_outcomes(self, sources: set[str]) -> None:
        # The ledger may call from another thread (a base sharing it): only queue the sources.
        with self._lock:
            self.changed.update(sources)

    @property
    def pending(self) -> bool:
        """Whether some source's reliability changed since :meth:`take_changed`."""
        return bool(self.changed)

    def take_changed(self) -> set[str]:
        """The sources whose reliability changed since the last call (their caches dropped)."""
        with self._lock:
            changed, self.changed = self.changed, set()
        for source in changed:
            self._cache.pop(source, None)
        return changed

    def poll(self) -> None:
        """Pick up outcomes other processes added to a shared store."""
        self.ledger.poll()

    def describe(self) -> dict[str, Any]:
        """The tools' specs by name (a copy)."""
        return dict(self.tools)


#: ``reliability(source, now) -> (value, time_dependent)``, as the engine takes it.
ReliabilityFn = Callable[[str, float], tuple[float, bool]]

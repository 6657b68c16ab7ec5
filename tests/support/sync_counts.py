"""What the fast-read tests share: a counter of the engine's syncs, and a base rebuilt from its
snapshot (every memo computed afresh) to compare reads with."""

from __future__ import annotations

from corollary import BeliefBase, ManualClock


class CountingSync:
    """Counts the engine's syncs (the work a read must not do when nothing changed)."""

    def __init__(self, kb: BeliefBase) -> None:
        self.calls = 0
        engine = kb.parts.engine
        inner = engine.sync

        def counted(now, targets=None):  # type: ignore[no-untyped-def]
            self.calls += 1
            return inner(now, targets)

        engine.sync = counted  # type: ignore[method-assign]


def scratch(kb: BeliefBase, clock: ManualClock, **options: object) -> BeliefBase:
    """The same base rebuilt from its snapshot: every memo computed afresh."""
    return BeliefBase.from_dict(kb.to_dict(), clock=clock, **options)  # type: ignore[arg-type]

"""What marking a source stale must visit again: the engine's memo of its last marks.

When a source's reliability changes, everything resting on its premises is stale
(:meth:`Engine.mark_source <corollary.tms.engine.Engine.mark_source>`): every belief the source
gave a premise is marked. A base that hears a key again from a second source records an outcome
for both sources (the value was confirmed), so each such assertion marks every belief of both:
re-asserting ``n`` keys from a second source visited ``n`` beliefs ``n`` times (about 100 a second
at 50,000 keys).

Most of those beliefs are still stale from the last mark: nothing has read them since. After a
source is marked, every belief it holds up is dirty, and one leaves the dirty set only by being
swept (or forgotten, or by the dirty set being swapped whole: a full sync, a what-if). So the
engine remembers, per source, the dirty set and the source's list of holders as they were at its
last mark (:class:`SourceMarks`), and logs the regions swept since; marking the source again
visits only the holders added since and the beliefs swept since, which is what the whole walk
would find not dirty. The log is bounded: past :data:`LOG_LIMIT` beliefs (or an eighth of the
base) it is dropped with every memo, and the next mark of each source walks all its holders, so
a log never costs more than the walks it saves.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from .records import Belief

#: Beliefs the log of swept regions holds at least before it is dropped (see the module
#: docstring); a larger base allows an eighth of its beliefs.
LOG_LIMIT = 4096


class SourceMarks:
    """Per source, what its last mark left dirty; the regions swept since.

    >>> from corollary.tms.records import Belief
    >>> marks, dirty = SourceMarks(), set()
    >>> holders = [Belief("k", 1, 1, 0), Belief("j", 2, 2, 1)]
    >>> list(marks.to_visit("tool:a", holders, dirty)) == holders  # no memo: every holder
    True
    >>> dirty.update(holders); marks.marked("tool:a", holders, dirty)
    >>> list(marks.to_visit("tool:a", holders, dirty))  # all still dirty: nothing to visit
    []
    >>> marks.swept({holders[0]}, 2); dirty.discard(holders[0])
    >>> marks.to_visit("tool:a", holders, dirty) == [holders[0]]
    True
    """

    __slots__ = ("memos", "log", "logged")

    def __init__(self) -> None:
        #: source -> (the dirty set, the holders list, how many holders it had, how many
        #: regions were logged) at its last mark
        self.memos: dict[str, tuple[set[Belief], list[Belief], int, int]] = {}
        #: the regions swept since the oldest memo, while there is one
        self.log: list[set[Belief]] = []
        self.logged = 0  # beliefs in the log

    def to_visit(self, source: str, holders: list[Belief],
                 dirty: set[Belief]) -> Iterable[Belief]:
        """The beliefs that marking ``source`` (of ``holders``) must visit: every holder,
        unless a memo says which of them can have left ``dirty`` since."""
        memo = self.memos.get(source)
        if memo is None or memo[0] is not dirty or memo[1] is not holders or (
                memo[2] > len(holders)):
            return holders
        _, _, seen, since = memo
        if since == len(self.log) and seen == len(holders):
            return []
        return [b for b in chain(chain.from_iterable(self.log[since:]), holders[seen:])
                if b not in dirty]

    def marked(self, source: str, holders: list[Belief], dirty: set[Belief]) -> None:
        """``source`` was marked: every one of its ``holders`` is in ``dirty``."""
        self.memos[source] = (dirty, holders, len(holders), len(self.log))

    def swept(self, region: set[Belief], count: int) -> None:
        """``region`` was swept (it left the dirty set) in a base of ``count`` beliefs."""
        if not self.memos:
            return
        self.log.append(region)
        self.logged += len(region)
        if self.logged > max(LOG_LIMIT, count >> 3):
            self.clear()

    def forget(self, source: str) -> None:
        """``source``'s holders list was rewritten in place (compacted) or dropped."""
        self.memos.pop(source, None)

    def clear(self) -> None:
        """Drop every memo and the log (the dirty set was swapped, a belief forgotten: the log
        must not keep it alive, or it grew past its bound)."""
        if self.memos or self.log:
            self.memos.clear()
            self.log = []
            self.logged = 0

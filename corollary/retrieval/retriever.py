"""The retriever protocol: what recall asks of a source of candidates (docs/recall.md).

A retriever is attached to one engine on the base's first recall and then asked, on each
recall, for the candidates of a query, best first. It learns what the engine holds, and what
changes, by itself: reading the engine once when attached, then subscribing to the engine's
change feed (``engine.feed.subscribe``, :mod:`corollary.tms.feed`). It never decides what is
held: it hands each candidate to ``held``, which reads the belief through the engine (its label
and confidence now, whether it is still the engine's, the recall's floor and scope), and returns
only candidates ``held`` accepted. Recall fuses the retrievers' lists with the lexical index's
by reciprocal rank (:mod:`corollary.retrieval.fusion`), times the confidence factor.

>>> from corollary import BeliefBase, ManualClock
>>> class Newest:  # a toy retriever: the newest beliefs first, whatever the query
...     def attach(self, engine):
...         self.engine = engine
...     def rank(self, query, n, held):
...         found = []
...         for b in sorted(self.engine.beliefs(), key=lambda b: -b.seq):
...             if len(found) == n:
...                 break
...             if held(b):
...                 found.append(b)
...         return found
>>> kb = BeliefBase(clock=ManualClock(0))
>>> kb.add_retriever(Newest())
>>> kb.assert_("hq", "Austin", source="human:ann")
>>> kb.assert_("ceo", "Ada", source="human:ann")
>>> [r.key for r in kb.recall("where is hq?")]
['hq', 'ceo']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ..foundations.errors import InvalidTypeError
from ..tms import Belief, Engine

__all__ = ["Held", "Retriever", "check_retriever"]

#: ``held(belief)``: whether recall may return ``belief`` now (it is brought up to date, held,
#: still the engine's, at or above the recall's floor and in its scope).
Held = Callable[[Belief], bool]


@runtime_checkable
class Retriever(Protocol):
    """A source of recall candidates (see the module docstring)."""

    def attach(self, engine: Engine) -> None:
        """Follow ``engine`` from now on: called once, on the base's first recall (or when the
        retriever is added to a base that has recalled), before any :meth:`rank`."""

    def rank(self, query: str, n: int, held: Held) -> Sequence[Belief]:
        """Up to ``n`` beliefs about ``query``, best first, each one ``held`` accepted."""


def check_retriever(retriever: object) -> Retriever:
    """``retriever`` if it has ``attach`` and ``rank`` (else ``InvalidTypeError``).

    >>> check_retriever(object())
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidTypeError: a retriever needs attach(engine) and rank(query, n, held) methods (docs/recall.md); object has no attach
    """
    for name in ("attach", "rank"):
        if not callable(getattr(retriever, name, None)):
            raise InvalidTypeError("a retriever needs attach(engine) and rank(query, n, held) "
                                   f"methods (docs/recall.md); {type(retriever).__name__} has "
                                   f"no {name}")
    return retriever  # type: ignore[return-value]

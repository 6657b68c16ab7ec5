"""Reciprocal rank fusion: several ranked lists of candidates made one (Cormack, Clarke and
Büttcher, 2009). Each list gives its ``r``-th candidate (from 0) ``1 / (RRF_K + r + 1)``; a
candidate's score is the sum over the lists it is in. Ranks, not scores, are fused: a BM25
score and a cosine are on scales that cannot be added.

>>> {x: round(61 * score, 3) for x, score in fuse([["a", "b"], ["b", "c"]]).items()}
{'a': 1.0, 'b': 1.984, 'c': 0.984}
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["RRF_K", "fuse"]

#: Reciprocal rank fusion's constant (the paper's).
RRF_K = 60

T = TypeVar("T", bound=Hashable)


def fuse(rankings: Iterable[Sequence[T]], k: int = RRF_K) -> dict[T, float]:
    """Each candidate's fused score over ``rankings`` (each best first), in the order the
    candidates were first met."""
    fused: dict[T, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank + 1)
    return fused

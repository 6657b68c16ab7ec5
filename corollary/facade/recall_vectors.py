"""Vectors for recall by meaning: a user's embedder over the held beliefs, searched by cosine.

``BeliefBase(embedder=fn)`` takes any callable ``texts -> 2-D array`` (one row per text):
sentence-transformers' ``model.encode``, fastembed, an OpenAI-compatible embeddings endpoint
wrapped in a function. corollary downloads nothing. A belief's text for its vector is
``key: value`` (the value's text as the lexical index reads it).

Vectors are kept for held beliefs only: on each recall the beliefs indexed since the last
one, and those waiting because they were not held, are read through the engine; the held ones
are embedded, in batches of :data:`BATCH`. A vector whose belief is found not held at query
time is dropped (the belief waits again). Search is brute force: one matrix product over the
unit vectors, exact, about ``n × d`` multiply-adds (100,000 vectors of 384 numbers: a few
milliseconds). Past that, an approximate index (hnswlib, FAISS) can stand behind
:meth:`VectorIndex.search`; none is bundled (docs/recall.md).

>>> import numpy as np
>>> from corollary import BeliefBase, ManualClock
>>> def embed(texts):  # a toy embedder: which of three words each text holds
...     return np.array([[w in t for w in ("cat", "dog", "car")] for t in texts], dtype=float)
>>> kb = BeliefBase(clock=ManualClock(0), embedder=embed)
>>> kb.assert_("pet", "a cat", source="human:ann")
>>> kb.assert_("ride", "a car", source="human:ann")
>>> [r.key for r in kb.recall("cat", k=1)]
['pet']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..tms import IN, Belief
from .recall_index import value_text

__all__ = ["BATCH", "Embedder", "VectorIndex", "check_embedder"]

#: Texts per call to the embedder.
BATCH = 256

Embedder = Callable[[list[str]], Any]


def check_embedder(embedder: Any) -> Embedder | None:
    """``embedder`` if it is ``None`` or callable (else ``InvalidTypeError``)."""
    if embedder is not None and not callable(embedder):
        raise InvalidTypeError("embedder must be a callable texts -> 2-D array, or None")
    return embedder  # type: ignore[no-any-return]


def belief_text(b: Belief) -> str:
    """The text a belief's vector is made from: ``key: value``."""
    return f"{b.key}: {value_text(b.value)}"


def embed(embedder: Embedder, texts: list[str]) -> NDArray[np.float32]:
    """``texts`` embedded in batches, as unit rows (a zero row stays zero); a result that is
    not a finite 2-D array of one row per text raises ``InvalidInputError``."""
    rows: list[NDArray[np.float32]] = []
    width = None
    for start in range(0, len(texts), BATCH):
        part = texts[start:start + BATCH]
        try:
            out = np.asarray(embedder(part), dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"the embedder did not return numbers: {exc}") from exc
        if out.ndim != 2 or out.shape[0] != len(part) or (width is not None and
                                                          out.shape[1] != width):
            raise InvalidInputError(
                f"the embedder must return a 2-D array with one row per text ({len(part)} "
                f"texts{'' if width is None else f', {width} columns'}), got shape {out.shape}")
        if not np.isfinite(out).all():
            raise InvalidInputError("the embedder returned NaN or infinite numbers")
        width = out.shape[1]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        rows.append((out / np.where(norms > 0, norms, 1.0)).astype(np.float32))
    if not rows:
        return np.zeros((0, 0), dtype=np.float32)
    return np.concatenate(rows)


class VectorIndex:
    """Unit vectors of the held beliefs, searched by cosine (see the module docstring)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self.rows: list[Belief | None] = []  # None: a dropped row
        self.seen = 0  # how many of the lexical index's beliefs were looked at
        self.generation = 0  # the lexical index's build they were looked at in
        self.waiting: list[Belief] = []

    def catch_up(self, docs: Sequence[Belief], sync: Callable[[list[Belief]], Any],
                 live: Callable[[Belief], bool], generation: int = 0) -> None:
        """Embed the held beliefs among those indexed since the last call and those waiting.

        ``generation`` counts the lexical index's builds: a rebuilt index numbers its beliefs
        afresh, so its beliefs are all looked at again (those with a row or waiting skipped),
        or the ones made just before the rebuild would never be embedded."""
        if generation != self.generation:
            self.generation = generation
            have = {id(b) for b in (*self.rows, *self.waiting) if b is not None}
            look = [*self.waiting, *(b for b in docs if id(b) not in have)]
        else:
            look = [*self.waiting, *docs[self.seen:]]
        self.seen = len(docs)
        if not look:
            return
        sync(look)
        held = [b for b in look if b.label is IN and live(b)]
        self.waiting = [b for b in look if b.label is not IN and live(b)]
        if not held:
            return
        vectors = embed(self.embedder, [belief_text(b) for b in held])
        if len(self.vectors) == 0:
            self.vectors = vectors
        elif vectors.shape[1] != self.vectors.shape[1]:
            raise InvalidInputError(f"the embedder returned {vectors.shape[1]} columns, "
                                    f"before {self.vectors.shape[1]}")
        else:
            self.vectors = np.concatenate([self.vectors, vectors])
        self.rows.extend(held)

    def drop(self, row: int) -> None:
        """Forget a row whose belief is no longer held (it waits to be held again)."""
        b = self.rows[row]
        if b is not None:
            self.rows[row] = None
            self.vectors[row] = 0.0
            self.waiting.append(b)

    def search(self, query: str, n: int) -> list[tuple[float, int]]:
        """The ``n`` rows most similar to ``query``: ``(cosine, row)``, best first."""
        if len(self.vectors) == 0:
            return []
        q = embed(self.embedder, [query])[0]
        sims = self.vectors @ q
        n = min(n, len(sims))
        best = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        best = best[np.lexsort((best, -sims[best]))]
        return [(float(sims[i]), int(i)) for i in best.tolist() if self.rows[i] is not None]

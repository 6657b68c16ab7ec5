"""Vectors for recall by meaning: a user's embedder over the held beliefs, searched by cosine.

``BeliefBase(embedder=fn)`` takes any callable ``texts -> 2-D array`` (one row per text):
sentence-transformers' ``model.encode``, fastembed, an OpenAI-compatible embeddings endpoint
wrapped in a function. corollary downloads nothing. A belief's text for its vector is
``key: value`` (the value's text as the lexical index reads it).

Vectors are kept for held beliefs only. The index is a retriever
(:mod:`corollary.retrieval.retriever`): attached on the base's first recall, it reads every
belief of the engine, then follows the engine's change feed for the keys changes touch; on
each recall the beliefs made since, and those waiting because they were not held, are read
through the engine, and the held ones are embedded, in batches of :data:`BATCH`. A vector whose belief is found not held at query
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
>>> [r.key for r in kb.recall("cat", limit=1)]
['pet']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..tms import IN, Belief, Engine
from ..tms.feed import Subscription
from .lexical import value_text
from .retriever import Held

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

    def __init__(self, embedder: Embedder,
                 sync: Callable[[list[Belief]], Any] | None = None) -> None:
        self.embedder = embedder
        #: ``sync(beliefs)``: the base's read path, which brings beliefs up to now before
        #: their labels are read (recall passes its own; none: labels as last computed)
        self.sync: Callable[[list[Belief]], Any] = sync or (lambda beliefs: None)
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self.rows: list[Belief | None] = []  # None: a dropped row
        self.waiting: list[Belief] = []
        self.engine: Engine | None = None
        self._known: set[Belief] = set()  # in a row or waiting
        self._look: list[Belief] = []  # every belief, until the first catch-up
        self._touched: set[str] = set()  # the keys the feed said changed since
        self.subscription: Subscription | None = None

    # -- the retriever protocol -------------------------------------------------------------
    def attach(self, engine: Engine) -> None:
        """Follow ``engine``: every belief it holds now, then the keys its feed says changed."""
        self.engine = engine
        self._look = sorted(engine.beliefs(), key=_seq)
        keys = self._touched  # the listener holds the set, not the index: no cycle through
        self.subscription = engine.feed.subscribe(  # the engine, which holds its feed
            lambda changes: keys.update(changes.touched), labels=False)

    def rank(self, query: str, n: int, held: Held) -> list[Belief]:
        """Up to ``n`` held beliefs most similar to ``query``, best first: the rows of the
        ``2 n`` most similar vectors that ``held`` accepts (a row whose belief is no longer
        held is dropped: it waits to be held again)."""
        assert self.engine is not None, "attach the index to an engine first"
        self.catch_up()
        engine = self.engine
        found: list[Belief] = []
        for _, row in self.search(query, 2 * n):
            b = self.rows[row]
            if b is None:
                continue
            if not held(b):  # read through the engine: its label is now current
                if b.label is not IN or engine.find(b.key, b.vid) is not b:
                    self.drop(row)
                continue
            found.append(b)
            if len(found) == n:
                break
        return found

    # -- keeping up -----------------------------------------------------------------------
    def _fresh(self) -> list[Belief]:
        """The beliefs not looked at yet: all of them at first, then those of touched keys."""
        look, self._look = self._look, []
        engine = self.engine
        assert engine is not None
        if self._touched:
            touched = set(self._touched)
            self._touched.clear()
            known = self._known
            made = [b for key in touched for b in engine.values_of(key) if b not in known]
            look.extend(sorted(made, key=_seq))
        return look

    def catch_up(self) -> None:
        """Embed the held beliefs among those made since the last call and those waiting."""
        engine = self.engine
        assert engine is not None
        engine.feed.publish()  # what changed since the last change settled
        look = [*self.waiting, *self._fresh()]
        if not look:
            return
        live = [b for b in look if engine.find(b.key, b.vid) is b]
        for b in look:
            self._known.discard(b)
        self.sync(live)
        held = [b for b in live if b.label is IN]
        self.waiting = [b for b in live if b.label is not IN]
        self._known.update(self.waiting)
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
        self._known.update(held)

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


def _seq(b: Belief) -> int:
    return b.seq

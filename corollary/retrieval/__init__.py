"""Recall's retrievers, below the facade: which beliefs a query is about, ranked.

A retriever follows one engine through its change feed (:mod:`corollary.tms.feed`) and ranks
candidates for a query; the base's recall (:mod:`corollary.facade.recall`) checks each
candidate through the engine's read path (held now, at or above the floor, in scope) and fuses
the ranks. The parts: the protocol (:mod:`.retriever`), the lexical BM25 index (:mod:`.lexical`),
the embedder's vectors (:mod:`.vectors`) and reciprocal rank fusion (:mod:`.fusion`). A second
retriever is one file: a class with ``attach`` and ``rank``, given to ``kb.add_retriever``
(docs/recall.md).
"""

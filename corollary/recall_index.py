"""The lexical index behind recall: which beliefs exist, and the words of each.

A belief's text is its key split on punctuation (``customer:7:email`` → customer, 7, email),
its value's text, the names of the sources and models that gave it (``human:calvin`` → human,
calvin) and the documents and quotes it cites. Words are maximal runs of letters and digits
after Unicode case folding (``str.casefold``); numbers are kept.

The index knows nothing of labels or confidences: recall reads those through the engine for
the candidates it returns (:mod:`corollary.recall`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from .tms import Belief, Engine
from .values import plain

__all__ = ["LexicalIndex", "belief_words", "tokenize"]

_WORD = re.compile(r"[^\W_]+")
# BM25's parameters: the usual ones (Robertson and Zaragoza).
K1 = 1.2
B = 0.75
#: How many times a key's words count (a query naming a key should find it before a value
#: that merely mentions the same words).
KEY_WEIGHT = 2


def tokenize(text: str) -> list[str]:
    """The words of ``text``: runs of letters and digits, case-folded.

    >>> tokenize("When did Calvin travel to Straße 7?")
    ['when', 'did', 'calvin', 'travel', 'to', 'strasse', '7']
    """
    return _WORD.findall(text.casefold())


def value_text(value: Any) -> str:
    """The text of a value that its words come from (a string as is, anything else as JSON)."""
    if type(value) is str:
        return value
    return json.dumps(plain(value), ensure_ascii=False)


def belief_words(b: Belief) -> list[str]:
    """Every word of ``b``'s text: key (twice: a key names what the belief is about, and
    BM25F-style weights it double), value, sources and models, citations."""
    words = tokenize(b.key) * KEY_WEIGHT
    words += tokenize(value_text(b.value))
    for record in b.records():
        words += tokenize(record[0])
    for j in b.justs:
        words += tokenize(j.name)
        info = j.info
        for field in ("document", "quote"):
            text = info.get(field)
            if isinstance(text, str):
                words += tokenize(text)
    return words


class LexicalIndex:
    """BM25 over every belief of an engine (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.docs: list[Belief] = []
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.words: dict[Belief, frozenset[str]] = {}

    def catch_up(self) -> None:
        """Bring the index up to the engine's beliefs."""
        self.docs = list(self.engine.beliefs())
        self.lengths = []
        self.postings = {}
        self.words = {}
        for i, b in enumerate(self.docs):
            words = belief_words(b)
            self.lengths.append(len(words))
            counts: dict[str, int] = {}
            for w in words:
                counts[w] = counts.get(w, 0) + 1
            for w, n in counts.items():
                self.postings.setdefault(w, []).append((i, n))
            self.words[b] = frozenset(counts)

    def candidates(self, terms: list[str], batch: int) -> Iterator[list[tuple[float, Belief]]]:
        """The beliefs whose text holds a term, in decreasing BM25 relevance, in chunks of
        ``batch``."""
        n = len(self.docs)
        if n == 0:
            return
        avg = sum(self.lengths) / n
        scores: dict[int, float] = {}
        for t in dict.fromkeys(terms):
            plist = self.postings.get(t)
            if not plist:
                continue
            df = len(plist)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            for i, tf in plist:
                norm = tf + K1 * (1.0 - B + B * self.lengths[i] / avg)
                scores[i] = scores.get(i, 0.0) + idf * tf * (K1 + 1.0) / norm
        ranked = sorted(scores.items(), key=lambda t: (-t[1], t[0]))
        for start in range(0, len(ranked), batch):
            yield [(s, self.docs[i]) for i, s in ranked[start:start + batch]]

    def matched(self, b: Belief, terms: list[str]) -> tuple[str, ...]:
        """The terms of the query found in ``b``'s text, in the query's order, once each."""
        words = self.words.get(b, frozenset())
        return tuple(t for t in dict.fromkeys(terms) if t in words)

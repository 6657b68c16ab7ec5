"""The lexical index behind recall: which beliefs exist, and the words of each.

A belief's text is its key split on punctuation (``customer:7:email`` → customer, 7, email;
the key's words count twice), its value's text, the names of the sources and models that gave
it (``human:calvin`` → human, calvin) and the documents and quotes it cites. Words are maximal
runs of letters and digits after Unicode case folding (``str.casefold``); numbers are kept, no
stemming, no stop words (docs/recall.md says why, by measurement).

The index knows nothing of labels or confidences: recall reads those through the engine for
the candidates it returns (:mod:`corollary.recall`). It follows the engine without any hook
in the engine's write paths: on each recall, :meth:`LexicalIndex.catch_up` compares a few
sizes (keys, beliefs, premises per source) with those it saw last, and reads only what grew:
the keys added since (new keys come last in the engine's key table), the premises added since
(each source's list of holders only grows, until it is compacted), and, at query time, the
other values of a candidate's key.

Layout (an inverted index of its own, numpy arrays; docs/recall.md compares it with SQLite
FTS5 and bm25s): a word is a 64-bit polynomial hash of its code points (no string is kept);
beliefs are numbered in the order they were indexed; postings live in a few immutable segments
(sorted term hashes, offsets, belief numbers, weighted term frequencies), merged as they grow
(a new segment at least half the size of the one before is merged with it, so there are
O(log n) segments); the words of sources are kept once per source with the numbers of the
beliefs it gave a premise. Tokenizing and hashing a batch of texts is vectorised: the texts are
joined, case-folded and hashed with cumulative sums, so a million beliefs are indexed in about
a second.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
# The word hash: h(w) = sum of code point_i * P^(len-1-i) mod 2^64 (P odd, so invertible).
_P = 1099511628211
_MASK = (1 << 64) - 1
_PINV = pow(_P, -1, 1 << 64)
#: Texts are hashed this many characters at a time (bounds the temporary arrays).
_CHUNK_CHARS = 4_000_000
_SEP = " "  # joins texts: not a word character
_table: NDArray[np.bool_] | None = None
_get_key = attrgetter("key")
_get_value = attrgetter("value")
_get_justs = attrgetter("justs")
_last = itemgetter(-1)


def tokenize(text: str) -> list[str]:
    """The words of ``text``: runs of letters and digits, case-folded.

    >>> tokenize("When did Calvin travel to Straße 7?")
    ['when', 'did', 'calvin', 'travel', 'to', 'strasse', '7']
    """
    return _WORD.findall(text.casefold())


def word_hash(word: str) -> int:
    """The 64-bit hash the index keeps for a word (the same as the vectorised hash).

    >>> word_hash("a") == ord("a"), word_hash("ab") == (ord("a") * _P + ord("b")) & _MASK
    (True, True)
    """
    h = 0
    for c in word:
        h = (h * _P + ord(c)) & _MASK
    return h


def value_text(value: Any) -> str:
    """The text of a value that its words come from (a string as is, anything else as JSON)."""
    if type(value) is str:
        return value
    return json.dumps(plain(value), ensure_ascii=False)


def _extra_text(b: Belief) -> str:
    """The words of ``b``'s reasons beyond its premises: models and rules, cited documents."""
    parts = []
    for j in b.justs:
        parts.append(j.name)
        info = j.info
        for field in ("document", "quote"):
            text = info.get(field)
            if isinstance(text, str):
                parts.append(text)
    return " ".join(parts)


def belief_words(b: Belief) -> list[str]:
    """Every word of ``b``'s text, the key's words twice (see the module docstring)."""
    words = tokenize(b.key) * KEY_WEIGHT
    words += tokenize(value_text(b.value))
    for record in b.records():
        words += tokenize(record[0])
    if b.justs:
        words += tokenize(_extra_text(b))
    return words


def _word_table() -> NDArray[np.bool_]:
    """Whether each code point is a word character (``str.isalnum``, what ``[^\\W_]`` reads)."""
    global _table
    if _table is None:
        everything = "".join(map(chr, range(0x110000)))
        table = np.zeros(0x110000, dtype=np.bool_)
        for m in _WORD.finditer(everything):  # runs of consecutive word characters
            table[m.start():m.end()] = True
        _table = table
    return _table


def _hash_texts(texts: list[str]) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """The hashes of the words of ``texts`` (case-folded) and, for each, its text's index."""
    table = _word_table()
    hashes: list[NDArray[np.uint64]] = []
    owners: list[NDArray[np.int64]] = []
    start = 0
    n = len(texts)
    while start < n:
        stop, size = start, 0
        while stop < n and (size < _CHUNK_CHARS or stop == start):
            size += len(texts[stop]) + 1
            stop += 1
        folded = list(map(str.casefold, texts[start:stop]))
        joined = _SEP.join(folded) + _SEP
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        word = table[codes]
        boundary = np.diff(word.astype(np.int8), prepend=0, append=0)
        first = np.flatnonzero(boundary == 1)
        last = np.flatnonzero(boundary == -1) - 1
        if len(first):
            c = codes.astype(np.uint64)
            inv = np.full(len(c), _PINV, dtype=np.uint64)
            inv[0] = 1
            inv = np.cumprod(inv)  # PINV^j, mod 2^64
            acc = np.cumsum(c * inv)  # sum of c_j PINV^j
            del inv
            powers = np.full(len(c), _P, dtype=np.uint64)
            powers[0] = 1
            powers = np.cumprod(powers)
            before = np.where(first > 0, acc[np.maximum(first - 1, 0)], np.uint64(0))
            hashes.append((acc[last] - before) * powers[last])
            # where each text starts in the joined text (a separator after each)
            sizes = np.fromiter(map(len, folded), dtype=np.int64, count=len(folded)) + 1
            starts = np.cumsum(sizes) - sizes
            owners.append(np.searchsorted(starts, first, side="right").astype(np.int64)
                          - 1 + start)
        start = stop
    if not hashes:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    return np.concatenate(hashes), np.concatenate(owners)


class _Segment:
    """Postings of some beliefs, immutable: sorted unique term hashes, each with a slice of
    belief numbers (ascending) and weighted term frequencies."""

    __slots__ = ("terms", "offsets", "docs", "tfs", "members")

    def __init__(self, terms: NDArray[np.uint64], offsets: NDArray[np.int64],
                 docs: NDArray[np.int32], tfs: NDArray[np.float32],
                 members: NDArray[np.int32]) -> None:
        self.terms = terms
        self.offsets = offsets
        self.docs = docs
        self.tfs = tfs
        self.members = members  # the belief numbers it indexes

    def postings(self, h: int) -> tuple[NDArray[np.int32], NDArray[np.float32]] | None:
        i = int(np.searchsorted(self.terms, np.uint64(h)))
        if i == len(self.terms) or int(self.terms[i]) != h:
            return None
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.docs[lo:hi], self.tfs[lo:hi]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.terms, self.offsets, self.docs, self.tfs,
                                      self.members))


def _segment(hashes: NDArray[np.uint64], docs: NDArray[np.int64], weights: NDArray[np.float32],
             members: NDArray[np.int32]) -> _Segment:
    """A segment from (word hash, belief number, weight) triples."""
    if len(hashes) == 0:
        empty = np.zeros(0, dtype=np.int32)
        return _Segment(np.zeros(0, dtype=np.uint64), np.zeros(1, dtype=np.int64), empty,
                        np.zeros(0, dtype=np.float32), members)
    order = np.lexsort((docs, hashes))
    hs, ds, ws = hashes[order], docs[order], weights[order]
    new = np.empty(len(hs), dtype=np.bool_)
    new[0] = True
    new[1:] = (hs[1:] != hs[:-1]) | (ds[1:] != ds[:-1])
    starts = np.flatnonzero(new)
    tfs = np.add.reduceat(ws, starts).astype(np.float32)
    ph, pd = hs[starts], ds[starts].astype(np.int32)
    first = np.empty(len(ph), dtype=np.bool_)
    first[0] = True
    first[1:] = ph[1:] != ph[:-1]
    term_starts = np.flatnonzero(first)
    offsets = np.append(term_starts, len(ph)).astype(np.int64)
    return _Segment(ph[term_starts], offsets, pd, tfs, members)


class LexicalIndex:
    """BM25 over every belief of an engine, kept up to date with it lazily (see the module
    docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.docs: list[Belief] = []
        self.lengths = np.zeros(0, dtype=np.float32)  # words of key (weighted) and value
        self.total_length = 0.0
        self.segments: list[_Segment] = []
        # the belief numbers by the id of the belief (sorted ids; a dict for the newest)
        self._ids = np.zeros(0, dtype=np.uint64)
        self._id_docs = np.zeros(0, dtype=np.int32)
        self._new_ids: dict[int, int] = {}
        # sources: source -> (its words' hashes, belief numbers (chunks), holders seen, list)
        self._sources: dict[str, _SourceDocs] = {}
        self._seen: tuple[int, ...] = ()
        self._dead = 0  # indexed beliefs found gone (forgotten, rolled back)

    # -- keeping up ------------------------------------------------------------------------
    def known(self, b: Belief) -> int:
        """``b``'s number in the index, or -1."""
        i = self._new_ids.get(id(b))
        if i is None:
            pos = int(np.searchsorted(self._ids, np.uint64(id(b))))
            if pos == len(self._ids) or int(self._ids[pos]) != id(b):
                return -1
            i = int(self._id_docs[pos])
        return i if self.docs[i] is b else -1

    def _numbers(self, beliefs: list[Belief]) -> NDArray[np.int32]:
        """The index numbers of ``beliefs`` (-1 for those not indexed), vectorised."""
        if not beliefs:
            return np.zeros(0, dtype=np.int32)
        ids = np.fromiter(map(id, beliefs), dtype=np.uint64, count=len(beliefs))
        out = np.full(len(beliefs), -1, dtype=np.int32)
        if len(self._ids):
            pos = np.minimum(np.searchsorted(self._ids, ids), len(self._ids) - 1)
            hit = self._ids[pos] == ids
            out[hit] = self._id_docs[pos[hit]]
        if self._new_ids:
            get = self._new_ids.get
            for i, b in enumerate(beliefs):
                if out[i] < 0:
                    out[i] = get(id(b), -1)
        return out

    def _signature(self) -> tuple[int, ...]:
        """Sizes that change whenever a belief or a premise is added: the keys (and the last
        key's slot, as a replaced value may delete its key and add it again), the beliefs,
        and each source's list of holders (its object, length and last holder)."""
        engine = self.engine
        keys = engine.keys
        lists = engine.by_source.values()
        last = id(next(reversed(keys.values()))) if keys else 0
        return (len(keys), engine.count, last, hash(tuple(map(len, lists))),
                hash(tuple(map(id, lists))), hash(tuple(map(id, map(_last, lists)))))

    def catch_up(self) -> None:
        """Index what the engine made since the last call (a full build the first time, or
        when a quarter of what is indexed is gone)."""
        signature = self._signature()
        if signature == self._seen:
            return
        if (not self.docs or self._dead * 4 > len(self.docs)
                or len(self.docs) > 2 * self.engine.count + 1024):  # many are gone: start over
            self._rebuild()
        else:
            self._add(self._new_key_beliefs())
            self._follow_sources()
        self._seen = self._signature()

    def _rebuild(self) -> None:
        self.docs = []
        self.lengths = np.zeros(0, dtype=np.float32)
        self.total_length = 0.0
        self.segments = []
        self._ids = np.zeros(0, dtype=np.uint64)
        self._id_docs = np.zeros(0, dtype=np.int32)
        self._new_ids = {}
        self._sources = {}
        self._dead = 0
        self._add(list(self.engine.beliefs()))
        self._follow_sources()

    def _new_key_beliefs(self) -> list[Belief]:
        """The beliefs of keys added since the last catch-up: from the last key back to the
        first key holding a belief already indexed."""
        found: list[Belief] = []
        for slot in reversed(self.engine.keys.values()):
            values = [slot] if isinstance(slot, Belief) else list(slot.values())
            fresh = [b for b in values if self.known(b) < 0]
            found.extend(fresh)
            if len(fresh) < len(values):
                break
        found.reverse()
        return found

    def index_now(self, beliefs: list[Belief]) -> None:
        """Index ``beliefs``, not indexed yet (values found beside a candidate at query time:
        a new value of a known key held by reasons only)."""
        self._add(beliefs)

    def _add(self, beliefs: list[Belief]) -> None:
        if not beliefs:
            return
        start = len(self.docs)
        n = len(beliefs)
        self.docs.extend(beliefs)
        keys = list(map(_get_key, beliefs))
        values = [v if type(v) is str else value_text(v) for v in map(_get_value, beliefs)]
        with_reasons = [i for i, justs in enumerate(map(_get_justs, beliefs)) if justs]
        kh, kd = _hash_texts(keys)
        vh, vd = _hash_texts(values)
        eh, ed = _hash_texts([_extra_text(beliefs[i]) for i in with_reasons])
        ed = np.asarray(with_reasons, dtype=np.int64)[ed] if len(ed) else ed
        hashes = np.concatenate([kh, vh, eh])
        docs = np.concatenate([kd, vd, ed]) + start
        weights = np.concatenate([np.full(len(kh), KEY_WEIGHT, dtype=np.float32),
                                  np.ones(len(vh) + len(eh), dtype=np.float32)])
        lengths = np.bincount(docs - start, weights=weights, minlength=n).astype(np.float32)
        self.lengths = np.concatenate([self.lengths, lengths])
        self.total_length += float(lengths.sum())
        members = np.arange(start, start + n, dtype=np.int32)
        self.segments.append(_segment(hashes, docs, weights, members))
        self._note_ids(beliefs, start)
        self._merge()

    def _note_ids(self, beliefs: list[Belief], start: int) -> None:
        if len(beliefs) < 1024 and len(self._new_ids) < 4096:
            for i, b in enumerate(beliefs):
                self._new_ids[id(b)] = start + i
            return
        ids = [*self._new_ids, *map(id, beliefs)]
        nums = [*self._new_ids.values(), *range(start, start + len(beliefs))]
        self._new_ids = {}
        all_ids = np.concatenate([self._ids, np.asarray(ids, dtype=np.uint64)])
        all_docs = np.concatenate([self._id_docs, np.asarray(nums, dtype=np.int32)])
        order = np.argsort(all_ids, kind="stable")
        self._ids, self._id_docs = all_ids[order], all_docs[order]

    def _merge(self) -> None:
        """Merge the newest segment into the one before while it is at least half its size:
        O(log n) segments, each belief re-indexed O(log n) times."""
        segs = self.segments
        while len(segs) >= 2 and 2 * len(segs[-1].members) >= len(segs[-2].members):
            newer, older = segs.pop(), segs.pop()
            segs.append(_concat(older, newer))

    def _source(self, source: str) -> _SourceDocs:
        found = self._sources.get(source)
        if found is None:
            found = self._sources[source] = _SourceDocs(source)
        return found

    def _follow_sources(self) -> None:
        """Note the beliefs each source gave a premise since the last call (new beliefs of
        known keys among them are indexed)."""
        for source, holders in self.engine.by_source.items():
            mine = self._source(source)
            seen = mine.seen
            if (mine.holders is not holders or len(holders) < seen
                    or (seen and holders[seen - 1] is not mine.last)):
                mine.reset(holders)  # a new or compacted list: read it whole
                seen = 0
            if len(holders) == seen:
                continue
            tail = holders[seen:]
            mine.seen = len(holders)
            mine.last = holders[-1]
            nums = self._numbers(tail)
            if (nums < 0).any():
                fresh = list(dict.fromkeys(b for b, i in zip(tail, nums, strict=True) if i < 0))
                self._add(fresh)
                nums = self._numbers(tail)
            mine.add(nums)
        for source in [s for s in self._sources if s not in self.engine.by_source]:
            del self._sources[source]

    # -- reading -----------------------------------------------------------------------------
    def live(self, b: Belief) -> bool:
        """Whether ``b`` is still a belief of the engine (not forgotten or rolled back)."""
        if self.engine.find(b.key, b.vid) is b:
            return True
        self._dead += 1
        return False

    def candidates(self, terms: list[str], batch: int) -> Iterator[list[tuple[float, Belief]]]:
        """The beliefs whose text holds a term, in decreasing BM25 relevance, in chunks of
        ``batch`` (the first chunk small, then growing)."""
        n = len(self.docs)
        if n == 0:
            return
        docs_parts: list[NDArray[np.int32]] = []
        gain_parts: list[NDArray[np.float64]] = []
        for t in dict.fromkeys(terms):
            found = self._gains(t)
            if found is not None:
                docs_parts.append(found[0])
                gain_parts.append(found[1])
        if not docs_parts:
            return
        docs = np.concatenate(docs_parts)
        gains = np.concatenate(gain_parts)
        if len(docs) * 8 < n:  # few postings: sum them sparsely
            order = np.argsort(docs, kind="stable")
            docs, gains = docs[order], gains[order]
            first = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
            hit: NDArray[np.int64] = docs[first].astype(np.int64)
            scores = np.add.reduceat(gains, first)
        else:
            dense = np.bincount(docs, weights=gains, minlength=n)
            hit = np.flatnonzero(dense)
            scores = dense[hit]
        size = batch
        remaining = len(hit)
        while remaining > 0:
            take = min(size, remaining)
            if take < remaining:
                part = np.argpartition(-scores, take - 1)[:take]
            else:
                part = np.arange(remaining)
            part = part[np.lexsort((hit[part], -scores[part]))]
            yield [(float(scores[i]), self.docs[hit[i]]) for i in part]
            keep = np.ones(remaining, dtype=np.bool_)
            keep[part] = False
            hit, scores = hit[keep], scores[keep]
            remaining = len(hit)
            size *= 2

    def _gains(self, term: str) -> tuple[NDArray[np.int32], NDArray[np.float64]] | None:
        """The beliefs holding ``term`` and what it adds to each one's BM25 relevance."""
        n = len(self.docs)
        h = word_hash(term)
        found = [p for p in (s.postings(h) for s in self.segments) if p is not None]
        found += [(d, np.ones(len(d), dtype=np.float32))
                  for d in (s.docs_of(h) for s in self._sources.values()) if d is not None]
        if not found:
            return None
        docs = np.concatenate([d for d, _ in found]) if len(found) > 1 else found[0][0]
        tfs = (np.concatenate([tf for _, tf in found]) if len(found) > 1
               else found[0][1]).astype(np.float64)
        df = min(len(docs), n)
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        avg = self.total_length / n if self.total_length > 0 else 1.0
        norm = K1 * (1.0 - B + B * self.lengths[docs] / avg)
        return docs, idf * tfs * (K1 + 1.0) / (tfs + norm)

    def relevance(self, b: Belief, terms: list[str]) -> float:
        """``b``'s BM25 relevance to ``terms`` (for a belief found beside a candidate)."""
        i = self.known(b)
        total = 0.0
        for t in dict.fromkeys(terms):
            found = self._gains(t)
            if found is not None:
                total += float(found[1][found[0] == i].sum())
        return total

    def matched(self, b: Belief, terms: list[str]) -> tuple[str, ...]:
        """The terms of the query found in ``b``'s text, in the query's order, once each."""
        words = set(belief_words(b))
        return tuple(t for t in dict.fromkeys(terms) if t in words)

    @property
    def nbytes(self) -> int:
        """The index's memory beyond the beliefs themselves (arrays, lists, tables)."""
        size = sum(s.nbytes for s in self.segments) + self.lengths.nbytes
        size += self._ids.nbytes + self._id_docs.nbytes + 8 * len(self.docs) + 56
        size += 100 * len(self._new_ids)
        size += sum(s.nbytes for s in self._sources.values())
        return size


def _concat(older: _Segment, newer: _Segment) -> _Segment:
    """One segment holding both segments' postings."""
    def triples(s: _Segment) -> tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.float32]]:
        counts = np.diff(s.offsets)
        return np.repeat(s.terms, counts), s.docs.astype(np.int64), s.tfs

    oh, od, ow = triples(older)
    nh, nd, nw = triples(newer)
    return _segment(np.concatenate([oh, nh]), np.concatenate([od, nd]),
                    np.concatenate([ow, nw]), np.concatenate([older.members, newer.members]))


class _SourceDocs:
    """One source's words and the index numbers of the beliefs it gave a premise."""

    __slots__ = ("words", "chunks", "holders", "seen", "last", "_docs")

    def __init__(self, source: str) -> None:
        self.words = frozenset(word_hash(w) for w in tokenize(source))
        self.chunks: list[NDArray[np.int32]] = []
        self.holders: list[Belief] | None = None
        self.seen = 0
        self.last: Belief | None = None
        self._docs: NDArray[np.int32] | None = None

    def reset(self, holders: list[Belief]) -> None:
        self.chunks = []
        self.holders = holders
        self.seen = 0
        self._docs = None

    def add(self, nums: NDArray[np.int32]) -> None:
        nums = nums[nums >= 0]
        if len(nums):
            self.chunks.append(nums)
            self._docs = None

    def docs_of(self, h: int) -> NDArray[np.int32] | None:
        if h not in self.words or not self.chunks:
            return None
        if self._docs is None:
            self._docs = np.unique(np.concatenate(self.chunks))
            self.chunks = [self._docs]
        return self._docs

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for c in self.chunks) + 200


def sizes(index: LexicalIndex) -> Iterable[int]:
    """The segments' sizes, newest last (for tests and benchmarks)."""
    return [len(s.members) for s in index.segments]

"""The lexical index behind recall: which beliefs exist, and the words of each.

A belief's text is its key split on punctuation (``customer:7:email`` → customer, 7, email;
the key's words count twice), its value's text, the names of the sources and models that gave
it (``human:calvin`` → human, calvin) and the documents and quotes it cites. Words are maximal
runs of letters and digits after Unicode normalization (NFKC: a letter and its combining accent
are one letter, a ligature its letters, a full-width digit a digit) and case folding
(``str.casefold``), so a query typed one way finds a text written the other; numbers are kept, no
stemming, no stop words (docs/recall.md says why, by measurement).

The index knows nothing of labels or confidences: recall reads those through the engine for
the candidates it returns (:mod:`corollary.facade.recall`). It follows the engine without any hook
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
import unicodedata
from collections.abc import Iterable, Iterator
from itertools import islice
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..foundations._collector import collector_paused
from ..foundations.values import plain
from ..tms import Belief, Engine
from ..tms.records import record_source

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
_CHUNK_CHARS = 1 << 20
_SEP = " "  # joins texts: not a word character
_table: NDArray[np.bool_] | None = None
_power_tables = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64))
_get_key = attrgetter("key")
_get_value = attrgetter("value")
_get_justs = attrgetter("justs")
_last = itemgetter(-1)
#: A word's postings: belief numbers, weighted frequencies, idf, whether each belief comes once
#: in ascending order.
_Found = tuple[NDArray[np.int32], NDArray[np.float32], float, bool]


def tokenize(text: str) -> list[str]:
    """The words of ``text``: runs of letters and digits, case-folded.

    >>> tokenize("When did Calvin travel to Straße 7?")
    ['when', 'did', 'calvin', 'travel', 'to', 'strasse', '7']
    """
    return _WORD.findall(fold(text))


def fold(text: str) -> str:
    """``text`` normalized (NFKC) and case-folded, as words are compared.

    >>> fold("Cafe\u0301 \ufb01sh STRASSE \uff17"), fold("Caf\u00e9 fish stra\u00dfe 7")
    ('café fish strasse 7', 'café fish strasse 7')
    """
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


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


def _extra_text(b: Belief, every_name: bool = False) -> str:
    """The words of ``b``'s reasons beyond its premises: models and rules, cited documents.
    The names of models and rules the engine lists by name are left to the index's tables
    of names (:meth:`LexicalIndex._follow_steps`) unless ``every_name``."""
    parts = []
    for j in b.justs:
        if every_name or not (j.kind.reads_reliability or j.kind.by_rule):
            parts.append(j.name)
        cited = _cited_text(j)
        if cited:
            parts.append(cited)
    return " ".join(parts)


def _cited_text(j: Any) -> str:
    """The document and quote a reason cites, as one text ("" when it cites none)."""
    info = j.info
    return " ".join(text for text in (info.get("document"), info.get("quote"))
                    if isinstance(text, str))


def belief_words(b: Belief) -> list[str]:
    """Every word of ``b``'s text, the key's words twice (see the module docstring)."""
    words = tokenize(b.key) * KEY_WEIGHT
    words += tokenize(value_text(b.value))
    for record in b.records():
        words += tokenize(record_source(record))
    if b.justs:
        words += tokenize(_extra_text(b, every_name=True))
    return words


def _word_table() -> NDArray[np.bool_]:
    """Whether each code point of the Basic Multilingual Plane is a word character
    (``str.isalnum``: what ``[^\\W_]`` matches); :func:`_is_word` adds the planes above."""
    global _table
    if _table is None:
        _table = np.fromiter(map(str.isalnum, map(chr, range(0x10000))), dtype=np.bool_,
                             count=0x10000)
    return _table


def _is_word(codes: NDArray[np.uint32]) -> NDArray[np.bool_]:
    table = _word_table()
    high = codes >= 0x10000
    if not high.any():
        return table[codes]
    word = table[np.where(high, 0, codes)]
    above = np.unique(codes[high])
    alnum = np.fromiter((chr(c).isalnum() for c in above.tolist()), dtype=np.bool_,
                        count=len(above))
    word[high] = alnum[np.searchsorted(above, codes[high])]
    return word


def _powers(m: int) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    """``PINV^j`` and ``P^j`` mod 2^64 for ``j < m`` (kept for the chunk size)."""
    global _power_tables
    if len(_power_tables[0]) < m:
        size = max(m, min(_CHUNK_CHARS, 4 * len(_power_tables[0]), 1 << 16))
        inv = np.full(size, _PINV, dtype=np.uint64)
        inv[0] = 1
        powers = np.full(size, _P, dtype=np.uint64)
        powers[0] = 1
        _power_tables = (np.cumprod(inv), np.cumprod(powers))
    return _power_tables


def _hash_texts(texts: list[str]) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """The hashes of the words of ``texts`` (case-folded) and, for each, its text's index.

    Vectorised: the texts are joined and case-folded a chunk at a time, a character is a
    word character by a table lookup, and each word's polynomial hash is a difference of
    prefix sums (``sum c_j PINV^j``, scaled by ``P^end``), all mod 2^64."""
    hashes: list[NDArray[np.uint64]] = []
    owners: list[NDArray[np.int64]] = []
    n = len(texts)
    sizes = np.fromiter(map(len, texts), dtype=np.int64, count=n) + 1  # a separator after each
    ends = np.cumsum(sizes)
    start = 0
    while start < n:
        base = int(ends[start - 1]) if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, base + _CHUNK_CHARS, side="right")))
        part = texts[start:stop]
        joined = _SEP.join(part) + _SEP
        folded = joined.lower() if joined.isascii() else joined.casefold()
        starts = ends[start:stop] - sizes[start:stop] - base  # where each text starts
        if not joined.isascii() and (  # folding changed some lengths: fold text by text
                len(folded) != len(joined) or not unicodedata.is_normalized("NFKC", joined)
                or not unicodedata.is_normalized("NFKC", folded)):
            part = list(map(fold, part))
            folded = _SEP.join(part) + _SEP
            lengths = np.fromiter(map(len, part), dtype=np.int64, count=len(part)) + 1
            starts = np.cumsum(lengths) - lengths
        codes = np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        word = _is_word(codes)
        edges = np.flatnonzero(word[1:] != word[:-1]) + 1
        first = edges[word[edges]]  # a word starts where a word character follows another
        if word[0]:
            first = np.r_[0, first]
        last = edges[~word[edges]] - 1  # the text always ends with a separator
        if len(first):
            m = len(codes)
            inv, powers = _powers(m)
            acc = np.cumsum(codes * inv[:m])  # sum of c_j PINV^j (uint64)
            before = acc[first - 1]
            before[first == 0] = 0
            hashes.append((acc[last] - before) * powers[last])
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
        # models and rules: name -> (its words, the numbers of the beliefs it gave a reason)
        self._steps: dict[str, _SourceDocs] = {}
        # a citation added by a reason to a belief indexed before: its text -> the beliefs
        self._cited: dict[str, _SourceDocs] = {}
        # word hash -> the sources, models and rules whose name holds it (a query reads only
        # those: a base may have a source per belief, a document each)
        self._named: dict[int, dict[_SourceDocs, None]] = {}
        # word hash -> the beliefs those tables give it (one array, made on the first query
        # of the word after one of them changed)
        self._named_docs_of: dict[int, NDArray[np.int32]] = {}
        self._seen: tuple[int, ...] = ()
        #: How many times the index was built from the whole base (its numbers start over).
        self.generation = 0
        # the ids of indexed beliefs found gone (forgotten, replaced, rolled back), each once:
        # a gone belief a query keeps meeting must not count again, or the index is rebuilt
        # every few changes (the index holds them, so their ids stay theirs)
        self._dead: set[int] = set()

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
        steps = [*engine.by_step_source.values(), *engine.by_rule.values()]
        return (len(keys), engine.count, last, hash(tuple(map(len, lists))),
                hash(tuple(map(id, lists))), hash(tuple(map(id, map(_last, lists)))),
                hash(tuple(map(len, steps))), hash(tuple(map(id, steps))))

    def catch_up(self) -> None:
        """Index what the engine made since the last call (a full build the first time, or
        when a quarter of what is indexed is gone)."""
        signature = self._signature()
        if signature == self._seen:
            return
        start = len(self.docs)
        if (not self.docs or len(self._dead) * 4 > len(self.docs)
                or len(self.docs) > 2 * self.engine.count + 1024):  # many are gone: start over
            self._rebuild()
        else:
            self._add(self._new_key_beliefs())
            self._follow_sources()
            self._follow_steps(start)
        self._seen = self._signature()

    def _rebuild(self) -> None:
        with collector_paused():  # many arrays and lists that all stay alive
            self._build()

    def _build(self) -> None:
        self.generation += 1
        self.docs = []
        self.lengths = np.zeros(0, dtype=np.float32)
        self.total_length = 0.0
        self.segments = []
        self._ids = np.zeros(0, dtype=np.uint64)
        self._id_docs = np.zeros(0, dtype=np.int32)
        self._new_ids = {}
        self._sources = {}
        self._steps = {}
        self._cited = {}
        self._named = {}
        self._named_docs_of = {}
        self._dead = set()
        engine = self.engine
        slots: list[Any] = list(engine.keys.values())  # one value per key: all beliefs
        self._add(slots if len(slots) == engine.count else list(engine.beliefs()))
        self._follow_sources()
        self._follow_steps(0)

    def _new_key_beliefs(self) -> list[Belief]:
        """The beliefs of keys added since the last catch-up: from the last key back to the
        first key holding a belief already indexed (read in growing blocks)."""
        found: list[Belief] = []
        slots_back = reversed(self.engine.keys.values())
        size = 16
        while True:
            slots: list[Any] = list(islice(slots_back, size))
            if not slots:
                break
            size *= 4
            if set(map(type, slots)) == {Belief}:  # one value per key: checked at once
                known = np.flatnonzero(self._numbers(slots) >= 0)
                if len(known):
                    found.extend(slots[:int(known[0])])
                    break
                found.extend(slots)
                continue
            for slot in slots:
                values = [slot] if isinstance(slot, Belief) else list(slot.values())
                fresh = [b for b in values if self.known(b) < 0]
                found.extend(fresh)
                if len(fresh) < len(values):
                    found.reverse()
                    return found
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
        values = list(map(_get_value, beliefs))
        if set(map(type, values)) != {str}:
            values = [v if type(v) is str else value_text(v) for v in values]
        with_reasons = np.flatnonzero(np.fromiter(map(bool, map(_get_justs, beliefs)),
                                                  dtype=np.bool_, count=n)).tolist()
        extra = [_extra_text(beliefs[i]) for i in with_reasons]
        hashes, owner = _hash_texts([*keys, *values, *extra])
        docs = owner.copy()
        docs[owner >= 2 * n] = np.asarray(with_reasons, dtype=np.int64)[owner[owner >= 2 * n]
                                                                        - 2 * n]
        docs[(owner >= n) & (owner < 2 * n)] -= n
        docs += start
        weights = np.where(owner < n, np.float32(KEY_WEIGHT), np.float32(1.0))
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

    def _named_docs(self, name: str) -> _SourceDocs:
        """A new table of the beliefs ``name`` (a source, model or rule) gave, found by the
        words of its name."""
        docs = _SourceDocs(name)
        for h in docs.words:
            self._named.setdefault(h, {})[docs] = None
        return docs

    def _changed(self, docs: _SourceDocs) -> None:
        """``docs`` gained or lost beliefs: the words of its name are read afresh."""
        for h in docs.words:
            self._named_docs_of.pop(h, None)

    def _unname(self, docs: _SourceDocs) -> None:
        self._changed(docs)
        for h in docs.words:
            named = self._named[h]
            del named[docs]
            if not named:
                del self._named[h]

    def _source(self, source: str) -> _SourceDocs:
        found = self._sources.get(source)
        if found is None:
            found = self._sources[source] = self._named_docs(source)
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
                self._changed(mine)
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
            self._changed(mine)
        for source in [s for s in self._sources if s not in self.engine.by_source]:
            self._unname(self._sources.pop(source))

    def _follow_steps(self, start: int) -> None:
        """Note the beliefs each model and rule gave a reason, when its set of reasons changed
        (read whole: a set has no order). A claim's citation is read with its belief's text
        when the belief is indexed (numbered ``start`` or above: in this catch-up); a new
        citation on a belief indexed before is noted in a table of its own, by its words."""
        engine = self.engine
        tables = [*engine.by_step_source.items(), *engine.by_rule.items()]
        for name, reasons in tables:
            mine = self._steps.get(name)
            if mine is None:
                mine = self._steps[name] = self._named_docs(name)
            if mine.holders is reasons and mine.seen == len(reasons):
                continue
            outputs = list(dict.fromkeys(j.output for j in reasons))
            nums = self._numbers(outputs)
            self._follow_citations(mine, reasons, start)
            if (nums < 0).any():
                self._add([b for b, i in zip(outputs, nums, strict=True) if i < 0])
                nums = self._numbers(outputs)
            mine.reset(reasons)  # type: ignore[arg-type]
            mine.seen = len(reasons)
            mine.add(nums)
            self._changed(mine)
        names = {name for name, _ in tables}
        for name in [n for n in self._steps if n not in names]:
            self._unname(self._steps.pop(name))

    def _follow_citations(self, mine: _SourceDocs, reasons: Iterable[Any], start: int) -> None:
        cited = mine.cited
        for j in reasons:
            if j in cited:
                continue
            text = _cited_text(j)
            if not text:
                continue
            cited.add(j)
            i = self.known(j.output)
            if 0 <= i < start:  # indexed before this reason came: its text lacks the citation
                table = self._cited.get(text)
                if table is None:
                    table = self._cited[text] = self._named_docs(text)
                table.add(np.asarray([i], dtype=np.int32))
                self._changed(table)

    # -- reading -----------------------------------------------------------------------------
    def live(self, b: Belief) -> bool:
        """Whether ``b`` is still a belief of the engine (not forgotten or rolled back)."""
        if self.engine.find(b.key, b.vid) is b:
            return True
        self._dead.add(id(b))
        return False

    def candidates(self, terms: list[str], batch: int) -> Iterator[list[tuple[float, Belief]]]:
        """The beliefs whose text holds a term, in decreasing BM25 relevance, in chunks of
        ``batch``."""
        n = len(self.docs)
        if n == 0:
            return
        found = [p for p in map(self._postings, dict.fromkeys(terms)) if p is not None]
        if not found:
            return
        # a word in nearly every belief ("customer" in a base of customers) weighs almost
        # nothing beside a rarer word of the query: its postings are skipped when its largest
        # possible gain is under 1% of the rarest word's
        top_idf = max(p[2] for p in found)
        found = [p for p in found if p[2] >= 0.01 * top_idf]
        big = [p for p in found if len(p[0]) * 16 >= n]
        if len(big) == 1 and big[0][3]:
            # one frequent word (its postings sorted, each belief once) and rare ones: the
            # rare words' beliefs summed sparsely, the frequent word's read in place
            freq = big[0]
            hit, scores = self._sparse([p for p in found if p is not freq])
            fdocs, fgains = freq[0], self._gains(*freq[:3])
            if len(hit):
                pos = np.minimum(np.searchsorted(fdocs, hit), len(fdocs) - 1)
                both = fdocs[pos] == hit
                scores[both] += fgains[pos[both]]
                fgains = fgains.copy()
                fgains[pos[both]] = -np.inf  # counted with the rare words
            hit = np.concatenate([hit, fdocs.astype(np.int64)])
            scores = np.concatenate([scores, fgains])
        elif sum(len(p[0]) for p in found) * 16 < n:  # few postings: sum them sparsely
            hit, scores = self._sparse(found)
        else:  # many: sum them into one score per belief
            dense = np.bincount(np.concatenate([p[0] for p in found]),
                                weights=np.concatenate([self._gains(*p[:3]) for p in found]),
                                minlength=n)
            hit = np.flatnonzero(dense)
            scores = dense[hit].astype(np.float64)
        # the best few sorted at once (ties in index order), then, if the walk goes on,
        # all the rest
        head = min(len(hit), max(8 * batch, 256))
        best = np.argpartition(-scores, head - 1)[:head] if head < len(hit) else \
            np.arange(len(hit))
        best = best[np.isfinite(scores[best])]
        best = best[np.lexsort((hit[best], -scores[best]))]
        docs_list = self.docs
        for i in range(0, len(best), batch):
            part = best[i:i + batch]
            yield [(float(scores[j]), docs_list[hit[j]]) for j in part.tolist()]
        if head < len(hit):
            rest = np.isfinite(scores)
            rest[best] = False
            left = np.flatnonzero(rest)
            left = left[np.lexsort((hit[left], -scores[left]))]
            for i in range(0, len(left), 4 * batch):
                part = left[i:i + 4 * batch]
                yield [(float(scores[j]), docs_list[hit[j]]) for j in part.tolist()]

    def _sparse(self, found: list[_Found]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """The beliefs holding some of the words ``found`` (ascending), and their relevance."""
        if not found:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        docs = np.concatenate([p[0] for p in found])
        gains = np.concatenate([self._gains(*p[:3]) for p in found])
        order = np.argsort(docs, kind="stable")
        docs, gains = docs[order], gains[order]
        first = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
        return docs[first].astype(np.int64), np.add.reduceat(gains, first)

    def _postings(self, term: str) -> _Found | None:
        """The beliefs holding ``term``, its weighted frequency in each, its inverse document
        frequency, and whether each belief comes once, in ascending order (no source's word
        added to the segments' postings)."""
        h = word_hash(term)
        found = [p for p in (s.postings(h) for s in self.segments) if p is not None]
        segments = len(found)
        named = self._named_of(h)
        if len(named):
            found.append((named, np.ones(len(named), dtype=np.float32)))
        if not found:
            return None
        from_sources = len(found) > segments
        if len(found) == 1:
            docs, tfs = found[0]
        else:
            docs = np.concatenate([d for d, _ in found])
            tfs = np.concatenate([tf for _, tf in found])
        n = len(self.docs)
        df = min(len(docs), n)
        return docs, tfs, math.log(1.0 + (n - df + 0.5) / (df + 0.5)), not from_sources

    def _named_of(self, h: int) -> NDArray[np.int32]:
        """The beliefs given by the sources, models and rules whose name holds the word
        ``h``, once per table (a belief two of them gave comes twice)."""
        docs = self._named_docs_of.get(h)
        if docs is None:
            parts = [d for d in (s.docs_of(h) for s in self._named.get(h, ())) if d is not None]
            docs = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
            self._named_docs_of[h] = docs
        return docs

    def _gains(self, docs: NDArray[np.int32], tfs: NDArray[np.float32],
               idf: float) -> NDArray[np.float64]:
        """What a word adds to the BM25 relevance of the beliefs holding it."""
        n = len(self.docs)
        avg = self.total_length / n if self.total_length > 0 else 1.0
        norm = K1 * (1.0 - B + B * self.lengths[docs] / avg)
        tf = tfs.astype(np.float64)
        return idf * tf * (K1 + 1.0) / (tf + norm)  # type: ignore[no-any-return]

    def relevance(self, b: Belief, terms: list[str]) -> float:
        """``b``'s BM25 relevance to ``terms`` (for a belief found beside a candidate)."""
        i = self.known(b)
        total = 0.0
        for t in dict.fromkeys(terms):
            found = self._postings(t)
            if found is not None:
                docs, tfs, idf, _ = found
                mine = docs == i
                if mine.any():
                    total += float(self._gains(docs[mine], tfs[mine], idf).sum())
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
        size += sum(s.nbytes for s in (*self._sources.values(), *self._steps.values(),
                                       *self._cited.values()))
        size += sum(d.nbytes + 100 for d in self._named_docs_of.values())
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

    __slots__ = ("words", "chunks", "holders", "seen", "last", "_docs", "cited")

    def __init__(self, source: str) -> None:
        self.words = frozenset(word_hash(w) for w in tokenize(source))
        self.chunks: list[NDArray[np.int32]] = []
        self.holders: list[Belief] | None = None
        self.seen = 0
        self.last: Belief | None = None
        self._docs: NDArray[np.int32] | None = None
        self.cited: set[Any] = set()  # a model's reasons with a citation, once read

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

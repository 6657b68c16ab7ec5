"""Which key a remembered fact takes: resolved against the base's keys, never invented anew
when an existing one means the same (docs/remember.md, "Key resolution").

A fact names a subject and an attribute. Its own key is ``subject:attribute``, each part
normalised (:func:`key_part`: Unicode NFKC, case folded, every run of characters other than
letters and digits one ``_``). It is then matched against the existing keys *of the same
subject* (a key's subject is everything before its last ``:``, compared by its words), in
order:

1. a key the model gave (``key``, one it was shown) whose subject is the fact's;
2. normalised equality: the same words of subject and attribute;
3. similarity over the attribute's words (:func:`similarity`: the Jaccard index of the
   attribute's content words, a plural ``s`` cut), at or above :data:`THRESHOLD`; the best score
   wins, ties to the shortest key, then the first in order. The content words are the words
   less the :data:`FUNCTION_WORDS`, and less the :data:`QUALIFIERS` that are not the
   attribute's head (its last word, or the last before ``of``): "home city" is the city, but
   "pet name" is not the pet, nor "birth place" the "birth name" (a word that tells two
   attributes apart is never dropped);
4. with an embedder, the cosine of the attributes' vectors at or above
   :data:`EMBED_THRESHOLD`.

Nothing here ever matches a key of another subject: a different subject is a different thing.
With a scope (``remember(scope=...)``), only keys inside it are matched, and a new key of a
subject inside the scope is spelled inside it (:func:`scoped_key`: ``customer:42:email``, not
``customer_42:email``); a fact the model placed inside the scope by its ``key`` (same
attribute) is about that key's subject.

Examples
--------
>>> fact_key("Alice", "Home City")
'alice:home_city'
>>> round(similarity("home city", "city"), 2), round(similarity("birth city", "city"), 2)
(1.0, 0.5)
>>> similarity("pet name", "pet"), round(similarity("birth place", "birth name"), 2)
(0.5, 0.33)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..foundations.scope import Scope
from ..tms import Engine

__all__ = ["EMBED_THRESHOLD", "FUNCTION_WORDS", "QUALIFIERS", "THRESHOLD", "KeyIndex",
           "Resolved", "fact_key", "key_part", "scoped_key", "similarity", "words"]

#: The lowest word similarity that merges a fact's attribute into an existing key's: at 2/3,
#: "home city" joins "city" and "city of residence" joins "city", while "birth city" stays apart
#: from "city", "work email" from "email" and "pet name" from "pet" (each 1/2). Measured on
#: Wikidata's property names and aliases by ``benchmarks/bench_key_resolution.py``
#: (docs/remember.md, "Key resolution").
THRESHOLD = 2 / 3
#: The lowest cosine of two attributes' embeddings that merges them (an optional embedder).
EMBED_THRESHOLD = 0.9
#: Words that never tell one attribute from another: articles, possessives, prepositions.
FUNCTION_WORDS = frozenset({
    "a", "an", "the", "of", "my", "his", "her", "their", "its", "our", "your", "in", "at",
})
#: Words that qualify an attribute without changing which one it is, when they are not its
#: head: "current employer" is the employer, "home city" the city, "city of residence" the
#: city; "home" alone is an attribute of its own. Words that name what is kept ("name",
#: "number", "place", "date") are never dropped: "pet name" is not the pet.
QUALIFIERS = frozenset({
    "current", "currently", "present", "now", "latest", "new", "primary", "main", "home",
    "residence", "residential", "living", "live", "lives",
})

def words(text: str) -> tuple[str, ...]:
    """The words of ``text``: NFKC, case folded, split at every character that is not a letter
    or digit (accents are kept as letters).

    >>> words("  Home-City ")
    ('home', 'city')
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return tuple(w for w in re.split(r"[\W_]+", folded) if w)


def key_part(text: str) -> str:
    """``text`` as a part of a key: its :func:`words` joined by ``_``.

    >>> key_part("Favourite  food!")
    'favourite_food'
    """
    return "_".join(words(text))


def fact_key(subject: str, attribute: str) -> str:
    """The key a fact makes by itself: ``key_part(subject):key_part(attribute)``."""
    return f"{key_part(subject)}:{key_part(attribute)}"


def scoped_key(subject: str, attribute: str, scope: Scope | None) -> str:
    """The key a fact makes by itself: :func:`fact_key`, or, for a subject inside ``scope``
    (its words begin with the words of one of the scope's prefixes, the longest such), that
    prefix as written, then the subject's other words, then the attribute.

    >>> scoped_key("customer:42", "email", Scope.of("customer:42"))
    'customer:42:email'
    >>> scoped_key("Customer 42 order 7", "status", Scope.of("customer:42"))
    'customer:42:order_7:status'
    >>> scoped_key("customer 42", "email", None), scoped_key("Ann", "email", Scope.of("customer:42"))
    ('customer_42:email', 'ann:email')
    """
    if scope is not None:
        subject_words = words(subject)
        best: tuple[str, tuple[str, ...]] | None = None
        for prefix in scope.prefixes:
            prefix_words = words(prefix)
            if (prefix_words and subject_words[:len(prefix_words)] == prefix_words
                    and (best is None or len(prefix_words) > len(best[1]))):
                best = (prefix, prefix_words)
        if best is not None:
            rest = subject_words[len(best[1]):]
            return ":".join([best[0], *(["_".join(rest)] if rest else []), key_part(attribute)])
    return fact_key(subject, attribute)


def _content(attribute_words: Sequence[str]) -> frozenset[str]:
    """The words that say which attribute it is: the function words and the qualifiers that
    are not the head dropped (all kept when nothing would be left), a plural ``s`` cut."""
    head_part = list(attribute_words)
    if "of" in head_part[1:]:  # "city of residence": the head is before "of"
        head_part = head_part[:head_part.index("of", 1)]
    heads = [w for w in head_part if w not in FUNCTION_WORDS]
    head = heads[-1] if heads else None
    kept = [w for w in attribute_words if w not in FUNCTION_WORDS
            and (w == head or w not in QUALIFIERS)] or list(attribute_words)
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                     for w in kept)


def similarity(a: str, b: str) -> float:
    """How alike two attributes are, from 0 to 1: the Jaccard index of their content words.

    >>> similarity("current phone", "phone"), similarity("work email", "email")
    (1.0, 0.5)
    """
    x, y = _content(words(a)), _content(words(b))
    if not x or not y:
        return 0.0
    return len(x & y) / len(x | y)


def split_key(key: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A key's subject words and attribute words (split at its last ``:``), or ``None`` for a
    key without a subject.

    >>> split_key("customer:7:email")
    (('customer', '7'), ('email',))
    """
    subject, sep, attribute = key.rpartition(":")
    if not sep:
        return None
    s, a = words(subject), words(attribute)
    return (s, a) if s and a else None


class Resolved(tuple):  # type: ignore[type-arg]
    """``(key, merged_from, how)``: the key taken, the fact's own key when another was taken
    (else ``None``), and which rule decided (``"new"``, ``"given"``, ``"equal"``, ``"similar"``,
    ``"embedded"``)."""

    __slots__ = ()

    def __new__(cls, key: str, merged_from: str | None, how: str) -> Resolved:
        return tuple.__new__(cls, (key, merged_from, how))

    @property
    def key(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def merged_from(self) -> str | None:
        return self[1]  # type: ignore[no-any-return]

    @property
    def how(self) -> str:
        return self[2]  # type: ignore[no-any-return]


class KeyIndex:
    """The engine's keys by subject, kept up to date lazily: new keys are found from the end of
    the engine's (insertion-ordered) key table back to the first one indexed, keys gone are
    dropped when met, and the whole table is read again when it shrank.

    >>> from corollary import BeliefBase
    >>> kb = BeliefBase()
    >>> kb.assert_("alice:city", "Paris", source="human:alice")
    >>> KeyIndex(kb.engine).resolve("Alice", "home city").key
    'alice:city'
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._by_subject: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
        self._known: set[str] = set()
        self._seen = (-1, -1)

    def _catch_up(self) -> None:
        keys = self.engine.keys
        signature = (len(keys), self.engine.count)
        if signature == self._seen:
            return
        if len(keys) < len(self._known) or self._seen[0] < 0:
            self._by_subject, self._known = {}, set()
            fresh: Sequence[str] = list(keys)
        else:
            found = []
            for key in reversed(keys):
                if key in self._known:
                    break
                found.append(key)
            fresh = found
        for key in fresh:
            self._add(key)
        self._seen = signature

    def _add(self, key: str) -> None:
        self._known.add(key)
        parts = split_key(key)
        if parts is not None:
            self._by_subject.setdefault(parts[0], {})[key] = parts[1]

    def note(self, key: str) -> None:
        """Index ``key`` now (a key this call made: the next fact may match it)."""
        if key not in self._known:
            self._add(key)

    def of_subject(self, subject: str) -> dict[str, tuple[str, ...]]:
        """The existing keys of ``subject`` with their attribute words."""
        self._catch_up()
        found = self._by_subject.get(words(subject), {})
        gone = [k for k in found if k not in self.engine.keys]
        for k in gone:  # forgotten since (rolled back, or its last reason removed)
            del found[k]
            self._known.discard(k)
        return found

    def resolve(self, subject: str, attribute: str, given: str | None = None,
                embedder: Callable[[list[str]], Any] | None = None,
                pending: dict[tuple[str, ...], dict[str, tuple[str, ...]]] | None = None,
                scope: Scope | None = None) -> Resolved:
        """The key a fact about ``subject``'s ``attribute`` takes (see the module docstring).
        ``pending``: keys not in the engine yet that count as existing (made by the earlier
        facts of one call): subject words -> {key: attribute words}. ``scope``: only keys in
        it are matched, and a new key is spelled in it (:func:`scoped_key`); a subject outside
        it takes the subject of the ``given`` key when that key is inside it and names the same
        attribute (the model, told the scope, placed the fact there: "Ann", "email",
        ``customer:42:email``)."""
        if scope is not None and given is not None:
            parts = split_key(given)
            if (parts is not None and parts[1] == words(attribute) and scope.contains(given)
                    and not scope.contains(scoped_key(subject, attribute, scope))):
                subject = given.rpartition(":")[0]
        own = scoped_key(subject, attribute, scope)
        subject_words, attribute_words = words(subject), words(attribute)
        candidates = self.of_subject(subject)
        extra = (pending or {}).get(subject_words)
        if extra:
            candidates = {**extra, **candidates}
        if scope is not None:  # a key outside is never taken: the fact would be refused
            candidates = {k: a for k, a in candidates.items() if scope.contains(k)}
        if given is not None:
            parts = split_key(given)
            if given in candidates and parts is not None and parts[0] == subject_words:
                return Resolved(given, None if given == own else own, "given")
        if own in candidates:
            return Resolved(own, None, "equal")
        for key, attr in candidates.items():
            if attr == attribute_words:
                return Resolved(key, own, "equal")
        best: tuple[float, int, int, str] | None = None
        for order, (key, attr) in enumerate(candidates.items()):
            score = similarity(" ".join(attr), attribute)
            if score >= THRESHOLD and (best is None or (-score, len(key), order) <
                                       (-best[0], best[1], best[2])):
                best = (score, len(key), order, key)
        if best is not None:
            return Resolved(best[3], own, "similar")
        if embedder is not None and candidates:
            keys = list(candidates)
            texts = [" ".join(attribute_words)] + [" ".join(candidates[k]) for k in keys]
            vectors = np.asarray(embedder(texts), dtype=float)
            norms = np.linalg.norm(vectors, axis=1)
            norms[norms == 0] = 1.0
            unit = vectors / norms[:, None]
            cosines = unit[1:] @ unit[0]
            i = int(np.argmax(cosines))
            if cosines[i] >= EMBED_THRESHOLD:
                return Resolved(keys[i], own, "embedded")
        return Resolved(own, None, "new")

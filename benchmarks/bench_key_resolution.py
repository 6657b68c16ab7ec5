"""Key resolution on labelled pairs nobody here wrote (issue 35, item 5): precision and recall of
"merge these two attribute names" on Wikidata's property names and their aliases.

The data (``benchmarks/data/wikidata_property_names.jsonl``, see ``benchmarks/data/README.md``)
is Wikidata's English label and aliases of each property numbered below P1000 whose values are
items, quantities, strings, times or texts (466 properties). A name given to two properties
(``"child of"`` is an alias of both father and mother) is left out. Pairs:

* the same attribute: every two names of one property (``"place of birth"``, ``"birthplace"``,
  ``"birth place"``);
* different attributes: every two names of two properties that share a word stem (``"place of
  birth"`` and ``"place of death"``). Two names sharing no stem are different attributes that no
  rule measured here merges (each needs a common word stem), so they change no precision and no
  recall; the run checks that claim on a sample of them.

Each rule decides "merge" as :class:`corollary.facade.key_resolution.KeyIndex` does once the
subject matches: the same words, or a word similarity at or above 2/3. Three rules, in the same
run: ``exact`` (the same name once case is folded: a plain baseline), ``before`` (the rule on
main before issue 35: its filler words dropped everywhere, written out below as it was) and
``after`` (:func:`corollary.facade.key_resolution.similarity` as it is now).

Usage::

    python benchmarks/bench_key_resolution.py [--examples 8]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from corollary.facade.key_resolution import THRESHOLD, similarity, words

DATA = Path(__file__).resolve().parent / "data" / "wikidata_property_names.jsonl"

#: main's filler words before issue 35 (corollary/facade/key_resolution.py at 6ef855c).
BEFORE_FILLER = frozenset({
    "a", "an", "the", "of", "my", "his", "her", "their", "its", "our", "your", "current",
    "currently", "present", "now", "latest", "new", "home", "residence", "residential",
    "living", "live", "lives", "place", "number", "no", "name", "primary", "main", "in", "at",
})


def _stem(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def before_similarity(a: str, b: str) -> float:
    """main's word similarity before issue 35: filler words dropped wherever they stand."""
    def content(ws: Sequence[str]) -> frozenset[str]:
        kept = [w for w in ws if w not in BEFORE_FILLER] or list(ws)
        return frozenset(_stem(w) for w in kept)

    x, y = content(words(a)), content(words(b))
    return len(x & y) / len(x | y) if x and y else 0.0


def _by_words(similar: Callable[[str, str], float]) -> Callable[[str, str], bool]:
    return lambda a, b: words(a) == words(b) or similar(a, b) >= THRESHOLD


RULES: dict[str, Callable[[str, str], bool]] = {
    "exact": lambda a, b: a.casefold() == b.casefold(),
    "before": _by_words(before_similarity),
    "after": _by_words(similarity),
}


def load() -> dict[str, list[str]]:
    """Each property's names (label first), a name of two properties left out."""
    props: dict[str, list[str]] = {}
    for line in DATA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        props[row["id"]] = list(dict.fromkeys([row["label"], *row["aliases"]]))
    owners: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for pid, names in props.items():
        for name in names:
            owners[words(name)].add(pid)
    return {pid: [n for n in names if words(n) and len(owners[words(n)]) == 1]
            for pid, names in props.items()}


def pairs(props: dict[str, list[str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The same-attribute pairs and the different-attribute pairs sharing a word stem."""
    same = [p for names in props.values() for p in itertools.combinations(names, 2)]
    by_stem: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for pid, names in props.items():
        for name in names:
            for w in words(name):
                by_stem[_stem(w)].add((pid, name))
    different: set[tuple[str, str]] = set()
    for group in by_stem.values():
        for (p, a), (q, b) in itertools.combinations(sorted(group), 2):
            if p != q:
                different.add((a, b) if a <= b else (b, a))
    return same, sorted(different)


def check_no_stem_pairs_merge(props: dict[str, list[str]], sample: int = 20_000) -> int:
    """Merges among a sample of different-attribute pairs sharing no stem (0 expected)."""
    flat = [(pid, n) for pid, names in props.items() for n in names]
    rng = random.Random(35)
    merged = 0
    for _ in range(sample):
        (p, a), (q, b) = rng.sample(flat, 2)
        if p == q or {_stem(w) for w in words(a)} & {_stem(w) for w in words(b)}:
            continue
        merged += sum(rule(a, b) for rule in RULES.values())
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=8,
                        help="how many merges that changed to print, each way")
    args = parser.parse_args()
    props = load()
    same, different = pairs(props)
    names = sum(len(v) for v in props.values())
    print(f"Wikidata property names: {len(props)} properties, {names} names; "
          f"{len(same)} same-attribute pairs, {len(different)} different-attribute pairs "
          f"sharing a word stem")
    decided: dict[str, tuple[list[bool], list[bool]]] = {}
    for label, rule in RULES.items():
        hits = [rule(a, b) for a, b in same]
        wrong = [rule(a, b) for a, b in different]
        decided[label] = (hits, wrong)
        tp, fp = sum(hits), sum(wrong)
        precision = tp / (tp + fp) if tp + fp else float("nan")
        print(f"  {label:>6}: merges {tp + fp:5d} (wrongly {fp:4d}); precision {precision:.3f}, "
              f"recall {tp / len(same):.3f}")
    b_hits, b_wrong = decided["before"]
    a_hits, a_wrong = decided["after"]
    lost = [p for p, x, y in zip(same, b_hits, a_hits, strict=True) if x and not y]
    fixed = [p for p, x, y in zip(different, b_wrong, a_wrong, strict=True) if x and not y]
    gained = [p for p, x, y in zip(same, b_hits, a_hits, strict=True) if y and not x]
    new_wrong = [p for p, x, y in zip(different, b_wrong, a_wrong, strict=True) if y and not x]
    for what, found in (("wrong merges before, not after", fixed),
                        ("wrong merges after, not before", new_wrong),
                        ("right merges after, not before", gained),
                        ("right merges before, not after", lost)):
        shown = "; ".join(f"{a!r} ~ {b!r}" for a, b in found[:args.examples])
        print(f"  {what}: {len(found)}" + (f" (e.g. {shown})" if shown else ""))
    print(f"  merges among sampled pairs sharing no stem (any rule): "
          f"{check_no_stem_pairs_merge(props)}")


if __name__ == "__main__":
    main()

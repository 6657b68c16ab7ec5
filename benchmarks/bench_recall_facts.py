"""Facts before their transcripts (issue 35 item 4): on LoCoMo, how often recall's first k hold
a fact extracted from a question's evidence rather than only the evidence transcript, with
today's ranking (documents in their lexical place) and item 4's (a fact answers for the
document it cites: docs/recall.md, "Facts before the documents they came from"), in the same
run, on the same bases, beside plain BM25.

Data: LoCoMo (snap-research/locomo, ``data/locomo10.zip`` or a ``locomo10.json``). Each
conversation is one base: each turn a document belief (``conv:<sample>:<dia_id>`` = its text,
source ``human:<speaker>``, as ``bench_recall.py --only quality`` makes it), and each of the
data set's own *observations* (facts about a speaker written by its authors for each session,
each naming the turns it rests on) a claim by ``model:locomo`` citing its first evidence turn
(the quote: the turn's whole text, so the citation check passes), key
``<speaker>:obs:<session>:<i>``. No model runs and nothing is tuned: the facts are the data
set's. A question counts once its evidence turns are in the conversation, and is *answerable by
a fact* when some observation cites one of them.

For each ``k`` in 5 and 10, over the questions answerable by a fact:

* ``fact``: the first k hold a fact citing an evidence turn;
* ``transcript only``: they hold an evidence turn but no such fact;
* ``evidence``: they hold either (what the question needs, as the turn or as its fact).

"Today" is the same base recalled with the arrangement switched off (the module's
``cited_facts`` made to find none: documents are then plain beliefs, ranked as before item 4);
"item 4" is ``kb.recall`` as it is. BM25Okapi ranks the same turns and observations as
lower-cased word tokens. LoCoMo's observations are not keyed by attribute, so none supersedes
another here: what supersession changes is in tests/recall/test_documents.py.

Facts that change: MemoryBench (github.com/Jenverse/Memory-Benchmark-1, ``benchmark/data.py``,
read as data with ``ast.literal_eval``, never run): 20 users, five sessions each, each session's
expected memories annotated, some saying which earlier memory they contradict ("Accepted job at
startup in San Francisco" contradicts "Based in New York City"); 18 questions of its category
``contradiction_update`` ("And where am I based now?"). Each user is one base under
``PreferNewer``: each user turn a document (``conv:<user>:<session>:<turn>``, said on day
<session>), each memory a claim by ``model:memorybench`` citing the user turn of its session that
shares the most words with it (the quote: the turn's text); a memory that contradicts an earlier
one takes that one's key, so it supersedes it (17 of the 18 questions count: one user has no
memory marked as contradicting another). A question's *current fact* is the value its key
holds now (the key: the updating memory sharing most words with the question's required memory);
its *stale transcripts* are the turns the superseded values cite. For k in 3 and 5:

* ``current``: the first k hold the current fact;
* ``stale as held``: they hold a stale transcript with no mark saying its fact no longer holds;
* ``stale first``: a stale transcript comes before the current fact (or without it).

Usage::

    python benchmarks/bench_recall_facts.py --locomo PATH [--memorybench PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from bench_recall import read_locomo

import corollary.facade.recall as recall_module
from corollary import BeliefBase, ManualClock

KS = (5, 10)


def observations(path: str) -> dict[str, list[tuple[str, str, str, list[str]]]]:
    """Each conversation's observations: ``(speaker, session, text, evidence dia ids)``."""
    import json
    import zipfile
    from pathlib import Path

    p = Path(path)
    raw: list[tuple[str, dict[str, Any]]] = []
    if p.suffix == ".zip":
        with zipfile.ZipFile(p) as z:
            raw = [(Path(n).stem, json.loads(z.read(n))) for n in sorted(z.namelist())
                   if n.endswith(".json")]
    else:
        raw = [(str(s.get("sample_id", i)), {**s["conversation"], **s.get("observation", {})})
               for i, s in enumerate(json.loads(p.read_text()))]
    out: dict[str, list[tuple[str, str, str, list[str]]]] = {}
    for sample, data in raw:
        found = []
        for name, value in data.items():
            m = re.fullmatch(r"session_(\d+)_observation", name)
            if not m or not isinstance(value, dict):
                continue
            for speaker, items in value.items():
                for item in items:
                    text, evidence = item[0], re.findall(r"D\d+:\d+", str(item[1:]))
                    if isinstance(text, str) and text.strip() and evidence:
                        found.append((speaker, m.group(1), text, evidence))
        out[sample] = found
    return out


@contextlib.contextmanager
def todays_ranking() -> Iterator[None]:
    """Recall as before item 4: no belief is found to be a cited document."""
    saved = recall_module.cited_facts
    recall_module.cited_facts = lambda b: []
    try:
        yield
    finally:
        recall_module.cited_facts = saved


def build(conv: dict[str, Any], facts: list[tuple[str, str, str, list[str]]]
          ) -> tuple[BeliefBase, dict[str, set[str]], list[tuple[str, str]]]:
    """The base, each fact key's evidence turns, and every text (turns, then facts) by id."""
    kb = BeliefBase(clock=ManualClock(0))
    texts = {dia: text for dia, _, text in conv["turns"]}
    kb.assert_many([(f"conv:{conv['id']}:{dia}", text, f"human:{speaker}")
                    for dia, speaker, text in conv["turns"]])
    cites: dict[str, set[str]] = {}
    corpus = [(dia, text) for dia, text in texts.items()]
    for i, (speaker, session, text, evidence) in enumerate(facts):
        present = [d for d in evidence if texts.get(d, "").strip()]
        if not present:
            continue
        key = f"{speaker.lower()}:obs:{session}:{i}"
        doc = f"conv:{conv['id']}:{present[0]}"
        kb.claim(key, text, source="model:locomo", citation=(doc, texts[present[0]]),
                 learn=False)
        cites[key] = {present[0]}
        corpus.append((key, text))
    return kb, cites, corpus


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--locomo", help="locomo10.json, or the repository's data/locomo10.zip")
    parser.add_argument("--memorybench", help="Memory-Benchmark-1's benchmark/data.py")
    args = parser.parse_args()
    if args.locomo:
        locomo(args.locomo)
    if args.memorybench:
        memorybench(args.memorybench)


def locomo(path: str) -> None:
    from rank_bm25 import BM25Okapi

    conversations = read_locomo(path)
    facts_of = observations(path)
    names = ("today", "item 4", "BM25Okapi")
    tally = {n: {k: {"fact": 0, "transcript only": 0, "evidence": 0} for k in KS} for n in names}
    asked = answerable = made = 0
    spent = {"today": 0.0, "item 4": 0.0}
    for conv in conversations:
        kb, cites, corpus = build(conv, facts_of.get(conv["id"], []))
        made += len(cites)
        bm25 = BM25Okapi([re.findall(r"\w+", t.lower()) for _, t in corpus])
        ids = [i for i, _ in corpus]
        turns = {dia for dia, _, _ in conv["turns"]}
        for question, evidence in conv["qa"]:
            present = evidence & turns
            if not present:
                continue
            asked += 1
            answering = {key for key, on in cites.items() if on & present}
            if not answering:
                continue
            answerable += 1
            ranked: dict[str, list[str]] = {}
            for name in ("today", "item 4"):
                with todays_ranking() if name == "today" else contextlib.nullcontext():
                    t0 = time.perf_counter()
                    hits = kb.recall(question, limit=max(KS))
                    spent[name] += time.perf_counter() - t0
                ranked[name] = [r.key.split(":", 2)[2] if r.key.startswith("conv:") else r.key
                                for r in hits]
            scores = bm25.get_scores(re.findall(r"\w+", question.lower()))
            ranked["BM25Okapi"] = [ids[i] for i in np.argsort(-scores, kind="stable")[:max(KS)]]
            for name, got in ranked.items():
                for k in KS:
                    top = set(got[:k])
                    fact, turn = bool(top & answering), bool(top & present)
                    t = tally[name][k]
                    t["fact"] += fact
                    t["transcript only"] += turn and not fact
                    t["evidence"] += fact or turn
    print(f"LoCoMo: {len(conversations)} conversations, {made:,} observations as facts citing "
          f"their turns, {asked:,} questions with evidence, {answerable:,} answerable by a fact")
    for k in KS:
        cells = []
        for name in names:
            t = tally[name][k]
            cells.append(f"{name}: fact {t['fact'] / answerable:.4f}, transcript only "
                         f"{t['transcript only'] / answerable:.4f}, evidence "
                         f"{t['evidence'] / answerable:.4f}")
        print(f"  top {k}: " + "; ".join(cells))
    print(f"  recall time per question: today {spent['today'] / answerable * 1e3:.2f} ms, "
          f"item 4 {spent['item 4'] / answerable * 1e3:.2f} ms")


# -- facts that change: MemoryBench ------------------------------------------------------------
DAY = 86400.0
MB_KS = (3, 5)


def read_profiles(path: str) -> list[dict[str, Any]]:
    """MemoryBench's ``PROFILES``, read as a literal (the file is never executed)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "PROFILES" for t in node.targets):
            profiles: list[dict[str, Any]] = ast.literal_eval(node.value)
            return profiles
    raise SystemExit(f"{path}: no PROFILES = [...] in it")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _closest(text: str, candidates: list[str]) -> int:
    """The index of the candidate sharing most words with ``text`` (the first on a tie)."""
    want = _words(text)
    return max(range(len(candidates)), key=lambda i: (len(want & _words(candidates[i])), -i))


def user_base(profile: dict[str, Any]) -> tuple[BeliefBase, dict[str, list[str]],
                                                list[tuple[str, str]], dict[str, str]]:
    """A user's base; each key's facts in order (``key -> [fact ids]``, a fact's id
    ``key=text``), every text by id (turns and facts), and each fact's cited turn by id."""
    from corollary import PreferNewer

    user = profile["user_id"]
    asked = {t["query"] for t in profile["memory_tests"]}
    kb = BeliefBase(clock=ManualClock(100 * DAY), conflict_policy=PreferNewer())
    corpus: list[tuple[str, str]] = []
    keys: dict[str, list[str]] = {}
    facts: list[tuple[str, str]] = []  # (key, text)
    cited: dict[str, str] = {}
    for session in profile["sessions"]:
        n = session["session_id"]
        turns = [(f"conv:{user}:{n}:{i}", t["content"]) for i, t in enumerate(session["turns"])
                 if t["role"] == "user" and t["content"] not in asked]
        for i, (key, text) in enumerate(turns):
            kb.assert_(key, text, source=f"human:{user}", valid_from=n * DAY + i)
            corpus.append((key, text))
        for memory in session["expected_memories_after"]:
            if not turns:
                continue
            doc, said = turns[_closest(memory["fact"], [t for _, t in turns])]
            key = f"{user}:{memory['type']}:{len(facts)}"
            if memory.get("contradicts") and facts:
                key = facts[_closest(memory["contradicts"], [t for _, t in facts])][0]
            kb.claim(key, memory["fact"], source="model:memorybench", citation=(doc, said),
                     learn=False)
            facts.append((key, memory["fact"]))
            fact_id = f"{key}={memory['fact']}"
            keys.setdefault(key, []).append(fact_id)
            cited[fact_id] = doc
            corpus.append((fact_id, memory["fact"]))
    return kb, keys, corpus, cited


def memorybench(path: str) -> None:
    from rank_bm25 import BM25Okapi

    profiles = read_profiles(path)
    names = ("today", "item 4", "BM25Okapi")
    tally = {n: {k: {"current": 0, "stale as held": 0, "stale first": 0} for k in MB_KS}
             for n in names}
    asked = 0
    for profile in profiles:
        kb, keys, corpus, cited = user_base(profile)
        updated = [k for k, ids in keys.items() if len(ids) > 1]
        bm25 = BM25Okapi([re.findall(r"\w+", t.lower()) for _, t in corpus])
        ids = [i for i, _ in corpus]
        for test in profile["memory_tests"]:
            if test["category"] != "contradiction_update" or not updated:
                continue
            asked += 1
            required = " ".join(test["required_memories"]) or test["correct_answer"]
            key = updated[_closest(required, [" ".join(keys[k]) for k in updated])]
            current = f"{key}={kb.value(key)}"
            stale = {cited[f] for f in keys[key] if f != current}
            ranked: dict[str, list[tuple[str, bool]]] = {}  # (id, marked as not held)
            for name in ("today", "item 4"):
                with todays_ranking() if name == "today" else contextlib.nullcontext():
                    hits = kb.recall(test["query"], limit=max(MB_KS))
                ranked[name] = [(r.key if r.key.startswith("conv:") else f"{r.key}={r.value}",
                                 any(not f.held for f in r.source_of)) for r in hits]
            scores = bm25.get_scores(re.findall(r"\w+", test["query"].lower()))
            ranked["BM25Okapi"] = [(ids[i], False)
                                   for i in np.argsort(-scores, kind="stable")[:max(MB_KS)]]
            for name, got in ranked.items():
                for k in MB_KS:
                    top = got[:k]
                    found = [i for i, _ in top]
                    t = tally[name][k]
                    t["current"] += current in found
                    t["stale as held"] += any(i in stale and not marked for i, marked in top)
                    first_stale = min((n for n, i in enumerate(found) if i in stale),
                                      default=None)
                    t["stale first"] += first_stale is not None and (
                        current not in found or first_stale < found.index(current))
    print(f"MemoryBench: {len(profiles)} users, {asked} contradiction_update questions")
    for k in MB_KS:
        cells = [f"{name}: current {t['current']}/{asked}, stale as held "
                 f"{t['stale as held']}/{asked}, stale first {t['stale first']}/{asked}"
                 for name in names for t in [tally[name][k]]]
        print(f"  top {k}: " + "; ".join(cells))


if __name__ == "__main__":
    main()

"""Recall benchmark (issue 18): quality on public conversational data, speed, size, build time,
the engine bars with the index on, and the index engines compared.

Sections (``--only quality,speed,build,engines,bars``; all by default):

* ``quality``: recall@5 and recall@10 on LoCoMo (snap-research/locomo, ``data/locomo10.zip``,
  or a ``locomo10.json``): each conversation is one base, each turn one belief
  (``conv:<sample>:<dia_id>`` = the turn's text, source ``human:<speaker>``), each question a
  query; a question is a hit at k when one of its evidence turns is among the first k
  recalled. Beside it, in the same run, plain BM25: ``rank_bm25.BM25Okapi`` over the same
  texts as lower-cased word tokens (``re.findall(r"\\w+", text.lower())``). Get the data with
  ``git clone https://github.com/snap-research/locomo`` and pass ``--locomo
  locomo/data/locomo10.zip`` (the data is not in this repository).
* ``speed``: recall p50 over 200 questions ("What is customer 7's email?"...) on bases of
  ``--sizes`` beliefs (``customer:<i>:<field>``), the first recall (which builds the index)
  apart, and the index's bytes per belief.
* ``build``: a base of ``--big`` beliefs saved and loaded; the load (no index work) and the
  first recall after it (the whole index built), then the recall p50.
* ``engines``: the same beliefs' text indexed by this index, SQLite FTS5 (standard library)
  and bm25s, at ``--engine-size`` beliefs: build time, query p50, size.
* ``bars``: asserts one by one and reads of an up-to-date belief, on a base that recalls
  (its index built) and on one that never did, in the same run (the index has no hook in the
  engine: the ratio should be 1).

Usage::

    python benchmarks/bench_recall.py --locomo PATH [--only ...] [--sizes 10000,1000000]
        [--big 1000000] [--engine-size 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sqlite3
import statistics
import tempfile
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from corollary import BeliefBase, ManualClock
from corollary.retrieval.lexical import LexicalIndex, tokenize

FIELDS = ("email", "city", "phone", "plan", "status")
CITIES = ("Austin", "Denver", "Boston", "Miami", "Seattle", "Chicago", "Portland", "Atlanta")
PLANS = ("free", "team", "business", "enterprise")


# -- data ----------------------------------------------------------------------------------
def read_locomo(path: str) -> list[dict[str, Any]]:
    """LoCoMo's conversations: ``locomo10.json`` (a list of samples), or the zip / folder of
    per-conversation files the repository ships."""
    p = Path(path)
    samples: list[dict[str, Any]] = []
    if p.suffix == ".zip":
        with zipfile.ZipFile(p) as z:
            for name in sorted(z.namelist()):
                if name.endswith(".json"):
                    data = json.loads(z.read(name))
                    samples.append({"sample_id": Path(name).stem, "conversation": data,
                                    "qa": data["qa"]})
    elif p.is_dir():
        for f in sorted(p.glob("*.json")):
            data = json.loads(f.read_text())
            samples.append({"sample_id": f.stem, "conversation": data, "qa": data["qa"]})
    else:
        samples = json.loads(p.read_text())
    conversations = []
    for s in samples:
        conv = s["conversation"]
        turns = []
        for name, value in conv.items():
            if re.fullmatch(r"session_\d+", name) and isinstance(value, list):
                turns += [(t["dia_id"], t["speaker"], t["text"]) for t in value]
        qa = []
        for q in s["qa"]:
            evidence = set(re.findall(r"D\d+:\d+", " ".join(map(str, q.get("evidence") or []))))
            if evidence:
                qa.append((q["question"], evidence))
        conversations.append({"id": str(s.get("sample_id", len(conversations))),
                              "turns": turns, "qa": qa})
    return conversations


def trigram_embedder(texts: list[str], dim: int = 512) -> np.ndarray:
    """A toy embedder with no model: counts of hashed character trigrams (crc32)."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        t = f"  {text.casefold()}  "
        for j in range(len(t) - 2):
            out[i, zlib.crc32(t[j:j + 3].encode()) % dim] += 1.0
    return out


def quality(path: str, fusion: bool) -> None:
    from rank_bm25 import BM25Okapi

    conversations = read_locomo(path)
    ks = (5, 10)
    ours = {k: 0 for k in ks}
    base = {k: 0 for k in ks}
    fused = {k: 0 for k in ks}
    asked = 0
    recall_ms: list[float] = []
    for conv in conversations:
        turns = conv["turns"]
        kb = BeliefBase(clock=ManualClock(0))
        rows = [(f"conv:{conv['id']}:{dia}", text, f"human:{speaker}")
                for dia, speaker, text in turns]
        kb.assert_many(rows)
        kbv = None
        if fusion:
            kbv = BeliefBase(clock=ManualClock(0), embedder=trigram_embedder)
            kbv.assert_many(rows)
        bm25 = BM25Okapi([re.findall(r"\w+", text.lower()) for _, _, text in turns])
        ids = [dia for dia, _, _ in turns]
        for question, evidence in conv["qa"]:
            present = evidence & set(ids)
            if not present:
                continue
            asked += 1
            t0 = time.perf_counter()
            got = [r.key.split(":", 2)[2] for r in kb.recall(question, limit=max(ks))]
            recall_ms.append((time.perf_counter() - t0) * 1e3)
            if kbv is not None:
                with_vectors = [r.key.split(":", 2)[2] for r in kbv.recall(question, limit=max(ks))]
                for k in ks:
                    fused[k] += bool(present & set(with_vectors[:k]))
            scores = bm25.get_scores(re.findall(r"\w+", question.lower()))
            top = [ids[i] for i in np.argsort(-scores, kind="stable")[:max(ks)]]
            for k in ks:
                ours[k] += bool(present & set(got[:k]))
                base[k] += bool(present & set(top[:k]))
    print(f"LoCoMo: {len(conversations)} conversations, "
          f"{sum(len(c['turns']) for c in conversations):,} turns, {asked:,} questions "
          f"with evidence (recall p50 {statistics.median(recall_ms):.2f} ms)")
    for k in ks:
        a, b = ours[k] / asked, base[k] / asked
        print(f"  recall@{k}: corollary {a:.4f}, BM25Okapi {b:.4f} -> {a - b:+.4f} "
              f"({(a / b - 1) * 100:+.1f}%)"
              + (f"; fused with a trigram embedder {fused[k] / asked:.4f}" if fusion else ""))


# -- speed, size, build ----------------------------------------------------------------------
def customer_rows(n: int) -> list[tuple[str, Any, str]]:
    rows: list[tuple[str, Any, str]] = []
    customers = max(1, n // len(FIELDS))
    for i in range(customers):
        rows += [(f"customer:{i}:email", f"user{i}@example.com", "tool:crm"),
                 (f"customer:{i}:city", CITIES[i % len(CITIES)], "tool:crm"),
                 (f"customer:{i}:phone", f"+1 555 {i:07d}", "human:support"),
                 (f"customer:{i}:plan", PLANS[i % len(PLANS)], "tool:billing"),
                 (f"customer:{i}:status", "active" if i % 3 else "churned", "tool:billing")]
    return rows[:n]


def questions(n: int, count: int = 200, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    customers = max(1, n // len(FIELDS))
    forms = ("What is customer {i}'s {f}?", "{f} of customer {i}", "customer {i} {f}",
             "Which plan is customer {i} on?", "Where does customer {i} live (city)?")
    return [rng.choice(forms).format(i=rng.randrange(customers), f=rng.choice(FIELDS))
            for _ in range(count)]


def p50(kb: BeliefBase, qs: list[str]) -> float:
    times = []
    for q in qs:
        t0 = time.perf_counter()
        kb.recall(q, limit=10)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def speed(sizes: list[int]) -> None:
    for n in sizes:
        kb = BeliefBase(clock=ManualClock(0))
        kb.assert_many(customer_rows(n))
        qs = questions(n)
        t0 = time.perf_counter()
        kb.recall(qs[0])
        first = time.perf_counter() - t0
        index = kb.parts.recaller.index  # type: ignore[union-attr]
        named = [q for q in qs if _field(q) != "?"]
        right = sum(kb.recall(q, limit=1)[0].key.endswith(_field(q)) for q in named)
        print(f"n = {n:,}: recall p50 {p50(kb, qs):.3f} ms; first recall (builds the index) "
              f"{first:.3f} s; index {index.nbytes / n:.1f} B/belief; "
              f"the top hit is the customer's named field for {right} of {len(named)} questions")


def _field(q: str) -> str:
    return next((f for f in FIELDS if f in q.split() or f + "?" in q.split()), "?")


def build(n: int) -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_many(customer_rows(n))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "base.msgpack")
        kb.save(path)
        del kb
        t0 = time.perf_counter()
        loaded = BeliefBase.load(path, clock=ManualClock(0))
        load = time.perf_counter() - t0
    qs = questions(n)
    t0 = time.perf_counter()
    loaded.recall(qs[0])
    first = time.perf_counter() - t0
    index = loaded.parts.recaller.index  # type: ignore[union-attr]
    print(f"after loading {n:,} beliefs (load {load:.2f} s, no index work): first recall "
          f"{first:.2f} s = {first / load:.2f}x the load (builds the index; bar <= 3 s); "
          f"then recall p50 "
          f"{p50(loaded, qs):.2f} ms (bar <= 20 ms); index {index.nbytes / n:.1f} B/belief "
          f"(bar <= 150)")


# -- engines ---------------------------------------------------------------------------------
def engines(n: int) -> None:
    rows = customer_rows(n)
    texts = [f"{k} {k} {v} {s}" for k, v, s in rows]  # the key's words twice, as ours
    qs = questions(n)
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_many(rows)
    t0 = time.perf_counter()
    index = LexicalIndex(kb.parts.engine)  # the engine itself, not the reading view
    index.catch_up()
    own_build = time.perf_counter() - t0
    times = []
    for q in qs:
        t0 = time.perf_counter()
        next(iter(index.candidates(tokenize(q), 32)), None)
        times.append(time.perf_counter() - t0)
    print(f"engines at {n:,} beliefs (build s / query p50 ms / bytes per belief):")
    print(f"  own inverted index (numpy): {own_build:.2f} / "
          f"{statistics.median(times) * 1e3:.3f} / {index.nbytes / n:.0f}")

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(body, content='', "
               "tokenize='unicode61 remove_diacritics 0')")
    t0 = time.perf_counter()
    db.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", enumerate(texts))
    db.commit()
    fts_build = time.perf_counter() - t0
    pages = db.execute("PRAGMA page_count").fetchone()[0] * db.execute(
        "PRAGMA page_size").fetchone()[0]
    times = []
    for q in qs:
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(tokenize(q)))
        t0 = time.perf_counter()
        db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT 32",
                   (match,)).fetchall()
        times.append(time.perf_counter() - t0)
    print(f"  SQLite FTS5 (contentless, unicode61): {fts_build:.2f} / "
          f"{statistics.median(times) * 1e3:.3f} / {pages / n:.0f}")
    try:
        import bm25s
    except ImportError:
        print("  bm25s: not installed")
        return
    t0 = time.perf_counter()
    tokens = bm25s.tokenize(texts, stopwords=None, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    bm_build = time.perf_counter() - t0
    size = sum(getattr(a, "nbytes", 0) for a in retriever.scores.values())
    times = []
    for q in qs:
        t0 = time.perf_counter()
        qt = bm25s.tokenize([q], stopwords=None, show_progress=False)
        retriever.retrieve(qt, k=32, show_progress=False)
        times.append(time.perf_counter() - t0)
    print(f"  bm25s (static: no incremental add): {bm_build:.2f} / "
          f"{statistics.median(times) * 1e3:.3f} / {size / n:.0f} (+ vocabulary)")


# -- the engine bars with the index on -------------------------------------------------------
def bars(n: int) -> None:
    def asserts(kb: BeliefBase, start: int) -> float:
        t0 = time.perf_counter()
        for i in range(start, start + n):
            kb.assert_(f"new:{i}", i * 0.5, source="tool:feed")
        return n / (time.perf_counter() - t0)

    def reads(kb: BeliefBase) -> float:
        keys = [f"customer:{i}:email" for i in range(0, n // len(FIELDS), 7)]
        conf = kb.confidence
        for k in keys:
            conf(k)
        t0 = time.perf_counter()
        for _ in range(5):
            for k in keys:
                conf(k)
        return (time.perf_counter() - t0) / (5 * len(keys)) * 1e6

    results: dict[str, list[tuple[float, float]]] = {"with index": [], "without": []}
    for _ in range(5):
        for name in results:
            kb = BeliefBase(clock=ManualClock(0))
            kb.assert_many(customer_rows(n))
            if name == "with index":
                kb.recall("customer 7 email")
            results[name].append((asserts(kb, 0), reads(kb)))
    w = max(a for a, _ in results["with index"]), min(r for _, r in results["with index"])
    o = max(a for a, _ in results["without"]), min(r for _, r in results["without"])
    print(f"engine bars at {n:,} beliefs (best of 5, interleaved): asserts one by one {w[0]:,.0f}/s with "
          f"the index vs {o[0]:,.0f}/s without ({w[0] / o[0]:.2f}x); read {w[1]:.3f} us vs "
          f"{o[1]:.3f} us ({w[1] / o[1]:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--locomo", help="locomo10.json, or the repository's data/locomo10.zip")
    parser.add_argument("--only", default="quality,speed,build,engines,bars")
    parser.add_argument("--fusion", action="store_true",
                        help="also recall with a toy trigram embedder (lexical + vector ranks)")
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--engine-size", type=int, default=100_000)
    parser.add_argument("--bars-size", type=int, default=100_000)
    args = parser.parse_args()
    only = set(args.only.split(","))
    print(f"corollary recall benchmark ({platform.python_version()}, {os.cpu_count()} cores)")
    if "quality" in only:
        if args.locomo:
            quality(args.locomo, args.fusion)
        else:
            print("quality: pass --locomo PATH (git clone https://github.com/snap-research/"
                  "locomo; PATH = locomo/data/locomo10.zip)")
    if "speed" in only:
        speed([int(s) for s in args.sizes.split(",")])
    if "build" in only:
        build(args.big)
    if "engines" in only:
        engines(args.engine_size)
    if "bars" in only:
        bars(args.bars_size)


if __name__ == "__main__":
    main()

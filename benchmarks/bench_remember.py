"""Remember benchmark (issue 29): the base's own work per remembered fact, the key-resolution
threshold, and BEAM's knowledge updates beside plain BM25.

Sections (``--only speed,threshold,beam``; all by default):

* ``speed``: ``kb.remember`` on a base of ``--size`` beliefs (``user<i>:<field>``), the model a
  function that returns a reply made in advance (its own time is measured and taken out), with
  1, 10 and 100 facts per call; beside it in the same run the same facts made by hand
  (``assert_`` of the document, then ``claim`` with the citation, what remember does per fact)
  and by plain ``assert_``. Prints milliseconds per fact (bar: <= 1 ms at 100k beliefs, model
  excluded) and the request's size in characters (bounded whatever the base's size).
* ``threshold``: the word similarity of :mod:`corollary.facade.key_resolution` on a fixed list
  of labelled attribute pairs (same attribute or not), precision and recall of "merge" at
  several thresholds.
* ``beam``: BEAM (mohammadtavakoli78/BEAM, a bare git snapshot passed as ``--beam``): each
  ``chats/100K/<n>/chat.json`` is loaded through one ``remember`` call, one message per user
  turn (its time its place in the chat), sent in requests of the default token budget, with
  :func:`extract`, a deterministic extractor of quantities that
  never sees the questions. Each ``knowledge_update`` question is asked of ``kb.recall`` over
  the remembered facts (each mapped to the turn it cites) and of plain BM25 over the user turns
  (``rank_bm25`` when installed, else the same Okapi formula written here); a question counts
  when the updated turn is among the first ``k`` and the original is not.
  ``contradiction_resolution`` questions count when both statements are recalled (the right
  answer names the contradiction).

* ``local`` (not by default): the first ``--sample`` user turns of chat 1 through ``OpenAIChat``
  on a local server (``--model URL --model-name NAME``), each one call: what it names, what the
  base keeps, and why it refuses the rest.

Usage::

    python benchmarks/bench_remember.py [--only speed,threshold,beam,local] [--size 100000]
        [--beam /path/to/BEAM/repo] [--chats 20] [--k 5] [--model URL --model-name NAME]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from corollary import BeliefBase, ManualClock
from corollary.facade.key_resolution import similarity
from corollary.facade.remembering import document_key
from corollary.models import FunctionModel, Reply, ToolCall

FIELDS = ("email", "city", "phone", "plan", "status")


# -- speed ---------------------------------------------------------------------------------------
def _base(size: int) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1000))
    kb.assert_many([(f"user{i // len(FIELDS)}:{FIELDS[i % len(FIELDS)]}", f"v{i}", "tool:crm")
                    for i in range(size)])
    kb.recall("warm the index up", limit=1)
    return kb


def _reply(facts: list[dict[str, Any]]) -> Reply:
    return Reply(None, [ToolCall("c1", "facts", {"facts": facts})])


def speed(size: int, repeat: int) -> None:
    print(f"\nspeed: a base of {size:,} beliefs; ms per fact, median of {repeat} calls "
          "(model excluded)")
    for per_call in (1, 10, 100):
        kb = _base(size)
        timings, by_hand, plain, sizes = [], [], [], []
        for r in range(repeat):
            text = " ".join(f"Customer {r}-{j} lives in Town{j}." for j in range(per_call))
            facts = [{"subject": f"customer {r}-{j}", "attribute": "home city",
                      "value": f"Town{j}", "quote": f"lives in Town{j}"}
                     for j in range(per_call)]
            reply = _reply(facts)
            spent = [0.0]

            def answer(messages: Any, tools: Any, reply: Reply = reply,
                       spent: list[float] = spent, sizes: list[int] = sizes) -> Reply:
                t = time.perf_counter()
                sizes.append(sum(len(m["content"]) for m in messages))
                spent[0] += time.perf_counter() - t
                return reply

            t0 = time.perf_counter()
            made = kb.remember(text, source="human:ops", model=FunctionModel(answer))
            elapsed = time.perf_counter() - t0 - spent[0]
            assert len(made) == per_call
            timings.append(elapsed / per_call * 1e3)
            # the same facts by hand: the document asserted, each fact claimed citing it
            doc = f"hand:{r}"
            t0 = time.perf_counter()
            kb.assert_(doc, text, "human:ops")
            for j in range(per_call):
                kb.claim(f"hand{r}_{j}:city", f"Town{j}", "model:hand",
                         citation=(doc, f"lives in Town{j}"))
            by_hand.append((time.perf_counter() - t0) / per_call * 1e3)
            t0 = time.perf_counter()
            for j in range(per_call):
                kb.assert_(f"plain{r}_{j}:city", f"Town{j}", "tool:crm")
            plain.append((time.perf_counter() - t0) / per_call * 1e3)
        med = statistics.median(timings)
        print(f"  {per_call:>3} facts a call: remember {med:.3f} ms/fact (bar <= 1 ms); by hand "
              f"(assert_ + claim with citation) {statistics.median(by_hand):.3f}; plain assert_ "
              f"{statistics.median(plain):.4f}; request {max(sizes):,} chars")


# -- threshold -----------------------------------------------------------------------------------
#: Attribute pairs, labelled: does the second mean the same attribute as the first?
PAIRS = [
    ("city", "home city", True), ("city", "city of residence", True),
    ("city", "current city", True), ("phone", "phone number", True),
    ("employer", "current employer", True), ("email", "email address", False),
    ("address", "home address", True), ("pet", "pets", True), ("job", "job title", True),
    ("name", "full name", True), ("age", "current age", True),
    ("favorite food", "favourite food", True), ("birthday", "date of birth", True),
    ("city", "birth city", False), ("email", "work email", False),
    ("home phone", "work phone", False), ("employer", "city", False),
    ("favorite color", "favorite food", False), ("first name", "last name", False),
    ("start date", "end date", False), ("manager", "manager email", False),
    ("salary", "salary currency", False), ("school", "school city", False),
    ("car", "car color", False), ("height", "weight", False),
]


def threshold() -> None:
    print(f"\nthreshold: word similarity on {len(PAIRS)} labelled attribute pairs "
          f"({sum(p[2] for p in PAIRS)} the same)")
    for cut in (0.34, 0.5, 2 / 3, 0.75, 1.0):
        merged = [(similarity(a, b) >= cut, same) for a, b, same in PAIRS]
        tp = sum(m and s for m, s in merged)
        fp = sum(m and not s for m, s in merged)
        fn = sum(not m and s for m, s in merged)
        precision = tp / (tp + fp) if tp + fp else 1.0
        print(f"  at {cut:.2f}: merges {tp + fp} (wrongly {fp}), precision {precision:.2f}, "
              f"recall {tp / (tp + fn):.2f}")


# -- BEAM ----------------------------------------------------------------------------------------
def _git_show(repo: str, path: str) -> Any:
    out = subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], capture_output=True,
                         check=True).stdout
    return json.loads(out)


def _user_turns(chat: Any) -> list[tuple[int, str]]:
    turns = []
    for batch in chat:
        for session in batch["turns"]:
            for turn in session:
                if turn["role"] == "user":
                    turns.append((int(turn["id"]), turn["content"]))
    return sorted(turns)


_CODE = re.compile(r"```.*?(```|$)", re.S)
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December")
_QUANTITY = re.compile(
    rf"(?:(?:{_MONTHS})\s+\d{{1,2}}(?:,\s*\d{{4}})?|\d[\d,]*(?:\.\d+)?(?:\s*(?:%|ms\b|[a-zA-Z]+s\b))?)")
_STOP = frozenset("""a an the of to in on at by for from with and or but so is are was were be
been has have had i i'm i've my me we our it its this that which who now currently recently
already just about around approximately roughly up down new total over after before since
ve ll re m s t d reached improved grown increased decreased dropped rose fell went changed updated update set
is not only also then than more less into per each every can could should would will want
need trying make sure help using used use get got still v version""".split())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z0-9\-]*", text.lower())


def extract(text: str) -> list[dict[str, Any]]:
    """The facts a deterministic extractor finds in one user turn: each quantity (a count of
    something, a percentage, a duration, a date) with what it counts or measures as the
    attribute (the counted word, else the nearest content word before it), its sentence (or the
    clause around it) as the quote. It never reads the questions."""
    facts = []
    months = set(_MONTHS.lower().split("|"))
    prose = _CODE.sub(" ", text.split("->->")[0])
    for sentence in re.split(r"(?<=[.!?])\s+", prose):
        for match in _QUANTITY.finditer(sentence):
            value = match.group(0).strip().rstrip(",")
            if not any(c.isdigit() for c in value) or re.search(r"\d\.\d+\.", value):
                continue
            after = sentence[match.end():match.end() + 2]
            if (sentence[max(0, match.start() - 1):match.start()] in ("v", ".")
                    or re.fullmatch(r"\.\d", after)):
                continue  # a version number (v1.0.0, 2.3.1): a name, not a quantity
            unit = re.sub(r"[\d,.\s]", "", value).lower()
            if unit in months:
                unit = ""  # a date: what it dates is the word before it
            if unit and unit.isalpha() and unit not in months and unit != "ms":
                attribute = unit[:-1]  # what it counts: "150 commits" -> commit
            else:
                before = [w for w in _words(sentence[:match.start()]) if w not in _STOP
                          and w not in months and not any(c.isdigit() for c in w)]
                if not before:
                    continue
                attribute = " ".join([before[-1]] + ([unit] if unit else []))
            quote = sentence.strip()
            if len(quote) > 300:  # the clause around the quantity
                quote = sentence[max(0, match.start() - 150):match.end() + 50].strip()
            facts.append({"subject": "user", "attribute": attribute, "value": value,
                          "quote": quote})
    return facts


_MESSAGE = re.compile(r"^\[\d+\] [a-z]+:[^ ]+ \([^)]*\): ", re.M)


def _extractor() -> FunctionModel:
    """A function model that answers each request with :func:`extract` over each message of
    its text (the chat form numbers them ``[n] speaker (time): text``)."""
    def answer(messages: Any, tools: Any) -> Reply:
        body = messages[-1]["content"].rpartition(":\n")[2]  # after the heading
        found = [f for text in _MESSAGE.split(body) if text.strip() for f in extract(text)]
        return _reply(found)

    return FunctionModel(answer)


def _bm25_ranker(docs: list[list[str]]) -> Callable[[list[str]], list[float]]:
    try:
        from rank_bm25 import BM25Okapi

        bm = BM25Okapi(docs)
        return lambda q: list(bm.get_scores(q))
    except ImportError:  # the same Okapi formula (k1 1.5, b 0.75, rank_bm25's defaults)
        n = len(docs)
        avg = sum(map(len, docs)) / n
        df = Counter(w for d in docs for w in set(d))
        tfs = [Counter(d) for d in docs]

        def scores(q: list[str]) -> list[float]:
            out = []
            for d, tf in zip(docs, tfs, strict=True):
                s = 0.0
                for w in q:
                    if tf[w]:
                        idf = math.log((n - df[w] + 0.5) / (df[w] + 0.5) + 1)
                        s += idf * tf[w] * 2.5 / (tf[w] + 1.5 * (0.25 + 0.75 * len(d) / avg))
                out.append(s)
            return out

        return scores


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _score(tally: Counter, kind: str, old: set[int], new: set[int], got: set[int]) -> None:
    """Count one question: a knowledge update is right when the updated turn is recalled and
    the original is not; a contradiction when both statements are (the answer names it)."""
    if kind == "knowledge_update":
        tally["update questions"] += 1
        tally["updated recalled"] += bool(new & got)
        tally["updated, not original"] += bool(new & got and not old & got)
    else:
        tally["contradiction questions"] += 1
        tally["both statements recalled"] += bool(old & got and new & got)


def beam(repo: str, chats: int, k: int, policy: Any) -> None:
    print(f"\nBEAM 100K, {chats} chats, first {k} recalled; policy {type(policy).__name__}")
    tallies = {"corollary": Counter(), "bm25": Counter()}
    shared: Counter = Counter()
    facts_made = requests = 0
    start = time.perf_counter()
    for n in range(1, chats + 1):
        try:
            chat = _git_show(repo, f"chats/100K/{n}/chat.json")
            probes = _git_show(repo, f"chats/100K/{n}/probing_questions/probing_questions.json")
        except subprocess.CalledProcessError:
            break
        turns = _user_turns(chat)
        kb = BeliefBase(clock=ManualClock(10_000_000), conflict_policy=policy)
        # the whole chat in one call: each user turn a message, its time its place; the call
        # sends it in requests of the default budget
        messages = [{"speaker": "human:user", "text": text, "at": 1_000_000 + tid}
                    for tid, text in turns]
        turn_of = {document_key("human:user", float(m["at"]), m["text"]): tid
                   for m, (tid, _) in zip(messages, turns, strict=True)}
        made = kb.remember(messages=messages, model=_extractor())
        requests += made.requests
        facts_made += len(made)
        keys_of: dict[int, set[str]] = {}  # the keys each turn's facts took
        for r in made:
            keys_of.setdefault(turn_of[r.document], set()).add(r.key)
        docs = [_tokens(text) for _, text in turns]
        ids = [tid for tid, _ in turns]
        ranker = _bm25_ranker(docs)

        def recalled(question: str, kb: BeliefBase = kb,
                     turn_of: dict[str, int] = turn_of) -> list[int]:
            out: list[int] = []
            for r in kb.recall(question, limit=k * 4):  # facts only: each maps to its turns
                b = None if r.key.startswith("doc:") else kb.engine.find(r.key, r.value)
                for j in b.justs if b is not None else ():
                    tid = turn_of.get(j.info.get("document", ""))
                    if tid is not None and tid not in out:
                        out.append(tid)
                if len(out) >= k:
                    break
            return out[:k]

        def bm25(question: str, ranker: Any = ranker, ids: list[int] = ids) -> list[int]:
            scores = ranker(_tokens(question))
            order = sorted(range(len(ids)), key=lambda i: -scores[i])
            return [ids[i] for i in order[:k]]

        askers = (("corollary", recalled), ("bm25", bm25))
        for kind, a, b in (("knowledge_update", "original_info", "updated_info"),
                           ("contradiction_resolution", "first_statement", "second_statement")):
            for q in probes.get(kind, []):
                old, new = (set(q["source_chat_ids"][f]) for f in (a, b))
                if old & new:  # one turn as both: nothing to tell apart
                    continue
                for name, ask in askers:
                    got = set(ask(q["question"]))
                    _score(tallies[name], kind, old, new, got)
                if kind == "knowledge_update":  # could the base's rules act on the pair?
                    before = set().union(*(keys_of.get(t, set()) for t in old))
                    after = set().union(*(keys_of.get(t, set()) for t in new))
                    shared["pairs"] += 1
                    shared["both have facts"] += bool(before and after)
                    shared["share a key"] += bool(before & after)
    print(f"  {facts_made:,} facts remembered in {requests:,} model requests "
          f"({time.perf_counter() - start:.1f} s)")
    print(f"  knowledge-update pairs: {shared['pairs']}; both turns gave facts "
          f"{shared['both have facts']}; original and update share a key {shared['share a key']}")
    for name, tally in tallies.items():
        u, c = tally["update questions"], tally["contradiction questions"]
        print(f"  {name:>9}: knowledge update: updated recalled {tally['updated recalled']}/{u}, "
              f"updated and not the original {tally['updated, not original']}/{u}; "
              f"contradiction: both recalled {tally['both statements recalled']}/{c}")


def local_model(repo: str, url: str, name: str, sample: int) -> None:
    """The first ``sample`` user turns of BEAM's chat 1, each one ``remember`` call through
    ``OpenAIChat`` (the ``facts`` tool forced, temperature 0): what a real model names and what
    the base keeps of it."""
    from corollary.models import OpenAIChat

    model = OpenAIChat(url, name, api_key="", temperature=0.0, max_tokens=384, timeout=300.0,
                       max_retries=0, tool_choice={"type": "function",
                                                   "function": {"name": "facts"}})
    turns = _user_turns(_git_show(repo, "chats/100K/1/chat.json"))[:sample]
    kb = BeliefBase(clock=ManualClock(10_000_000))
    tally: Counter = Counter()
    start = time.perf_counter()
    for tid, text in turns:
        prose = _CODE.sub(" ", text.split("->->")[0]).strip()
        try:
            made = kb.remember(prose, source="human:user", model=model, at=1_000_000 + tid)
        except Exception as exc:  # a real model's reply may be unusable: count how
            tally[f"call failed: {type(exc).__name__}"] += 1
            continue
        tally["requests"] += made.requests
        tally["facts kept"] += len(made)
        for r in made.refused:
            tally[f"refused: {r.reason.split(':')[0]}"] += 1
        for r in made:
            print(f"    turn {tid}: {r.key} = {r.value!r}  <- {r.quote!r}")
    seconds = time.perf_counter() - start
    print(f"\nlocal model {name} at {url}: {len(turns)} turns in {seconds:.0f} s; "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="speed,threshold,beam")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--beam", default=None, help="a BEAM git snapshot (bare repo)")
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--model", default=None,
                        help="an OpenAI-compatible server's base URL (section 'local')")
    parser.add_argument("--model-name", default="default")
    parser.add_argument("--sample", type=int, default=5)
    args = parser.parse_args()
    only = set(args.only.split(","))
    print(f"corollary remember benchmarks; Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.2f}")
    if "speed" in only:
        speed(args.size, args.repeat)
    if "threshold" in only:
        threshold()
    if "local" in only and args.model and args.beam:
        local_model(args.beam, args.model, args.model_name, args.sample)
    if "beam" in only:
        if args.beam is None:
            print("\nBEAM: pass --beam PATH (a snapshot of mohammadtavakoli78/BEAM)")
        else:
            from corollary import tms

            policy = getattr(__import__("corollary"), "PreferNewer", None)
            beam(args.beam, args.chats, args.k, policy() if policy else None)
            del tms


if __name__ == "__main__":
    main()

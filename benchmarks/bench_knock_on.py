"""Knock-on effects on public data (issue 37, "Measured"): MEME's Cascade, Absence, Tracking
and Deletion, and what a ripple costs.

**The evaluation** (``--meme PATH``, a MEME file: see ``benchmarks/meme_data.py`` for where it
comes from). Each episode's sessions are fed, in order, to three memories:

* corollary: each user turn that conveys facts goes through ``kb.remember``, driven by a
  scripted model that replies as a perfect extractor would: the benchmark's own facts (its
  ``gold_facts``), each quoting the turn's words, with ``depends_on`` for a fact said to rest
  on the episode's root, ``if_changes`` for a value declared for when the root changes, and
  ``forget`` for a request to delete (read from the benchmark's tags and notes). When the
  facts tool has no such fields (``--feed api``, or the fields not built yet), the same
  facts go in through the public Python API instead: a dependency as a claim whose inputs are
  the root and the turn, a declared replacement as a claim with ``unless=[(root, its value)]``,
  a deletion as ``kb.forget``;
* a plain key-value memory: the same facts, the last value written under each entity (a
  deletion deletes; it has no notion of ``depends_on`` or ``if_changes`` and writes their
  values as any other);
* recall of the question's text over the transcript: every turn of every session (fillers
  included) a document, ``kb.recall(question, 5)``.

The questions are the benchmark's own, asked before the change (at its probe) and after the
last session. Scoring is exact, no model judges: corollary and the key-value memory answer with
the value held (``kb.value``; the timeline's values for Tracking); a Cascade is right when the
value is the declared one, an Absence when nothing is held (the old value would be stale), a
Deletion when nothing is held and, for corollary, ``kb.recall`` of the question shows none of
the deleted words either. Recall returns text, so its column is the evidence a perfect reader
would need being among the five hits (the new value and the change; the old value and the
change; the request to delete; every value of the history): an upper bound for a reader over
it. As in MEME, a Cascade, Absence or Deletion counts only when the question before the change
was answered right (the trivial-pass filter).

**Extraction by a real model** (``--real-model URL``, an OpenAI-compatible server such as
benchmarks/real_models' llama.cpp server): each dependency sentence of the episodes (a
dependency, a declared replacement, a request to delete) is sent to the model as ``kb.remember``
sends it; the share of them whose reply carries the right field is printed.

**Costs** (``--costs``): on a base of ``--beliefs`` beliefs, a root with k dependents changes;
the seconds per dependent (the change, and reading every dependent) as a ratio to a plain
assert and read on the same base; and a journaled session with ``--replacements`` declared
replacements reopened in a fresh process, as a ratio to the same session with plain claims in
their place and to the session without them; and (``--agent``) the agent's own time per turn when the facts it was shown go
OUT before each turn, with the ripple named and without, interleaved in the same process.

Usage::

    python benchmarks/bench_knock_on.py --meme sw033.json [--feed remember|api]
    python benchmarks/bench_knock_on.py --meme sw033.json --real-model http://127.0.0.1:8091/v1
    python benchmarks/bench_knock_on.py --costs [--beliefs 100000] [--replacements 10000]
    python benchmarks/bench_knock_on.py --agent [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from meme_data import Episode, Fact, Question, Session, load_meme, role

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger
from corollary.facade import remember_request
from corollary.foundations.errors import AmbiguousValueError, CorollaryError
from corollary.models import Reply, ScriptedModel, ToolCall

TASKS = ("Cas", "Abs", "Tr", "Del")
NAMES = {"Cas": "Cascade", "Abs": "Absence", "Tr": "Tracking", "Del": "Deletion"}
#: The fields of the facts tool this benchmark exercises (issue 37 item 2).
FIELDS = ("depends_on", "if_changes", "forget")
HITS = 5
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def fields_built() -> bool:
    """Whether the facts tool offers ``depends_on``, ``if_changes`` and ``forget``."""
    item = remember_request.FACTS_TOOL["function"]["parameters"]["properties"]["facts"]["items"]
    return all(f in item["properties"] for f in FIELDS)


def quote_for(text: str, value: Any) -> str:
    """The words of ``text`` a perfect extractor quotes for ``value``: the fewest sentences in
    a row that say it (the whole text when none does)."""
    from corollary.facade.fact_support import value_in_quote

    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    for width in range(1, len(sentences) + 1):
        for start in range(len(sentences) - width + 1):
            window = text[text.index(sentences[start]):]
            end = window.index(sentences[start + width - 1]) + len(sentences[start + width - 1])
            quote = window[:end]
            if len(quote) <= 400 and value_in_quote(value, quote):
                return quote
    return text[:400]


class Turn:
    """A user turn that conveys facts: its text, when, and the facts with what each declares."""

    def __init__(self, session: Session, index: int, facts: list[tuple[Fact, str]]) -> None:
        self.session = session
        self.text = session.turns[index][1]
        self.at = session.at + index  # turns of one session a second apart, in order
        self.facts = facts


def turns_of(episode: Episode, session: Session) -> list[Turn]:
    by_turn: dict[int, list[tuple[Fact, str]]] = defaultdict(list)
    for fact in session.facts:
        if 0 <= fact.turn < len(session.turns) and session.turns[fact.turn][0] == "user":
            by_turn[fact.turn].append((fact, role(episode, session, fact)))
    return [Turn(session, i, by_turn[i]) for i in sorted(by_turn)]


# -- the three memories -------------------------------------------------------------------------
class Corollary:
    """corollary, fed through ``kb.remember`` (``feed="remember"``) or the public API."""

    def __init__(self, episode: Episode, feed: str) -> None:
        self.episode = episode
        self.subject = episode.subject
        self.feed = feed
        self.clock = ManualClock(episode.sessions[0].at)
        self.kb = BeliefBase(clock=self.clock, conflict_policy=PreferNewer())
        self.keys: dict[str, str] = {}
        self.used: dict[str, int] = defaultdict(int)
        self.refused: list[str] = []

    def key(self, entity: str) -> str:
        return self.keys.get(entity, f"{self.subject}:{entity}")

    def item(self, turn: Turn, fact: Fact, declares: str) -> dict[str, Any]:
        item: dict[str, Any] = {"quote": quote_for(turn.text, fact.value),
                                "subject": self.subject, "attribute": fact.entity,
                                "value": fact.value}
        root = {"subject": self.subject, "attribute": self.episode.root}
        if declares == "depends_on":
            item["depends_on"] = [root]
        elif declares == "if_changes":
            item["if_changes"] = root
        elif declares == "forget":
            item["forget"] = True
        return item

    def write(self, turn: Turn) -> None:
        self.clock.set(turn.at)
        items = [(self.item(turn, f, d), f, d) for f, d in turn.facts]
        if self.feed == "remember":
            self._remember(turn, [i for i, _, _ in items])
            for _, _, d in items:
                self.used[d] += 1
            return
        plain = [i for i, _, d in items if d == "plain"]
        made = self._remember(turn, plain) if plain else []
        document = made[0].document if made else None
        for _, fact, declares in items:
            if declares == "plain":
                continue
            self.used[declares] += 1
            key, root = self.key(fact.entity), self.key(self.episode.root)
            if declares == "forget":
                try:
                    self.kb.forget(key)
                except CorollaryError as exc:
                    self.refused.append(f"forget {key}: {exc}")
                continue
            if document is None:
                document = f"doc:{self.episode.id}:{turn.session.idx}:{int(turn.at)}"
                self.kb.assert_(document, turn.text, source="human:user")
            try:
                if declares == "depends_on":
                    self.kb.claim(key, fact.value, "model:remember", [root, document])
                else:  # if_changes: a value for when the root changes from what it holds
                    self.kb.claim(key, fact.value, "model:remember", [document],
                                  unless=[(root, self.kb.value(root))])
            except CorollaryError as exc:
                self.refused.append(f"{declares} {key}: {exc}")

    def _remember(self, turn: Turn, items: list[dict[str, Any]]) -> list[Any]:
        model = ScriptedModel([Reply(None, [ToolCall("f", "facts", {"facts": items})])])
        made = self.kb.remember(turn.text, source="human:user", model=model, at=turn.at)
        for r in made:
            entity = r.key.split(":", 1)[-1]
            self.keys.setdefault(entity, r.key)
        self.refused += [f"{r.reason}" for r in getattr(made, "refused", ())]
        return list(made)

    def value(self, entity: str) -> Any:
        try:
            return self.kb.value(self.key(entity), None)
        except AmbiguousValueError:
            return AmbiguousValueError

    def history(self, entity: str) -> list[Any]:
        try:
            return [e.value for e in self.kb.timeline(self.key(entity))]
        except CorollaryError:
            return []

    def recalled(self, question: str) -> str:
        return "\n".join(f"{r.key} {r.value}" for r in self.kb.recall(question, HITS))


class KeyValue:
    """A plain key-value memory: the last value written under each entity."""

    def __init__(self) -> None:
        self.store: dict[str, Any] = {}

    def write(self, turn: Turn) -> None:
        for fact, declares in turn.facts:
            if declares == "forget":
                self.store.pop(fact.entity, None)
            else:
                self.store[fact.entity] = fact.value

    def value(self, entity: str) -> Any:
        return self.store.get(entity)

    def history(self, entity: str) -> list[Any]:
        return [] if entity not in self.store else [self.store[entity]]


class Recall:
    """Recall of the question's text over the transcript: every turn a document."""

    def __init__(self, episode: Episode) -> None:
        self.kb = BeliefBase(clock=ManualClock(episode.sessions[-1].at + 3600))

    def add(self, session: Session) -> None:
        self.kb.assert_many((f"session:{session.idx}:turn:{i}", text, "human:user")
                            for i, (_, text) in enumerate(session.turns) if text.strip())

    def hits(self, question: str) -> str:
        return "\n".join(str(r.value) for r in self.kb.recall(question, HITS))


# -- asking and scoring -------------------------------------------------------------------------
def _has(text: str, value: Any) -> bool:
    return value is not None and str(value).lower() in text.lower()


def structured(q: Question, memory: Any, episode: Episode) -> bool:
    """Whether a memory that answers with values got ``q`` right."""
    entity = q.entities[0]
    if q.task == "Tr":
        return [str(v) for v in memory.history(entity)] == [
            str(v) for v in q.values.get(entity) or ()]
    held = memory.value(entity)
    if q.phase == "before":
        return held == q.values.get(entity)
    if q.task == "Cas":
        return held == q.values.get(entity)
    if q.task == "Abs":
        return held is None
    # Deletion: nothing held, and (for corollary) nothing of it recalled either
    recalled = memory.recalled(q.text) if hasattr(memory, "recalled") else ""
    return held is None and not _has(recalled, q.values.get(entity))


def evidence(q: Question, recall: Recall, episode: Episode) -> bool:
    """Whether the five hits for ``q``'s text hold what a perfect reader needs."""
    hits = recall.hits(q.text)
    entity = q.entities[0]
    change = episode.root_change()
    changed = change is not None and _has(hits, change.value)
    if q.task == "Tr":
        return all(_has(hits, v) for v in q.values.get(entity) or ())
    if q.phase == "before":
        return _has(hits, q.values.get(entity))
    if q.task in ("Cas", "Abs"):
        return _has(hits, q.values.get(entity)) and changed
    return any(_has(line, q.values.get(entity)) and re.search(r"\b(delete|remove|forget)\b", line,
                                                          re.IGNORECASE)
               for line in hits.splitlines())


def run_episode(episode: Episode, feed: str, verbose: bool = False
                ) -> tuple[dict[str, dict[str, list[bool]]], Any]:
    """Feed one episode to the three memories; each task's scores, by memory."""
    ours, kv, recall = Corollary(episode, feed), KeyValue(), Recall(episode)
    before: dict[tuple[str, str], dict[str, bool]] = {}
    asked = [q for q in episode.questions if q.task in TASKS]

    def ask(phase: str) -> None:
        for q in (q for q in asked if q.phase == phase):
            before[(q.task, phase)] = marks = {
                "corollary": structured(q, ours, episode), "key-value": structured(q, kv, episode),
                "recall": evidence(q, recall, episode)}
            if verbose:
                entity = q.entities[0]
                said = ours.history(entity) if q.task == "Tr" else ours.value(entity)
                kept = kv.history(entity) if q.task == "Tr" else kv.value(entity)
                print(f"  {episode.id} {phase:<6} {q.task:<3} {q.text!r}: corollary {said!r}, "
                      f"key-value {kept!r}; right: {marks}")

    done_before = False
    for session in episode.sessions:
        if session.idx >= episode.probe_before and not done_before:
            ask("before")
            done_before = True
        recall.add(session)
        for turn in turns_of(episode, session):
            ours.write(turn)
            kv.write(turn)
    if not done_before:
        ask("before")
    ask("after")
    scores: dict[str, dict[str, list[bool]]] = {m: defaultdict(list) for m in
                                                 ("corollary", "key-value", "recall")}
    for task in TASKS:
        if (task, "after") not in before:
            continue
        for memory, right in before[(task, "after")].items():
            gate = before.get((task, "before"), {}).get(memory, True) if task != "Tr" else True
            scores[memory][task].append(right and gate)
    return scores, ours


def evaluate(path: str, feed: str, verbose: bool = False) -> None:
    episodes = load_meme(path)
    if feed == "remember" and not fields_built():
        print("the facts tool has no depends_on/if_changes/forget fields: feeding through the "
              "public API instead (--feed api)")
        feed = "api"
    totals: dict[str, dict[str, list[bool]]] = {m: defaultdict(list) for m in
                                                 ("corollary", "key-value", "recall")}
    used: dict[str, int] = defaultdict(int)
    refused: list[str] = []
    for episode in episodes:
        scores, ours = run_episode(episode, feed, verbose)
        for memory, by_task in scores.items():
            for task, marks in by_task.items():
                totals[memory][task].extend(marks)
        for k, n in ours.used.items():
            used[k] += n
        refused += ours.refused
    print(f"MEME: {len(episodes)} episode(s) from {path}; feed: {feed}; "
          f"fields exercised: {dict(used)}; facts refused: {len(refused)}")
    for why in refused[:5]:
        print(f"  refused: {why}")
    print(f"{'task':<10} {'n':>3}  {'corollary':>10} {'key-value':>10} {'recall@5*':>10}")
    for task in TASKS:
        n = len(totals["corollary"][task])
        if not n:
            continue
        row = [sum(totals[m][task]) / n for m in ("corollary", "key-value", "recall")]
        print(f"{NAMES[task]:<10} {n:>3}  " + " ".join(f"{r:>10.2f}" for r in row))
    print("* recall: the evidence a perfect reader needs is among the 5 hits (an upper bound)")


# -- a real model's extraction ------------------------------------------------------------------
class Recording:
    """A model that keeps every reply it passes on (what ``kb.remember`` was told)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model = getattr(inner, "model", "model")
        self.small_model = getattr(inner, "small_model", False)
        self.replies: list[Any] = []

    def complete(self, messages: Any, tools: Any, options: Any = None) -> Any:
        reply = self.inner.complete(messages, tools, options)
        self.replies.append(reply)
        return reply


def _names(fact: dict[str, Any], entity: str, value: Any) -> bool:
    """Whether a fact the model gave is about ``entity`` (its attribute shares a word with it)
    or says ``value``."""
    said = set(re.findall(r"[a-z]+", str(fact.get("attribute", "")).lower()))
    return bool(said & set(entity.split("_"))) or str(fact.get("value", "")).lower() == str(
        value).lower()


def extraction(path: str, url: str, name: str, timeout: float, small: bool) -> None:
    """The share of the dependency sentences whose fact a real model gives the right field,
    each sentence remembered by ``kb.remember`` on a base that holds the root (and, for a
    request to delete, the fact to delete), as a conversation would have left it."""
    from corollary.models import OpenAIChat

    if not fields_built():
        print("the facts tool has no depends_on/if_changes/forget fields: nothing to measure")
        return
    right: dict[str, list[bool]] = defaultdict(list)
    spent = 0.0
    for episode in load_meme(path):
        root: Any = None
        for session in episode.sessions:
            for turn in turns_of(episode, session):
                for fact, declares in turn.facts:
                    if fact.entity == episode.root:
                        root = fact.value
                    if declares == "plain":
                        continue
                    clock = ManualClock(turn.at - 60)
                    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
                    kb.assert_(f"{episode.subject}:{episode.root}", root, source="human:user")
                    if declares == "forget":
                        kb.assert_(f"{episode.subject}:{fact.entity}", fact.value,
                                   source="human:user")
                    model = Recording(OpenAIChat(url, model=name, timeout=timeout,
                                                 small_model=small))
                    clock.set(turn.at)
                    started = time.perf_counter()
                    try:
                        kb.remember(turn.text, source="human:user", model=model, at=turn.at)
                    except CorollaryError as exc:
                        print(f"  {declares}: {type(exc).__name__}: {str(exc)[:120]}")
                    spent += time.perf_counter() - started
                    facts: list[Any] = []
                    for reply in model.replies:
                        try:
                            facts += remember_request.read_reply(reply, 10_000)
                        except CorollaryError:
                            pass
                    about = [f for f in facts if isinstance(f, dict)
                             and _names(f, fact.entity, fact.value)]
                    got = any(f.get(declares) not in (None, False, [], {}) for f in about)
                    right[declares].append(got)
                    print(f"  {declares:<10} {'right' if got else 'missed'}: "
                          f"{json.dumps(about or facts, ensure_ascii=False)[:300]}")
    total = [m for marks in right.values() for m in marks]
    print(f"real model {name} at {url}: {sum(total)}/{len(total)} dependency sentences with "
          f"the right field ({spent:.0f} s of requests)")
    for declares, marks in right.items():
        print(f"  {declares:<10} {sum(marks)}/{len(marks)}")


# -- costs ----------------------------------------------------------------------------------------
def ripple_cost(beliefs: int, dependents: list[int], repeats: int) -> None:
    """A root with k dependents changes (and every dependent is read, so the lazy engine has
    settled each): seconds per dependent, and the marginal seconds a dependent adds to a
    change of a key with none, each as a ratio to a plain assert (a new key, then its read)."""
    print(f"ripple at {beliefs:,} beliefs, as a ratio to a plain assert and read on the same "
          f"base (median of {repeats}):")
    for k in dependents:
        whole, marginal = [], []
        for _ in range(repeats):
            clock = ManualClock(1_000_000.0)
            kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
            kb.assert_many((f"k{i}", i, f"tool:s{i % 100}")
                           for i in range(beliefs - k - 2))
            kb.assert_("root", "a", source="human:user")
            kb.assert_("lone", "a", source="human:user")
            clock.advance(1)
            depend = getattr(kb, "depend", None)  # issue 37 item 1's form, else a claim
            for i in range(k):
                if depend is not None:
                    depend(f"dep:{i}", i, on=["root"], source="model:x")
                else:
                    kb.claim(f"dep:{i}", i, "model:x", ["root"])
            for i in range(k):
                kb.label(f"dep:{i}")
            clock.advance(1)
            t0 = time.perf_counter()
            kb.assert_("lone", "b", source="human:user")
            kb.label("lone")
            t1 = time.perf_counter()
            kb.assert_("root", "b", source="human:user")
            out = sum(kb.label(f"dep:{i}") == "OUT" for i in range(k))
            t2 = time.perf_counter()
            assert out == k, "every dependent went OUT"
            plain = []
            for i in range(21):
                s0 = time.perf_counter()
                kb.assert_(f"plain:{i}", i, source="human:user")
                kb.label(f"plain:{i}")
                plain.append(time.perf_counter() - s0)
            unit = statistics.median(plain)
            whole.append((t2 - t1) / k / unit)
            marginal.append(max(0.0, (t2 - t1) - (t1 - t0)) / k / unit)
        print(f"  k={k:>5}: {statistics.median(whole):7.2f}x per dependent "
              f"({statistics.median(marginal):6.2f}x beyond changing a key with none)")


_REOPEN = """
import sys, time
from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger
t0 = time.perf_counter()
kb = BeliefBase.open_session(open_ledger(sys.argv[1]), "s", clock=ManualClock(2e6),
                             conflict_policy=PreferNewer())
n = len(kb.beliefs())
print(time.perf_counter() - t0, n)
"""


def reopen_cost(replacements: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for kind in ("declared", "plain", "none"):
            path = str(Path(tmp) / f"{kind}.sqlite")
            clock = ManualClock(1_000_000.0)
            ledger = open_ledger(path)
            kb = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
            kb.assert_many((f"root:{i}", "a", "human:user") for i in range(replacements))
            kb.assert_many((f"dep:{i}", "old", "human:user") for i in range(replacements))
            clock.advance(1)
            declare = getattr(kb, "replace_when", None)
            for i in range(replacements if kind != "none" else 0):
                if kind == "plain":  # a claim of the same key and value, with no exception
                    kb.claim(f"dep:{i}", "new", "model:x", [f"root:{i}"])
                elif declare is not None:  # issue 37 item 1's declared replacement
                    declare(f"dep:{i}", "new", changes=f"root:{i}", source="model:x")
                else:  # before it: the claim with the exception it stands for
                    kb.claim(f"dep:{i}", "new", "model:x", [f"root:{i}"],
                             unless=[(f"root:{i}", "a")])
            ledger.close()
            paths[kind] = path
        seconds: dict[str, list[float]] = defaultdict(list)
        for _ in range(repeats):
            for kind, path in paths.items():
                out = subprocess.run([sys.executable, "-c", _REOPEN, path], check=True,
                                     capture_output=True, text=True).stdout.split()
                seconds[kind].append(float(out[0]))
        d, p, n = (statistics.median(seconds[k]) for k in ("declared", "plain", "none"))
        print(f"reopen in a fresh process, {replacements:,} declared replacements: {d:.3f} s; "
              f"as many plain claims in their place: {p:.3f} s ({d / p:.2f}x); the session "
              f"without them: {n:.3f} s ({d / n:.2f}x) (median of {repeats})")


def agent_cost(beliefs: int, dependents: int, runs: int) -> None:
    """The agent's own time per turn (the model's excluded) on a base of ``beliefs`` beliefs
    where, before each turn, a root with ``dependents`` dependents shown changes; with the
    ripple named (the run follows the change feed) and without (the same run with the feed not
    followed, as before issue 37 item 5), interleaved in this process."""
    import contextlib

    from corollary import Agent
    from corollary.agent.projector import View
    from corollary.models import FunctionModel

    following = View.following

    def one(budget: int | None, ripple: bool) -> float:
        clock = ManualClock(1.8e9)
        kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
        kb.assert_many((f"customer:{i}:email", f"c{i}@example.com", "tool:crm")
                       for i in range(beliefs))
        kb.assert_("root", "a", source="human:user")
        clock.advance(1)
        for i in range(dependents):
            kb.claim(f"dep:{i}", i, "model:x", ["root"])
        spent = [0.0]

        def reply(messages: Any, tools: Any) -> Reply:
            started = time.perf_counter()
            clock.advance(60)
            kb.assert_("root", f"v{clock()}", source="human:user")
            for i in range(dependents):  # said again: the next turn has them to lose
                kb.claim(f"dep:{i}", i, "model:x", ["root"])
            spent[0] += time.perf_counter() - started
            return Reply("hm")

        View.following = following if ripple else (  # type: ignore[method-assign]
            lambda self: contextlib.nullcontext(self))
        try:
            started = time.perf_counter()
            Agent(FunctionModel(reply), kb, max_steps=10, context_budget=budget).run(
                "dep root customer 7 email")
            return (time.perf_counter() - started - spent[0]) / 10
        finally:
            View.following = following  # type: ignore[method-assign]

    print(f"agent turn, {beliefs:,} beliefs, a root with {dependents} dependents changing "
          f"before each turn (median of {runs}, interleaved):")
    for budget in (2000, None):
        with_, without = [], []
        for _ in range(runs):
            with_.append(one(budget, True))
            without.append(one(budget, False))
        w, wo = statistics.median(with_), statistics.median(without)
        print(f"  context_budget={budget}: {w * 1000:.2f} ms with the ripple named, "
              f"{wo * 1000:.2f} ms without: {w / wo:.2f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--meme", help="a MEME file (see benchmarks/meme_data.py)")
    parser.add_argument("--feed", choices=("remember", "api"), default="remember")
    parser.add_argument("--verbose", action="store_true", help="each question's answers")
    parser.add_argument("--real-model", help="an OpenAI-compatible server's URL (…/v1)")
    parser.add_argument("--model-name", default="qwen0.5b")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a request may take")
    parser.add_argument("--small-model", action="store_true",
                        help="requests in small-model mode (docs/models.md)")
    parser.add_argument("--costs", action="store_true")
    parser.add_argument("--beliefs", type=int, default=100_000)
    parser.add_argument("--dependents", default="1,10,100,1000")
    parser.add_argument("--replacements", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--agent", action="store_true",
                        help="the agent's time per turn with and without the ripple named")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()}, {platform.machine()}")
    if args.meme:
        evaluate(args.meme, args.feed, args.verbose)
        if args.real_model:
            extraction(args.meme, args.real_model, args.model_name, args.timeout,
                       args.small_model)
    if args.costs:
        ripple_cost(args.beliefs, [int(k) for k in args.dependents.split(",")], args.repeats)
        reopen_cost(args.replacements, args.repeats)
    if args.agent:
        agent_cost(10_000, 100, args.repeats)
    if not (args.meme or args.costs or args.agent):
        parser.error("give --meme PATH, --costs or --agent")


if __name__ == "__main__":
    main()

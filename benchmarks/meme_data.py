"""MEME episodes, read from a path given on the command line (the data is not in this
repository): the loader of ``bench_knock_on.py``.

MEME (Multi-Entity and Evolving Memory Evaluation, Jung et al., 2026, arXiv 2605.12477; data
CC BY 4.0) publishes 100 episodes on Hugging Face (``meme-benchmark/MEME``), which this machine
cannot reach. Its project page's repository, ``github.com/SeokwonJung-Jay/meme-eval``, carries
one whole episode (``sw_033``: its sessions, the facts each conveys with the benchmark's task
tags, and the questions asked before and after the change, with their gold answers) in
``src/data/sw033.json``; that file, at commit ``66731b1ab2ae063dbd61d1bf93d966520bc2f2ea``,
is what was measured. The dataset's own file (a JSON list of episodes, each with ``sessions``,
``before_questions`` and ``after_questions``, per its dataset card) is read too when its
sessions carry ``gold_facts`` as the page's do; no copy of it was at hand to check that here.

Nothing here is MEME's code: the schema is read as the files show it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

#: The benchmark's task names, by the prefix of a question's ``task_type``.
TASKS = {"Cascade-D": "Cas", "Cascade-U": "Abs", "Deletion": "Del", "Multiple-update": "Tr",
         "Exact": "ER", "Multi-hop": "Agg", "Cas": "Cas", "Abs": "Abs", "Del": "Del",
         "Tr": "Tr", "ER": "ER", "Agg": "Agg"}
#: The subject a domain's facts are about.
SUBJECTS = {"software_project": "team", "personal_life": "user"}
_DELETE = re.compile(r"\b(delete|remove|forget|erase)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Fact:
    """One fact a session conveys (the benchmark's ``gold_facts``)."""

    entity: str
    value: Any
    text: str
    turn: int
    notes: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Session:
    idx: int
    at: float
    kind: str
    turns: tuple[tuple[str, str], ...]
    facts: tuple[Fact, ...]
    evidence_type: str = ""


@dataclass(frozen=True)
class Question:
    task: str
    phase: str  # "before" or "after" the change
    text: str
    gold: str
    entities: tuple[str, ...]
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Episode:
    id: str
    domain: str
    root: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    probe_before: int

    @property
    def subject(self) -> str:
        return SUBJECTS.get(self.domain, "user")

    def root_change(self) -> Fact | None:
        """The last value the root was given (the change the dependents ripple from)."""
        said = [f for s in self.sessions for f in s.facts if f.entity == self.root]
        return said[-1] if len(said) > 1 else None


def role(episode: Episode, session: Session, fact: Fact) -> str:
    """What a perfect extractor says the sentence declares: ``"forget"`` (a request to
    delete), ``"if_changes"`` (a value declared for when the root changes), ``"depends_on"``
    (a value that rests on the root) or ``"plain"``; read from the benchmark's own annotations
    (task tags, notes, the episode's root)."""
    if "Del" in fact.tags and _DELETE.search(fact.text):
        return "forget"
    if fact.entity == episode.root:
        return "plain"
    if "pre-declaration" in fact.notes or fact.text.lower().startswith("if "):
        return "if_changes"
    if {"Cas", "Abs"} & set(fact.tags):
        return "depends_on"
    return "plain"


def _time(stamp: str) -> float:
    """``2023/03/05 (Sun) 11:24`` as POSIX seconds (UTC)."""
    plain = re.sub(r"\s*\([A-Za-z]+\)\s*", " ", stamp).strip()
    return datetime.strptime(plain, "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc).timestamp()


def _session(raw: dict[str, Any], idx: int) -> Session:
    facts = tuple(Fact(f["entity"], f["value"], f.get("fact_text") or "",
                       int(f.get("conveyed_in_turn") or 0), f.get("notes") or "",
                       tuple(f.get("tags") or ()))
                  for f in raw.get("gold_facts") or ())
    turns = tuple((t["role"], t["content"]) for t in raw.get("conversation") or ())
    return Session(int(raw.get("idx", idx)), _time(raw["timestamp"]), raw.get("kind", ""),
                   turns, facts, raw.get("evidence_type") or "")


def _question(raw: dict[str, Any], phase: str) -> Question | None:
    kind = raw.get("task_type", "")
    task = next((t for prefix, t in TASKS.items() if kind.startswith(prefix)), None)
    if task is None:
        return None
    gold = raw.get("gold_answer") or raw.get("expected_answer") or ""
    return Question(task, phase, raw["question"], str(gold), tuple(raw.get("entity") or ()),
                    dict(raw.get("entity_values") or {}))


def _page(data: dict[str, Any]) -> Episode:
    """The project page's episode file (``src/data/sw033.json``)."""
    ep = data["episode"]
    results = data["results"]
    first = results[sorted(results)[0]]  # every system was asked the same questions
    questions = [q for phase in ("before", "after") for raw in first[phase]
                 if (q := _question(raw, phase)) is not None]
    return Episode(ep["tag"], ep["domain"], ep["root"],
                   tuple(_session(s, i) for i, s in enumerate(data["sessions"])),
                   tuple(questions), int(ep["probe_before_idx"]))


def _dataset(raw: dict[str, Any]) -> Episode:
    """One episode of the dataset's own file (schema per its dataset card)."""
    sessions = raw["sessions"]
    if not any(s.get("gold_facts") for s in sessions):
        raise ValueError(f"episode {raw.get('episode_id')!r}: its sessions carry no "
                         "gold_facts, which the structured feed needs")
    questions = [_values(q, raw.get("tasks") or ()) for phase in ("before", "after")
                 for item in (raw.get(f"{phase}_questions") or {}).get("questions", [])
                 if (q := _question(item, phase)) is not None]
    probe = raw.get("probe_before_idx")
    if probe is None:
        probe = next((i for i, s in enumerate(sessions) if s.get("kind") == "probe-before"),
                     len(sessions))
    return Episode(raw["episode_id"], raw["domain"], raw["root"],
                   tuple(_session(s, i) for i, s in enumerate(sessions)), tuple(questions),
                   int(probe))


def _values(q: Question, tasks: Any) -> Question:
    """``q`` with its entities' values: its own, else its task's (``entity_values`` of the
    task of its type naming its entity), else, before the change, its gold answer."""
    if q.values or not q.entities:
        return q
    for task in tasks:
        if TASKS.get(task.get("type", "")) == q.task and q.entities[0] in (
                task.get("target_entities") or ()):
            values = task.get("entity_values")
            if isinstance(values, dict) and q.entities[0] in values:
                return replace(q, values=dict(values))
    return replace(q, values={q.entities[0]: q.gold}) if q.phase == "before" else q


def load_meme(path: str | Path) -> list[Episode]:
    """The episodes of a MEME file: the project page's one-episode file, or the dataset's
    list of episodes."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "episode" in data and "sessions" in data:
        return [_page(data)]
    if isinstance(data, list):
        return [_dataset(e) for e in data]
    raise ValueError(f"{path}: neither MEME's page episode nor its list of episodes")

"""benchmarks/bench_knock_on.py on a small episode in MEME's page schema (made up here, the
shape of sw_033): the loader reads it, the perfect extractor's facts go in, and each memory is
scored as the benchmark's docstring says. The measured figures are in benchmarks/RESULTS.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "bench_knock_on.py"


def session(idx: int, day: int, kind: str, said: list[tuple[str, Any, str, str, list[str]]]
            ) -> dict[str, Any]:
    """A session whose user turns say ``said``: (entity, value, text, notes, tags) each."""
    conversation: list[dict[str, str]] = [{"role": "assistant", "content": "Hi!"}]
    facts = []
    for entity, value, text, notes, tags in said:
        facts.append({"entity": entity, "value": value, "fact_text": text,
                      "conveyed_in_turn": len(conversation), "notes": notes, "tags": tags})
        conversation += [{"role": "user", "content": text},
                         {"role": "assistant", "content": "Noted."}]
    return {"idx": idx, "kind": kind, "timestamp": f"2023/03/{day:02d} (Sun) 10:00",
            "evidence_type": None, "conversation": conversation, "gold_facts": facts}


def question(task: str, text: str, gold: str, entity: str, values: Any) -> dict[str, Any]:
    return {"task_type": task, "question": text, "gold_answer": gold, "entity": [entity],
            "entity_values": {entity: values}}


EPISODE = {
    "episode": {"tag": "toy_001", "domain": "software_project", "root": "team_lead",
                "probe_before_idx": 3},
    "sessions": [
        session(0, 1, "evidence", [
            ("team_lead", "Mira Holt", "The team lead is Mira Holt.", "", ["Cas", "Abs"]),
            ("package_manager", "Quill Pack", "Our package manager is Quill Pack.", "",
             ["Tr"]),
            ("log_drain_endpoint", "logs.toy.dev", "Logs drain to logs.toy.dev.", "",
             ["Del"])]),
        session(1, 2, "evidence", [
            ("package_manager", "Brisk Modules", "Update: our package manager is Brisk "
             "Modules.", "", ["Tr"])]),
        session(2, 3, "evidence", [
            ("code_reviewer", "Ana Ruiz", "Code reviews go to Ana Ruiz, Mira Holt assigned "
             "it; if the team lead changes, this assignment would change.", "", ["Abs"]),
            ("weekly_report_recipient", "Bo Lind", "The weekly report goes to Bo Lind, Mira "
             "Holt assigned it; if the team lead changes, this assignment would change.", "",
             ["Cas"]),
            ("weekly_report_recipient", "Cy Park", "If the team lead changes, the weekly "
             "report will go to Cy Park.", "Cascade-D: future value pre-declaration",
             ["Cas"])]),
        {"idx": 3, "kind": "probe-before", "timestamp": "2023/03/04 (Sat) 10:00",
         "conversation": [{"role": "user", "content": "Tell me a joke about dice."}],
         "gold_facts": []},
        session(4, 5, "evidence", [
            ("team_lead", "Dev Sato", "Dev Sato is our new team lead.", "", ["Cas", "Abs"]),
            ("log_drain_endpoint", "logs.toy.dev", "The log drain endpoint is logs.toy.dev. "
             "Please delete that from your memory.", "", ["Del"])]),
    ],
    "results": {"bm25": {
        "before": [
            question("Cascade-D (1-hop)", "Who receives the weekly report?", "Bo Lind",
                     "weekly_report_recipient", "Bo Lind"),
            question("Cascade-U (1-hop)", "Who reviews our code?", "Ana Ruiz",
                     "code_reviewer", "Ana Ruiz"),
            question("Deletion (before delete)", "What's our log drain endpoint?",
                     "logs.toy.dev", "log_drain_endpoint", "logs.toy.dev")],
        "after": [
            question("Multiple-update", "List all package managers we've used.",
                     "Quill Pack, Brisk Modules", "package_manager",
                     ["Quill Pack", "Brisk Modules"]),
            question("Cascade-D (1-hop)", "Who receives the weekly report?", "Cy Park",
                     "weekly_report_recipient", "Cy Park"),
            question("Cascade-U (1-hop)", "Who reviews our code?", "Uncertain",
                     "code_reviewer", "Ana Ruiz"),
            question("Deletion", "What's our log drain endpoint?", "removed",
                     "log_drain_endpoint", "logs.toy.dev")]}},
}


def rows(output: str) -> dict[str, list[float]]:
    found = {}
    for line in output.splitlines():
        parts = line.split()
        if parts and parts[0] in ("Cascade", "Absence", "Tracking", "Deletion"):
            found[parts[0]] = [float(x) for x in parts[2:5]]
    return found


@pytest.mark.parametrize("feed", ["remember", "api"])
def test_the_benchmark_scores_a_small_episode(tmp_path: Path, feed: str) -> None:
    path = tmp_path / "episode.json"
    path.write_text(json.dumps(EPISODE), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(BENCH), "--meme", str(path), "--feed", feed],
                         capture_output=True, text=True, check=True, cwd=ROOT, env=env).stdout
    assert "1 episode(s)" in out and "facts refused: 0" in out
    assert "'depends_on': 2" in out and "'if_changes': 1" in out and "'forget': 1" in out
    scores = rows(out)
    # corollary holds every task; a last-value key-value memory loses the history, writes
    # the declared value too early (failing the question before the change) and keeps the
    # stale reviewer; it forgets on request as well
    assert scores["Cascade"][:2] == [1.0, 0.0]
    assert scores["Absence"][:2] == [1.0, 0.0]
    assert scores["Tracking"][:2] == [1.0, 0.0]
    assert scores["Deletion"][:2] == [1.0, 1.0]

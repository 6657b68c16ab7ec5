"""The real-model benchmark's two measures of remember (benchmarks/real_models/keys.py): a
fact found by value (a kept fact holds the reference value) and by key and value (under a key
naming the right subject and an acceptable attribute), run through small-model mode against
a loopback server that answers as llama-cpp-python's does."""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.llama_server import LlamaLikeServer, Seen

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.real_models import cases, heldout, public  # noqa: E402
from benchmarks.real_models.keys import DEV, HELDOUT, PUBLIC, key_matches  # noqa: E402
from benchmarks.real_models.runner import run_remember  # noqa: E402
from corollary.models import OpenAIChat  # noqa: E402

FAST = {"backoff_base": 0.001, "backoff_cap": 0.01, "api_key": "", "max_retries": 0}


def answering(subject: Callable[[str], str], attribute: Callable[[str], str]) -> Any:
    """A model that gives each reference fact of the clause it is asked about, under the
    subject and attribute the two functions make from the speaker and the reference's words."""
    def brain(seen: Seen) -> dict[str, Any]:
        text = html.unescape(seen.text)
        part = re.search(r'The part: "(.*)"$', text)
        assert part is not None
        speaker, _text, facts = next(s for s in cases.SNIPPETS if s[1] in text)
        return {"facts": [{"subject": subject(speaker.split(":")[1]),
                           "attribute": attribute(words), "value": str(value)}
                          for words, value in facts if str(value) in part.group(1)][:2]}
    return brain


@pytest.fixture
def brain() -> list[Any]:
    return [answering(str.capitalize, lambda words: words.replace("'", ""))]


@pytest.fixture
def server(brain: list[Any]) -> Iterator[LlamaLikeServer]:
    srv = LlamaLikeServer(lambda seen: brain[0](seen))
    try:
        yield srv
    finally:
        srv.close()


def small(server: LlamaLikeServer) -> OpenAIChat:
    return OpenAIChat(server.url, "qwen2.5-coder-0.5b", dialect="llama-cpp-python",
                      small_model=True, **FAST)


def test_the_right_keys_count_under_both_measures(server: LlamaLikeServer) -> None:
    row = run_remember(small(server), "small")
    assert row["found"] == row["found_keyed"] == row["expected"] == 21


def test_a_value_under_another_subject_counts_by_value_only(
        server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = answering(lambda _speaker: "Someone", lambda words: words.replace("'", ""))
    row = run_remember(small(server), "small")
    assert (row["found"], row["found_keyed"]) == (21, 0)


def test_a_verb_for_an_attribute_counts_by_value_only(
        server: LlamaLikeServer, brain: list[Any]) -> None:
    brain[0] = answering(str.capitalize, lambda _words: "said")
    row = run_remember(small(server), "small")
    assert (row["found"], row["found_keyed"]) == (21, 0)


@pytest.mark.parametrize(("key", "speaker", "matches"), [
    ("maria:city", "human:maria", True), ("human:maria:home_city", "human:maria", True),
    ("maria:moved_to", "human:maria", False), ("george:name", "human:george", False),
    ("max:age", "human:george", True), ("george:son_s_age", "human:george", True),
    ("henrik:age", "human:henrik", False), ("ines:cats", "human:ines", True)])
def test_a_key_names_the_subject_and_an_accepted_attribute(
        key: str, speaker: str, matches: bool) -> None:
    accepted = {"maria": DEV[0][0], "george": HELDOUT[1][2], "henrik": HELDOUT[10][1],
                "ines": DEV[11][1]}[speaker.split(":")[1]]
    assert key_matches(key, speaker, accepted) is matches


@pytest.mark.parametrize(("references", "case_set"),
                         [(DEV, cases), (HELDOUT, heldout), (PUBLIC, public)])
def test_every_reference_fact_has_its_keys(references: Any, case_set: Any) -> None:
    assert [len(r) for r in references] == [len(s[2]) for s in case_set.SNIPPETS]

"""A forget rewrites the journal's past the same way in every process (docs/journal.md,
"Forgetting"). Before: the words it redacts from past texts were taken from a set of strings,
whose order follows the process's string hash; when one word held another (a run of two
sentences and its first sentence), the shorter could go first and leave the run's second
sentence in a rewritten checkpoint ("Hi. [redacted] I work at ACME."), under about one hash
seed in two."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import pytest
from support import order_workers as workers  # importable by name in spawned children
from support.pools import SPAWN


@pytest.mark.parametrize("seed", ["0", "1", "2", "3"])
def test_nested_words_leave_nothing_under_any_hash_seed(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        seed: str) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", seed)  # the spawned interpreter's string hash
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=SPAWN) as pool:
        text, still_held = pool.submit(workers.journal_after_forgetting,
                                       str(tmp_path)).result(timeout=300)
    assert text == "Hi. [redacted]"
    assert not still_held

"""The examples in the docs run and print what they say (doctest over the whole page)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("page", ["guarantees.md", "journal.md", "ledger.md", "recall.md",
                                  "remember.md"])
def test_doc_examples_run(page: str) -> None:
    result = doctest.testfile(str(DOCS / page), module_relative=False, name=page,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                              globs={"__name__": "__main__"})
    assert result.attempted > 0
    assert result.failed == 0

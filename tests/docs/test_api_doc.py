"""docs/api.md names the public API: every change value and function of ``corollary.changes``
and every public attribute a base sets (``kb.parts`` came with the one class, issue 36, and was
named nowhere in the reference)."""

from __future__ import annotations

import re
from pathlib import Path

import corollary.changes as changes
from corollary import BeliefBase

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def _named(name: str, quoted: bool = True) -> bool:
    """Whether the page names ``name`` (as code, or as a word: the constructor's signature is
    a text block)."""
    start = "`" if quoted else r"\b"
    return re.search(start + re.escape(name) + r"\b", PAGE) is not None


def test_every_change_value_and_function_is_named() -> None:
    assert [n for n in changes.__all__ if not _named(n)] == []


def test_every_public_attribute_of_a_base_is_named() -> None:
    kb = BeliefBase()
    own = [n for n in vars(kb) if not n.startswith("_")]
    assert "parts" in own
    assert [n for n in own if not _named(n, quoted=False)] == []

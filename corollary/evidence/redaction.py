"""Redacting the words that said a forgotten fact from a document that said other things too
(docs/model.md, "Forgetting"): the sentence (or run of sentences) holding the quote becomes
:data:`MARK`, and the rest of the text stays as it was, so the other quotes in it are still
found.

Sentences end at ``.``, ``!`` or ``?`` followed by white space, or at a line break. The quote is
looked for as :func:`~corollary.evidence.citation.check_quote` looks (normalised text).

>>> redact_quote("Hi. My PIN is 4321. I live in Paris.", "my PIN is 4321")
'Hi. [redacted] I live in Paris.'
>>> redact_quote("Hi. I live in Paris.", "my PIN is 4321")
'Hi. I live in Paris.'
"""

from __future__ import annotations

import re

from .citation import normalise

__all__ = ["MARK", "quoted_span", "redact_quote"]

#: What a redacted sentence reads as.
MARK = "[redacted]"

_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+(?=\s|$)|\n|$)")
#: A quote runs over at most this many sentences (a bound on the search, not on the text).
_LONGEST = 32


def _sentences(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _SENTENCE.finditer(text):
        start, end = m.span()
        while start < end and text[start].isspace():
            start += 1
        stripped = end
        while stripped > start and text[stripped - 1].isspace():
            stripped -= 1
        if stripped > start:
            spans.append((start, stripped))
    return spans


def quoted_span(text: str, quote: str) -> tuple[int, int] | None:
    """Where in ``text`` the first run of sentences holding ``quote`` is (``None``: nowhere)."""
    needle = normalise(quote)
    if not needle or needle not in normalise(text):
        return None
    spans = _sentences(text)
    for j in range(len(spans)):  # the first sentence the quote ends in, then where it starts
        for i in range(j, max(-1, j - _LONGEST), -1):
            if needle in normalise(text[spans[i][0]:spans[j][1]]):
                return spans[i][0], spans[j][1]
    return 0, len(text)  # the quote spans more than the bound: the whole text


def redact_quote(text: str, quote: str) -> str:
    """``text`` with the first run of sentences holding ``quote`` replaced by :data:`MARK`
    (``text`` itself when the quote is not in it)."""
    span = quoted_span(text, quote)
    return text if span is None else text[:span[0]] + MARK + text[span[1]:]

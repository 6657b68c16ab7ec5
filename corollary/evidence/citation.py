"""Citations: a quote from a named document, and checking that the document contains it.

Quotes are compared after :func:`normalise` (case, whitespace, typographic quotes and dashes),
exactly by default, or approximately with the optional ``rapidfuzz`` package
(``pip install 'corollary[fuzzy]'``).

Examples
--------
>>> check_quote("Revenue grew  10% in Q3 — a record.", "revenue grew 10% in Q3 - a record")
CitationCheck(quote='revenue grew 10% in Q3 - a record', found=True, score=100.0, method='exact')
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from corollary.foundations._validate import check_bool, check_int, check_number
from corollary.foundations.errors import CitationError, InvalidTypeError, require

__all__ = ["Citation", "CitationCheck", "check_quote", "normalise"]

_TRANSLATE = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′", "'"),
        **dict.fromkeys("“”„‟«»″", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
    }
)


def normalise(text: str) -> str:
    """Normalise text for quote matching.

    Applies Unicode NFKC (ligatures, non-breaking spaces), casefolds, turns typographic quotes
    (``‘ ’ “ ” « » „``) into ``'`` and ``"`` and dashes (``‐ – — −``) into ``-``, collapses runs
    of whitespace to one space and strips the ends.

    Parameters
    ----------
    text : str
        The text to normalise.

    Returns
    -------
    str
        The normalised text.

    Raises
    ------
    InvalidTypeError
        If ``text`` is not a str.

    Examples
    --------
    >>> normalise("  The “Q3”\\n\\tResults — Final ")
    'the "q3" results - final'
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"expected a str, not {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text).casefold().translate(_TRANSLATE)
    return " ".join(text.split())


def _non_empty_str(instance: Any, attribute: attrs.Attribute, value: Any) -> None:  # type: ignore[type-arg]
    if not isinstance(value, str):
        raise InvalidTypeError(f"citation {attribute.name} must be a str, not {type(value).__name__}")
    if not value.strip():
        raise CitationError(f"citation {attribute.name} must not be empty")


@attrs.frozen(slots=True)
class Citation:
    """A quote that a claim says appears in a document.

    Attributes
    ----------
    document : str
        The key of the cited document.
    quote : str
        The quoted text.

    Examples
    --------
    >>> Citation.coerce(("10-K", "revenue grew 10%"))
    Citation(document='10-K', quote='revenue grew 10%')
    >>> Citation.coerce({"document": "10-K", "quote": ""})
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.CitationError: citation quote must not be empty
    """

    document: str = attrs.field(validator=_non_empty_str)
    quote: str = attrs.field(validator=_non_empty_str)

    @classmethod
    def coerce(cls, obj: Citation | tuple[str, str] | Mapping[str, str]) -> Citation:
        """Build a citation from a Citation, a ``(document, quote)`` pair or a mapping.

        Parameters
        ----------
        obj : Citation, tuple or Mapping
            A citation; a ``(document, quote)`` tuple (or list, as snapshots decode it); or a
            mapping with exactly the keys ``"document"`` and ``"quote"``.

        Returns
        -------
        Citation
            The citation.

        Raises
        ------
        CitationError
            If a pair has the wrong length, a mapping has missing or extra keys, or a field is
            empty.
        InvalidTypeError
            If ``obj`` is of another type, or a field is not a str.
        """
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, (tuple, list)):
            if len(obj) != 2:
                raise CitationError(f"a citation pair is (document, quote), got {len(obj)} items")
            return cls(obj[0], obj[1])
        if isinstance(obj, Mapping):
            if set(obj) != {"document", "quote"}:
                raise CitationError(
                    f"a citation mapping needs exactly the keys 'document' and 'quote', "
                    f"got {sorted(map(str, obj))}"
                )
            return cls(obj["document"], obj["quote"])
        raise InvalidTypeError(
            f"cannot make a citation from {type(obj).__name__}: pass a Citation, "
            f"a (document, quote) tuple or a {{'document': ..., 'quote': ...}} dict"
        )


@attrs.frozen(slots=True)
class CitationCheck:
    """The outcome of looking for a quote in a document.

    Attributes
    ----------
    quote : str
        The quote as given.
    found : bool
        Whether the document contains it (exactly, or with a fuzzy score at the threshold).
    score : float
        Match score from 0 to 100: 100 or 0 for an exact check, ``partial_ratio`` for fuzzy.
    method : {"exact", "fuzzy"}
        How the verdict was reached.
    """

    quote: str
    found: bool
    score: float
    method: Literal["exact", "fuzzy"]


#: The most work a fuzzy check may do, in characters of quote times characters of document
#: (``check_quote(max_work=...)``): a 5 kB quote in a 20 MB document is 1e11 and would take
#: minutes; this bound keeps one check to a few seconds.
MAX_FUZZY_WORK = 10**10
#: Up to this much work, a fuzzy score below the threshold is computed exactly too.
_EXACT_SCORE_WORK = 10**8


def check_quote(
    document_text: str, quote: str, *, fuzzy: bool = False, threshold: float = 90.0,
    max_work: int = MAX_FUZZY_WORK,
) -> CitationCheck:
    """Check whether a document contains a quote, after :func:`normalise` on both.

    An exact (normalised substring) match always wins. With ``fuzzy=True`` a quote not found
    exactly is scored with ``rapidfuzz.fuzz.partial_ratio`` (the best-matching stretch of the
    document) and counts as found when the score reaches ``threshold``.

    Parameters
    ----------
    document_text : str
        The full text of the cited document.
    quote : str
        The quoted text.
    fuzzy : bool, optional
        Allow approximate matches; needs the ``fuzzy`` extra (``rapidfuzz``).
    threshold : float, optional
        Lowest fuzzy score, from 0 to 100, that counts as found.
    max_work : int, optional
        Bound on a fuzzy check's work: normalised quote length times normalised document
        length. Beyond it a quote not found exactly raises :class:`CitationError` instead of
        running for minutes. Scores below the threshold are reported exactly when the work is
        under 10^8, and as 0 above (the search stops early once the threshold is out of reach).

    Returns
    -------
    CitationCheck
        The verdict. A quote that is not found is an outcome, not an error.

    Raises
    ------
    CitationError
        If the quote is empty (or only whitespace).
    InvalidTypeError
        If ``document_text`` or ``quote`` is not a str.
    InvalidInputError
        If ``threshold`` is outside [0, 100] or ``max_work`` is not positive.
    MissingExtraError
        If ``fuzzy=True`` and ``rapidfuzz`` is not installed.

    Examples
    --------
    >>> check_quote("Revenue was $4.2M.", "revenue was $4.5M").found
    False
    """
    if not isinstance(document_text, str):
        raise InvalidTypeError(f"document text must be a str, not {type(document_text).__name__}")
    if not isinstance(quote, str):
        raise InvalidTypeError(f"quote must be a str, not {type(quote).__name__}")
    needle = normalise(quote)
    if not needle:
        raise CitationError("cannot check an empty quote")
    threshold = check_number(threshold, "threshold", low=0.0, high=100.0)
    max_work = check_int(max_work, "max_work", low=1)
    check_bool(fuzzy, "fuzzy")
    # import up front so a missing extra fails the same way whether or not the match is exact
    fuzz = require("rapidfuzz.fuzz", "fuzzy", "fuzzy citation matching") if fuzzy else None
    haystack = normalise(document_text)
    if needle in haystack:
        return CitationCheck(quote=quote, found=True, score=100.0, method="exact")
    if fuzz is None:
        return CitationCheck(quote=quote, found=False, score=0.0, method="exact")
    work = len(needle) * len(haystack)
    if work > max_work:
        raise CitationError(
            f"a fuzzy check of a {len(needle):,}-character quote in a {len(haystack):,}-character "
            f"document is {work:.2g} units of work, over max_work={max_work:.2g}: quote less, "
            "check exactly, or pass a larger max_work")
    cutoff = 0.0 if work <= _EXACT_SCORE_WORK else float(threshold)
    score = float(fuzz.partial_ratio(needle, haystack, score_cutoff=cutoff))
    return CitationCheck(quote=quote, found=score >= threshold, score=score, method="fuzzy")

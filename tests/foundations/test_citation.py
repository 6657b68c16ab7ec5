"""Tests for citations and quote checking."""

from __future__ import annotations

import sys

import attrs
import pytest

from corollary.evidence.citation import Citation, CitationCheck, check_quote, normalise
from corollary.foundations.errors import (
    CitationError,
    InvalidInputError,
    InvalidTypeError,
    MissingExtraError,
)

DOC = (
    "ACME Corp. — Annual Report\n\n"
    "In the third quarter, revenue grew 10%\tto $4.2\u00a0million, "
    "which management called “a record quarter”.  Net margin: 12–14%."
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Revenue GREW", "revenue grew"),
        ("  a \t b\n\n c  ", "a b c"),
        ("a\u00a0b\u2009c", "a b c"),  # non-breaking and thin spaces
        ("“quoted” «guillemets» „low“", '"quoted" "guillemets" "low"'),
        ("it‘s ’single’", "it's 'single'"),
        ("12–14 — minus −3 hy‐phen", "12-14 - minus -3 hy-phen"),
        ("Straße", "strasse"),  # casefold, not lower
        ("ﬁnancial", "financial"),  # NFKC ligature
        ("", ""),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


def test_normalise_rejects_non_str() -> None:
    with pytest.raises(InvalidTypeError, match="expected a str, not bytes"):
        normalise(b"abc")  # type: ignore[arg-type]


def test_exact_found_across_case_whitespace_quotes_and_dashes() -> None:
    quote = 'REVENUE grew 10% to $4.2 million, which management called "a record quarter"'
    result = check_quote(DOC, quote)
    assert result == CitationCheck(quote=quote, found=True, score=100.0, method="exact")
    assert check_quote(DOC, "net margin: 12-14%").found is True
    assert check_quote(DOC, "acme corp. - annual report").found is True


def test_exact_not_found() -> None:
    quote = "revenue grew 11% to $4.2 million"
    assert check_quote(DOC, quote) == CitationCheck(
        quote=quote, found=False, score=0.0, method="exact"
    )
    # words split across the document are not a quote
    assert check_quote(DOC, "revenue grew 10% net margin").found is False


def test_fuzzy_finds_near_quote() -> None:
    pytest.importorskip("rapidfuzz")
    quote = "revenue grew 11% to $4.2 million"
    result = check_quote(DOC, quote, fuzzy=True)
    assert result.method == "fuzzy"
    assert result.found is True
    assert 90.0 <= result.score < 100.0
    assert result.score == pytest.approx(96.875)  # one character of 32 differs
    strict = check_quote(DOC, quote, fuzzy=True, threshold=99.0)
    assert strict.found is False
    assert strict.score == result.score


def test_fuzzy_rejects_unrelated_quote() -> None:
    pytest.importorskip("rapidfuzz")
    result = check_quote(DOC, "profits collapsed after the merger", fuzzy=True)
    assert result.method == "fuzzy"
    assert result.found is False
    assert result.score < 70.0


def test_fuzzy_exact_match_short_circuits() -> None:
    pytest.importorskip("rapidfuzz")
    result = check_quote(DOC, "Revenue grew 10%", fuzzy=True)
    assert result == CitationCheck(quote="Revenue grew 10%", found=True, score=100.0, method="exact")


def test_fuzzy_without_rapidfuzz_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidfuzz", None)
    monkeypatch.setitem(sys.modules, "rapidfuzz.fuzz", None)
    with pytest.raises(MissingExtraError) as info:
        check_quote(DOC, "revenue grew 10%", fuzzy=True)
    assert str(info.value) == (
        "fuzzy citation matching needs the optional package 'rapidfuzz': "
        "pip install 'corollary[fuzzy]'"
    )
    assert isinstance(info.value, ImportError)
    # the exact path never needs the extra
    assert check_quote(DOC, "revenue grew 10%").found is True


@pytest.mark.parametrize("quote", ["", "   ", "\n\t"])
def test_empty_quote(quote: str) -> None:
    with pytest.raises(CitationError, match="cannot check an empty quote"):
        check_quote(DOC, quote)


def test_check_quote_type_and_value_errors() -> None:
    with pytest.raises(InvalidTypeError, match="document text must be a str, not NoneType"):
        check_quote(None, "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="quote must be a str, not int"):
        check_quote(DOC, 3)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"threshold must be in \[0, 100\], got 150"):
        check_quote(DOC, "x", threshold=150)


def test_citation_coerce() -> None:
    expected = Citation(document="10-K", quote="revenue grew 10%")
    assert Citation.coerce(expected) is expected
    assert Citation.coerce(("10-K", "revenue grew 10%")) == expected
    assert Citation.coerce(["10-K", "revenue grew 10%"]) == expected
    assert Citation.coerce({"document": "10-K", "quote": "revenue grew 10%"}) == expected
    assert expected.document == "10-K"
    assert expected.quote == "revenue grew 10%"


@pytest.mark.parametrize(
    ("obj", "error", "message"),
    [
        ("10-K", InvalidTypeError, "cannot make a citation from str"),
        (42, InvalidTypeError, "cannot make a citation from int"),
        (None, InvalidTypeError, "cannot make a citation from NoneType"),
        (("10-K",), CitationError, "got 1 items"),
        (("10-K", "q", "extra"), CitationError, "got 3 items"),
        ({"document": "10-K"}, CitationError, r"exactly the keys 'document' and 'quote', got \['document'\]"),
        ({"document": "10-K", "quote": "q", "page": 3}, CitationError, "exactly the keys"),
        (("", "q"), CitationError, "citation document must not be empty"),
        (("10-K", "  "), CitationError, "citation quote must not be empty"),
        ((7, "q"), InvalidTypeError, "citation document must be a str, not int"),
        ({"document": "10-K", "quote": None}, InvalidTypeError, "citation quote must be a str"),
    ],
)
def test_citation_coerce_rejects(obj: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        Citation.coerce(obj)  # type: ignore[arg-type]


def test_value_classes_are_frozen_and_slotted() -> None:
    citation = Citation("10-K", "q")
    result = check_quote("q", "q")
    for value in (citation, result):
        assert not hasattr(value, "__dict__")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        citation.quote = "other"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        result.found = False  # type: ignore[misc]
    assert hash(citation) == hash(Citation("10-K", "q"))

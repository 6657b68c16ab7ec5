"""What a remembered fact's quote and text must support beyond the quote being there
(docs/remember.md, "What a fact must be supported by").

A quote found in the text proves the words were said, not that they say the fact: a small model
keeps ``employer = 'Google Inc.'`` on the quote ``'Use that one from now on.'`` and invents a
``valid_from`` of ``2024-03-01`` for "last month" (issue 39). So:

- :func:`read_entities`: a chat template that escapes HTML hands the model ``I&#39;m`` for
  ``I'm``, and the model copies it; a fact's strings are read with :func:`html.unescape` before
  they are checked, unless the text itself holds the entity as written;
- :func:`value_in_quote`: the value must be in the quote, both normalised (case, whitespace,
  punctuation, thousands separators, and the spelling of the numbers zero to twenty and the
  tens); a ``True`` or ``False`` is in the quote when a word of the attribute is;
- :func:`stated_time`: a ``valid_from`` is kept only when the text says it (its ISO date, its
  year, or its month's name for a date within a year before the message) and it is not later
  than the message; otherwise the fact holds from the message's time.
"""

from __future__ import annotations

import html
import math
import re
from datetime import datetime, timezone
from typing import Any

from ..foundations.clock import parse_instant
from ..foundations.errors import InvalidInputError, InvalidTypeError

__all__ = ["read_entities", "stated_time", "value_in_quote"]

_ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);")
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_NUMBERS = {word: str(n) for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUMBERS.update({word: str(10 * n) for n, word in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), 3)})
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
#: The fields of a fact that hold the model's words.
_WORDS = ("subject", "attribute", "value", "quote", "key")


def read_entities(raw: Any, text: str) -> Any:
    """``raw`` (a fact as the model gave it) with the HTML entities of its strings read,
    each string left as it is where ``text`` holds it as written.

    >>> read_entities({"quote": "I&#39;m vegetarian", "value": "R&amp;D"}, "I'm vegetarian")
    {'quote': "I'm vegetarian", 'value': 'R&D'}
    >>> read_entities({"quote": "AT&amp;T"}, "shares of AT&amp;T")
    {'quote': 'AT&amp;T'}
    """
    if not isinstance(raw, dict):
        return raw
    read = dict(raw)
    for name in _WORDS:
        value = raw.get(name)
        if isinstance(value, str) and _ENTITY.search(value) and value not in text:
            read[name] = html.unescape(value)
    return read


def _number(token: str) -> str:
    if "." in token:
        number = float(token)
        return str(int(number)) if number.is_integer() else repr(number)
    return _NUMBERS.get(token, token.lstrip("0") or "0")


def tokens(text: str) -> list[str]:
    """``text``'s words, normalised: lower case, punctuation dropped, numbers as digits.

    >>> tokens("I have Three kids and $1,500.00!")
    ['i', 'have', '3', 'kids', 'and', '1500']
    """
    plain = _THOUSANDS.sub("", html.unescape(text).casefold())
    return [_number(t) if t[0].isdigit() or t in _NUMBERS else t for t in _TOKEN.findall(plain)]


def value_in_quote(value: Any, quote: str, attribute: str = "") -> bool:
    """Whether the quote says ``value``: every word of it among the quote's (normalised by
    :func:`tokens`); a boolean when a word of ``attribute`` is there.

    >>> value_in_quote("Pine Ave", "I moved to pine ave. last month")
    True
    >>> value_in_quote("Google Inc.", "Use that one from now on.")
    False
    >>> value_in_quote(3, "we have three cats"), value_in_quote(True, "I'm vegetarian", "vegetarian")
    (True, True)
    """
    said = set(tokens(quote))
    if isinstance(value, bool):
        return bool(set(tokens(attribute)) & said)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return False
        text = str(int(value)) if float(value).is_integer() else repr(float(value))
    else:
        text = str(value)
    wanted = tokens(text)
    return bool(wanted) and all(word in said for word in wanted)


def _said(when: datetime, text: str, at: datetime) -> bool:
    """Whether ``text`` says the date ``when`` (see the module's docstring)."""
    words = set(tokens(text))
    if when.date().isoformat() in text or when.strftime("%Y-%m") in text:
        return True
    if str(when.year) in words:
        return True
    month = _MONTHS[when.month - 1]
    named = month in words or (month[:3] in words and month != "may")
    return named and 0 <= (at.year - when.year) * 12 + at.month - when.month < 12


def stated_time(valid_from: Any, text: str, at: float) -> float:
    """When a fact holds from: ``valid_from`` when ``text`` says it and it is not after the
    message's time ``at``, else ``at``.

    >>> march = datetime(2024, 3, 1, tzinfo=timezone.utc).timestamp()
    >>> april = datetime(2024, 4, 20, tzinfo=timezone.utc).timestamp()
    >>> stated_time("2024-03-01", "I moved here last month.", april) == april
    True
    >>> stated_time("2024-03-01", "I moved here in March.", april) == march
    True
    >>> stated_time("2024-05-01", "I move on May 1st, 2024.", april) == april
    True
    """
    if valid_from is None:
        return at
    try:
        when = parse_instant(valid_from, "valid_from")
    except (InvalidInputError, InvalidTypeError):
        return at
    if when is None or when > at:
        return at
    day = datetime.fromtimestamp(when, tz=timezone.utc)
    return when if _said(day, text, datetime.fromtimestamp(at, tz=timezone.utc)) else at

"""How the commands print: aligned tables for people, one JSON document for programs.

Every ``--json`` document is an object whose ``version`` is :data:`JSON_VERSION` and whose
``command`` names the command; docs/cli.md gives each shape. A field is added under the same
version only if old readers can ignore it; anything else is a new version.

>>> print(table(["KEY", "VALUE"], [["hq", "'Austin'"], ["price:ACME", "101.5"]]))
KEY         VALUE
hq          'Austin'
price:ACME  101.5
>>> iso(1_767_225_800)
'2026-01-01T00:03:20Z'

Whatever reaches the terminal goes through :func:`terminal_safe` (text) or :func:`emit_json`:
keys, values, session ids, sources and reasons come from agents and servers, and an ESC, a CR
or a bidi override in one would otherwise rewrite the lines around it or the window title.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from ..foundations._format import format_confidence

__all__ = ["JSON_VERSION", "confidence", "emit_json", "iso", "json_text", "say", "table",
           "terminal_safe"]

#: The version of every ``--json`` document's shape.
JSON_VERSION = 1


#: Control characters (C0, DEL, C1), bidi overrides and isolates, and the line and paragraph
#: separators: what a terminal acts on instead of showing.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069]")


def terminal_safe(text: str, keep: str = "\n") -> str:
    r"""``text`` with every control character but those in ``keep`` written as an escape.

    >>> terminal_safe("k\x1b]0;owned\x07\r\u202e")
    'k\\x1b]0;owned\\x07\\r\\u202e'
    >>> terminal_safe("two\nlines"), terminal_safe("two\nlines", keep="")
    ('two\nlines', 'two\\nlines')
    """
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep
                       else m.group().encode("unicode_escape").decode("ascii"), text)


def say(text: str, file: Any = None) -> None:
    """Print ``text`` (lines of it) for people, every other control character escaped."""
    print(terminal_safe(text), file=sys.stdout if file is None else file)


def json_text(data: dict[str, Any]) -> str:
    r"""``data`` as one JSON document (two-space indent), safe to print.

    ``json`` escapes C0 controls itself; DEL, C1 and bidi controls it writes raw, and they can
    only stand inside strings, where ``\uXXXX`` reads back as the same character.
    """
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False, default=_plain)
    # (its newlines are the indentation's: json writes those inside strings as \n)
    return _UNSAFE.sub(lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}",
                       text)


def emit_json(data: dict[str, Any]) -> None:
    """Print ``data`` as one JSON document (UTF-8 text, two-space indent)."""
    print(json_text(data))


def _plain(value: Any) -> Any:
    # values are plain data already (corollary.foundations.values); a tuple or a str subclass arrives as
    # what it is made of, anything else shows up as its repr rather than failing the command
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    return repr(value)


def confidence(value: float) -> str:
    """A confidence in a table: four places, as people round."""
    return format_confidence(value, 4)


def iso(seconds: float | None) -> str:
    """POSIX seconds as ISO 8601 UTC (``-`` for none; the number itself when out of range)."""
    if seconds is None:
        return "-"
    try:
        moment = datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return repr(seconds)
    if math.isclose(seconds, round(seconds)):
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns two spaces apart; the last column is not padded."""
    rows = [[terminal_safe(cell, keep="") for cell in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = []
    for row in [list(headers), *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def warn(message: str) -> None:
    """One line on stderr that does not stop the command."""
    print(f"corollary: warning: {terminal_safe(message, keep='')}", file=sys.stderr)

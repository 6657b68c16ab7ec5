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
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from .._format import format_confidence

__all__ = ["JSON_VERSION", "confidence", "emit_json", "iso", "table"]

#: The version of every ``--json`` document's shape.
JSON_VERSION = 1


def emit_json(data: dict[str, Any]) -> None:
    """Print ``data`` as one JSON document (UTF-8 text, two-space indent)."""
    print(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False, default=_plain))


def _plain(value: Any) -> Any:
    # values are plain data already (corollary.values); a tuple or a str subclass arrives as
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
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = []
    for row in [list(headers), *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def warn(message: str) -> None:
    """One line on stderr that does not stop the command."""
    print(f"corollary: warning: {message}", file=sys.stderr)

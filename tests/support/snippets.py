"""Running docs/mcp.md's framework snippets as written: the block naming a framework, its
placeholder paths pointed at a real ``corollary mcp`` (this checkout, any environment) and a
ledger in the test's folder, its ``main()`` run in an event loop with its variables kept."""

from __future__ import annotations

import asyncio
import re
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mcp.md"
COMMAND = "/abs/path/.venv/bin/corollary"
LEDGER = "/abs/path/ledger.db"
#: The question every snippet asks and the answers the fake models give.
FACTS = [("revenue:Q2", 100.0), ("revenue:Q3", 110.0)]
CLAIM = {"key": "growth", "value": 0.1, "source": "model:analyst",
         "inputs": {"q2": "revenue:Q2", "q3": "revenue:Q3"}, "formula": "(q3 - q2) / q2"}


def snippet(marker: str) -> str:
    """The one ```python block of docs/mcp.md that holds ``marker``."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
              if marker in b]
    assert len(blocks) == 1, f"{len(blocks)} blocks of docs/mcp.md hold {marker!r}"
    return blocks[0]


MAIN = "async def main() -> None:\n"
RUN_MAIN = "asyncio.run(main())"


def as_async_body(block: str) -> str:
    """A snippet written as a program (``async def main(): ...`` then ``asyncio.run(main())``,
    as a reader runs it) as the body of one coroutine: its imports, then ``main``'s body, so
    a test can read the variables it leaves."""
    assert MAIN in block and block.rstrip().endswith(RUN_MAIN), "the snippet runs no main()"
    head, body = block.split(MAIN, 1)
    body = body.rstrip()[:-len(RUN_MAIN)]
    return head + textwrap.dedent(body)


def corollary_command(folder: Path) -> Path:
    """An executable that runs ``python -m corollary`` from this checkout (MCP clients start
    servers with a minimal environment, so the path is written into it)."""
    script = folder / "corollary"
    script.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m corollary \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def run_snippet(block: str, folder: Path, replace: dict[str, str], namespace: dict[str, Any]
                ) -> dict[str, Any]:
    """Run ``block`` as an ``async`` body with its placeholders replaced (each must occur);
    return its variables."""
    replace = {COMMAND: str(corollary_command(folder)), LEDGER: str(folder / "ledger.db"),
               **replace}
    for old, new in replace.items():
        assert old in block, f"the snippet no longer holds {old!r}"
        block = block.replace(old, new)
    body = textwrap.indent(as_async_body(block) + "\nreturn locals()\n", "    ")
    code = f"async def _snippet():\n{body}"
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - our own docs
    return asyncio.run(asyncio.wait_for(namespace["_snippet"](), 60))


def saved_growth(folder: Path, session: str = "analyst-1") -> tuple[Any, str]:
    """The growth belief the snippet's session saved (``corollary mcp`` keeps a SQLite
    ledger's session as a journal)."""
    from corollary import BeliefBase, open_ledger

    with open_ledger(folder / "ledger.db") as ledger:
        kb = BeliefBase.open_session(ledger, session)
        return kb.value("growth"), kb.label("growth")


__all__ = ["CLAIM", "FACTS", "corollary_command", "run_snippet", "saved_growth",
           "snippet"]

"""docs/mcp.md's "In Python" blocks run as written: the server is made on a new ledger (where
``BeliefBase.load_session`` alone raised, issue 20) and again on the session it saved, and the
in-process client's call answers what the page shows."""

from __future__ import annotations

import asyncio
import os
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

try:
    from mcp import Client  # noqa: F401 - mcp 2's in-process client, which the page uses
except ImportError:
    pytest.skip("mcp 2 (corollary[mcp]) runs the page's in-process client",
                allow_module_level=True)
from support.snippets import as_async_body  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
RUN = 'server.run("stdio")'


def blocks() -> tuple[str, str]:
    text = DOC.read_text()
    section = text[text.index("## In Python"):text.index("## Design notes")]
    make, call = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert RUN in make
    return make, call


def test_the_in_python_blocks_run_on_a_new_ledger_and_resume(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    make, call = blocks()
    monkeypatch.chdir(tmp_path)

    def made() -> dict[str, Any]:
        space: dict[str, Any] = {}
        exec(compile(make.replace(RUN, "pass"), str(DOC), "exec"), space)  # noqa: S102
        return space

    first = made()  # a new ledger: the session does not exist yet
    assert os.path.exists(tmp_path / "ledger.db")

    async def calling(space: dict[str, Any]) -> dict[str, Any]:
        body = as_async_body(call) + "\nreturn locals()\n"
        exec(compile("async def _call():\n" + textwrap.indent(body, "    "), str(DOC), "exec"),
             space)
        found: dict[str, Any] = await space["_call"]()
        return found

    done = asyncio.run(calling(first))
    shown = re.search(r"# (\{.*\})", call)
    assert shown is not None and "'label': 'IN', 'confidence': 0.95" in shown.group(1)
    assert done["result"].structured_content == {
        "key": "hq", "value": "Austin", "label": "IN", "confidence": 0.95, "saved_version": 1}
    first["ledger"].close()
    second = made()  # the session saved by the call: resumed
    assert second["kb"].value("hq") == "Austin"
    second["ledger"].close()

"""Every ```python block of the README and docs/ runs as written (issue 28 item 14): a doctest
block on a page tests/docs/test_doc_examples.py runs; a block another test runs (against a
loopback model server, a real MCP server, a framework), named below with that test; every other
block here, each page's blocks in order in one fresh interpreter, as a reader pastes them. A
signature, a fragment or a sketch is fenced as ```text instead."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs.test_doc_examples import test_doc_examples_run

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Blocks run by another test: a text the block holds, and that test (which names the page).
RUN_ELSEWHERE = {
    "docs/agent.md": {'OpenAIChat("http://localhost:8000/v1"': "tests/models/test_agent_doc.py"},
    "docs/mcp.md": {
        "from agents.mcp import MCPServerStdio": "tests/frameworks/test_openai_agents.py",
        "pydantic_ai.mcp import MCPToolset": "tests/frameworks/test_pydantic_ai.py",
        "langchain_mcp_adapters": "tests/frameworks/test_langchain.py",
        'server.run("stdio")': "tests/docs/test_mcp_doc.py",
        "from mcp import Client": "tests/docs/test_mcp_doc.py",
    },
}
#: Pages whose blocks need an optional extra: the distribution it installs, and the extra's name
#: (without it the page is skipped, saying so, as the README's test-only install has none).
NEEDS = {"docs/many-users.md": ("langgraph", "langgraph")}
#: Pages whose every block another test runs (each in a namespace of its own).
PAGES_ELSEWHERE = {"docs/integrations.md": "tests/docs/test_integrations_doc.py"}
_BLOCK = re.compile(r"^[ \t]*```python\n(.*?)^[ \t]*```", re.S | re.M)


def blocks(page: Path) -> list[str]:
    import textwrap

    return [textwrap.dedent(b) for b in _BLOCK.findall(page.read_text(encoding="utf-8"))]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_doctest_blocks_are_on_pages_the_doctests_run() -> None:
    doctested = set(test_doc_examples_run.pytestmark[0].args[1])  # type: ignore[attr-defined]
    for page in PAGES:
        if any(">>>" in b for b in blocks(page)):
            assert page.name in doctested, f"{name(page)} has doctests no test runs"


def test_blocks_run_elsewhere_are_run_by_the_test_named() -> None:
    for page, test in PAGES_ELSEWHERE.items():
        assert Path(page).name in (ROOT / test).read_text(encoding="utf-8"), (test, page)
    for page, markers in RUN_ELSEWHERE.items():
        found = blocks(ROOT / page)
        for marker, test in markers.items():
            assert sum(marker in b for b in found) == 1, (page, marker)
            text = (ROOT / test).read_text(encoding="utf-8")
            assert Path(page).name in text or "snippets" in text, (test, page)


@pytest.mark.parametrize("page", [p for p in PAGES if any(">>>" not in b for b in blocks(p))
                                  and name(p) not in PAGES_ELSEWHERE], ids=name)
def test_every_other_block_runs_as_written(page: Path, tmp_path: Path) -> None:
    if name(page) in NEEDS:
        import importlib.metadata

        distribution, extra = NEEDS[name(page)]
        try:
            importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(f"{name(page)} needs the {extra} extra (pip install 'corollary[{extra}]')")
    markers = RUN_ELSEWHERE.get(name(page), {})
    mine = [b for b in blocks(page) if ">>>" not in b and not any(m in b for m in markers)]
    if not mine:
        pytest.skip(f"every python block of {name(page)} is a doctest or run elsewhere")
    done = subprocess.run([sys.executable, "-c", "\n".join(mine)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                               "HOME": str(tmp_path)})
    assert done.returncode == 0, f"{name(page)}: {done.stderr[-2000:]}"

"""docs/integrations.md's ```python blocks run as written, each in a namespace of its own; a
block that needs a framework the environment lacks is skipped, naming the extra."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
#: the frameworks a block may import, and the extra that brings each
NEEDS = {"langgraph": "langgraph", "langmem": "langgraph", "pydantic_ai": "frameworks",
         "agents": "frameworks"}
#: corollary's own integration modules, and the framework each imports
WRAPS = {"corollary.integrations.langgraph": "langgraph",
         "corollary.integrations.pydantic_ai": "pydantic_ai",
         "corollary.integrations.openai_agents": "agents"}


def test_the_page_has_its_blocks() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_each_block_runs(block: str) -> None:
    for module, extra in NEEDS.items():
        if re.search(rf"^\s*(from|import) {module}\b", block, flags=re.M) and \
                importlib.util.find_spec(module) is None:
            pytest.skip(f"the block needs {module}: corollary[{extra}]")
    for wrapper, module in WRAPS.items():
        if re.search(rf"^\s*(from|import) {re.escape(wrapper)}\b", block, flags=re.M) and \
                importlib.util.find_spec(module) is None:
            pytest.skip(f"the block needs {module}: corollary[{NEEDS[module]}]")
    exec(compile(block, str(DOC), "exec"), {"__name__": "__doc_block__"})  # noqa: S102

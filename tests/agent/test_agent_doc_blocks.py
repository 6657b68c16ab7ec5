"""docs/agent.md's blocks about runs without an answer and about change run as written, and
print what their comments say (``print(x)  # shown`` lines; a comment ending ``...`` is the
start of what is printed)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "agent.md"


def block(marker: str) -> str:
    blocks = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
              if marker in b]
    assert len(blocks) == 1, f"{len(blocks)} blocks of docs/agent.md hold {marker!r}"
    return blocks[0]


def run_and_check(code: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__main__"})  # noqa: S102 - our docs
    printed = out.getvalue().splitlines()
    said = [line.split("  # ", 1)[1] for line in code.splitlines()
            if line.startswith("print(") and "  # " in line]
    assert said, "the block says nothing it prints"
    firsts = [line for line in printed if line]
    at = 0
    for expected in said:  # each comment is the first line of one print's output, in order
        while at < len(firsts) and not _match(firsts[at], expected):
            at += 1
        assert at < len(firsts), f"{expected!r} not printed; printed: {printed}"
        at += 1


def _match(line: str, expected: str) -> bool:
    if expected.endswith("..."):
        return line.startswith(expected[:-3])
    return line == expected


@pytest.mark.parametrize("marker", ["ScriptExhaustedError"])
def test_the_block_runs_and_prints_what_it_says(marker: str) -> None:
    run_and_check(block(marker))


def test_a_block_that_prints_otherwise_fails() -> None:
    with pytest.raises(AssertionError, match="not printed"):
        run_and_check('print("a")  # b\n')
    assert _match("answer = None", "answer ...") and not _match("x", "y")


def test_the_valid_tool_block_runs_and_its_value_holds_from_its_day() -> None:
    from corollary import BeliefBase, ManualClock, PreferNewer

    space: dict = {"__name__": "agent_doc_valid"}
    exec(compile(block("-> Valid:"), str(DOC), "exec"), space)  # noqa: S102 - our own docs
    kb = BeliefBase(clock=ManualClock(1.8e9), conflict_policy=PreferNewer())
    assert kb.call(space["crm"], None, 42) == "Pine Ave"
    [entry] = kb.timeline("customer:42:address")
    assert entry.valid_from == 1740873600.0  # 2025-03-02

"""The README's Python samples run and print what it says they print."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(), flags=re.S)


def run(block: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})  # noqa: S102 - our own README
    return out.getvalue().splitlines()


def test_the_first_screen_runs_an_agent_and_shows_its_real_output():
    first = blocks("python")[0]
    assert "Agent(" in first and "ScriptedModel(" in first
    shown = next(b for b in blocks("text") if b.startswith("ok revenue is growing"))
    assert run(first) == shown.splitlines()
    assert shown.splitlines()[1] == "answer = 'revenue is growing' [IN 0.80]"


def test_the_first_base_sample_runs():
    sample = next(b for b in blocks("python") if "kb = BeliefBase(clock=clock" in b)
    lines = run(sample)
    assert lines[0] == "0.67"
    assert lines[1] == "OUT"
    assert lines[2].startswith("growth = 0.1 [OUT] unsupported")


def test_the_time_and_change_sample_prints_what_it_says():
    sample = next(b for b in blocks("python") if "PreferNewer()" in b)
    shown = next(b for b in blocks("text") if b.startswith("Pine Ave Oak St"))
    assert run(sample) == shown.splitlines()

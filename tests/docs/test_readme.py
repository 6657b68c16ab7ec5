"""The README's Python sample runs and prints what its comments say."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_sample_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has a Python sample"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})  # noqa: S102 - our own README
    lines = out.getvalue().splitlines()
    assert lines[0] == "0.67"
    assert lines[1] == "OUT"
    assert lines[2].startswith("growth = 0.1 [OUT] unsupported")

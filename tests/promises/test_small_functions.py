"""Issue 26, point 8, for promises/: the functions that had grown past a screen are about 80
lines or fewer, and calibrate's options travel as one value (``CalibrationOptions``)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from corollary.foundations.errors import InvalidTypeError
from corollary.promises.guarantee import CalibrationOptions, calibrate

PROMISES = Path(__file__).resolve().parents[2] / "corollary" / "promises"


def _lengths(module: str) -> dict[str, int]:
    tree = ast.parse((PROMISES / module).read_text(encoding="utf-8"))
    return {node.name: node.end_lineno - node.lineno + 1 for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.end_lineno is not None}


@pytest.mark.parametrize(("module", "name", "was"), [
    ("guarantee.py", "calibrate", 136), ("book.py", "replay", 121),
    ("book.py", "guarantee", 104), ("bindings.py", "read_examples", 109)])
def test_the_long_functions_are_about_a_screen(module, name, was):
    assert _lengths(module)[name] <= 85 < was


def test_calibrate_takes_its_options_as_one_value_or_as_keywords():
    s = np.linspace(0, 1, 400)
    right = s > 0.3
    o = CalibrationOptions(max_error=0.1, procedure="fixed_sequence", min_support=20)
    one = calibrate(s, right, options=o)
    assert one.fingerprint == calibrate(s, right, max_error=0.1, procedure="fixed_sequence",
                                        min_support=20).fingerprint
    with pytest.raises(InvalidTypeError, match="not both"):
        calibrate(s, right, options=o, max_error=0.1)
    with pytest.raises(InvalidTypeError, match="unknown options"):
        calibrate(s, right, max_eror=0.1)
    with pytest.raises(InvalidTypeError, match="CalibrationOptions"):
        calibrate(s, right, options={"max_error": 0.1})

"""Small functions in trust/ and storage/ (issue 26, point 8): none is much over 80 lines, the
docstring included (``TrustLedger.route`` was 138 and ``validate_ledger_document`` 98)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "corollary"
LIMIT = 80


@pytest.mark.parametrize("package", ["trust", "storage"])
def test_no_function_is_over_the_limit(package: str) -> None:
    long = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LIMIT:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} "
                                f"({lines} lines)")
    assert long == []

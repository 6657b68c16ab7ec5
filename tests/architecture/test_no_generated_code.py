"""Issue 36: no code made at run time from source text: corollary calls neither ``exec`` nor
``compile`` (a wrapper is a closure; tracebacks and debuggers show its source)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "corollary"


def test_no_module_calls_exec_or_compile() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"exec", "compile"}):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert found == []

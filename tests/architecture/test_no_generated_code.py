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


def test_a_log_is_installed_through_install_log_only() -> None:
    """A declared method read from a plain base is kept in the base's ``__dict__``
    (corollary/facade/operations.py, ``DeclaredMethod``); ``install_log`` drops those, so a
    log set any other way would miss the changes made through them."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "operations.py" and path.parent.name == "facade":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                sets_log = any(isinstance(t, ast.Attribute) and t.attr == "_oplog"
                               for t in targets)
                if sets_log and not (isinstance(node.value, ast.Constant)
                                     and node.value.value is None):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert found == []


def test_no_module_makes_a_class_with_type() -> None:
    """Issue 36, item 3: no class is made at run time (a session is the base's own class with
    a journal, corollary/facade/session.py): no module calls ``type()`` with three arguments.

    One exception, outside the facade: the MCP server's strict argument models
    (corollary/mcp/server.py, ``_strict_arguments``) subclass the argument model the MCP SDK
    generates for each tool, at run time, because the SDK offers no switch to pydantic's strict
    mode; no class of corollary's own is made there."""
    allowed = {"corollary/mcp/server.py"}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "type" and len(node.args) + len(node.keywords) >= 3
                    and str(path.relative_to(PACKAGE.parent)) not in allowed):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert found == []

"""Issue 26, point 8 for the facade: ``BeliefBase`` is about 450 lines (groups of its methods
live in the helper modules it composes), and its long functions are under about 80 lines each.
Before: the class was 592 lines, ``JournaledMethods._jlocked`` (now ``Journal.locked``) 89, ``remember`` 99."""

from __future__ import annotations

import ast
from pathlib import Path

FACADE = Path(__file__).resolve().parents[2] / "corollary" / "facade"


def _sizes(module: str) -> dict[str, int]:
    tree = ast.parse((FACADE / module).read_text(encoding="utf-8"))
    found: dict[str, int] = {}
    for fn in tree.body:  # the base's methods written in a module of their own, bound in its class
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[f"{module[:-3]}.{fn.name}"] = fn.end_lineno - fn.lineno + 1  # type: ignore[operator]
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            found[cls.name] = cls.end_lineno - cls.lineno + 1  # type: ignore[operator]
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[f"{cls.name}.{fn.name}"] = fn.end_lineno - fn.lineno + 1  # type: ignore[operator]
    return found


def test_the_belief_base_class_is_about_450_lines() -> None:
    assert _sizes("base.py")["BeliefBase"] <= 480


def test_the_facade_s_long_functions_are_under_80_lines() -> None:
    checked = {**_sizes("base.py"), **_sizes("journaled.py"), **_sizes("remembering.py"),
               **_sizes("claiming.py"), **_sizes("retracting.py"), **_sizes("assertions.py")}
    for name in ("BeliefBase.__init__", "Journal.locked", "remembering.remember"):
        assert checked[name] <= 80, (name, checked[name])
    long = {name: n for name, n in checked.items() if "." in name and n > 80}
    assert long == {}

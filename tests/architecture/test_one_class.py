"""Issue 36, item 2: ``BeliefBase`` is one class, not mixins over shared private state; its
collaborators are one object (``kb.parts``) whose public attributes the facade's modules use,
and no module of ``corollary/facade`` or ``corollary/changes`` reads another object's
underscore attributes (``kb._engine``, ``base._lookup``, ``entry._blobs``...).

Before: ``BeliefBase`` had ten mixins, each re-declaring the base's state as ``Any``; the facade
read other objects' private attributes about 95 times (journaled.py 39, world.py 13, undo.py
11, saving.py 10, remembering.py 7, base_operations.py 7, erasing.py 4, operations.py 3)."""

from __future__ import annotations

import ast
from pathlib import Path

from corollary import BeliefBase
from corollary.facade.parts import Parts

ROOT = Path(__file__).resolve().parents[2] / "corollary"


def _private_reads(path: Path) -> list[str]:
    """``value._name`` read anywhere in ``path`` where ``value`` is not ``self`` or ``cls``
    (dunders such as ``__class__`` are the language's, not an object's private state)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_the_base_is_one_class() -> None:
    assert BeliefBase.__mro__ == (BeliefBase, object)


def test_the_base_s_collaborators_are_one_object() -> None:
    kb = BeliefBase()
    assert isinstance(kb.parts, Parts)
    assert not [name for name in vars(kb) if name.startswith("_")]


def test_no_module_of_the_facade_or_the_changes_reads_private_state() -> None:
    reads = [read for package in ("facade", "changes")
             for path in sorted((ROOT / package).glob("*.py")) for read in _private_reads(path)]
    assert reads == []

"""The package's layers: every import points down (or sideways within a layer), and none forms a
cycle, counting imports inside functions. Imports under ``if TYPE_CHECKING:`` are annotations,
never executed, and are not counted.

The layers are the package tree (docs: README "Architecture"): each subpackage of ``corollary``
belongs to one layer, bottom up:

0. ``foundations`` (errors, values, clocks, validators, files) and ``evidence`` (the pure
   confidence formulas, safe arithmetic, citation checks);
1. ``tms``: records, kinds of reasons, the engine, conflict policies, proofs; and ``sources``
   (what is known of sources, as data: the trust policy, outcomes and their fold);
2. beside the TMS: ``storage`` (where outcomes, sessions and journals are kept: the one SQL
   schema, a dialect per database, the stores), ``reasons`` (rules and their engine, tools,
   calls, claims, nogoods) and ``retrieval`` (recall's retrievers: the protocol, the lexical
   index, vectors, rank fusion);
3. ``trust`` (the ledger, over a store, and the trust view): above the stores it reads, which
   import only ``sources`` of what a ledger knows (issue 36: the two imported each other);
4. the parts the facade composes that are not the TMS: ``promises`` and ``snapshot``; and
   ``changes``, each change as a value (issue 36: the base's methods build them, so they import
   nothing of the facade), except ``changes.applying`` and the package's own ``__init__`` (which
   hands out ``apply``): those run a value on a base, in the facade's layer;
5. ``facade``: ``BeliefBase`` and its helpers;
6. what uses a base from outside: ``render``, ``models``, ``agent``, and ``serving`` (one base
   served to many callers, which every surface uses);
7. surfaces: ``cli``, ``mcp``, ``ui``, ``integrations`` (agent frameworks in-process) and
   the package root. No surface imports ``cli``, which starts the others (what they share is
   in ``serving``).

Promises and snapshots sit *below* the facade rather than above it: ``kb.answer`` and
``kb.save`` are the facade's own methods, so the facade must import them, and they read the TMS
through its public API and the state the base hands over, never the facade.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "corollary"

LAYERS: dict[int, set[str]] = {
    0: {"foundations", "evidence", "_version"},
    1: {"tms", "sources"},
    2: {"reasons", "storage", "retrieval"},
    3: {"trust"},
    4: {"promises", "snapshot", "changes"},
    5: {"facade"},
    6: {"render", "models", "agent", "serving"},
    7: {"cli", "mcp", "ui", "integrations", "__main__", ""},
}
#: The surfaces (the package root and ``__main__`` aside).
SURFACES = {"cli", "mcp", "ui", "integrations"}
PACKAGE_LAYER = {name: layer for layer, names in LAYERS.items() for name in names}
#: Modules in another layer than their package's: what runs a change value on a base.
MODULE_LAYER = {"changes": 5, "changes.applying": 5}


def layer_of(module: str) -> int | None:
    """The layer of a module: its own (:data:`MODULE_LAYER`), else its top package's."""
    if module in MODULE_LAYER:
        return MODULE_LAYER[module]
    return PACKAGE_LAYER.get(module.split(".")[0])


class _Layers(dict):  # type: ignore[type-arg]
    """``LAYER_OF[module]`` for every module of a placed package."""

    def __contains__(self, module: object) -> bool:
        return isinstance(module, str) and layer_of(module) is not None

    def __getitem__(self, module: str) -> int:
        layer = layer_of(module)
        if layer is None:
            raise KeyError(module)
        return layer

    def get(self, module: str, default: object = None) -> object:  # type: ignore[override]
        layer = layer_of(module)
        return default if layer is None else layer


LAYER_OF = _Layers()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The corollary modules ``path`` imports (anywhere in it, functions included)."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = [p for p in package if p]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_nodes(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("corollary"):
                target = node.module.removeprefix("corollary").removeprefix(".")
            else:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("corollary"):
                    found.add(alias.name.removeprefix("corollary").removeprefix("."))
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(m for m in graph() if m not in LAYER_OF)
    assert unplaced == [], f"put these modules in a layer of tests/architecture/test_layers.py: {unplaced}"


def test_imports_point_down() -> None:
    upward = [(m, t, LAYER_OF[m], LAYER_OF.get(t)) for m, targets in graph().items()
              for t in sorted(targets)
              if m in LAYER_OF and LAYER_OF.get(t, 99) > LAYER_OF[m]]
    assert upward == [], "imports that point up a layer: " + ", ".join(
        f"{m or 'corollary'} (layer {a}) -> {t} (layer {b})" for m, t, a, b in upward)


def test_no_surface_imports_the_command_line() -> None:
    """``mcp`` imported ``cli.opening`` (issue 36): the command line starts the other surfaces
    (``corollary mcp``, ``corollary ui``), never the reverse; what they share is in
    ``serving``."""
    found = sorted((m, t) for m, targets in graph().items() for t in targets
                   if m.split(".")[0] in SURFACES - {"cli"} and t.split(".")[0] == "cli")
    assert found == [], f"a surface imports the command line: {found}"


def test_the_stores_and_the_ledger_do_not_import_each_other() -> None:
    """Issue 36: every store imported ``trust.outcomes``/``trust.policy`` while
    ``trust/ledger.py`` imported five storage modules; the data both need is ``sources``."""
    edges = graph()
    storage_to_trust = sorted((m, t) for m, targets in edges.items() for t in targets
                              if m.startswith("storage") and t.startswith("trust"))
    assert storage_to_trust == []


def test_the_change_values_import_nothing_of_the_facade() -> None:
    """Issue 36: the values imported the facade (their history rows lived there), so a method
    of the base could not build its value without an import cycle."""
    values = {m: t for m, t in graph().items()
              if m.startswith("changes.") and m not in MODULE_LAYER}
    assert {"changes.change", "changes.base_changes", "changes.subjects"} <= set(values)
    found = sorted((m, t) for m, targets in values.items() for t in targets
                   if t == "facade" or t.startswith("facade."))
    assert found == [], f"a change value imports the facade: {found}"


def test_no_import_cycles() -> None:
    edges = graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("source, expected", [
    ("from .tms import Engine\n", {"tms"}),
    ("def f():\n    from ..ledger import TrustLedger\n", {"ledger"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .base import BeliefBase\n",
     set()),
])
def test_the_walker_sees_what_it_should(tmp_path: Path, source: str, expected: set[str]) -> None:
    # a module at corollary/stores/x.py (relative imports resolve from corollary.stores)
    fake_root = tmp_path / "corollary"
    (fake_root / "stores").mkdir(parents=True)
    path = fake_root / "stores" / "x.py"
    path.write_text(source)
    global ROOT
    saved, ROOT = ROOT, fake_root
    try:
        level_fixed = source.replace("from .tms", "from ..tms").replace("from .base", "from ..base")
        path.write_text(level_fixed)
        assert imports_of(path, {"tms", "ledger", "base"}) == expected
    finally:
        ROOT = saved

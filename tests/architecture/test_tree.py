"""The package tree is the layer drawing; the flat layout's module paths are gone.

The README's "Architecture" section lists the subpackages of ``corollary`` layer by layer; the
layer test maps each of them to its layer. A module added flat at the top of the package would
hide where it belongs, so only the package's own entry points live there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from architecture.test_layers import LAYERS, PACKAGE_LAYER

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "corollary"
#: what may sit at the top of the package: entry points, the version, and the pictures (one
#: module of the layer that uses a base from outside)
TOP_LEVEL = {"__init__.py", "__main__.py", "_version.py", "render.py"}


def test_only_entry_points_are_flat() -> None:
    flat = {p.name for p in PACKAGE.glob("*.py")}
    assert flat <= TOP_LEVEL, f"put these modules in a layer package: {sorted(flat - TOP_LEVEL)}"


def test_every_subpackage_has_a_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(PACKAGE_LAYER), sorted(packages - set(PACKAGE_LAYER))
    assert packages | {"", "__main__", "_version", "render", "ui"} >= \
        set().union(*LAYERS.values())


def test_the_readme_draws_the_tree() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    drawing = text[text.index("## Architecture"):]
    drawing = drawing[:drawing.index("\n## ", 3)]
    packages = sorted(p.name for p in PACKAGE.iterdir()
                      if p.is_dir() and (p / "__init__.py").exists())
    missing = [name for name in packages if f"{name}/" not in drawing]
    assert missing == [], f"the README's Architecture section does not show {missing}"


@pytest.mark.parametrize("old", ["corollary.ledger", "corollary.errors", "corollary.base",
                                 "corollary.stores.sqlite", "corollary.facade_queries"])
def test_the_flat_layout_paths_are_gone(old: str) -> None:
    # they moved before any release (issue 26, point 8): no shim keeps them importing
    code = f"import corollary\ntry:\n    import {old}\nexcept ModuleNotFoundError:\n    print('gone')\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "gone"
    assert not (PACKAGE / "_moved.py").exists()

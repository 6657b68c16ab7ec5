"""The package tree is the layer drawing, and the flat layout's module paths still import.

The README's "Architecture" section lists the subpackages of ``corollary`` layer by layer; the
layer test maps each of them to its layer. A module added flat at the top of the package would
hide where it belongs, so only the package's own entry points live there.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from architecture.test_layers import LAYERS, PACKAGE_LAYER

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "corollary"
#: what may sit at the top of the package: entry points, the version, the old-path finder,
#: and the pictures (one module of the layer that uses a base from outside)
TOP_LEVEL = {"__init__.py", "__main__.py", "_version.py", "_moved.py", "render.py"}


def test_only_entry_points_are_flat() -> None:
    flat = {p.name for p in PACKAGE.glob("*.py")}
    assert flat <= TOP_LEVEL, f"put these modules in a layer package: {sorted(flat - TOP_LEVEL)}"


def test_every_subpackage_has_a_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(PACKAGE_LAYER), sorted(packages - set(PACKAGE_LAYER))
    assert packages | {"", "__main__", "_version", "_moved", "render", "ui"} >= \
        set().union(*LAYERS.values())


def test_the_readme_draws_the_tree() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    drawing = text[text.index("## Architecture"):]
    drawing = drawing[:drawing.index("\n## ", 3)]
    packages = sorted(p.name for p in PACKAGE.iterdir()
                      if p.is_dir() and (p / "__init__.py").exists())
    missing = [name for name in packages if f"{name}/" not in drawing]
    assert missing == [], f"the README's Architecture section does not show {missing}"


def test_an_old_path_warns_and_gives_the_same_module() -> None:
    code = (
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "import corollary\n"
        "try:\n"
        "    import corollary.ledger\n"
        "except DeprecationWarning as exc:\n"
        "    print('warned:', exc)\n"
        "warnings.simplefilter('ignore')\n"
        "import corollary.ledger as old, corollary.trust.ledger as new\n"
        "from corollary.stores.sqlite import SQLiteStore\n"
        "from corollary.trust.stores.sqlite import SQLiteStore as Same\n"
        "print(old is new, SQLiteStore is Same)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert "warned: corollary.ledger moved to corollary.trust.ledger" in out
    assert out.strip().endswith("True True")


@pytest.mark.parametrize("old", ["corollary.errors", "corollary.conflicts", "corollary.guarantee",
                                 "corollary.base", "corollary.stores"])
def test_old_paths_reach_the_moved_modules(old: str) -> None:
    from corollary._moved import MOVED

    with pytest.warns(DeprecationWarning, match="moved to"):
        sys.modules.pop(old, None)
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


def test_an_old_path_leaves_the_moved_module_its_own_spec() -> None:
    # the import system sets the spec it found on the module it gets back: the old path's spec
    # on the moved module made each relative import inside its functions an ImportWarning
    code = (
        "import warnings\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        "import corollary.clock, corollary.stores.sqlite\n"
        "import corollary.foundations.clock as clock, corollary.trust.stores as stores\n"
        "warnings.simplefilter('error')\n"
        "clock.ManualClock(0).advance(5)\n"
        "print(clock.__spec__.name, stores.__spec__.name, stores.sqlite.__spec__.name)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    # corollary.trust.stores is itself an old path now: its modules are corollary.storage's
    assert out.stdout.split() == ["corollary.foundations.clock", "corollary.trust.stores",
                                  "corollary.storage.sqlite"]

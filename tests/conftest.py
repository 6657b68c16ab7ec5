"""Shared test set-up: make the test helpers (the ``support`` package) importable.

The tests are laid out like the package (``tests/tms``, ``tests/stores``, ...) and imported with
``--import-mode=importlib``, which puts no test folder on ``sys.path``; this puts ``tests/`` there
so ``support.*`` imports the same way here and in spawned child processes.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

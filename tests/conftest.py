"""Shared test set-up: make the test helpers (the ``support`` package) importable; the ``clock``
fixture.

The tests are laid out like the package (``tests/tms``, ``tests/stores``, ...) and imported with
``--import-mode=importlib``, which puts no test folder on ``sys.path``; this puts ``tests/`` there
so ``support.*`` imports the same way here and in spawned child processes.
"""

import sys
from pathlib import Path

import pytest

from corollary import ManualClock

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def clock() -> ManualClock:
    """A manual clock at t = 1000 s (a module may define its own ``clock`` instead)."""
    return ManualClock(1_000)

"""Shared test set-up: make the test helpers (the oracle) importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

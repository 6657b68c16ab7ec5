"""The agent tests import their shared cases (``agent_cases``), the model tests' loopback server
(``model_server``) and the worked analysis of ``examples/agent_offline.py``."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # agent_cases
sys.path.insert(0, str(HERE.parent / "models"))  # model_server
sys.path.insert(0, str(HERE.parent.parent / "examples"))  # agent_offline: the worked analysis

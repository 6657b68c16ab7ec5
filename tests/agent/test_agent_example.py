"""examples/agent_offline.py runs and prints the spec's numbers (docs/model.md)."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def test_the_offline_agent_example_prints_the_worked_numbers() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLES / "agent_offline.py")], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    without, with_learning = out.split("With learning on")
    assert "claim  trend = 'up' [IN 0.891]" in without
    assert "status ok: trend 0.891, answer 0.802; model:analyst reliability 0.900" in without
    assert "answer = 'revenue is growing' [IN 0.80]\n" in without
    assert "formula (q3 - q2) / q2 by model:analyst, re-executed: reproduced 0.1" in without
    # learning on: the passed formula check lifts model:analyst to 10/11 before it judges
    assert "status ok: trend 0.900, answer 0.818; model:analyst reliability 0.909" in with_learning
    assert "answer = 'revenue is growing' [IN 0.82]\n" in with_learning

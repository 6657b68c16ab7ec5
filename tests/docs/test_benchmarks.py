"""Every script in benchmarks/ at least starts, against this checkout's corollary.

A benchmark is run by hand, so a library change that breaks one went unnoticed until someone
measured (bench_agent's scripted answer was refused once answers had to be supported). Each
script is started with ``--help`` (its imports and argument parser), and the ones named in
``SMOKE`` also run their smallest size, which goes through the library's calls they measure.
A script that needs an optional extra not installed is skipped, naming the extra.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(path.name for path in BENCHMARKS.glob("*.py"))

# The optional extras (import names) a script needs beyond corollary's core dependencies.
EXTRAS = {
    "bench_apply.py": ("langgraph",),
    "bench_guarantee.py": ("mapie", "sklearn"),
    "bench_ltt_split.py": ("mapie", "sklearn"),
}

# The smallest run of a script: a second or two, the same calls as its full size.
SMOKE = {
    "bench_agent.py": ["--beliefs", "20", "--steps", "2", "--runs", "1", "--long", "3",
                       "--sizes", "10"],
    "bench_depends.py": ["--size", "200", "--k", "5", "--replacements", "20", "--repeats", "1"],
    "bench_knock_on.py": ["--costs", "--beliefs", "200", "--dependents", "2", "--replacements",
                          "20", "--repeats", "1"],
}


def start(name: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    missing = [extra for extra in EXTRAS.get(name, ()) if importlib.util.find_spec(extra) is None]
    if missing:
        pytest.skip(f"{name} needs the optional extra(s) {', '.join(missing)}, not installed")
    # The script's own folder comes first on its path, not the checkout: this checkout's
    # corollary is put before any installed one.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, str(BENCHMARKS / name), *arguments], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_benchmark_starts(name):
    done = start(name, "--help")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_the_smallest_size_runs_to_the_end(name):
    done = start(name, *SMOKE[name])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), f"{name} printed nothing"


def test_the_smoke_table_names_scripts_that_exist():
    assert set(SMOKE) | set(EXTRAS) <= set(SCRIPTS)

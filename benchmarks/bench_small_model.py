"""What small-model mode costs, in tokens and seconds, on the loopback fake of llama-cpp-python's
server (tests/support/llama_server.py; issue 39 item 5). Not a measure of quality: the fake's
"model" is a script that knows the answers (benchmarks/real_models/cases.py); it measures what
the requests cost, mode against mode, in one process.

    python benchmarks/bench_small_model.py [--json FILE]

For each mode (``default``: the library's defaults; ``force``: forced answers alone; ``small``:
small-model mode): remember on the 12 snippets and the agent on the 8 tasks, the prompt tokens
the fake counted (four characters a token, the tools of a request counted only when one is
named, as the real server puts them in the prompt only then), the requests, and the seconds;
then each mode's tokens per request as a ratio of the default's.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.llama_server import LlamaLikeServer, Seen  # noqa: E402

from benchmarks.real_models.cases import BELIEFS, SNIPPETS, TASKS  # noqa: E402
from benchmarks.real_models.runner import MODES, run_agent, run_remember  # noqa: E402
from corollary.facade.remember_request import clauses  # noqa: E402
from corollary.models import OpenAIChat  # noqa: E402


def _snippet(text: str) -> tuple[str, str, list[tuple[str, Any]]] | None:
    return next((s for s in SNIPPETS if s[1].replace("'", "&#x27;") in text), None)


def knows_the_answers(seen: Seen) -> dict[str, Any] | str:
    """The fake's model: the facts a person would write down, or the task's answer."""
    snippet = _snippet(seen.text)
    if snippet is not None:
        speaker, text, facts = snippet
        if seen.schema is not None:  # small-model mode: one clause a request, no quote
            part = html.unescape(seen.text).rpartition('The part: "')[2].rstrip('"')
            return {"facts": [{"subject": speaker.split(":")[1], "attribute": attribute,
                               "value": str(value)} for attribute, value in facts
                              if str(value) in part]}
        if seen.tool != "facts":
            return "facts([...])"
        offered = None
        if seen.parameters is not None:
            item = seen.parameters["properties"]["facts"]["items"]["properties"]["quote"]
            offered = item.get("enum")
        made = []
        for attribute, value in facts:
            quotes = offered or clauses(text)
            quote = next((q for q in quotes if str(value) in q), quotes[0])
            made.append({"subject": speaker.split(":")[1], "attribute": attribute,
                         "value": value, "quote": quote})
        return {"facts": made}
    task = next((t for t in TASKS if t[0] in seen.text or t[0].replace("'", "&#x27;")
                 in json.dumps(seen.messages)), None)
    reference = task[1] if task else None
    key = next((k for k, v in BELIEFS.items() if v == reference), "customer:7:email")
    if seen.tool == "fx_rate":  # named for the task that needs it (docs/agent.md, "Named steps")
        return {"currency": "GBP"}
    if seen.tool != "answer":
        return f"{key} = {json.dumps(reference)}"
    assert seen.parameters is not None
    offered = seen.parameters["properties"]["inputs"]["items"]["enum"]
    return {"value": reference, "inputs": [key if key in offered else offered[0]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    server = LlamaLikeServer(knows_the_answers)
    rows: list[dict[str, Any]] = []
    try:
        for mode in MODES:
            for what, run in (("remember", run_remember), ("agent", run_agent)):
                before = len(server.usages)
                started = time.perf_counter()
                model = OpenAIChat(server.url, "fake", api_key="", dialect="llama-cpp-python",
                                   max_retries=0)
                result = run(model, mode)
                used = server.usages[before:]
                result.update(what=what, seconds=round(time.perf_counter() - started, 3),
                              prompt_tokens=sum(u["prompt_tokens"] for u in used),
                              per_request=round(sum(u["prompt_tokens"] for u in used)
                                                / max(1, len(used)), 1))
                rows.append(result)
    finally:
        server.close()
    base = {r["what"]: r for r in rows if r["mode"] == "default"}
    for r in rows:
        r["ratio_per_request"] = round(r["per_request"] / base[r["what"]]["per_request"], 3)
        quality = (f"found {r['found']}/{r['expected']} kept {r['kept']}" if r["what"] == "remember"
                   else f"right {r['right']}/{r['tasks']} ok {r['ok']}")
        print(f"{r['what']:8} {r['mode']:7} requests {r['requests']:3} prompt tokens "
              f"{r['prompt_tokens']:6} ({r['per_request']:7} a request, x{r['ratio_per_request']}"
              f" of default) {r['seconds']:6.3f} s  [{quality}]")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

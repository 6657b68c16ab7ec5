"""Agent runtime benchmark: what the first request costs, the agent's own overhead per step, and
the projection of a large base.

First, the first request the model is sent on a base of customers' e-mail addresses (one belief
each, ``customer:<i>:email``) at 100 / 1k / 10k / 100k beliefs, for the task "What is customer
7's email?": characters and tokens (the recall module's count, about four characters a token)
of its messages, before (``context_budget=None``: every held belief is listed) and after (the
default ``context_budget``: what ``kb.recall`` finds for the task); the system message and the
tool schemas are counted apart, as they are the same at every size.

Then, with 10,000 beliefs in the base (9,000 premises from 50 tools, 1,000 model judgements
over them), it measures

* the agent's overhead per step, excluding the model: runs of ``--steps`` turns (10, the
  default ``max_steps``), each turn one tool call, against a model that answers at once from
  prepared replies; the time spent inside the model's ``complete`` is subtracted. Measured with
  the default ``context_budget`` (the task recalled once per run, the beliefs shown re-read
  each turn), with an empty projector (what a step costs besides the beliefs shown), and with
  ``context_budget=None`` (every turn renders the 10,000 beliefs to find what changed), and
  once for a long run
  (``--long`` turns: each request carries the whole conversation, so a turn's cost grows with
  it). Baseline: the base's own work for the same step, ``kb.call(tool, key, ...)`` and
  ``kb.confidence(key)``, in a plain loop;
* projecting 10,000 beliefs into a prompt (the default rendering, ``key = value [IN 0.89]``
  per line). Baseline: the base's own ``kb.project()`` (a dict of the held values).

Bars: overhead per step ≤ 1 ms (with the default context_budget), projection of 10,000
beliefs ≤ 50 ms; the first request within context_budget tokens plus the system message and
the schemas, at every size.

Usage::

    python benchmarks/bench_agent.py [--beliefs 10000] [--steps 10] [--runs 50] [--long 200]
                                     [--sizes 100,1000,10000,100000]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from typing import Any

from corollary import Agent, BeliefBase, ManualClock, tool
from corollary.facade.recall import count_tokens
from corollary.models import Reply, ScriptedModel, ToolCall

TOOLS = 50


@tool(trust="high", key="obs:{i}", name="bench_observe")
def observe(i: int) -> float:
    """An observation."""
    return i * 1.5


def build(n: int) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0), tools=[observe])
    premises = n - n // 10
    for i in range(premises):
        kb.assert_(f"fact:{i}", i * 0.5, source=f"tool:t{i % TOOLS}")
    for j in range(n // 10):
        kb.claim(f"judgement:{j}", j % 2 == 0, source="model:bench",
                 inputs=[f"fact:{2 * j}", f"fact:{2 * j + 1}"], certainty=0.9)
    assert len(kb) == n
    return kb


class Timed:
    """A model that answers at once from prepared replies, and keeps the time spent in it."""

    def __init__(self, steps: int, offset: int) -> None:
        self.replies = [Reply(None, [ToolCall(f"c{i}", "bench_observe", {"i": offset + i})])
                        for i in range(steps)]
        # An answer must be one a cited belief holds (docs/agent.md, "Supported answers"):
        # the value the first observation holds.
        self.replies.append(Reply(None, [ToolCall("end", "answer", {
            "value": offset * 1.5,
            "inputs": [f"obs:{offset}"]})]))
        self.turn = 0
        self.seconds = 0.0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        start = time.perf_counter()
        reply = self.replies[self.turn]
        self.turn += 1
        self.seconds += time.perf_counter() - start
        return reply


class Recalls:
    """``kb.recall``, timed: the seconds spent in it."""

    def __init__(self, kb: BeliefBase) -> None:
        self.recall = kb.recall
        self.seconds = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.recall(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def agent_step(kb: BeliefBase, steps: int, offset: int, **options: Any) -> tuple[float, float]:
    """Seconds per step of the agent's own work in one run of ``steps`` tool calls and an
    answer (the model's time taken out), and of that, the seconds per step spent in
    ``kb.recall`` (the task's recall at the start of the run)."""
    timed = Timed(steps, offset)
    agent = Agent(timed, kb, tools=[observe], max_steps=steps + 1, **options)
    recalls = Recalls(kb)
    kb.recall = recalls  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        run = agent.run("Observe fact 7 and judgement 3.")
        total = time.perf_counter() - start
    finally:
        del kb.recall
    assert run.status == "ok" and len(run.steps) == steps + 1, (run.status, run.steps[-1:])
    return (total - timed.seconds) / (steps + 1), recalls.seconds / (steps + 1)


def base_step(kb: BeliefBase, steps: int, offset: int) -> float:
    """Seconds per step of the base's own work for one tool call."""
    start = time.perf_counter()
    for i in range(offset, offset + steps):
        kb.call(observe, f"obs:{i}", i)
        kb.confidence(f"obs:{i}")
    return (time.perf_counter() - start) / steps


def emails(n: int) -> BeliefBase:
    """A base of ``n`` customers' e-mail addresses, one belief each, as a CRM tool gave them."""
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_many((f"customer:{i}:email", f"customer{i}@example.com", "tool:crm")
                   for i in range(n))
    return kb


TASK = "What is customer 7's email?"


def first_request(kb: BeliefBase, budget: int | None) -> tuple[list[dict[str, Any]], Any]:
    """The messages and tools of the first request of a run on :data:`TASK`."""
    model = ScriptedModel([Reply(None, [ToolCall("a", "answer", {
        "value": "customer7@example.com", "inputs": ["customer:7:email"]})])])
    run = Agent(model, kb, context_budget=budget).run(TASK)
    assert run.status == "ok", run.status
    return model.requests[0]


def first_requests(sizes: list[int]) -> None:
    default = Agent(ScriptedModel([]), BeliefBase()).context_budget
    print(f"first request on {TASK!r} (messages only; tokens = characters / 4, rounded up):")
    print(f"  {'beliefs':>8}  {'before: chars':>14} {'tokens':>9}  {'after: chars':>13} "
          f"{'tokens':>7}  shows customer:7:email")
    fixed = None
    for n in sizes:
        kb = emails(n)
        row = []
        for budget in (None, default):
            messages, tools = first_request(kb, budget)
            text = json.dumps(messages, ensure_ascii=False)
            row.append((len(text), count_tokens(text)))
            if budget is not None:
                shown = "customer:7:email = " in messages[2]["content"]
                listed = count_tokens(messages[1]["content"] + messages[2]["content"])
                assert listed <= default, (n, listed)
                fixed = (count_tokens(messages[0]["content"]),
                         count_tokens(json.dumps(tools, ensure_ascii=False)))
        print(f"  {n:>8,}  {row[0][0]:>14,} {row[0][1]:>9,}  {row[1][0]:>13,} {row[1][1]:>7,}  "
              f"{shown}")
    assert fixed is not None
    print(f"  the same at every size: the system message {fixed[0]:,} tokens, the built-in "
          f"tools' schemas {fixed[1]:,} tokens; context_budget={default} (task + list)")


def notes(n: int, size: int) -> BeliefBase:
    """A base of ``n`` customers' notes of about ``size`` characters each."""
    kb = BeliefBase(clock=ManualClock(0))
    words = "called about the invoice, asked for a refund, prefers e-mail, renewal due ".split()
    kb.assert_many((f"customer:{i}:note",
                    " ".join(words[(i + j) % len(words)] for j in range(size // 7))[:size],
                    "human:support") for i in range(n))
    return kb


def unbudgeted() -> None:
    """What the default list (the task's 10 best hits, each with its inputs) costs without a
    budget, on three kinds of base: where the default budget binds."""
    from corollary.facade.recall import line_cost

    print("tokens of kb.recall(task, 10, expand=True) without a budget (the lines, heading "
          "excluded):")
    for name, kb, task in (
            ("e-mail addresses, 10,000", emails(10_000), TASK),
            ("judgements over 2 facts, 10,000", build(10_000),
             "What do judgement 3 and judgement 7 rest on?"),
            ("notes of 1,000 characters, 1,000", notes(1_000, 1_000),
             "Which customer asked for a refund?")):
        found = kb.recall(task, 10, expand=True)
        print(f"  {name:>34}: {len(found):>3} beliefs, "
              f"{sum(line_cost(r) for r in found):>6,} tokens")


def median_time(fn: Any, repeat: int) -> float:
    """The median of ``repeat`` timed calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beliefs", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--long", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000,10000,100000")
    args = parser.parse_args()
    n, steps = args.beliefs, args.steps
    print(f"corollary agent benchmarks: {n:,} beliefs; {platform.machine()}, "
          f"Python {platform.python_version()}")
    first_requests([int(size) for size in args.sizes.split(",") if size])
    unbudgeted()

    kb = build(n)
    agent = Agent(Timed(0, 0), kb, tools=[observe], context_budget=None)
    text = agent.beliefs()
    assert text.count("\n") + 1 == n
    project = median_time(agent.beliefs, 20)
    plain = median_time(kb.project, 20)
    print(f"projection of {n:,} beliefs into a prompt: {project * 1e3:.1f} ms (bar <= 50 ms); "
          f"kb.project() {plain * 1e3:.1f} ms -> {project / plain:.1f}x; "
          f"{len(text):,} characters")

    # Every run adds its observations to the same base: offsets keep the keys new.
    offset = 0
    bare, recalled, lean = [], [], []
    for _ in range(args.runs):
        bare.append(base_step(kb, steps, offset))
        offset += steps
        recalled.append(agent_step(kb, steps, offset))
        offset += steps + 1
        lean.append(agent_step(kb, steps, offset, projector=lambda kb: ""))
        offset += steps + 1
    full = []
    for _ in range(max(args.runs // 10, 1)):
        full.append(agent_step(kb, steps, offset, context_budget=None))
        offset += steps + 1
    b = statistics.median(bare)
    r, rr = (statistics.median(x) for x in zip(*recalled, strict=True))
    le, f = (statistics.median(t for t, _ in x) for x in (lean, full))
    print(f"agent overhead per step, model excluded, {steps}-step runs, with the default "
          f"context_budget: {r * 1e3:.3f} ms (bar <= 1 ms); the base's own work for the step "
          f"{b * 1e3:.3f} ms -> {r / b:.1f}x")
    print(f"  of which kb.recall of the task, once a run: {rr * 1e3:.3f} ms per step; the rest "
          f"(the loop, the beliefs shown re-read each turn) {(r - rr) * 1e3:.3f} ms")
    print(f"  with an empty projector (no beliefs shown): {le * 1e3:.3f} ms -> {le / b:.1f}x")
    print(f"  with context_budget=None ({len(kb):,} beliefs rendered every turn to find what "
          f"changed): {f * 1e3:.2f} ms -> {f / b:.0f}x the base's work")
    long, _ = agent_step(kb, args.long, offset, projector=lambda kb: "")
    print(f"  a {args.long}-step run without the projection (each request carries the whole "
          f"conversation): {long * 1e3:.3f} ms per step")


if __name__ == "__main__":
    main()

"""Agent runtime benchmark: the agent's own overhead per step and the projection of a large base.

With 10,000 beliefs in the base (9,000 premises from 50 tools, 1,000 model judgements over
them), it measures

* the agent's overhead per step, excluding the model: runs of ``--steps`` turns (10, the
  default ``max_steps``), each turn one tool call, against a model that answers at once from
  prepared replies; the time spent inside the model's ``complete`` is subtracted. Measured with
  an empty projector (what a step costs besides the projection) and with the default
  projection (every turn renders the 10,000 beliefs into the prompt), and once for a long run
  (``--long`` turns: each request carries the whole conversation, so a turn's cost grows with
  it). Baseline: the base's own work for the same step, ``kb.call(tool, key, ...)`` and
  ``kb.confidence(key)``, in a plain loop;
* projecting 10,000 beliefs into a prompt (the default rendering, ``key = value [IN 0.89]``
  per line). Baseline: the base's own ``kb.project()`` (a dict of the held values).

Bars: overhead per step ≤ 1 ms, projection of 10,000 beliefs ≤ 50 ms.

Usage::

    python benchmarks/bench_agent.py [--beliefs 10000] [--steps 10] [--runs 50] [--long 200]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from typing import Any

from corollary import Agent, BeliefBase, ManualClock, tool
from corollary.models import Reply, ToolCall

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
        self.replies.append(Reply(None, [ToolCall("end", "answer", {
            "value": "done", "inputs": [f"obs:{offset}"]})]))
        self.turn = 0
        self.seconds = 0.0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        start = time.perf_counter()
        reply = self.replies[self.turn]
        self.turn += 1
        self.seconds += time.perf_counter() - start
        return reply


def agent_step(kb: BeliefBase, steps: int, offset: int, **options: Any) -> float:
    """Seconds per step of the agent's own work in one run of ``steps`` tool calls and an
    answer (the model's time taken out)."""
    timed = Timed(steps, offset)
    agent = Agent(timed, kb, tools=[observe], max_steps=steps + 1, **options)
    start = time.perf_counter()
    run = agent.run("Observe.")
    total = time.perf_counter() - start
    assert run.status == "ok" and len(run.steps) == steps + 1, run.status
    return (total - timed.seconds) / (steps + 1)


def base_step(kb: BeliefBase, steps: int, offset: int) -> float:
    """Seconds per step of the base's own work for one tool call."""
    start = time.perf_counter()
    for i in range(offset, offset + steps):
        kb.call(observe, f"obs:{i}", i)
        kb.confidence(f"obs:{i}")
    return (time.perf_counter() - start) / steps


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
    args = parser.parse_args()
    n, steps = args.beliefs, args.steps
    print(f"corollary agent benchmarks: {n:,} beliefs; {platform.machine()}, "
          f"Python {platform.python_version()}")

    kb = build(n)
    agent = Agent(Timed(0, 0), kb, tools=[observe])
    text = agent.beliefs()
    assert text.count("\n") + 1 == n
    project = median_time(agent.beliefs, 20)
    plain = median_time(kb.project, 20)
    print(f"projection of {n:,} beliefs into a prompt: {project * 1e3:.1f} ms (bar <= 50 ms); "
          f"kb.project() {plain * 1e3:.1f} ms -> {project / plain:.1f}x; "
          f"{len(text):,} characters")

    # Every run adds its observations to the same base: offsets keep the keys new.
    offset = 0
    bare, lean = [], []
    for _ in range(args.runs):
        bare.append(base_step(kb, steps, offset))
        offset += steps
        lean.append(agent_step(kb, steps, offset, projector=lambda kb: ""))
        offset += steps + 1
    full = []
    for _ in range(max(args.runs // 10, 1)):
        full.append(agent_step(kb, steps, offset))
        offset += steps + 1
    b, le, f = (statistics.median(x) for x in (bare, lean, full))
    print(f"agent overhead per step, model excluded, {steps}-step runs, without the projection: "
          f"{le * 1e3:.3f} ms (bar <= 1 ms); the base's own work for the step "
          f"{b * 1e3:.3f} ms -> {le / b:.1f}x")
    print(f"  with the default projection of {len(kb):,} beliefs (every turn renders them all): "
          f"{f * 1e3:.2f} ms -> {f / b:.0f}x the base's work")
    long = agent_step(kb, args.long, offset, projector=lambda kb: "")
    print(f"  a {args.long}-step run without the projection (each request carries the whole "
          f"conversation): {long * 1e3:.3f} ms per step")


if __name__ == "__main__":
    main()

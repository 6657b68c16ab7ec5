"""The worked analysis of docs/model.md, run by an Agent: revenue for Q2 and Q3 from a
high-trust tool, growth by a formula the runtime re-executes, then a trend and an answer as the
model's own judgements; every step a belief, and the proof at the end.

The model is a ScriptedModel (its replies written in advance), so this runs offline and gives
the same numbers every time. Swap in OpenAIChat for a real model: examples/agent_local_llm.py.

Run: python examples/agent_offline.py
"""

from corollary import Agent, BeliefBase, ManualClock, Reply, ScriptedModel, ToolCall, tool


@tool(trust="high", key="revenue:{quarter}")
def revenue(quarter: str) -> float:
    """Quarterly revenue in $M, from the filings database.

    Parameters
    ----------
    quarter : str
        The quarter, e.g. Q2.
    """
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


#: What a model would do with the task: fetch, compute, judge, answer.
SCRIPT = [
    Reply(None, [ToolCall("c1", "revenue", {"quarter": "Q2"}),
                 ToolCall("c2", "revenue", {"quarter": "Q3"})]),
    Reply(None, [ToolCall("c3", "claim", {
        "key": "growth", "value": 0.1, "formula": "(q3 - q2) / q2",
        "inputs": {"q2": "revenue:Q2", "q3": "revenue:Q3"}})]),
    Reply(None, [ToolCall("c4", "claim", {"key": "trend", "value": "up", "inputs": ["growth"]})]),
    Reply(None, [ToolCall("c5", "answer", {"value": "revenue is growing",
                                           "inputs": ["revenue:Q3", "trend"]})]),
]


def analyse(learn_from_checks: bool) -> None:
    kb = BeliefBase(clock=ManualClock(0))
    agent = Agent(ScriptedModel(SCRIPT), kb, tools=[revenue], name="analyst",
                  learn_from_checks=learn_from_checks)
    run = agent.run("Is revenue growing? Use the filings for Q2 and Q3.")
    for step in run.steps:
        if step.kind in ("tool", "claim", "answer"):
            print(f"  {step.kind:6} {step.key} = {step.value!r} [{step.label} "
                  f"{step.confidence:.3f}]")
    print(f"  status {run.status}: trend {kb.confidence('trend'):.3f}, answer "
          f"{run.confidence:.3f}; model:analyst reliability {kb.reliability('model:analyst'):.3f}")
    print(run.explain())


if __name__ == "__main__":
    print("With learn_from_checks=False (the numbers of docs/model.md):")
    analyse(learn_from_checks=False)
    print()
    print("With learning on (the default), the formula the runtime re-executed and found right")
    print("is an outcome for model:analyst: its reliability rises from 0.9 to 10/11 before it")
    print("judges, so its judgements are worth more:")
    analyse(learn_from_checks=True)

"""The worked analysis of examples/agent_offline.py, with a real model behind an
OpenAI-compatible server on this machine. Not run by the tests (it needs the server).

Start a server with a model that calls tools, for example one of:

    vllm serve Qwen/Qwen2.5-7B-Instruct --enable-auto-tool-choice --tool-call-parser hermes
    ollama serve & ollama pull qwen2.5:7b            # base URL http://localhost:11434/v1
    llama-server -m qwen2.5-7b-instruct-q4_k_m.gguf --jinja --port 8080

then run (defaults: vLLM's port and model name):

    COROLLARY_BASE_URL=http://localhost:8000/v1 COROLLARY_MODEL=Qwen/Qwen2.5-7B-Instruct \\
        python examples/agent_local_llm.py

A real model decides its own steps, so the numbers depend on what it claims: a formula for the
growth is re-executed (a wrong one is refused and the model told), its judgements carry its
reliability, and with SAMPLES=3 each judgement is asked twice more in fresh conversations.
"""

import os

from corollary import Agent, BeliefBase, OpenAIChat, tool


@tool(trust="high", key="revenue:{quarter}")
def revenue(quarter: str) -> float:
    """Quarterly revenue in $M, from the filings database.

    Parameters
    ----------
    quarter : str
        The quarter: Q2 or Q3.
    """
    return {"Q2": 100.0, "Q3": 110.0}[quarter]


def main() -> None:
    model = OpenAIChat(os.environ.get("COROLLARY_BASE_URL", "http://localhost:8000/v1"),
                       os.environ.get("COROLLARY_MODEL", "Qwen/Qwen2.5-7B-Instruct"),
                       api_key=os.environ.get("COROLLARY_API_KEY", ""),  # "": send no key
                       temperature=0, timeout=120)
    kb = BeliefBase()
    agent = Agent(model, kb, tools=[revenue], name="local",
                  self_consistency=int(os.environ.get("SAMPLES", "1")), max_steps=8)
    run = agent.run("Is revenue growing from Q2 to Q3? Fetch both quarters, claim the growth "
                    "rate with its formula, then answer.")
    for step in run.steps:
        if step.kind == "text":
            what = step.text
        elif step.kind == "sample":
            what = f"{step.key}: {step.value!r} ({'agrees' if step.agreed else 'disagrees'})"
        else:
            what = step.error or f"{step.key} = {step.value!r} [{step.label} {step.confidence:.3f}]"
        print(f"turn {step.turn} {step.kind:7} {step.name or ''}: {what}")
    print(f"\nstatus: {run.status}")
    if run.status != "no answer":
        print(run.explain())


if __name__ == "__main__":
    main()

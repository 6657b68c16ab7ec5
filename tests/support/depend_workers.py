"""Workers of tests/journal/test_depend_processes.py: a journaled session with dependencies and
declared replacements written in one process, its root changed in another (spawned, so they
import here by name)."""

from __future__ import annotations

from typing import Any

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger

SAID = "My inhaler depends on my asthma. If my asthma changes, I will go cycling instead of running."


def write_declarations(target: str) -> None:
    """Ann's condition and routine, a document declaring a dependency and a replacement."""
    with open_ledger(target) as ledger:
        kb = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000),
                                     conflict_policy=PreferNewer())
        kb.assert_("user:condition", "asthma", source="human:ann", valid_from=100)
        kb.assert_("user:exercise", "running", source="human:ann", valid_from=101)
        kb.assert_("doc:said", SAID, source="human:ann", valid_from=102)
        kb.depend("user:medication", "inhaler", on=["user:condition"], source="model:m",
                  citation=("doc:said", "My inhaler depends on my asthma."))
        kb.replace_when("user:exercise", "cycling", changes="user:condition", source="model:m",
                        citation=("doc:said", "If my asthma changes, I will go cycling instead of "
                                              "running."))


def write_remembered(target: str) -> None:
    """The same, said in one message and written by ``kb.remember`` (a scripted model replying
    as a perfect extractor would), with ``depends_on`` and ``if_changes``."""
    from corollary.models import Reply, ScriptedModel, ToolCall

    condition = {"subject": "user", "attribute": "condition"}
    said = [("condition", "asthma", "I have asthma", {}),
            ("exercise", "running", "I go running", {}),
            ("medication", "inhaler", "My inhaler depends on my asthma",
             {"depends_on": [condition]}),
            ("exercise", "cycling", "I will go cycling instead of running", {"if_changes": condition})]
    facts = [{"subject": "user", "attribute": a, "value": v, "quote": q, **more}
             for a, v, q, more in said]
    model = ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": facts})])])
    with open_ledger(target) as ledger:
        kb = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000),
                                     conflict_policy=PreferNewer())
        made = kb.remember("I have asthma. I go running. " + SAID, source="human:ann",
                           model=model, at=102)
        assert not made.refused, made.refused


def read(kb: BeliefBase) -> dict[str, Any]:
    """What the test compares: each key's value and the proofs' words."""
    return {"condition": kb.value("user:condition"), "medication": kb.value("user:medication"),
            "exercise": kb.value("user:exercise"),
            "exercise_proof": str(kb.explain("user:exercise")),
            "medication_proof": str(kb.explain("user:medication", "inhaler"))}


def change_root(target: str, results: Any) -> None:
    """Open the session afresh (a replay in this process), read it, change the root, read."""
    with open_ledger(target) as ledger:
        kb = BeliefBase.open_session(ledger, "ann", clock=ManualClock(1000))
        before = read(kb)
        kb.assert_("user:condition", "none", source="human:ann", valid_from=500)
        results.put({"before": before, "after": read(kb)})

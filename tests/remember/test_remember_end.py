"""Issue 35, item 1 and issue 37, item 2 (the ``ended`` / ``valid_until`` fields): the ``facts``
tool can say that a fact no longer holds. "I no longer work at Acme." ends ``ann:employer``
from the message's time (``kb.end`` on the speaker's word, the quote as its reason); a
``valid_until`` ends it from then; a fact said to have held from one time until another is
claimed for that interval. Before, the tool had no such field and ``ann:employer`` stayed
``Acme``, IN."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from model_server import Answer, Server, completion
from remember_cases import fact, facts

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, PreferNewer, TrustLedger
from corollary.facade.remember_request import FACTS_TOOL, INSTRUCTIONS
from corollary.models import OpenAIChat, ScriptedModel

ACME = fact("Ann", "employer", "Acme", "I work at Acme")
LEFT = fact("Ann", "employer", "Acme", "I no longer work at Acme", ended=True)


def day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=timezone.utc).timestamp()


def prefer_newer() -> BeliefBase:
    return BeliefBase(clock=ManualClock(day(2026, 6, 1)), conflict_policy=PreferNewer())


def test_the_tool_and_the_instructions_name_both_fields_with_an_example() -> None:
    fields = FACTS_TOOL["function"]["parameters"]["properties"]["facts"]["items"]["properties"]
    assert fields["ended"]["type"] == "boolean" and fields["valid_until"]["type"] == "string"
    assert '"ended": true, "valid_until": "2026-03-01"' in INSTRUCTIONS


def test_i_no_longer_work_at_acme_ends_the_employer_from_the_message_s_time() -> None:
    kb = prefer_newer()
    model = ScriptedModel([facts(ACME), facts(LEFT)])
    kb.remember("I work at Acme.", source="human:ann", model=model, at=day(2025, 1, 1))
    (ended,) = kb.remember("I no longer work at Acme.", source="human:ann", model=model,
                           at=day(2026, 3, 1))
    assert (ended.key, ended.value, ended.label, ended.ended) == (
        "ann:employer", "Acme", "OUT", day(2026, 3, 1))
    assert kb.value("ann:employer") is None
    assert kb.at(day(2026, 2, 1)).value("ann:employer") == "Acme"
    assert str(kb.explain("ann:employer")).splitlines()[0] == (
        "ann:employer ended at 2026-03-01 by human:ann ('I no longer work at Acme') [IN 0.99]")
    assert all(r.key != "ann:employer" for r in kb.recall("where does Ann work"))


def test_valid_until_ends_it_from_then() -> None:
    kb = prefer_newer()
    left = fact("Ann", "employer", "Acme", "I left Acme in March", valid_until="2026-03-01")
    model = ScriptedModel([facts(ACME), facts(left)])
    kb.remember("I work at Acme.", source="human:ann", model=model, at=day(2025, 1, 1))
    kb.remember("I left Acme in March.", source="human:ann", model=model, at=day(2026, 5, 1))
    assert kb.value("ann:employer") is None
    assert kb.at(day(2026, 2, 28)).value("ann:employer") == "Acme"
    assert kb.at(day(2026, 3, 2)).value("ann:employer") is None


def test_a_fact_that_held_from_one_time_until_another_is_claimed_for_that_interval() -> None:
    kb = prefer_newer()
    school = fact("Ann", "school", "MIT", "I studied at MIT from 2010 to 2014",
                  valid_from="2010-09-01", valid_until="2014-06-01")
    (r,) = kb.remember("I studied at MIT from 2010 to 2014.", source="human:ann",
                       model=ScriptedModel([facts(school)]), at=day(2012, 1, 1))
    assert (r.key, r.label, r.valid_from, r.ended) == (
        "ann:school", "OUT", day(2010, 9, 1), day(2014, 6, 1))
    assert kb.at(day(2013, 1, 1)).value("ann:school") == "MIT"  # (said in 2012)
    assert kb.value("ann:school") is None


@pytest.mark.parametrize("policy, said, reason, counted", [
    (PreferNewer(), [LEFT], "nothing to end: ann:employer holds no value", False),
    (PreferHigherConfidence(), [ACME, LEFT],
     "ending a fact needs conflict_policy=PreferNewer() or no policy", False),
    (PreferNewer(), [ACME, fact("Ann", "employer", "Acme", "I no longer work at Acme",
                                valid_until="last spring")], "malformed", True),
])
def test_an_end_the_base_cannot_take_is_refused(policy: object, said: list[object], reason: str,
                                                counted: bool) -> None:
    kb = BeliefBase(clock=ManualClock(day(2026, 6, 1)), conflict_policy=policy)  # type: ignore[arg-type]
    replies = [facts(f) for f in said]
    model = ScriptedModel(replies)
    if len(said) == 2:
        kb.remember("I work at Acme.", source="human:ann", model=model, at=day(2025, 1, 1))
    made = kb.remember("I no longer work at Acme.", source="human:ann", model=model,
                       at=day(2026, 3, 1))
    assert list(made) == []
    (refused,) = made.refused
    assert refused.reason.startswith(reason) and refused.counted is counted
    if len(said) == 2:
        assert kb.value("ann:employer") == "Acme"


def test_a_journaled_remember_keeps_the_end_and_replays_it_without_the_model() -> None:
    ledger = TrustLedger()
    clock = ManualClock(day(2026, 6, 1))
    kb = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
    model = ScriptedModel([facts(ACME), facts(LEFT)])
    kb.remember("I work at Acme.", source="human:ann", model=model, at=day(2025, 1, 1))
    kb.remember("I no longer work at Acme.", source="human:ann", model=model, at=day(2026, 3, 1))
    assert [h.operation for h in kb.history("ann:employer")] == ["remember", "remember"]
    other = BeliefBase.open_session(ledger, "s", clock=clock, conflict_policy=PreferNewer())
    assert other.value("ann:employer", "nothing") == "nothing"
    assert other.at(day(2026, 2, 1)).value("ann:employer") == "Acme"


def test_remember_ends_a_fact_over_http(server: Server) -> None:
    for said in (ACME, LEFT):
        arguments = json.dumps({"facts": [said]})
        server.then(Answer(body=completion(None, [{"id": "c1", "type": "function", "function": {
            "name": "facts", "arguments": arguments}}], finish="tool_calls")))
    kb = prefer_newer()
    model = OpenAIChat(server.url, "qwen2.5", backoff_base=0.001, backoff_cap=0.01, api_key="")
    kb.remember("I work at Acme.", source="human:ann", model=model, at=day(2025, 1, 1))
    kb.remember("I no longer work at Acme.", source="human:ann", model=model, at=day(2026, 3, 1))
    assert kb.value("ann:employer") is None
    assert "ended: true" in server.requests[-1].json["messages"][0]["content"]


def test_an_end_that_would_say_the_speaker_s_own_value_never_held_is_refused() -> None:
    kb = prefer_newer()
    kb.assert_("ann:employer", "Acme", source="human:ann", valid_from=day(2026, 3, 1))
    made = kb.remember("I no longer work at Acme.", source="human:ann",
                       model=ScriptedModel([facts(LEFT)]), at=day(2026, 3, 1))
    (refused,) = made.refused
    assert refused.reason == "nothing to end: human:ann said it from that very time"
    assert not refused.counted and kb.value("ann:employer") == "Acme"


def test_corollary_remember_ends_a_fact_in_a_session(tmp_path: Any, server: Server,
                                                     capsys: Any) -> None:
    from corollary import open_ledger
    from corollary.cli import main

    ledger = tmp_path / "ledger.db"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"speaker": "human:ann", "text": "I work at Acme.", "at": 1_735_689_600},
        {"speaker": "human:ann", "text": "I no longer work at Acme.", "at": 1_772_323_200}]),
        encoding="utf-8")
    arguments = json.dumps({"facts": [ACME, LEFT]})
    server.then(Answer(body=completion(None, [{"id": "c1", "type": "function", "function": {
        "name": "facts", "arguments": arguments}}], finish="tool_calls")))
    assert main(["remember", str(chat), "--ledger", str(ledger), "--session", "s",
                 "--model", server.url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(r["key"], r["label"]) for r in out["remembered"]] == [
        ("ann:employer", "OUT"), ("ann:employer", "OUT")], out
    with open_ledger(ledger) as opened:
        kb = BeliefBase.open_session(opened, "s", clock=ManualClock(day(2026, 6, 1)),
                                     conflict_policy=PreferNewer())
        assert kb.value("ann:employer") is None
        assert kb.at(day(2026, 1, 1)).value("ann:employer") == "Acme"


def test_with_no_policy_remember_ends_a_fact_too() -> None:
    kb = BeliefBase(clock=ManualClock(day(2026, 6, 1)))
    model = ScriptedModel([facts(ACME), facts(LEFT)])
    kb.remember("I work at Acme.", source="human:ann", model=model, at=day(2025, 1, 1))
    kb.remember("I no longer work at Acme.", source="human:ann", model=model, at=day(2026, 3, 1))
    assert kb.value("ann:employer") is None
    assert kb.at(day(2026, 2, 1)).value("ann:employer") == "Acme"

"""The agent sees the ripple (issue 37 item 5): when a change makes facts the model was shown
stop holding (a root changed, a dependent went OUT, an end, a forget, a retraction, a
replacement took effect), the next message names each with why, within the context budget.

A scripted model stands in for the model; the world changes between two of its turns. The
causes are read from the engine's reasons (docs/agent.md, "Why a fact no longer holds"), so a
claim with inputs, a rule's firing and a declared replacement ripple alike."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corollary import (
    Agent,
    BeliefBase,
    CorollaryError,
    ManualClock,
    PreferNewer,
    ScriptedModel,
    ScriptExhaustedError,
    TrustLedger,
    TrustPolicy,
    rule,
)
from corollary.facade.recall import count_tokens
from corollary.models import FunctionModel, Reply

CHANGED = "The beliefs shown have changed:\n"
GONE = "no longer held (or below the floor):\n"


def later(kb: BeliefBase) -> None:
    """A minute passes on the base's manual clock (a session's reads through its own)."""
    clock = kb.clock
    getattr(clock, "inner", clock).advance(60)


def health(kb: BeliefBase, clock: ManualClock) -> None:
    """The user's condition, the medication that rests on it, the exercise that rests on the
    medication, a partner and what rests on them, an employer, a routine with a replacement
    declared for when the condition changes, and a note."""
    kb.assert_("user:health_condition", "asthma", source="human:user")
    clock.advance(60)
    kb.claim("user:medication", "Thrynexol", "model:x", ["user:health_condition"])
    kb.claim("user:exercise", "swimming", "model:x", ["user:medication"])
    kb.assert_("user:partner", "James", source="human:user")
    kb.claim("user:anniversary", "May", "model:x", ["user:partner"])
    kb.assert_("user:employer", "Acme", source="human:user")
    kb.claim("user:commute", "train", "model:x", ["user:employer"])
    kb.assert_("user:routine", "running", source="human:user")
    kb.assert_("note:ops", "the ops note", source="human:ops")
    kb.claim("user:plan", "review", "model:x", ["note:ops"])
    clock.advance(60)
    kb.assert_("said:1", "if my condition changes, I will cycle instead", source="human:user")
    kb.claim("user:routine", "cycling", "model:x", ["said:1"],
             unless=[("user:health_condition", "asthma")])


def base() -> BeliefBase:
    clock = ManualClock(1.8e9)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
    health(kb, clock)
    return kb


def scripted(kb: BeliefBase, world: Callable[[], None]
             ) -> tuple[FunctionModel, list[list[dict[str, Any]]]]:
    """A model that replies with text, the world changing (a minute later) after its first
    reply."""
    seen: list[list[dict[str, Any]]] = []

    def reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen.append(json.loads(json.dumps(messages)))
        if len(seen) == 1:
            later(kb)
            world()
        return Reply("hm")

    return FunctionModel(reply), seen


def gone_lines(message: str) -> dict[str, str]:
    """The lines of a change message's last section, ``head: why`` each, by key."""
    assert message.startswith(CHANGED), message
    section = message.split(GONE)[1]
    return {line.split(" = ")[0]: line for line in section.splitlines()}


def ripple(world: Callable[[BeliefBase], None], budget: int | None = None
           ) -> tuple[BeliefBase, list[list[dict[str, Any]]]]:
    kb = base()
    model, seen = scripted(kb, lambda: world(kb))
    Agent(model, kb, max_steps=2, context_budget=budget).run("What do you know about the user?")
    return kb, seen


def test_a_root_changed_the_dependents_shown_are_named_with_why() -> None:
    """The issue's example: the medication rested on the condition, which changed; the
    exercise rested on the medication, which rested on the condition; the routine declared
    for a changed condition took effect."""
    _, seen = ripple(lambda kb: kb.assert_("user:health_condition", "diabetes",
                                           source="human:user"))
    change = seen[1][-1]["content"]
    gone = gone_lines(change)
    assert gone["user:medication"] == ('user:medication = "Thrynexol": it rested on '
                                       "user:health_condition, which changed")
    assert gone["user:exercise"] == ('user:exercise = "swimming": it rested on user:medication, '
                                     "which rested on user:health_condition, which changed")
    assert gone["user:health_condition"].startswith(
        'user:health_condition = "asthma": superseded by "diabetes" (valid ')
    assert gone["user:routine"].startswith('user:routine = "running": superseded by "cycling"')
    assert gone["user:routine"].endswith(", which took effect when user:health_condition changed")
    # the replacement and the new root are held now, marked with what they supersede
    held = change.split(GONE)[0]
    assert 'user:routine = "cycling" [IN 0.89, supersedes "running"' in held
    assert 'user:health_condition = "diabetes" [IN 0.99, supersedes "asthma"' in held
    # what did not rest on the condition is not named
    assert set(gone) == {"user:medication", "user:exercise", "user:health_condition",
                         "user:routine"}


def test_an_end_a_forget_and_a_retraction_ripple_with_their_causes() -> None:
    def world(kb: BeliefBase) -> None:
        kb.end("user:employer", source="human:user", reason="I quit")
        kb.forget("user:partner")
        kb.retract("note:ops", reason="closed")

    _, seen = ripple(world)
    gone = gone_lines(seen[1][-1]["content"])
    assert gone["user:employer"].startswith('user:employer = "Acme": ended ("I quit") (valid ')
    assert gone["user:commute"] == ('user:commute = "train": it rested on user:employer, '
                                    "which ended")
    assert gone["user:partner"] == 'user:partner = "James": forgotten'
    assert gone["user:anniversary"] == ('user:anniversary = "May": it rested on user:partner, '
                                        "which was forgotten")
    assert gone["note:ops"] == 'note:ops = "the ops note": retracted: closed'
    assert gone["user:plan"] == 'user:plan = "review": it rested on note:ops, which was retracted'


def test_a_rules_conclusion_ripples_like_a_claim() -> None:
    """Any reason that names inputs: a rule's conclusion rests on what it read."""
    @rule(output="user:dose", inputs={"m": "user:medication"}, name="test_ripple.dose")
    def dose(m: str) -> str:
        return f"{m} 10mg"

    kb = base()
    kb.add_rule(dose)
    model, seen = scripted(kb, lambda: kb.assert_("user:health_condition", "diabetes",
                                                  source="human:user"))
    Agent(model, kb, max_steps=2, context_budget=None).run("What do you know about the user?")
    gone = gone_lines(seen[1][-1]["content"])
    assert gone["user:dose"] == ('user:dose = "Thrynexol 10mg": it rested on user:medication, '
                                 "which rested on user:health_condition, which changed")


def test_what_the_run_was_told_of_ripples_too() -> None:
    """With a context budget the model is shown the task's recall, then what it fetched: a
    fact it recalled that then goes OUT is named with why."""
    kb = base()
    seen: list[list[dict[str, Any]]] = []

    def reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        seen.append(json.loads(json.dumps(messages)))
        if len(seen) == 1:
            from agent_cases import call, calls
            return calls(call("recall", {"query": "medication"}, "r"))
        if len(seen) == 2:
            later(kb)
            kb.assert_("user:health_condition", "diabetes", source="human:user")
        return Reply("hm")

    Agent(FunctionModel(reply), kb, max_steps=3).run("Which sport suits the user?")
    recalled = json.loads(seen[1][-1]["content"])["beliefs"]
    assert "user:medication" in [b["key"] for b in recalled]
    gone = gone_lines(seen[2][-1]["content"])
    assert gone["user:medication"] == ('user:medication = "Thrynexol": it rested on '
                                       "user:health_condition, which changed")


def test_a_fact_below_the_floor_says_so() -> None:
    kb = BeliefBase(clock=ManualClock(0), policy=TrustPolicy(min_confidence=0.5))
    kb.assert_("hunch", "up", source="model:analyst")

    def world() -> None:
        for _ in range(10):
            kb.record_outcome("model:analyst", False)

    model, seen = scripted(kb, world)
    Agent(model, kb, max_steps=2, context_budget=None).run("What is the hunch?")
    [line] = gone_lines(seen[1][-1]["content"]).values()
    assert line.startswith('hunch = "up": its confidence fell to 0.')
    assert line.endswith(", below the floor 0.5")


def test_the_ripple_stays_within_the_context_budget() -> None:
    """A change that ripples to many facts shown: the message names as many as the budget
    holds, then says how many more; without a budget (every belief listed) it names all."""
    from agent_cases import call, calls

    def team() -> BeliefBase:
        kb = BeliefBase(clock=ManualClock(1.8e9), conflict_policy=PreferNewer())
        kb.assert_("team:lead", "Seokjin Kang", source="human:user")
        later(kb)
        for i in range(60):
            kb.claim(f"team:assignment:{i}", f"person {i}", "model:x", ["team:lead"])
        return kb

    def run(budget: int | None) -> str:
        kb = team()
        seen: list[list[dict[str, Any]]] = []

        def reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
            seen.append(json.loads(json.dumps(messages)))
            if len(seen) == 1:
                return calls(call("recall", {"query": "team assignment", "k": 50}, "r"))
            if len(seen) == 2:
                later(kb)
                kb.assert_("team:lead", "Jihoon Ryu", source="human:user")
            return Reply("hm")

        Agent(FunctionModel(reply), kb, max_steps=3, context_budget=budget).run("Who does what?")
        return str(seen[2][-1]["content"])

    everything = run(None).split(GONE)[1].splitlines()
    assert sum("it rested on team:lead, which changed" in line for line in everything) == 60
    budget = 300
    lines = run(budget).split(GONE)[1].splitlines()
    named = [line for line in lines if line.endswith("it rested on team:lead, which changed")]
    assert 0 < len(named) < 50
    more = lines[-1]
    assert more.startswith("and ") and more.endswith(
        " more (over the context budget: recall shows what holds)")
    assert sum(count_tokens(line) for line in lines[:-1]) <= budget
    assert len(lines) - 1 + int(more.split()[1]) >= 50  # every line shown that went is counted


def test_the_run_stops_following_the_feed_when_it_ends() -> None:
    """The run's subscription to the change feed ends with it: the engine stops noting
    labels, whether the run answered or its model failed."""
    kb = base()
    model, _ = scripted(kb, lambda: None)
    Agent(model, kb, max_steps=2).run("What do you know about the user?")
    assert kb.engine.settled is None and kb.engine.feed.subscriptions == ()
    with pytest.raises(ScriptExhaustedError):
        Agent(ScriptedModel([Reply("hm")]), kb, max_steps=3).run("And now?")
    assert kb.engine.settled is None and kb.engine.feed.subscriptions == ()


def test_a_journaled_session_ripples_the_same() -> None:
    """An agent over a journaled session: the session's own watch and the run's follow the
    same feed; the ripple is named as on a plain base."""
    ledger = TrustLedger()
    clock = ManualClock(1.8e9)
    kb = BeliefBase.open_session(ledger, "health", clock=clock, conflict_policy=PreferNewer())
    health(kb, clock)
    model, seen = scripted(kb, lambda: kb.assert_("user:health_condition", "diabetes",
                                                  source="human:user"))
    Agent(model, kb, max_steps=2, context_budget=None).run("What do you know about the user?")
    gone = gone_lines(seen[1][-1]["content"])
    assert gone["user:medication"].endswith("it rested on user:health_condition, which changed")


def test_gone_reason_reads_the_engine_not_the_operation() -> None:
    """The cause of a belief still IN is None (nothing to say); of one whose input was
    retracted, that retraction, read from the reasons it had when it was shown."""
    from corollary.agent.ripple import gone_reason

    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 1, source="human:ann")
    kb.claim("b", 2, "model:x", ["a"])
    b = kb.engine.find("b", 2)
    assert gone_reason(kb, b) is None
    kb.retract("a")
    assert gone_reason(kb, b, b.justs) == "it rested on a, which was retracted"


def test_facts_remembered_with_their_dependencies_ripple() -> None:
    """The issue's scenario through kb.remember (issue 37 item 2's fields, a perfect extractor
    scripted): the medication said to depend on the condition, a routine declared for when
    the condition changes, and a pharmacy that kb.depend rests on the medication. When the
    condition changes, the next message names each with why."""
    from corollary.models import ScriptedModel, ToolCall

    clock = ManualClock(1.8e9)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())

    def remember(text: str, *facts: dict[str, Any]) -> None:
        clock.advance(60)
        said = kb.remember(text, source="human:user", model=ScriptedModel(
            [Reply(None, [ToolCall("f", "facts", {"facts": list(facts)})])]))
        assert said.refused == ()

    condition = {"subject": "user", "attribute": "health_condition"}
    remember("I have asthma.", {**condition, "value": "asthma", "quote": "I have asthma"})
    remember("My medication is Thrynexol because of my condition. I go running. If my "
             "condition changes, I will go cycling instead.",
             {"subject": "user", "attribute": "medication", "value": "Thrynexol",
              "quote": "My medication is Thrynexol because of my condition.",
              "depends_on": [condition]},
             {"subject": "user", "attribute": "exercise_routine", "value": "running",
              "quote": "I go running."},
             {"subject": "user", "attribute": "exercise_routine", "value": "cycling",
              "quote": "If my condition changes, I will go cycling instead.",
              "if_changes": condition})
    kb.depend("user:pharmacy", "Boots", on=["user:medication"], source="model:x")
    model, seen = scripted(kb, lambda: remember(
        "I now have diabetes.", {**condition, "value": "diabetes", "quote": "I now have diabetes"}))
    Agent(model, kb, max_steps=2, context_budget=None).run("What do you know about the user?")
    gone = gone_lines(seen[1][-1]["content"])
    assert gone["user:medication"] == ('user:medication = "Thrynexol": it rested on '
                                       "user:health_condition, which changed")
    assert gone["user:pharmacy"] == ('user:pharmacy = "Boots": it rested on user:medication, '
                                     "which rested on user:health_condition, which changed")
    assert gone["user:exercise_routine"].startswith(
        'user:exercise_routine = "running": superseded by "cycling"')
    assert gone["user:exercise_routine"].endswith(
        ", which took effect when user:health_condition changed")


# -- over random changes: every cause named is what the base holds then -----------------------
_EVENTS = st.lists(st.tuples(st.sampled_from(["change", "end", "retract", "forget",
                                              "forget_dependent", "retract_dependent"]),
                             st.integers(0, 2)), min_size=1, max_size=4)


def _split(line: str) -> tuple[str, Any, str]:
    """``key = value: why`` as its parts (the value is JSON, which may hold ': ')."""
    key, rest = line.split(" = ", 1)
    value, end = json.JSONDecoder().raw_decode(rest)
    assert rest[end:end + 2] == ": ", line
    return key, value, rest[end + 2:]


def _check_input(kb: BeliefBase, key: str, why: str, was: dict[str, Any]) -> None:
    """What a clause ``key, which <why>`` says of an input is so now."""
    held = [b for b in kb.engine.values_of(key) if kb.label(b.key, b.value) == "IN"]
    old = was.get(key)
    if why.startswith("changed"):
        assert [b.value for b in held] and old not in [b.value for b in held], (key, why)
    elif why.startswith("ended"):  # nothing but the end holds
        assert all("$ended" in str(b.value) for b in held), (key, why)
    elif why.startswith("was forgotten"):
        assert old is None or all(b.value != old for b in kb.engine.values_of(key)), (key, why)
    elif why.startswith("was retracted"):
        found = kb.engine.find(key, old)
        assert found is not None and found.withdrawn is not None, (key, why)
    elif why.startswith("rested on "):
        inner = why[len("rested on "):]
        _check_input(kb, inner.split(", which ", 1)[0], inner.split(", which ", 1)[1], was)
    else:
        assert why.startswith("no longer holds"), (key, why)


@settings(max_examples=30, deadline=None)
@given(events=_EVENTS, newer=st.booleans())
def test_over_random_changes_every_cause_named_is_so(events: list[tuple[str, int]],
                                                     newer: bool) -> None:
    """Three roots, a claim resting on each, a dependency resting on that claim: random
    changes, ends, retractions and forgets between two of the model's turns. Every line the
    model was shown that went is named with a cause, and each cause is what the base holds
    then (read afresh): a forgotten value is gone, a retracted one withdrawn, a root said to
    have changed holds another value, one said to have ended holds none. Under PreferNewer
    and under no policy (where an end wins by the same rule, and two values stay open)."""
    clock = ManualClock(1.8e9)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer() if newer else None)
    was: dict[str, Any] = {}
    for k in range(3):
        kb.assert_(f"root:{k}", f"r{k}", source="human:user")
        was[f"root:{k}"] = f"r{k}"
    clock.advance(60)
    for k in range(3):
        kb.claim(f"mid:{k}", f"m{k}", "model:x", [f"root:{k}"])
        kb.depend(f"leaf:{k}", f"l{k}", on=[f"mid:{k}"], source="model:x")
        was[f"mid:{k}"], was[f"leaf:{k}"] = f"m{k}", f"l{k}"

    def world() -> None:
        for n, (kind, k) in enumerate(events):
            clock.advance(60)
            root, mid = f"root:{k}", f"mid:{k}"
            with contextlib.suppress(CorollaryError):  # e.g. an end of a contested key
                if kind == "change" and kb.engine.values_of(root):
                    kb.assert_(root, f"r{k}.{n}", source="human:user")
                elif kind == "end" and kb.value(root, None) is not None:
                    kb.end(root, source="human:user", reason="over")
                elif kind == "retract" and kb.value(root, None) is not None:
                    kb.retract(root)
                elif kind == "forget" and kb.engine.values_of(root):
                    kb.forget(root)
                elif kind == "forget_dependent" and kb.engine.values_of(mid):
                    kb.forget(mid)
                elif kind == "retract_dependent" and kb.value(mid, None) is not None:
                    kb.retract(mid)

    model, seen = scripted(kb, world)
    Agent(model, kb, max_steps=2, context_budget=None).run("What holds?")
    if len(seen) < 2 or not seen[1][-1]["content"].startswith(CHANGED):
        return
    message = seen[1][-1]["content"]
    if GONE not in message:
        return
    for line in message.split(GONE)[1].splitlines():
        key, value, why = _split(line)
        assert why, line  # every line that went says why
        found = kb.engine.find(key, value)
        if why == "forgotten":
            assert found is None, line
        elif why.startswith("retracted"):
            assert found is not None and found.withdrawn is not None, line
        elif why.startswith("superseded by "):
            newer = json.JSONDecoder().raw_decode(why[len("superseded by "):])[0]
            assert [(e.status, e.superseded_by) for e in kb.timeline(key)
                    if e.value == value] == [("superseded", newer)], line
            assert kb.label(key, value) == "OUT", line
        elif why.startswith("replaced by "):  # its source said another value instead
            assert found is not None and not found.evidence and not found.justs, line
            rest = why[len("replaced by "):]
            held = [b.value for b in kb.engine.values_of(key)
                    if kb.label(b.key, b.value) == "IN"]
            assert any("$ended" in str(v) for v in held) if rest.startswith("the end") else \
                json.JSONDecoder().raw_decode(rest)[0] in held, line
        elif why == "nothing supports it any more":
            assert found is not None and not found.evidence and kb.label(key, value) == "OUT", line
        elif why.startswith("lost to the end"):  # no time policy: the end won
            assert any(kb.label(b.key, b.value) == "IN" and "$ended" in str(b.value)
                       for b in kb.engine.values_of(key)), line
        elif why.startswith("lost to "):
            rival = json.JSONDecoder().raw_decode(why[len("lost to "):])[0]
            assert kb.label(key, rival) == "IN", line
        elif why.startswith("ended"):  # an end took its place (a value may follow since)
            [entry] = [e for e in kb.timeline(key) if e.value == value]
            assert entry.status == "superseded" and "$ended" in entry.superseded_by, line
        else:
            assert why.startswith("it rested on "), line
            clause = why[len("it rested on "):]
            for part in clause.split(", and on "):
                name, said = part.split(", which ", 1)
                _check_input(kb, name, said, was)


def test_a_value_after_an_end_is_marked_as_superseding_the_end() -> None:
    """A key ended, then given a value again: the new value's line says it supersedes the end,
    with its reason, not the end's reserved marker."""
    def world(kb: BeliefBase) -> None:
        kb.end("user:employer", source="human:user", reason="I quit")
        later(kb)
        kb.assert_("user:employer", "Globex", source="human:user")

    _, seen = ripple(world)
    change = seen[1][-1]["content"]
    assert 'user:employer = "Globex" [IN 0.99, supersedes the end ("I quit") (valid ' in change
    assert "$ended" not in change


def test_without_a_time_policy_an_end_ripples_too() -> None:
    """No conflict policy: an end wins against the value by the same rule; the value is named
    as lost to the end, and what rested on it as resting on a fact that ended."""
    clock = ManualClock(1.8e9)
    kb = BeliefBase(clock=clock, conflict_policy=None)
    kb.assert_("user:employer", "Acme", source="human:user")
    kb.claim("user:commute", "train", "model:x", ["user:employer"])
    model, seen = scripted(kb, lambda: kb.end("user:employer", source="human:user",
                                              reason="I quit"))
    Agent(model, kb, max_steps=2, context_budget=None).run("What do you know about the user?")
    gone = gone_lines(seen[1][-1]["content"])
    assert gone == {"user:employer": 'user:employer = "Acme": lost to the end ("I quit")',
                    "user:commute": 'user:commute = "train": it rested on user:employer, '
                                    "which ended"}

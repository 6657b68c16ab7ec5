"""kb.what_to_check(key, n): the stale premises under a belief, ranked by the exact gain of
refreshing each (freshness back to 1, valid again) through the chain rule, noisy-OR, conflicts,
exceptions and nogoods; checked against hand-computed numbers and real refreshes, and never
changing the base. The random property is in test_what_to_check_property.py."""

from __future__ import annotations

import math

import pytest
from agent_cases import state
from support.snapshot_cases import T0, build, rich_base, shared_base, shared_ledger

from corollary import (
    AmbiguousValueError,
    BeliefBase,
    Check,
    InvalidInputError,
    ManualClock,
    PreferHigherConfidence,
    PreferSource,
    UnknownBeliefError,
)
from corollary.facade.sensitivity import whatif_confidence


def at(**options: object) -> tuple[BeliefBase, ManualClock]:
    clock = ManualClock(0)
    return BeliefBase(clock=clock, learn_from_checks=False, **options), clock  # type: ignore[arg-type]


def test_the_chain_rule() -> None:
    kb, clock = at()
    kb.assert_("price", 101.5, source="tool:quote", half_life=60)   # 0.95, halves each minute
    kb.assert_("budget", 120.0, source="human:cfo")                  # 0.99, never fades
    kb.claim("cheap", True, source="model:m", inputs=["price", "budget"], certainty=0.8)
    clock.advance(60)
    now = kb.confidence("cheap")
    assert now == pytest.approx(0.9 * 0.8 * 0.475, abs=1e-15)
    checks = kb.what_to_check("cheap")
    assert checks == [Check("price", 101.5, "tool:quote", gain=checks[0].gain,
                            needed=checks[0].needed, confidence=0.475, expired=False)]
    assert checks[0].gain == pytest.approx(0.9 * 0.8 * 0.95 - 0.9 * 0.8 * 0.475, abs=1e-15)
    assert checks[0].needed == pytest.approx(checks[0].gain, abs=1e-15)  # the only stale one


def test_the_weakest_link_alone_gains() -> None:
    kb, clock = at()
    kb.assert_("a", 1, source="tool:fast", half_life=60)      # 0.95 -> 0.2375 at 2 min
    kb.assert_("b", 2, source="tool:slow", half_life=240)     # 0.95 -> 0.6718 at 2 min
    kb.claim("sum", 3, source="model:m", inputs={"a": "a", "b": "b"}, formula="a + b")
    clock.advance(120)
    a, b = 0.95 * 2 ** -2, 0.95 * 2 ** -0.5
    assert kb.confidence("sum") == pytest.approx(a, abs=1e-15)
    first, second = kb.what_to_check("sum")
    assert (first.key, second.key) == ("a", "b")
    assert first.gain == pytest.approx(min(0.95, b) - a, abs=1e-15)    # b becomes the weakest
    assert second.gain == 0.0                                          # a is still the weakest
    assert first.needed == pytest.approx(0.95 - a, abs=1e-15)    # b fresh too: a alone limits
    assert second.needed == pytest.approx(0.95 - b, abs=1e-15)


def test_noisy_or_across_origins() -> None:
    kb, clock = at()
    kb.assert_("hq", "Austin", source="tool:registry", half_life=60)    # 0.95 -> 0.475
    kb.assert_("hq", "Austin", source="document:10-K", half_life=120)   # 0.90 -> 0.6364
    clock.advance(60)
    # the agreement confirmed both (one right outcome each): reliabilities are 10.5/11 and 10/11
    t, d = (10 * 0.95 + 1) / 11 / 2, (10 * 0.9 + 1) / 11 * 2 ** -0.5
    assert kb.confidence("hq") == pytest.approx(1 - (1 - t) * (1 - d), abs=1e-12)
    registry, document = kb.what_to_check("hq")
    base = 1 - (1 - t) * (1 - d)
    assert registry.source == "tool:registry" and document.source == "document:10-K"
    assert registry.gain == pytest.approx(1 - (1 - 2 * t) * (1 - d) - base, abs=1e-12)
    assert document.gain == pytest.approx(1 - (1 - t) * (1 - d * 2 ** 0.5) - base, abs=1e-12)
    assert registry.gain > document.gain


def test_an_expired_premise_brings_its_conclusions_back() -> None:
    kb, clock = at()
    kb.assert_("rate", 0.05, source="tool:ecb", ttl=60)
    kb.assert_("loan", 1000.0, source="human:me")
    kb.claim("interest", 50.0, source="model:m", inputs={"r": "rate", "l": "loan"},
             formula="r * l")
    clock.advance(60)
    assert kb.label("interest") == "OUT"
    (check,) = kb.what_to_check("interest")  # an OUT belief is ranked too: what brings it back
    assert (check.key, check.expired, check.confidence) == ("rate", True, 0.0)
    assert check.gain == pytest.approx(0.95, abs=1e-15)  # min(0.95, 0.99) × step 1


def test_two_needed_premises_each_gain_nothing_alone_but_are_needed() -> None:
    kb, clock = at()
    kb.assert_("q2", 100.0, source="tool:filings", ttl=60)
    kb.assert_("q3", 110.0, source="tool:filings", ttl=60)
    kb.assert_("note", "x", source="tool:news", half_life=60)
    kb.claim("growth", 0.1, source="model:m", inputs={"q2": "q2", "q3": "q3"},
             formula="(q3 - q2) / q2")
    kb.claim("story", "up", source="model:m", inputs=["growth", "note"])
    clock.advance(60)
    checks = kb.what_to_check("story", limit=None)
    assert [(c.key, c.gain) for c in checks] == [("q2", 0.0), ("q3", 0.0), ("note", 0.0)]
    assert checks[0].needed == pytest.approx(0.9 * 0.95, abs=1e-15)
    assert checks[2].needed == pytest.approx(0.9 * 0.95 - 0.9 * 0.475, abs=1e-15)
    assert kb.what_to_check("story", limit=1) == checks[:1]


def test_a_refresh_can_win_a_conflict() -> None:
    kb, clock = at(conflict_policy=PreferHigherConfidence())
    kb.assert_("ceo", "Bob", source="tool:crm", half_life=60)     # 0.95
    kb.claim("bonus", "Bob's", source="model:m", inputs=["ceo"])  # read while Bob held
    kb.assert_("ceo", "Alice", source="document:memo")            # 0.9: Bob still wins
    assert kb.value("ceo") == "Bob"
    clock.advance(60)                                             # Bob 0.475: Alice wins
    assert kb.value("ceo") == "Alice" and kb.label("bonus") == "OUT"
    (check,) = kb.what_to_check("bonus")
    assert (check.key, check.value) == ("ceo", "Bob")
    assert check.gain == pytest.approx(0.9 * 0.95, abs=1e-15)     # Bob back at 0.95 wins


def test_a_refresh_under_a_source_ranking() -> None:
    kb, clock = at(conflict_policy=PreferSource(["tool"]))
    kb.assert_("ceo", "Bob", source="tool:crm", ttl=60)
    kb.claim("bonus", "Bob's", source="model:m", inputs=["ceo"])
    kb.assert_("ceo", "Alice", source="document:memo")
    clock.advance(60)  # Bob's premise expires: Alice holds now
    assert kb.value("ceo") == "Alice" and kb.confidence("bonus") == 0.0
    (check,) = kb.what_to_check("bonus")
    assert check.expired and check.gain == pytest.approx(0.9 * 0.95, abs=1e-15)  # Bob ranks first


def test_a_refresh_that_changes_nothing_is_not_listed() -> None:
    # the documents rank first: Bob's premise refreshed would still lose to Alice's
    kb, clock = at(conflict_policy=PreferSource(["document"]))
    kb.assert_("ceo", "Bob", source="tool:crm", ttl=60)
    kb.claim("bonus", "Bob's", source="model:m", inputs=["ceo"])
    kb.assert_("ceo", "Alice", source="document:memo")
    clock.advance(60)
    assert kb.value("ceo") == "Alice" and kb.confidence("bonus") == 0.0
    assert kb.what_to_check("bonus") == []
    bob = kb.parts.engine.find("ceo", "Bob")
    (premise,) = bob.premises
    assert whatif_confidence(kb.parts.engine, kb.parts.engine.find("bonus", "Bob's"), kb.now(),
                             [(bob, premise)]) == 0.0


def test_an_exception_that_holds_keeps_the_belief_out() -> None:
    kb, clock = at()
    kb.assert_("x", 1, source="tool:feed", half_life=60)
    kb.assert_("closure", True, source="human:ops")
    kb.claim("y", 2, source="model:m", inputs=["x"], unless=["closure"])
    clock.advance(60)
    assert (kb.label("y"), kb.confidence("y")) == ("OUT", 0.0)
    y = kb.parts.engine.find("y", 2)
    assert whatif_confidence(kb.parts.engine, y, kb.now()) == 0.0
    assert kb.what_to_check("y") == []  # refreshing x cannot bring y back while closure holds
    kb.retract("closure")
    (check,) = kb.what_to_check("y")
    assert check.key == "x"
    assert check.gain == pytest.approx(0.9 * 0.95 - kb.confidence("y"), abs=1e-15)


def test_a_nogood_loser_stays_out() -> None:
    kb, clock = at(conflict_policy=PreferHigherConfidence())
    kb.assert_("a", 1, source="human:ops")                 # 0.99
    kb.assert_("b", 1, source="tool:feed", half_life=60)   # 0.95, fading
    kb.claim("c", 2, source="model:m", inputs=["b"])
    kb.nogood("a", "b")                                    # b gives way to a
    clock.advance(60)
    b = kb.parts.engine.find("b", 1)
    assert (kb.label("b"), kb.confidence("b")) == ("OUT", 0.0)
    assert whatif_confidence(kb.parts.engine, b, kb.now()) == 0.0
    assert kb.what_to_check("b") == [] and kb.what_to_check("c") == []
    (premise,) = b.premises
    assert whatif_confidence(kb.parts.engine, b, kb.now(), [(b, premise)]) == 0.0  # 0.95 < 0.99


def test_a_refresh_can_defeat_what_the_belief_rests_on() -> None:
    # f reads a and b; e, checked from b, cannot hold with a: refreshing b lifts e above a,
    # a gives way, and f goes OUT: a negative gain, as a real refresh then shows
    kb, clock = at(conflict_policy=PreferHigherConfidence())
    kb.assert_("a", 1, source="tool:feed")                   # 0.95
    kb.assert_("b", 1, source="human:desk", half_life=60)    # 0.99, halves each minute
    kb.claim("e", 2, source="model:m", inputs={"x": "b"}, formula="x + 1")
    kb.claim("f", 3, source="model:m", inputs=["a", "b"])
    kb.nogood("a", "e")
    clock.advance(60)                                        # b 0.495: e gives way to a
    assert (kb.label("e"), kb.label("f")) == ("OUT", "IN")
    before = kb.confidence("f")
    assert before == pytest.approx(0.9 * 0.495, abs=1e-15)
    (check,) = kb.what_to_check("f")
    assert (check.key, check.gain, check.needed) == ("b", -before, -before)
    kb.assert_("b", 1, source="human:desk", half_life=60)    # the refresh itself
    assert (kb.label("a"), kb.label("f"), kb.confidence("f")) == ("OUT", "OUT", 0.0)


def test_the_baseline_is_the_bases_own_number_everywhere() -> None:
    clock = ManualClock(T0)
    bases = [build(clock), rich_base(ManualClock(T0)),
             shared_base(ManualClock(T0), shared_ledger(ManualClock(T0)))]
    compared = 0
    for kb in bases:
        for step in (0.0, 30.0, 600.0):
            kb.clock.advance(step)  # type: ignore[attr-defined]
            kb.refresh()
            now = kb.now()
            for b in list(kb.parts.engine.beliefs()):
                expected = kb.confidence(b.key, b.value)
                assert whatif_confidence(kb.parts.engine, b, now) == expected, (b.key, b.value)
                compared += 1
    assert compared == 3 * sum(len(kb) for kb in bases) == 156


def test_what_to_check_never_changes_the_base() -> None:
    kb = rich_base(ManualClock(T0))
    kb.clock.advance(45)  # type: ignore[attr-defined]
    before = state(kb)
    labels = [(b.key, b.value, kb.label(b.key, b.value), kb.confidence(b.key, b.value))
              for b in list(kb.parts.engine.beliefs())]
    ranked = 0
    for key in sorted({b.key for b in kb.parts.engine.beliefs()}):
        try:
            ranked += len(kb.what_to_check(key, limit=None))
        except AmbiguousValueError:
            pass
    assert ranked > 0
    assert state(kb) == before
    assert labels == [(b.key, b.value, kb.label(b.key, b.value), kb.confidence(b.key, b.value))
                      for b in list(kb.parts.engine.beliefs())]


def test_bad_questions() -> None:
    kb, _ = at()
    kb.assert_("x", 1, source="human:me")
    assert kb.what_to_check("x") == []  # nothing stale
    with pytest.raises(UnknownBeliefError):
        kb.what_to_check("nowhere")
    with pytest.raises(InvalidInputError):
        kb.what_to_check("x", limit=0)
    kb.assert_("x", 2, source="tool:other")
    with pytest.raises(AmbiguousValueError):
        kb.what_to_check("x")
    assert not math.isnan(kb.confidence("x", 1))


def test_under_prefer_newer_a_refresh_keeps_the_start_the_value_was_first_seen_from() -> None:
    """A superseded value renewed by its source keeps the start it was first seen holding from
    (a stale re-read must not look newer): the what-if says so as the real refresh does."""
    from corollary import PreferNewer

    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferNewer())
    kb.assert_("b", 0, source="human:ann", ttl=60)
    clock.advance(1)
    kb.assert_("b", 1, source="human:ann")
    clock.advance(45)
    old = kb.parts.engine.find("b", 0)
    assert old is not None and kb.label("b", 0) == "OUT"
    premise = old.premise_from("human:ann")
    predicted = whatif_confidence(kb.parts.engine, old, kb.now(), [(old, premise)])
    kb.assert_("b", 0, source="human:ann", ttl=60)
    assert predicted == kb.confidence("b", 0) == 0.0  # still superseded by b = 1

"""A new kind of reason is one StepKind subclass in one file (this one), registered with
``corollary.tms.register``: a rule made with ``kind=`` adds reasons of that kind, the sweep asks
the kind for their step, the proof prints the kind's line, and a snapshot saves the kind by name
and reads it back (refused, naming the kind, where it is not registered). No corollary module
names it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, rule
from corollary.foundations.errors import InvalidInputError, SnapshotError
from corollary.reasons.rules import Rule
from corollary.tms import KINDS, MODEL, Justification, StepKind, register


class RuleOfThumb(StepKind):
    """A rule of thumb: trusted half as much as its stated confidence, never at fault."""

    name = "thumb"
    by_rule = True

    def step(self, j: Justification, reliability: Any, now: float) -> tuple[float, bool]:
        return j.step / 2, False

    def describe(self, reason: dict[str, Any]) -> str:
        return f"rule of thumb {reason['name']}: step {reason['step']:g} (half its own)"


@pytest.fixture
def thumb() -> Iterator[StepKind]:
    kind = register(RuleOfThumb())
    try:
        yield kind
    finally:
        del KINDS[kind.name]


def discount_rule(kind: StepKind) -> Rule:
    @rule(output="discount", confidence=0.8, kind=kind, name="tests.thumb.discount")
    def discount(tier: str) -> float | None:
        return 0.1 if tier == "gold" else None

    return discount


def gold_customer(kind: StepKind, clock: ManualClock) -> BeliefBase:
    kb = BeliefBase(clock=clock, rules=[discount_rule(kind)])
    kb.assert_("tier", "gold", source="tool:crm")
    return kb


def test_a_rule_of_the_new_kind_derives_with_the_kinds_step(thumb: StepKind) -> None:
    kb = gold_customer(thumb, ManualClock(0))
    assert kb.value("discount") == 0.1
    assert kb.confidence("discount") == pytest.approx(0.4 * kb.confidence("tier"))
    [j] = [j for b in kb.engine.values_of("discount") for j in b.justs]
    assert j.kind is thumb and j.name == "tests.thumb.discount"
    kb.assert_("tier", "silver", source="human:sales")  # the rule has nothing to say any more
    kb.retract("tier", "gold")
    assert kb.value("tier") == "silver" and kb.value("discount") is None


def test_the_proof_prints_the_kinds_line(thumb: StepKind) -> None:
    kb = gold_customer(thumb, ManualClock(0))
    proof = kb.explain("discount")
    text = str(proof)
    assert ("rule of thumb tests.thumb.discount: step 0.4 (half its own); 0.4 × min(0.95) = 0.38"
            in text)
    assert proof.to_dict()["reasons"][0]["kind"] == "thumb"


def test_a_snapshot_keeps_the_kind_by_name(thumb: StepKind, tmp_path: Path) -> None:
    clock = ManualClock(0)
    kb = gold_customer(thumb, clock)
    path = tmp_path / "kb.msgpack"
    kb.save(path)
    discount = discount_rule(thumb)
    loaded = BeliefBase.load(path, clock=clock, rules=[discount])
    assert loaded.confidence("discount") == kb.confidence("discount")
    assert str(loaded.explain("discount")) == str(kb.explain("discount"))
    loaded.retract("tier")
    assert loaded.value("discount") is None
    loaded.assert_("tier", "gold", source="tool:crm")  # the restored rule fires with its kind
    assert loaded.confidence("discount") == kb.confidence("discount")
    del KINDS["thumb"]
    try:
        with pytest.raises(SnapshotError, match=r"\(kind\) must be one of .*'thumb'"):
            BeliefBase.load(path, clock=clock, rules=[discount])
    finally:
        KINDS["thumb"] = thumb


def test_a_rule_takes_only_a_registered_kind_of_rules(thumb: StepKind) -> None:
    with pytest.raises(InvalidInputError, match="registered StepKind of rules"):
        rule(lambda tier: tier, output="x", kind=MODEL)  # a model's kind: its name is a source
    with pytest.raises(InvalidInputError, match="registered StepKind of rules"):
        rule(lambda tier: tier, output="x", kind=RuleOfThumb())  # not the registered one

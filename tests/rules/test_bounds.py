"""Work that could run away is bounded: a clear error or a documented cap, never a silent spin.

- rules that keep deriving new values from each other stop at the base's firing budget (or its
  time budget) with a RuleLimitError, and the operation that set them off is undone with them;
- a rule over keys with many conflicting values fires each combination once, enumerating only
  the combinations a change made new;
- a fuzzy citation check that would take minutes is refused up front;
- hostile numbers give typed errors.
"""

from __future__ import annotations

import random
import string

import pytest

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, rule
from corollary.evidence.citation import check_quote
from corollary.evidence.formula import check
from corollary.foundations.errors import (
    CitationError,
    InvalidInputError,
    InvalidTypeError,
    RuleError,
    RuleLimitError,
)

calls = {"up": 0, "down": 0}


@rule(output="a", inputs={"x": "b"}, name="tests.bounds.up")
def up(x: int) -> int:
    calls["up"] += 1
    return x + 1


@rule(output="b", inputs={"x": "a"}, name="tests.bounds.down")
def down(x: int) -> int:
    calls["down"] += 1
    return x + 1


def test_rules_feeding_each_other_stop_at_the_firing_budget_and_are_undone() -> None:
    calls.update(up=0, down=0)
    kb = BeliefBase(clock=ManualClock(0), rules=[up, down], max_rule_firings=500)
    kb.assert_("z", 1, source="human:h")
    before, ledger = kb.to_dict(), kb.ledger.to_dict()
    with pytest.raises(RuleLimitError, match="500 times in one operation") as err:
        kb.assert_("a", 0, source="human:h")
    assert isinstance(err.value, RuleError)
    assert calls["up"] + calls["down"] == 500
    # the assertion is undone with every value the rules derived
    assert kb.to_dict() == before and kb.ledger.to_dict() == ledger
    assert "a" not in kb and "b" not in kb and len(kb) == 1
    # later queries and operations fire nothing
    calls.update(up=0, down=0)
    assert kb.value("z") == 1
    kb.assert_("c", 1, source="human:h")
    assert kb.beliefs() and calls == {"up": 0, "down": 0}
    # the same assertion again is the same runaway, refused the same way
    with pytest.raises(RuleLimitError):
        kb.assert_("a", 0, source="human:h")
    assert calls["up"] + calls["down"] == 500 and "a" not in kb


def test_the_same_rules_settle_when_a_policy_decides() -> None:
    calls.update(up=0, down=0)
    kb = BeliefBase(clock=ManualClock(0), rules=[up, down], conflict_policy=PreferHigherConfidence())
    kb.assert_("a", 0, source="human:h")
    assert kb.value("a") == 0 and kb.value("b") == 1
    assert calls == {"up": 1, "down": 1}  # a = 2 ties a = 0 and loses: nothing more fires


def test_the_firing_budget_is_validated() -> None:
    with pytest.raises(InvalidTypeError):
        BeliefBase(max_rule_firings="10")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        BeliefBase(max_rule_firings=0)
    with pytest.raises(InvalidInputError):
        BeliefBase(max_rule_firings=10**30)


fired: list[tuple[int, int, int]] = []


@rule(output="s", name="tests.bounds.summary")
def summary(a: int, b: int, c: int) -> int:
    fired.append((a, b, c))
    return 1


def test_a_rule_over_many_conflicting_values_fires_each_combination_once() -> None:
    fired.clear()
    kb = BeliefBase(clock=ManualClock(0), rules=[summary])
    n = 20
    for i in range(n):
        for key in "abc":
            kb.assert_(key, i, source=f"human:h{i}")
    assert len(fired) == n**3 and len(set(fired)) == n**3
    assert kb.value("s") == 1
    proof = kb.explain("s").to_dict()
    assert isinstance(proof, dict) and len(proof["reasons"]) == n**3
    # a value withdrawn and asserted again brings no new combination
    kb.retract("a", 3)
    kb.assert_("a", 3, source="human:h3")
    assert len(fired) == n**3


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase + "    ") for _ in range(n))


def test_a_fuzzy_check_that_would_take_minutes_is_refused() -> None:
    pytest.importorskip("rapidfuzz")
    rng = random.Random(7)
    quote, document = _text(rng, 5_000), _text(rng, 2_500_000)
    with pytest.raises(CitationError, match="max_work"):
        check_quote(document, quote, fuzzy=True)
    # an exact match is always cheap, whatever the sizes
    assert check_quote(document, document[1000:6000], fuzzy=True).found
    # raising the bound runs the check (early exit once the threshold is out of reach)
    result = check_quote(document[:200_000], quote, fuzzy=True, max_work=10**9)
    assert result.found is False and result.score == 0.0


@pytest.mark.parametrize(("options", "error"), [
    ({"threshold": "90"}, InvalidTypeError),
    ({"threshold": True}, InvalidTypeError),
    ({"threshold": float("nan")}, InvalidInputError),
    ({"max_work": 0}, InvalidInputError),
    ({"max_work": 1.5}, InvalidTypeError),
    ({"fuzzy": "yes"}, InvalidTypeError),
])
def test_hostile_citation_options_are_typed_errors(options: dict, error: type) -> None:
    with pytest.raises(error):
        check_quote("some text", "some", **options)


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"stated": 10**400}, InvalidInputError),
    ({"stated": 0.1, "rel_tol": 10**400}, InvalidInputError),
    ({"stated": 0.1, "abs_tol": float("inf")}, InvalidInputError),
    ({"stated": 0.1, "rel_tol": -1.0}, InvalidInputError),
    ({"stated": 0.1, "rel_tol": "1e-9"}, InvalidTypeError),
])
def test_huge_numbers_in_formula_checks_are_typed_errors(kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        check("(q3 - q2) / q2", {"q2": 100, "q3": 110}, **kwargs)

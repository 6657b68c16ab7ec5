"""Ties in confidence are settled in the same order however the base got where it is.

Under a deciding policy the first value of a key the sweep reaches wins, and among equally
confident values the older belief is reached first. A value derived by a rule of confidence 1.0
ties with its input; that input, settled in an earlier sweep, used to make the derived value
available at once in an incremental sweep, while a sweep from scratch (and the oracle) reaches
it only after its input. The winner then depended on the order of the operations.
"""

from __future__ import annotations

from support.oracle import evaluate

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, rule


@rule(output="a", inputs={"z": "d"})
def _copy_d(z):
    return z


def _base() -> tuple[BeliefBase, ManualClock]:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[_copy_d], conflict_policy=PreferHigherConfidence())
    kb.record_outcome("human:ann", False)  # ann: (9.9 + 0) / 11 = 0.9
    kb.assert_("a", 1, source="human:ann")  # a = 1 (0.9) is the older value of a
    kb.assert_("a", 0, source="tool:scan")  # a = 0 (0.95) holds
    kb.assert_("d", 1, source="tool:scan")  # d = 1 (0.95): the rule derives a = 1 at 0.95
    return kb, clock


def _labels(kb: BeliefBase) -> dict[tuple[str, object], str]:
    return {(b.key, b.value): kb.label(b.key, b.value) for b in kb.parts.engine.beliefs()}


def test_a_derived_value_tied_with_its_rival_loses_as_from_scratch() -> None:
    kb, clock = _base()
    incremental = _labels(kb)
    # from scratch: every belief re-evaluated, and the same base rebuilt from its snapshot
    kb.parts.engine.mark_all()
    kb.refresh()
    scratch = _labels(kb)
    restored = BeliefBase.from_dict(kb.to_dict(), clock=clock, rules=[_copy_d])
    expected = {key: label for key, (label, _) in evaluate(kb, clock()).items()}
    assert expected[("a", 0)] == "IN" and expected[("a", 1)] == "OUT"
    # a = 0 (seq 2) is reached before d = 1 (seq 3), and a = 1 only after d = 1
    assert incremental == scratch == _labels(restored) == {
        ("a", 1): "OUT", ("a", 0): "IN", ("d", 1): "IN"}
    assert kb.explain("a", 1).to_dict()["why"] == "lost"


def test_the_tie_is_settled_alike_through_a_chain_of_rules() -> None:
    @rule(output="e", inputs={"z": "d"})
    def copy_to_e(z):
        return z

    @rule(output="a", inputs={"z": "e"})
    def copy_e_to_a(z):
        return z

    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, rules=[copy_to_e, copy_e_to_a],
                    conflict_policy=PreferHigherConfidence())
    kb.record_outcome("human:ann", False)
    kb.assert_("a", 1, source="human:ann")
    kb.assert_("a", 0, source="tool:scan")
    kb.assert_("d", 1, source="tool:scan")  # d -> e -> a = 1, all at 0.95
    incremental = _labels(kb)
    kb.parts.engine.mark_all()
    kb.refresh()
    assert incremental == _labels(kb)
    assert incremental[("a", 0)] == "IN" and incremental[("a", 1)] == "OUT"


@rule(output="r", inputs={"x": "a", "y": "b"})
def _sum_mod_3(x, y):
    return (x + y) % 3


@rule(output="c", inputs={"z": "r"})
def _copy_r(z):
    return z


def test_an_exception_brought_in_with_the_ties_still_defeats() -> None:
    """c = 2 holds unless a is held; the rules derive c = 1 from a and b. Re-sweeping the
    tied inputs (a among them) must not make the exception read OUT while they are reset:
    that depended on the order of a set of beliefs, so on object identities."""
    seen = set()
    for pad in range(30):
        shift = [object() for _ in range(pad)]  # other identities, other set orders
        kb = BeliefBase(clock=ManualClock(0), rules=[_sum_mod_3, _copy_r],
                        conflict_policy=PreferHigherConfidence())
        kb.claim("c", 2, source="model:m", inputs=[], unless=["a"])
        kb.assert_("a", 0, source="document:doc")
        kb.assert_("b", 1, source="tool:scan")
        kb.parts.engine.mark(kb.parts.engine.find("c", 2))  # the value and its rival swept again
        seen.add((kb.label("c", 2), kb.label("c", 1), kb.value("c")))
        del shift
    assert seen == {("OUT", "IN", 1)}

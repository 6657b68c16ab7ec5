"""The JTMS examples of *Building Problem Solvers* (Forbus and de Kleer), run on corollary.

Ported from ``jtms/jtms-ex.lisp`` (functions ``ex1``, ``ex2``, ``ex3``) of the BPS code as kept
in the GitHub repository ``death/bps``; the labels expected after each step follow from that
repository's ``jtms/jtms.lisp`` (``enable-assumption``, ``retract-assumption`` with
``find-alternative-support``, and ``ask-user-handler``, which offers the contradiction's
``assumptions-of-node`` and retracts the one the user picks), and agree with the step-by-step
expectations (labels, supports, ``assumptions-of-node``) of the Scala port in ``jphmrst/bps``
(``src/test/scala/jtmstests/JtmsCoreEx1.scala`` and ``JtmsCoreEx3.scala``).

How the JTMS reads in corollary:

- an assumption is a premise from an ``assumption:`` source; ``enable-assumption`` asserts it
  and ``retract-assumption`` is ``kb.retract`` (enabling again is asserting again);
- a justification ``(justify-node 'j1 f (list a b))`` is a rule ``f <- a, b``: it exists
  before its antecedents are IN, as a JTMS justification does;
- a node that no justification has made IN yet is not a key of the base at all; ``label``
  below reads it as OUT;
- a contradiction node justified by ``e`` and ``f`` is ``kb.nogood("e", "f")``; the default
  handler, ``ask-user-handler``, is the open conflict (``conflict_policy=None``) that a person settles
  with ``kb.resolve(conflict, give_up=...)``, or ``AskHuman``; the assumptions it offers are
  the conflict's culprits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from corollary import AskHuman, BeliefBase, Conflict, ManualClock, rule

# -- ex1: (justify-node 'j1 f (a b)) ... (justify-node 'j4 g (d e)) --------------------------


@rule(output="f", name="tests.peers.bps.j1")
def j1(a: bool, b: bool) -> bool:
    return True


@rule(output="e", name="tests.peers.bps.j2")
def j2(b: bool, c: bool) -> bool:
    return True


@rule(output="g", name="tests.peers.bps.j3")
def j3(a: bool, e: bool) -> bool:
    return True


@rule(output="g", name="tests.peers.bps.j4")
def j4(d: bool, e: bool) -> bool:
    return True


def enable(kb: BeliefBase, node: str) -> None:
    """``(enable-assumption node)``."""
    kb.assert_(node, True, source=f"assumption:{node}")


def labels(kb: BeliefBase, nodes: Sequence[str]) -> str:
    """The JTMS labels of ``nodes`` (a string of one-letter names, or a list), as ``"IN OUT"``."""
    return " ".join(kb.label(n) if n in kb else "OUT" for n in nodes)


def support(kb: BeliefBase, node: str) -> set[str]:
    """``(why-node node)``: the informants of the justifications that hold ``node`` now.

    The JTMS keeps one of them as the node's support (the first to make it IN); corollary
    holds a belief on every valid reason at once, so all of them are returned.
    """
    tree = kb.explain(node).to_dict()
    assert isinstance(tree, dict) and tree["label"] == "IN"
    return {"enabled assumption" if r["kind"] == "premises" else str(r["name"]).rsplit(".", 1)[-1]
            for r in tree["reasons"] if r["valid"]}


def assumptions_of(kb: BeliefBase, node: str) -> set[str]:
    """``(assumptions-of-node node)``: the enabled assumptions under what holds ``node`` now."""
    tree = kb.explain(node).to_dict()
    assert isinstance(tree, dict)
    # a belief met twice in a proof is expanded once ("see above"): index the expansions
    expanded, stack = {}, [tree]
    while stack:
        x = stack.pop()
        if "reasons" in x:
            expanded[x["key"]] = x
            stack.extend(i for r in x["reasons"] for i in r.get("inputs", ()))
    found: set[str] = set()
    todo = [node] if tree["label"] == "IN" else []
    while todo:
        x = expanded[todo.pop()]
        for reason in x["reasons"]:
            if reason["valid"] and reason["kind"] == "premises":
                found.add(x["key"])
            elif reason["valid"]:
                todo.extend(i["key"] for i in reason["inputs"])
    return found


def ex1() -> BeliefBase:
    """``(ex1)``: the network, with a, b, c and d enabled."""
    kb = BeliefBase(clock=ManualClock(0), rules=[j1, j2, j3, j4])
    for node in "abcd":
        enable(kb, node)
    return kb


def test_ex1_enabling_assumptions_one_by_one() -> None:
    kb = BeliefBase(clock=ManualClock(0), rules=[j1, j2, j3, j4])
    assert labels(kb, "abcdefg") == "OUT OUT OUT OUT OUT OUT OUT"
    steps, under_g = [], []
    for node in "abcd":
        enable(kb, node)
        steps.append(labels(kb, "abcdefg"))
        under_g.append(assumptions_of(kb, "g") if "g" in kb else set())
    assert steps == [
        "IN OUT OUT OUT OUT OUT OUT",  # a
        "IN IN OUT OUT OUT IN OUT",    # b: f <- a, b
        "IN IN IN OUT IN IN IN",       # c: e <- b, c, then g <- a, e
        "IN IN IN IN IN IN IN",        # d: g gains j4, already IN
    ]
    assert [support(kb, n) for n in "aefg"] == [
        {"enabled assumption"}, {"j2"}, {"j1"}, {"j3", "j4"}]
    # the JTMS keeps j3 as g's one support, so its assumptions stay {a, b, c} once d is
    # enabled; corollary holds g on j3 and j4 at once, and both rest on assumptions
    assert under_g == [set(), set(), {"a", "b", "c"}, {"a", "b", "c", "d"}]
    assert [assumptions_of(kb, n) for n in "ef"] == [{"b", "c"}, {"a", "b"}]


def test_ex1_retracting_a_finds_alternative_support_for_g() -> None:
    kb = ex1()
    kb.retract("a")
    # f loses its only justification; g, which was IN via j3 (a, e), is IN again via j4 (d, e)
    assert labels(kb, "abcdefg") == "OUT IN IN IN IN OUT IN"
    assert support(kb, "g") == {"j4"}
    assert [assumptions_of(kb, n) for n in "afg"] == [set(), set(), {"b", "c", "d"}]


def test_ex1_retracting_e_support_takes_g_with_it() -> None:
    kb = ex1()
    kb.retract("c")
    assert labels(kb, "abcdefg") == "IN IN OUT IN OUT IN OUT"  # both of g's reasons need e


def test_ex1_enabling_a_retracted_assumption_again_restores_its_consequences() -> None:
    kb = ex1()
    kb.retract("a")
    kb.retract("d")
    assert labels(kb, "abcdefg") == "OUT IN IN OUT IN OUT OUT"
    enable(kb, "a")
    assert labels(kb, "abcdefg") == "IN IN IN OUT IN IN IN"
    assert support(kb, "g") == {"j3"}


# -- ex2: (justify-node 'j5 contra (list e f)), contra a contradiction node -------------------

#: What the JTMS leaves after ``ask-user-handler`` retracts each of contra's assumptions.
AFTER_GIVING_UP = {
    "a": "OUT IN IN IN IN OUT IN",   # f goes; e stays, and g holds on j4 (d, e)
    "b": "IN OUT IN IN OUT OUT OUT",  # e and f go, and g with e
    "c": "IN IN OUT IN OUT IN OUT",   # e goes, and g with it; f stays
}


def test_ex2_the_contradiction_offers_the_assumptions_it_rests_on() -> None:
    kb = ex1()
    name = kb.nogood("e", "f", name="Loser")
    [conflict] = kb.conflicts()
    assert conflict.key == name and conflict.nogood
    # (assumptions-of-node contra): e rests on b, c and f on a, b; d is not involved
    assert sorted(c.key for c in conflict.culprits) == ["a", "b", "c"]
    assert [c.sources for c in sorted(conflict.culprits, key=lambda c: c.key)] == [
        ("assumption:a",), ("assumption:b",), ("assumption:c",)]
    # until the handler answers, the contradiction stands with every node IN
    assert labels(kb, "abcdefg") == "IN IN IN IN IN IN IN"


@pytest.mark.parametrize("answer", sorted(AFTER_GIVING_UP))
def test_ex2_retracting_the_assumption_the_user_picks(answer: str) -> None:
    kb = ex1()
    kb.nogood("e", "f", name="Loser")
    [conflict] = kb.conflicts()
    kb.resolve(conflict, give_up=answer)
    assert labels(kb, "abcdefg") == AFTER_GIVING_UP[answer]
    assert kb.conflicts() == []


@pytest.mark.parametrize("answer", sorted(AFTER_GIVING_UP))
def test_ex2_with_a_handler_that_asks(answer: str) -> None:
    asked: list[Conflict] = []

    def ask(conflict: Conflict) -> Any:
        asked.append(conflict)
        return answer

    kb = BeliefBase(clock=ManualClock(0), rules=[j1, j2, j3, j4], conflict_policy=AskHuman(ask))
    for node in "abcd":
        enable(kb, node)
    assert asked == []
    kb.nogood("e", "f", name="Loser")
    assert [sorted(c.key for c in conflict.culprits) for conflict in asked] == [["a", "b", "c"]]
    assert labels(kb, "abcdefg") == AFTER_GIVING_UP[answer]


def test_ex2_enabling_the_retracted_assumption_again_raises_the_contradiction_again() -> None:
    # The JTMS's enable-assumption checks for contradictions again; in corollary the given-up
    # assumption is rejected, and asserting it afresh is new evidence that reopens the conflict.
    kb = ex1()
    kb.nogood("e", "f", name="Loser")
    kb.resolve("Loser", give_up="a")
    enable(kb, "a")
    assert labels(kb, "abcdefg") == "IN IN IN IN IN IN IN"
    [conflict] = kb.conflicts()
    assert conflict.key == "Loser"
    assert sorted(c.key for c in conflict.culprits) == ["a", "b", "c"]


# -- ex3: R1 h <- C, E; R2 g <- A, C; R3 CONTRADICTION <- g -----------------------------------


@rule(output="h", inputs={"c": "C", "e": "E"}, name="tests.peers.bps.R1")
def r1(c: bool, e: bool) -> bool:
    return True


@rule(output="g", inputs={"a": "A", "c": "C"}, name="tests.peers.bps.R2")
def r2(a: bool, c: bool) -> bool:
    return True


@rule(output="CONTRADICTION", name="tests.peers.bps.R3")
def r3(g: bool) -> bool:
    return True


def ex3(conflict_policy: Any = None) -> BeliefBase:
    """``(ex3)``, in its order: enable A, C, E, then justify h, g and CONTRADICTION.

    The contradiction node has one antecedent, ``g``: "g cannot hold". A corollary nogood names
    at least two items, so it is ``nogood(CONTRADICTION, g)``; R3 is CONTRADICTION's only
    justification, so the two are held together exactly when ``g`` is.
    """
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=conflict_policy)
    for node in "ACE":
        enable(kb, node)
    kb.add_rule(r1)
    assert labels(kb, "ACEgh") == "IN IN IN OUT IN"
    kb.add_rule(r2)
    assert labels(kb, "ACEgh") == "IN IN IN IN IN"
    kb.add_rule(r3)
    kb.nogood("CONTRADICTION", "g", name="CONTRADICTION")
    return kb


def test_ex3_the_contradiction_rests_on_a_and_c() -> None:
    kb = ex3()
    [conflict] = kb.conflicts()
    assert sorted(c.key for c in conflict.culprits) == ["A", "C"]  # not E: h is not involved
    assert labels(kb, ["A", "C", "E", "g", "h", "CONTRADICTION"]) == "IN IN IN IN IN IN"


@pytest.mark.parametrize(("answer", "after"), [
    ("A", "OUT IN IN OUT IN OUT"),   # g goes; h keeps its support R1 (C, E)
    ("C", "IN OUT IN OUT OUT OUT"),  # g goes, and h with C
])
def test_ex3_retracting_the_assumption_the_user_picks(answer: str, after: str) -> None:
    asked: list[Conflict] = []

    def ask(conflict: Conflict) -> Any:
        asked.append(conflict)
        return answer

    kb = ex3(AskHuman(ask))
    assert [sorted(c.key for c in conflict.culprits) for conflict in asked] == [["A", "C"]]
    assert labels(kb, ["A", "C", "E", "g", "h", "CONTRADICTION"]) == after
    assert kb.conflicts() == []

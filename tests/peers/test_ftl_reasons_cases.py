"""The semantic cases of ftl-reasons' test suite, run as the same scenarios on corollary.

ftl-reasons 0.57.0 (``pip install ftl-reasons``, the ``bench`` extra) is a Doyle-style TMS
whose test suite (``tests/`` of its source distribution) exercises labelling, out-lists,
nogoods with dependency-directed backtracking, adding and removing justifications, and
challenge/defend chains. Each test here names the ftl-reasons test it ports
(``file::Class::function``), builds the same network with corollary's API and applies the same
operations:

- a premise node ``a`` is ``kb.assert_("a", True, source="human:a")`` (one source per premise,
  so withdrawing or blaming one touches no other); ``retract(a)`` is ``kb.retract("a")`` and
  ``assert_node(a)`` is asserting it again (docs/model.md, "Time": a fresh assertion is new
  evidence);
- an SL justification ``b <- a`` is a model's claim ``kb.claim("b", True, source="model:j1",
  inputs=["a"])``, one model per justification, so ``remove_justification`` is
  ``kb.retract("b", source="model:j1")`` (docs/model.md, "Withdrawing one reason"); a
  justification recorded before its in-list holds is a ``@rule`` (a claim is reasoned from
  held inputs);
- an out-list is ``unless=[...]`` (docs/model.md, "Exceptions");
- ``add_nogood`` is ``kb.nogood``: under ``PreferHigherConfidence`` the sweep decides, with no
  policy the nogood is an open conflict and ``kb.resolve(conflict, give_up=culprit)`` is the
  person doing the backtracking (docs/model.md, "Nogoods").

Where corollary differs on purpose the test asserts corollary's behaviour and a comment says
why, citing docs/model.md. The tests at the end run ftl-reasons itself on a few of the same
scenarios and compare labels directly; they need the ``bench`` extra and skip without it.
Cases of ftl-reasons' suite that are about its storage, CLI, ids, logs or internal indexes
have no counterpart here; docs/tms-peers.md lists them with the reason.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, rule
from corollary.foundations.errors import StratificationError, UnknownBeliefError

# -- how ftl-reasons' operations read in corollary -------------------------------------------


def base(conflict_policy: Any = None) -> BeliefBase:
    return BeliefBase(clock=ManualClock(0), conflict_policy=conflict_policy)


def premise(kb: BeliefBase, *keys: str, kind: str = "human") -> None:
    """ftl-reasons' ``add_node(key)`` with no justification (or ``assert_node`` again)."""
    for key in keys:
        kb.assert_(key, True, source=f"{kind}:{key}")


def sl(kb: BeliefBase, key: str, inlist: list[str], unless: list[str] | None = None,
       via: str = "j1") -> None:
    """An SL justification ``key <- inlist`` with an out-list, as the claim of ``model:via``."""
    kb.claim(key, True, source=f"model:{via}", inputs=inlist, unless=unless or [])


def chain(*keys: str) -> BeliefBase:
    """A premise ``keys[0]`` and each next key justified by the one before (``b <- a`` ...)."""
    kb = base()
    premise(kb, keys[0])
    for before, key in zip(keys[:-1], keys[1:], strict=True):
        sl(kb, key, [before])
    return kb


def x_unless_y(y_held: bool) -> BeliefBase:
    """The default ``x <- unless y``, with the premise ``y`` asserted and, unless ``y_held``,
    retracted before the default is given."""
    kb = base()
    premise(kb, "y")
    if not y_held:
        kb.retract("y")
    sl(kb, "x", [], unless=["y"])
    return kb


def held(kb: BeliefBase) -> set[str]:
    """ftl-reasons' ``get_belief_set``: every key holding a value."""
    return {b.key for b in kb.beliefs()}


def proof(kb: BeliefBase, key: str, value: Any = None) -> dict[str, Any]:
    tree = kb.explain(key, value).to_dict()
    assert isinstance(tree, dict)
    return tree


def assumptions(kb: BeliefBase, key: str) -> set[str]:
    """ftl-reasons' ``trace_assumptions``: the premises under every reason of ``key``."""
    found: set[str] = set()
    stack = [proof(kb, key)]
    while stack:
        node = stack.pop()
        for reason in node.get("reasons", ()):
            if reason["kind"] == "premises":
                found.add(node["key"])
            stack.extend(reason.get("inputs", ()))
    return found


def culprits(kb: BeliefBase) -> list[str]:
    """The culprit premises of the one open nogood, weakest first."""
    [conflict] = kb.conflicts()
    assert conflict.nogood
    return [c.key for c in conflict.culprits]


# -- tests/test_network.py ------------------------------------------------------------------


def test_add_premise() -> None:
    """Ports test_network.py::TestAddNode::test_add_premise."""
    kb = base()
    premise(kb, "a")
    assert kb.label("a") == "IN"
    assert [r["kind"] for r in proof(kb, "a")["reasons"]] == ["premises"]  # no justification


def test_add_derived_node() -> None:
    """Ports test_network.py::TestAddNode::test_add_derived_node."""
    kb = chain("a", "b")
    assert kb.label("b") == "IN"


@rule(output="b", name="tests.peers.ftl.b_from_a")
def b_from_a(a: bool) -> bool:
    return True


def test_add_derived_node_antecedent_out() -> None:
    """Ports test_network.py::TestAddNode::test_add_derived_node_antecedent_out.

    ftl-reasons creates ``b`` OUT. A corollary claim is a model reasoning from *held* inputs,
    so claiming ``b`` from a retracted ``a`` is refused and nothing changes; the justification
    that exists before its input holds is a rule, which derives nothing while ``a`` is OUT
    (``b`` is not even a key yet, the corollary form of "OUT with no valid justification")
    and derives ``b`` once ``a`` is asserted again.
    """
    kb = base()
    premise(kb, "a")
    kb.retract("a")
    with pytest.raises(UnknownBeliefError, match="holds no value"):
        sl(kb, "b", ["a"])
    assert "b" not in kb
    kb.add_rule(b_from_a)
    assert "b" not in kb and held(kb) == set()
    premise(kb, "a")
    assert held(kb) == {"a", "b"}


def test_retract_premise() -> None:
    """Ports test_network.py::TestRetraction::test_retract_premise."""
    kb = base()
    premise(kb, "a")
    kb.retract("a")
    assert kb.label("a") == "OUT"
    assert proof(kb, "a", True)["why"].startswith("retracted")


def test_retract_cascades_to_dependent() -> None:
    """Ports test_network.py::TestRetraction::test_retract_cascades_to_dependent."""
    kb = chain("a", "b")
    kb.retract("a")
    assert kb.label("b") == "OUT"


def test_retract_cascades_through_chain() -> None:
    """Ports test_network.py::TestRetraction::test_retract_cascades_through_chain."""
    kb = chain("a", "b", "c")
    assert held(kb) == {"a", "b", "c"}
    kb.retract("a")
    assert held(kb) == set()


def test_retract_already_out_is_noop() -> None:
    """Ports test_network.py::TestRetraction::test_retract_already_out_is_noop.

    ftl-reasons returns no changes. corollary refuses ``retract(key)`` on a key that holds
    nothing, naming its OUT values and why (docs/model.md, "Withdrawing one reason"), and
    changes nothing; naming the value, ``retract(key, value)``, is the no-op.
    """
    kb = base()
    premise(kb, "a")
    kb.retract("a")
    with pytest.raises(UnknownBeliefError, match=r"'a' holds no value: True is OUT \(retracted"):
        kb.retract("a")
    kb.retract("a", True)
    assert kb.label("a") == "OUT" and kb.ledger.outcomes() == []


def test_retract_nonexistent_raises() -> None:
    """Ports test_network.py::TestRetraction::test_retract_nonexistent_raises."""
    kb = base()
    with pytest.raises(UnknownBeliefError, match="missing"):
        kb.retract("missing")


def test_retract_does_not_cascade_with_alternate_justification() -> None:
    """Ports test_network.py::TestRetraction::
    test_retract_does_not_cascade_with_alternate_justification."""
    kb = base()
    premise(kb, "a", "c")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "b", ["c"], via="j2")
    kb.retract("a")
    assert kb.label("b") == "IN"
    [valid] = [r["name"] for r in proof(kb, "b")["reasons"] if r["valid"]]
    assert valid == "model:j2"


def test_retract_already_out_pins_retracted() -> None:
    """Ports test_network.py::TestRetraction::test_retract_already_out_pins_retracted.

    Same labels: a derived belief that was retracted stays OUT when its input comes back and
    through a full recomputation (docs/model.md, "Time": "a derived belief that was retracted
    stays OUT even if a rule re-derives it").
    """
    kb = chain("a", "b")
    kb.retract("a")
    assert kb.label("b") == "OUT"
    kb.retract("b", True)  # b is already OUT: name the value to pin it
    premise(kb, "a")
    assert kb.label("a") == "IN" and kb.label("b") == "OUT"
    kb.refresh()  # ftl-reasons' recompute_all
    assert kb.label("b") == "OUT"
    assert proof(kb, "b", True)["why"].startswith("retracted")


def test_assert_restores_dependent() -> None:
    """Ports test_network.py::TestRestoration::test_assert_restores_dependent."""
    kb = chain("a", "b")
    kb.retract("a")
    assert kb.label("b") == "OUT"
    premise(kb, "a")
    assert held(kb) == {"a", "b"}


def test_assert_restores_chain() -> None:
    """Ports test_network.py::TestRestoration::test_assert_restores_chain."""
    kb = chain("a", "b", "c")
    kb.retract("a")
    assert kb.label("c") == "OUT"
    premise(kb, "a")
    assert held(kb) == {"a", "b", "c"}


def test_assert_already_in_is_noop() -> None:
    """Ports test_network.py::TestRestoration::test_assert_already_in_is_noop.

    A source repeating a value renews its premise in place (docs/model.md, "Time"): the
    label and confidence are unchanged and nothing is recorded.
    """
    kb = base()
    premise(kb, "a")
    premise(kb, "a")
    assert held(kb) == {"a"} and kb.confidence("a") == pytest.approx(0.99)
    assert len(proof(kb, "a")["reasons"][0]["premises"]) == 1
    assert kb.ledger.outcomes() == []


def test_sl_requires_all_antecedents() -> None:
    """Ports test_network.py::TestMultipleAntecedents::test_sl_requires_all_antecedents."""
    kb = base()
    premise(kb, "a", "b", "c")
    sl(kb, "d", ["a", "b", "c"])
    assert kb.label("d") == "IN"
    kb.retract("b")
    assert kb.label("d") == "OUT"
    premise(kb, "b")
    assert kb.label("d") == "IN"


def test_nogood_retracts_one() -> None:
    """Ports test_network.py::TestNogood::test_nogood_retracts_one.

    One of the two goes OUT in both. ftl-reasons retracts it for good; under a deciding policy
    corollary gives up the least confident item (here ``d``, an assumption at 0.6 against a
    human's 0.99) only while the nogood stands, and ``d`` is back by itself once ``a`` goes
    (docs/model.md, "Nogoods").
    """
    kb = base(PreferHigherConfidence())
    premise(kb, "a")
    premise(kb, "d", kind="assumption")
    kb.nogood("a", "d")
    assert held(kb) == {"a"}
    assert proof(kb, "d", True)["nogood"]["nogood"] == "nogood:1"
    kb.retract("a")
    assert held(kb) == {"d"}


def test_nogood_recorded() -> None:
    """Ports test_network.py::TestNogood::test_nogood_recorded.

    ftl-reasons names it ``nogood-a-d`` from its items; corollary numbers nogoods
    (``nogood:1``) unless given a name, so the name is passed here.
    """
    kb = base(PreferHigherConfidence())
    premise(kb, "a", "d")
    assert kb.nogood("a", "d", name="nogood-a-d") == "nogood-a-d"
    assert kb.to_dict()["nogoods"] == [["nogood-a-d", ["a", "d"]]]


def test_nogood_inactive_when_one_already_out() -> None:
    """Ports test_network.py::TestNogood::test_nogood_inactive_when_one_already_out."""
    for policy in (None, PreferHigherConfidence()):
        kb = base(policy)
        premise(kb, "a", "d")
        kb.retract("d")
        kb.nogood("a", "d")
        assert held(kb) == {"a"} and kb.conflicts() == []


def test_nogood_nonexistent_raises() -> None:
    """Ports test_network.py::TestNogood::test_nogood_nonexistent_raises."""
    kb = base()
    premise(kb, "a")
    with pytest.raises(UnknownBeliefError, match="never heard of"):
        kb.nogood("a", "missing")
    assert kb.to_dict()["nogoods"] == []


def test_explain_premise_in() -> None:
    """Ports test_network.py::TestExplain::test_explain_premise_in."""
    kb = base()
    premise(kb, "a")
    tree = proof(kb, "a")
    assert tree["label"] == "IN"
    assert [(r["kind"], r["valid"]) for r in tree["reasons"]] == [("premises", True)]


def test_explain_premise_retracted() -> None:
    """Ports test_network.py::TestExplain::test_explain_premise_retracted."""
    kb = base()
    premise(kb, "a")
    kb.retract("a")
    tree = proof(kb, "a")
    assert (tree["label"], tree["why"]) == ("OUT", "retracted")


def test_explain_derived_in() -> None:
    """Ports test_network.py::TestExplain::test_explain_derived_in."""
    kb = base()
    premise(kb, "a")
    sl(kb, "b", ["a"], via="a-supports-b")
    tree = proof(kb, "b")
    assert tree["label"] == "IN"
    [reason] = tree["reasons"]
    assert reason["name"] == "model:a-supports-b" and reason["valid"]
    assert [i["key"] for i in reason["inputs"]] == ["a"]


def test_explain_chain() -> None:
    """Ports test_network.py::TestExplain::test_explain_chain."""
    kb = chain("a", "b", "c")
    node, trace = proof(kb, "c"), []
    while True:
        trace.append(node["key"])
        [reason] = node["reasons"]
        if reason["kind"] == "premises":
            break
        [node] = reason["inputs"]
    assert trace == ["c", "b", "a"]


def test_explain_derived_out() -> None:
    """Ports test_network.py::TestExplain::test_explain_derived_out."""
    kb = chain("a", "b")
    kb.retract("a")
    tree = proof(kb, "b")
    assert (tree["label"], tree["why"]) == ("OUT", "unsupported")
    [reason] = tree["reasons"]
    assert not reason["valid"]
    assert [(i["key"], i["label"]) for i in reason["inputs"]] == [("a", "OUT")]


def test_explain_nonexistent_raises() -> None:
    """Ports test_network.py::TestExplain::test_explain_nonexistent_raises."""
    with pytest.raises(UnknownBeliefError, match="missing"):
        base().explain("missing")


def test_belief_set() -> None:
    """Ports test_network.py::TestBeliefSet::test_belief_set."""
    kb = base()
    premise(kb, "a", "b")
    sl(kb, "c", ["a"])
    assert held(kb) == {"a", "b", "c"}
    kb.retract("a")
    assert held(kb) == {"b"}


def diamond() -> BeliefBase:
    kb = chain("a", "b")
    sl(kb, "c", ["a"])
    sl(kb, "d", ["b", "c"])
    return kb


def test_diamond_retract_and_restore() -> None:
    """Ports test_network.py::TestDiamondDependency::test_diamond_retract_and_restore."""
    kb = diamond()
    assert held(kb) == {"a", "b", "c", "d"}
    kb.retract("a")
    assert held(kb) == set()
    premise(kb, "a")
    assert held(kb) == {"a", "b", "c", "d"}


def test_diamond_with_retracted_intermediate() -> None:
    """Ports test_network.py::TestDiamondDependency::test_diamond_with_retracted_intermediate.

    Same labels throughout. ftl-reasons' last step, ``assert_node(b)``, clears the pin; in
    corollary a withdrawn value comes back only on new evidence (docs/model.md, "Withdrawing
    one reason": its old justifications stay withdrawn), here the same inference claimed
    afresh.
    """
    kb = diamond()
    kb.retract("b")
    assert held(kb) == {"a", "c"}
    kb.retract("a")
    assert kb.label("c") == "OUT"
    premise(kb, "a")
    assert held(kb) == {"a", "c"}  # b stays retracted, so d stays OUT
    kb.refresh()
    assert held(kb) == {"a", "c"}
    sl(kb, "b", ["a"], via="j1-again")
    assert held(kb) == {"a", "b", "c", "d"}
    assert [r["name"] for r in proof(kb, "b")["reasons"]] == ["model:j1-again"]


# -- tests/test_outlist.py ------------------------------------------------------------------


def test_outlist_valid_when_out() -> None:
    """Ports test_outlist.py::TestOutlistBasic::test_outlist_valid_when_out."""
    kb = x_unless_y(y_held=False)
    assert kb.label("x") == "IN"


def test_outlist_invalid_when_in() -> None:
    """Ports test_outlist.py::TestOutlistBasic::test_outlist_invalid_when_in."""
    kb = x_unless_y(y_held=True)
    assert kb.label("x") == "OUT"
    assert proof(kb, "x", True)["why"] == "an exception holds"


def test_outlist_with_inlist() -> None:
    """Ports test_outlist.py::TestOutlistBasic::test_outlist_with_inlist (and its API copy,
    TestOutlistAPI::test_add_with_sl_and_unless)."""
    kb = base()
    premise(kb, "a", "y")
    kb.retract("y")
    sl(kb, "x", ["a"], unless=["y"])
    assert kb.label("x") == "IN"


@rule(output="x", unless=["y"], name="tests.peers.ftl.x_from_a_unless_y")
def x_from_a_unless_y(a: bool) -> bool:
    return True


def test_outlist_with_inlist_both_fail() -> None:
    """Ports test_outlist.py::TestOutlistBasic::test_outlist_with_inlist_both_fail.

    ``a`` is OUT when the justification is made, so it is a rule (a claim needs held inputs):
    it derives nothing while ``a`` is OUT whatever ``y`` is, and ``x`` once ``a`` is back.
    """
    kb = base()
    premise(kb, "a", "y")
    kb.retract("a")
    kb.retract("y")
    kb.add_rule(x_from_a_unless_y)
    assert "x" not in kb and held(kb) == set()
    premise(kb, "a")
    assert held(kb) == {"a", "x"}


def test_outlist_node_not_in_network() -> None:
    """Ports test_outlist.py::TestOutlistBasic::test_outlist_node_not_in_network.

    An exception on a key the base has never heard of is not held, so the default holds.
    """
    kb = base()
    sl(kb, "x", [], unless=["nonexistent"])
    assert kb.label("x") == "IN"
    assert "holds unless nonexistent, which is OUT" in str(kb.explain("x"))


def test_assert_outlist_node_retracts_dependent() -> None:
    """Ports test_outlist.py::TestOutlistCascading::test_assert_outlist_node_retracts_dependent
    (and its API copy, TestOutlistAPI::test_add_with_unless)."""
    kb = x_unless_y(y_held=False)
    assert kb.label("x") == "IN"
    premise(kb, "y")
    assert kb.label("x") == "OUT"


def test_retract_outlist_node_restores_dependent() -> None:
    """Ports test_outlist.py::TestOutlistCascading::test_retract_outlist_node_restores_dependent."""
    kb = x_unless_y(y_held=True)
    assert kb.label("x") == "OUT"
    kb.retract("y")
    assert kb.label("x") == "IN"


def test_outlist_cascade_through_chain() -> None:
    """Ports test_outlist.py::TestOutlistCascading::test_outlist_cascade_through_chain."""
    kb = x_unless_y(y_held=False)
    sl(kb, "z", ["x"])
    assert held(kb) == {"x", "z"}
    premise(kb, "y")
    assert held(kb) == {"y"}


def test_multiple_outlist_nodes() -> None:
    """Ports test_outlist.py::TestOutlistCascading::test_multiple_outlist_nodes."""
    kb = base()
    premise(kb, "y", "z")
    kb.retract("y")
    kb.retract("z")
    sl(kb, "x", [], unless=["y", "z"])
    assert kb.label("x") == "IN"
    premise(kb, "y")
    assert kb.label("x") == "OUT"
    kb.retract("y")
    assert kb.label("x") == "IN"


def test_alternate_justification_survives_outlist() -> None:
    """Ports test_outlist.py::TestOutlistWithMultipleJustifications::
    test_alternate_justification_survives_outlist."""
    kb = base()
    premise(kb, "y", "a")
    kb.retract("y")
    sl(kb, "x", [], unless=["y"], via="j1")
    sl(kb, "x", ["a"], via="j2")
    assert kb.label("x") == "IN"
    premise(kb, "y")
    assert kb.label("x") == "IN"
    kb.retract("a")
    assert kb.label("x") == "OUT"


def test_explain_shows_outlist_on_valid() -> None:
    """Ports test_outlist.py::TestOutlistExplain::test_explain_shows_outlist_on_valid."""
    kb = x_unless_y(y_held=False)
    tree = proof(kb, "x")
    assert tree["label"] == "IN"
    assert [(u["item"], u["held"]) for u in tree["reasons"][0]["unless"]] == [("y", False)]


def test_explain_shows_violated_outlist() -> None:
    """Ports test_outlist.py::TestOutlistExplain::test_explain_shows_violated_outlist."""
    kb = x_unless_y(y_held=True)
    tree = proof(kb, "x", True)
    assert tree["label"] == "OUT"
    assert [(u["item"], u["held"]) for u in tree["reasons"][0]["unless"]] == [("y", True)]
    assert "defeated: y = True is IN (0.99)" in str(kb.explain("x", True))


@pytest.mark.parametrize("fmt", ["cor", "json"])
def test_outlist_round_trip(tmp_path: Path, fmt: str) -> None:
    """Ports test_outlist.py::TestOutlistPersistence::test_round_trip (a snapshot, not SQLite:
    labels are recomputed from the stored structure, docs/model.md "Snapshots")."""
    kb = base()
    premise(kb, "y")
    kb.retract("y")
    sl(kb, "x", [], unless=["y"], via="default-unless-y")
    kb.save(tmp_path / f"s.{fmt}")
    loaded = BeliefBase.load(tmp_path / f"s.{fmt}", clock=ManualClock(0))
    [reason] = proof(loaded, "x")["reasons"]
    assert reason["name"] == "model:default-unless-y"
    assert [u["item"] for u in reason["unless"]] == ["y"]
    assert loaded.label("x") == "IN"
    premise(loaded, "y")
    assert loaded.label("x") == "OUT"


# -- tests/test_backtracking.py -------------------------------------------------------------


def test_premise_traces_to_itself() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_premise_traces_to_itself."""
    kb = base()
    premise(kb, "a")
    assert assumptions(kb, "a") == {"a"}


def test_derived_traces_to_premise() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_derived_traces_to_premise."""
    kb = chain("a", "b")
    assert assumptions(kb, "b") == {"a"}


def test_chain_traces_to_root() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_chain_traces_to_root (and its API
    copy, TestBacktrackingAPI::test_trace_api)."""
    kb = chain("a", "b", "c")
    assert assumptions(kb, "c") == {"a"}


def test_diamond_traces_to_root() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_diamond_traces_to_root."""
    assert assumptions(diamond(), "d") == {"a"}


def test_multiple_premises() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_multiple_premises."""
    kb = base()
    premise(kb, "a", "b")
    sl(kb, "c", ["a", "b"])
    assert assumptions(kb, "c") == {"a", "b"}


def test_deep_chain_multiple_roots() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_deep_chain_multiple_roots."""
    kb = base()
    premise(kb, "a", "c")
    sl(kb, "b", ["a"])
    sl(kb, "d", ["b", "c"])
    assert assumptions(kb, "d") == {"a", "c"}


def test_trace_nonexistent_raises() -> None:
    """Ports test_backtracking.py::TestTraceAssumptions::test_nonexistent_raises."""
    with pytest.raises(UnknownBeliefError):
        assumptions(base(), "missing")


def test_two_premises_contradicting() -> None:
    """Ports test_backtracking.py::TestFindCulprits::test_two_premises_contradicting (and its API
    copy, TestBacktrackingAPI::test_find_culprits_api)."""
    kb = base()
    premise(kb, "a", "b")
    kb.nogood("a", "b")
    assert set(culprits(kb)) == {"a", "b"}


def test_derived_nodes_trace_to_premise() -> None:
    """Ports test_backtracking.py::TestFindCulprits::test_derived_nodes_trace_to_premise."""
    kb = base()
    premise(kb, "a", "b")
    sl(kb, "c", ["a"])
    kb.nogood("b", "c")
    assert set(culprits(kb)) == {"a", "b"}  # a, the premise behind c, not c itself


def test_sorted_by_dependents() -> None:
    """Ports test_backtracking.py::TestFindCulprits::test_sorted_by_dependents.

    ftl-reasons lists first the culprit with fewer dependents (``b``). corollary orders
    culprits by confidence alone, weakest first (docs/model.md, "Nogoods"): the number of
    dependents plays no part, so ``a``, an assumption with two dependents, comes before ``b``,
    a human's word with none.
    """
    kb = base()
    premise(kb, "a", kind="assumption")
    premise(kb, "b")
    sl(kb, "x", ["a"])
    sl(kb, "y", ["a"])
    kb.nogood("a", "b")
    assert culprits(kb) == ["a", "b"]


def test_tied_culprits_list_the_newest_first() -> None:
    """Where ftl-reasons breaks ties by dependents, corollary offers the newest premise first
    among equally confident ones (docs/model.md, "Nogoods")."""
    kb = base()
    premise(kb, "a", "b")  # b is newer
    kb.nogood("a", "b")
    assert culprits(kb) == ["b", "a"]


def test_would_resolve_field() -> None:
    """Ports test_backtracking.py::TestFindCulprits::test_would_resolve_field.

    corollary's culprits carry no ``would_resolve`` list; what it says, that giving ``a`` up
    resolves the nogood through ``c``, is checked by giving it up.
    """
    kb = base()
    premise(kb, "a", "b")
    sl(kb, "c", ["a"])
    kb.nogood("b", "c")
    assert "a" in culprits(kb)
    kb.resolve("nogood:1", give_up="a")
    assert held(kb) == {"b"} and kb.conflicts() == []


def test_retracts_premise_not_derived() -> None:
    """Ports test_backtracking.py::TestBacktrackingInNogood::test_retracts_premise_not_derived.

    ftl-reasons gives up ``b``, the least entrenched premise. In corollary the least confident
    item gives way under a deciding policy (docs/model.md, "Nogoods"), and with ``b`` the weakest
    premise that is ``b`` too; with no policy the culprits are offered weakest first and a
    person gives up the first. Both leave ``c`` IN on ``a``.
    """
    kb = base(PreferHigherConfidence())
    premise(kb, "a")
    premise(kb, "b", kind="assumption")
    sl(kb, "c", ["a"])
    kb.nogood("b", "c")
    assert held(kb) == {"a", "c"}

    kb = base()
    premise(kb, "a")
    premise(kb, "b", kind="assumption")
    sl(kb, "c", ["a"])
    kb.nogood("b", "c")
    assert culprits(kb) == ["b", "a"]
    kb.resolve("nogood:1", give_up=culprits(kb)[0])
    assert held(kb) == {"a", "c"}


def test_cascade_from_retracted_premise() -> None:
    """Ports test_backtracking.py::TestBacktrackingInNogood::test_cascade_from_retracted_premise.

    ftl-reasons gives up ``d`` (no dependents); in corollary ``d`` is the least confident
    item. ``d`` is OUT only while the nogood stands: when ``c`` goes, ``d`` is back
    (docs/model.md, "Nogoods"), where ftl-reasons' retraction of ``d`` stays.
    """
    kb = base(PreferHigherConfidence())
    premise(kb, "a")
    premise(kb, "d", kind="assumption")
    sl(kb, "b", ["a"])
    sl(kb, "c", ["b"])
    kb.nogood("c", "d")
    assert held(kb) == {"a", "b", "c"}
    kb.retract("a")
    assert held(kb) == {"d"}


def test_backtracking_logs_culprit() -> None:
    """Ports test_backtracking.py::TestBacktrackingInNogood::test_backtracking_logs_culprit (and
    TestBacktrackingAPI::test_nogood_reports_backtrack).

    corollary keeps no propagation log; the culprit is named in the loser's proof.
    """
    kb = base(PreferHigherConfidence())
    premise(kb, "a")
    premise(kb, "b", kind="assumption")
    kb.nogood("a", "b")
    lost = proof(kb, "b", True)["nogood"]
    assert lost["culprit"] == {"key": "b", "value": True, "sources": ["assumption:b"],
                               "confidence": pytest.approx(0.6)}
    assert "culprit premise b = True from assumption:b (0.60)" in str(kb.explain("b", True))


def test_shared_premise_resolves_both() -> None:
    """Ports test_backtracking.py::TestBacktrackingInNogood::test_shared_premise_resolves_both.

    ftl-reasons retracts ``a``, the one premise, and all three go OUT. That is what a person
    does with corollary's open conflict: ``a`` is the only culprit, and giving it up leaves
    nothing held. A deciding policy instead gives up the item reached last, one of ``b`` and
    ``c``, and keeps ``a`` and the other (docs/model.md, "Nogoods": it gives way on items,
    naming the culprit, and never retracts a premise by itself).
    """
    kb = base()
    premise(kb, "a")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "c", ["a"], via="j2")
    kb.nogood("b", "c")
    assert culprits(kb) == ["a"]
    kb.resolve("nogood:1", give_up="a")
    assert held(kb) == set()

    kb = base(PreferHigherConfidence())
    premise(kb, "a")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "c", ["a"], via="j2")
    kb.nogood("b", "c")
    assert held(kb) in ({"a", "b"}, {"a", "c"})
    [lost] = {"b", "c"} - held(kb)
    assert proof(kb, lost, True)["nogood"]["culprit"]["key"] == "a"


def test_inactive_nogood_no_backtracking() -> None:
    """Ports test_backtracking.py::TestBacktrackingInNogood::test_inactive_nogood_no_backtracking."""
    for policy in (None, PreferHigherConfidence()):
        kb = base(policy)
        premise(kb, "a", "b")
        kb.retract("b")
        kb.nogood("a", "b")
        assert held(kb) == {"a"} and kb.conflicts() == []
        assert "nogood" not in proof(kb, "b", True)


def test_evidence_premise_more_entrenched_than_derived() -> None:
    """Ports test_backtracking.py::TestEntrenchment::test_evidence_premise_more_entrenched_than_derived.

    ftl-reasons' entrenchment scores premises with a source above unsourced ones. corollary's
    measure is confidence: a document's word (0.9) above an assumption (0.6), and culprits are
    offered weakest first.
    """
    kb = base()
    premise(kb, "evidence", kind="document")
    premise(kb, "basis", kind="assumption")
    sl(kb, "speculation", ["basis"])
    assert kb.confidence("evidence") > kb.confidence("basis")
    kb.nogood("evidence", "basis")
    assert culprits(kb) == ["basis", "evidence"]


def test_nogood_retracts_speculation_not_evidence() -> None:
    """Ports test_backtracking.py::TestEntrenchment::test_nogood_retracts_speculation_not_evidence."""
    for policy in (None, PreferHigherConfidence()):
        kb = base(policy)
        premise(kb, "finite-tree-gap-closes", kind="document")
        premise(kb, "w-is-bethe-lattice", kind="assumption")
        sl(kb, "tree-as-genealogy", ["w-is-bethe-lattice"])
        kb.nogood("tree-as-genealogy", "finite-tree-gap-closes")
        if policy is None:  # a person takes the weakest culprit, as ftl-reasons does
            assert culprits(kb) == ["w-is-bethe-lattice", "finite-tree-gap-closes"]
            kb.resolve("nogood:1", give_up=culprits(kb)[0])
        assert kb.label("finite-tree-gap-closes") == "IN"
        assert kb.label("tree-as-genealogy") == "OUT"


def test_sourced_premise_over_unsourced() -> None:
    """Ports test_backtracking.py::TestEntrenchment::test_sourced_premise_over_unsourced
    (a tool's word, 0.95, against an assumption, 0.6)."""
    kb = base()
    premise(kb, "sourced", kind="tool")
    premise(kb, "unsourced", kind="assumption")
    kb.nogood("sourced", "unsourced")
    assert culprits(kb) == ["unsourced", "sourced"]


def test_more_dependents_more_entrenched() -> None:
    """Ports test_backtracking.py::TestEntrenchment::test_more_dependents_more_entrenched.

    Deliberately different: corollary does not protect a premise for having dependents.
    Equally trusted premises are equally confident culprits, whatever rests on them
    (docs/model.md, "Confidence" and "Nogoods").
    """
    kb = base()
    premise(kb, "popular", "lonely")
    sl(kb, "d1", ["popular"], via="j1")
    sl(kb, "d2", ["popular"], via="j2")
    kb.nogood("popular", "lonely")
    [conflict] = kb.conflicts()
    assert {c.key: c.confidence for c in conflict.culprits} == {
        "popular": pytest.approx(0.99), "lonely": pytest.approx(0.99)}


# -- tests/test_add_justification.py --------------------------------------------------------


def test_add_justification_to_derived_node() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_add_justification_to_derived_node (and TestAPIAddJustification::
    test_add_sl_justification)."""
    kb = base()
    premise(kb, "a", "c")
    sl(kb, "b", ["a"], via="j1")
    assert kb.label("b") == "IN"
    sl(kb, "b", ["c"], via="j2")
    assert kb.label("b") == "IN"
    assert [r["name"] for r in proof(kb, "b")["reasons"]] == ["model:j1", "model:j2"]


def test_added_justification_keeps_node_in_after_retract() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_added_justification_keeps_node_in_after_retract."""
    kb = base()
    premise(kb, "a", "c")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "b", ["c"], via="j2")
    kb.retract("a")
    assert kb.label("b") == "IN"


def test_add_justification_restores_out_node() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_add_justification_restores_out_node (and TestAPIAddJustification's copy)."""
    kb = base()
    premise(kb, "a", "c")
    sl(kb, "b", ["a"], via="j1")
    kb.retract("a")
    assert kb.label("b") == "OUT"
    sl(kb, "b", ["c"], via="j2")
    assert kb.label("b") == "IN"


def test_add_justification_cascades() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_add_justification_cascades."""
    kb = base()
    premise(kb, "a", "c")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "d", ["b"])
    kb.retract("a")
    assert kb.label("d") == "OUT"
    sl(kb, "b", ["c"], via="j2")
    assert held(kb) == {"b", "c", "d"}


def test_add_justification_with_outlist() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_add_justification_with_outlist."""
    kb = base()
    premise(kb, "a", "enemy")
    sl(kb, "b", ["a"], via="j1")
    kb.retract("a")
    assert kb.label("b") == "OUT"
    sl(kb, "b", [], unless=["enemy"], via="j2")
    assert kb.label("b") == "OUT"  # enemy is IN
    kb.retract("enemy")
    assert kb.label("b") == "IN"


def test_add_justification_to_premise() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_add_justification_to_premise.

    Same labels. ftl-reasons then treats ``p`` as derived (its premise status is gone: with
    ``c`` retracted ``p`` goes OUT, see the comparison at the end of this file); in corollary a
    premise and a justification are two reasons side by side, so ``p`` keeps its premise
    (docs/model.md, "Beliefs, sources, reasons").
    """
    kb = base()
    premise(kb, "p", "c")
    sl(kb, "p", ["c"])
    assert kb.label("p") == "IN"
    assert [r["kind"] for r in proof(kb, "p")["reasons"]] == ["premises", "model"]
    kb.retract("c")
    assert kb.label("p") == "IN"


def test_add_justification_registers_dependents() -> None:
    """Ports test_add_justification.py::TestNetworkAddJustification::
    test_add_justification_registers_dependents.

    ftl-reasons checks its dependents index; the corollary form is that the new reason reacts
    to both its input and its exception. ``b`` is held on that reason alone here (its
    premise withdrawn), so that its label shows the reason's.
    """
    kb = base()
    premise(kb, "a", "e", "b")
    sl(kb, "b", ["a"], unless=["e"])
    kb.retract("b", source="human:b")
    assert kb.label("b") == "OUT"  # e holds
    kb.retract("e")
    assert kb.label("b") == "IN"
    kb.retract("a")
    assert kb.label("b") == "OUT"


def test_add_unless_only_justification() -> None:
    """Ports test_add_justification.py::TestAPIAddJustification::test_add_unless_only_justification."""
    kb = base()
    premise(kb, "a", "enemy")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "b", [], unless=["enemy"], via="j2")
    assert kb.label("b") == "IN"
    assert [r["valid"] for r in proof(kb, "b")["reasons"]] == [True, False]


# -- tests/test_remove_justification.py -----------------------------------------------------


def two_ways(retracted: str | None = None) -> BeliefBase:
    """``c`` justified by ``a`` (model:first) and by ``b`` (model:second)."""
    kb = base()
    premise(kb, "a", "b")
    sl(kb, "c", ["a"], via="first")
    sl(kb, "c", ["b"], via="second")
    if retracted:
        kb.retract(retracted)
    return kb


def test_remove_one_of_two() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::test_remove_one_of_two
    (and TestApiRemoveJustification::test_api_remove_justification)."""
    kb = two_ways()
    kb.retract("c", source="model:first")
    assert kb.label("c") == "IN"
    assert [r["name"] for r in proof(kb, "c")["reasons"]] == ["model:second"]


def test_remove_causes_out() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::test_remove_causes_out.

    ftl-reasons retracts ``b`` before justifying ``c`` by it; a claim needs held inputs, so
    here ``b`` is retracted just after: the same network.
    """
    kb = two_ways(retracted="b")
    assert kb.label("c") == "IN"
    kb.retract("c", source="model:first")
    assert kb.label("c") == "OUT"


def test_remove_propagates_cascade() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::
    test_remove_propagates_cascade."""
    kb = two_ways(retracted="b")
    sl(kb, "d", ["c"])
    assert kb.label("d") == "IN"
    kb.retract("c", source="model:first")
    assert kb.label("d") == "OUT"


def test_remove_cleans_dependents() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::
    test_remove_cleans_dependents (as behaviour: ``c`` no longer reacts to ``a``)."""
    kb = two_ways()
    kb.retract("c", source="model:first")
    kb.retract("b")
    assert kb.label("c") == "OUT"
    premise(kb, "b")
    kb.retract("a")
    assert kb.label("c") == "IN"


def test_remove_keeps_shared_dependent() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::
    test_remove_keeps_shared_dependent (as behaviour: ``c`` still reacts to ``a``)."""
    kb = base()
    premise(kb, "a", "b")
    sl(kb, "c", ["a", "b"], via="first")
    sl(kb, "c", ["a"], via="second")
    kb.retract("c", source="model:first")
    assert kb.label("c") == "IN"
    kb.retract("a")
    assert kb.label("c") == "OUT"


def test_remove_outlist_cleans_dependents() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::
    test_remove_outlist_cleans_dependents (as behaviour: ``c`` no longer reacts to the
    blocker)."""
    kb = base()
    premise(kb, "a", "blocker")
    kb.retract("blocker")
    sl(kb, "c", ["a"], unless=["blocker"], via="gated")
    sl(kb, "c", ["a"], via="plain")
    kb.retract("c", source="model:plain")
    premise(kb, "blocker")
    assert kb.label("c") == "OUT"  # the gated reason still sees the blocker
    kb.retract("blocker")
    sl(kb, "c", ["a"], via="plain")
    kb.retract("c", source="model:gated")
    premise(kb, "blocker")
    assert kb.label("c") == "IN"


def test_error_on_premise() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::test_error_on_premise."""
    kb = base()
    premise(kb, "a")
    with pytest.raises(UnknownBeliefError, match="has no reason from model:j1"):
        kb.retract("a", source="model:j1")
    assert kb.label("a") == "IN"


def test_error_on_single_justification() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::
    test_error_on_single_justification.

    Deliberately different: ftl-reasons refuses to remove the last justification (retract or
    convert to a premise instead). corollary withdraws it like any other, and the belief,
    resting on nothing, is OUT and says so (docs/model.md, "Withdrawing one reason").
    """
    kb = chain("a", "b")
    kb.retract("b", source="model:j1")
    assert kb.label("b") == "OUT"
    assert proof(kb, "b", True)["why"] == "unsupported"


def test_error_on_missing_node() -> None:
    """Ports test_remove_justification.py::TestNetworkRemoveJustification::
    test_error_on_missing_node."""
    with pytest.raises(UnknownBeliefError, match="nonexistent"):
        base().retract("nonexistent", source="model:j1")


# -- tests/test_dialectical.py --------------------------------------------------------------
#
# ftl-reasons' challenge(target) adds a new premise, the challenge, to the out-list of every
# justification of the target (a premise target becomes "target unless challenge"); defend
# challenges the challenge. A corollary reason's exceptions are fixed when it is given, so a
# challenge gives the target's reason again with the exception and withdraws the old one
# (docs/model.md, "Withdrawing one reason"); a premise target becomes a default claim.


def challenge(kb: BeliefBase, target: str, by: str, inputs: list[str], old: str) -> None:
    """Challenge ``target`` (held on ``inputs`` by the reason from ``old``) with premise ``by``."""
    premise(kb, by)
    kb.claim(target, True, source=f"model:{target}-unless-{by}", inputs=inputs, unless=[by])
    kb.retract(target, True, source=old)


def test_challenge_premise() -> None:
    """Ports test_dialectical.py::TestChallenge::test_challenge_premise and
    test_challenge_creates_node (the challenge is IN, the target OUT), and
    TestDialecticalAPI::test_challenge_api."""
    kb = base()
    premise(kb, "a")
    challenge(kb, "a", "challenge-a", [], old="human:a")
    assert (kb.label("a"), kb.label("challenge-a")) == ("OUT", "IN")


def test_challenge_derived() -> None:
    """Ports test_dialectical.py::TestChallenge::test_challenge_derived."""
    kb = base()
    premise(kb, "p")
    sl(kb, "a", ["p"])
    challenge(kb, "a", "challenge-a", ["p"], old="model:j1")
    assert held(kb) == {"p", "challenge-a"}


def test_challenge_cascades() -> None:
    """Ports test_dialectical.py::TestChallenge::test_challenge_cascades."""
    kb = chain("a", "b")
    challenge(kb, "a", "challenge-a", [], old="human:a")
    assert held(kb) == {"challenge-a"}


def test_multiple_challenges() -> None:
    """Ports test_dialectical.py::TestChallenge::test_multiple_challenges (the labels: a second
    challenge joins the out-list; dismissing one leaves the other in force)."""
    kb = base()
    premise(kb, "a")
    challenge(kb, "a", "challenge-a", [], old="human:a")
    premise(kb, "challenge-a-2")
    kb.claim("a", True, source="model:a-unless-both", inputs=[],
             unless=["challenge-a", "challenge-a-2"])
    kb.retract("a", True, source="model:a-unless-challenge-a")
    assert kb.label("a") == "OUT"
    kb.retract("challenge-a")
    assert kb.label("a") == "OUT"
    kb.retract("challenge-a-2")
    assert kb.label("a") == "IN"


def test_dismiss_challenge_restores_target() -> None:
    """Ports test_dialectical.py::TestChallenge::test_dismiss_challenge_restores_target."""
    kb = base()
    premise(kb, "a")
    challenge(kb, "a", "challenge-a", [], old="human:a")
    kb.retract("challenge-a")
    assert kb.label("a") == "IN"


def defended() -> BeliefBase:
    """``a`` challenged, and the challenge defended."""
    kb = base()
    premise(kb, "a")
    challenge(kb, "a", "challenge-a", [], old="human:a")
    challenge(kb, "challenge-a", "defense-challenge-a", [], old="human:challenge-a")
    return kb


def test_defend_restores_target() -> None:
    """Ports test_dialectical.py::TestDefend::test_defend_restores_target (and
    TestDialecticalAPI::test_defend_api)."""
    kb = defended()
    assert held(kb) == {"a", "defense-challenge-a"}


def test_defend_cascades_restoration() -> None:
    """Ports test_dialectical.py::TestDefend::test_defend_cascades_restoration."""
    kb = chain("a", "b")
    challenge(kb, "a", "challenge-a", [], old="human:a")
    assert kb.label("b") == "OUT"
    challenge(kb, "challenge-a", "defense-challenge-a", [], old="human:challenge-a")
    assert held(kb) == {"a", "b", "defense-challenge-a"}


def test_retract_defense_reinstates_challenge() -> None:
    """Ports test_dialectical.py::TestDefend::test_retract_defense_reinstates_challenge."""
    kb = defended()
    kb.retract("defense-challenge-a")
    assert held(kb) == {"challenge-a"}


def test_challenge_defense() -> None:
    """Ports test_dialectical.py::TestDialecticalChain::test_challenge_defense."""
    kb = defended()
    challenge(kb, "defense-challenge-a", "challenge-defense-challenge-a", [],
              old="human:defense-challenge-a")
    assert held(kb) == {"challenge-a", "challenge-defense-challenge-a"}


def test_three_level_chain() -> None:
    """Ports test_dialectical.py::TestDialecticalChain::test_three_level_chain."""
    kb = defended()
    challenge(kb, "defense-challenge-a", "challenge-defense-challenge-a", [],
              old="human:defense-challenge-a")
    assert kb.label("a") == "OUT"
    challenge(kb, "challenge-defense-challenge-a", "defense-challenge-defense-challenge-a", [],
              old="human:challenge-defense-challenge-a")
    assert held(kb) == {"a", "defense-challenge-a", "defense-challenge-defense-challenge-a"}


@pytest.mark.parametrize("fmt", ["cor", "json"])
def test_dialectical_round_trip(tmp_path: Path, fmt: str) -> None:
    """Ports test_dialectical.py::TestDialecticalPersistence::test_round_trip (a snapshot)."""
    defended().save(tmp_path / f"s.{fmt}")
    loaded = BeliefBase.load(tmp_path / f"s.{fmt}", clock=ManualClock(0))
    assert held(loaded) == {"a", "defense-challenge-a"}
    loaded.retract("defense-challenge-a")
    assert held(loaded) == {"challenge-a"}


# -- tests/test_api.py: the one cycle in the suite ------------------------------------------


def test_explain_circular_dependency() -> None:
    """Ports test_api.py::TestExplainNode::test_explain_circular_dependency.

    Deliberately different. ftl-reasons keeps ``x`` and ``y`` IN on each other once ``p`` is
    retracted (its explanation reports the circle). corollary requires every chain of reasons
    to bottom out in premises (docs/model.md, "Beliefs, sources, reasons": two beliefs that
    only support each other are OUT), so both go OUT, and come back with ``p``.
    """
    kb = base()
    premise(kb, "p")
    sl(kb, "x", ["p"], via="j1")
    sl(kb, "y", ["x"])
    sl(kb, "x", ["y"], via="j2")
    assert held(kb) == {"p", "x", "y"}
    kb.retract("p")
    assert held(kb) == set()
    assert proof(kb, "x", True)["why"] == "unsupported"
    premise(kb, "p")
    assert held(kb) == {"p", "x", "y"}


# -- found while porting ---------------------------------------------------------------------


def test_a_default_whose_exception_comes_in_in_the_same_change_stays_out() -> None:
    """``d2 <- d0 unless d1`` with ``d1 <- d0``: asserting ``p`` again brings ``d0`` and ``d1``
    IN in one change, and ``d2`` must stay OUT. ftl-reasons' breadth-first propagation marks a
    node visited once it changes, so whether it revisits ``d2`` after ``d1`` depends on set
    order (string hashing): its answer varies with ``PYTHONHASHSEED``. corollary settles the
    exception first (docs/model.md, "Exceptions": strata)."""
    kb = base()
    premise(kb, "p")
    sl(kb, "d0", ["p"])
    sl(kb, "d1", ["d0"])
    sl(kb, "d2", ["d0"], unless=["d1"])
    assert held(kb) == {"p", "d0", "d1"}
    kb.retract("p")
    assert held(kb) == set()
    premise(kb, "p")
    assert held(kb) == {"p", "d0", "d1"}


@rule(output="x", unless=["y"], name="tests.peers.ftl.x_by_default")
def x_by_default() -> bool:
    return True


def test_a_rule_with_no_inputs_is_a_default() -> None:
    """ftl-reasons' out-list-only justification (test_outlist.py::TestOutlistBasic::
    test_outlist_valid_when_out, TestOutlistAPI::test_unless_only_no_sl) written as a rule.

    A rule fires when every input key holds a value (docs/model.md, corollary.reasons.rules): with no
    inputs that is at once, so ``x`` holds unless ``y``.
    """
    kb = base()
    kb.add_rule(x_by_default)
    assert kb.label("x") == "IN"
    premise(kb, "y")
    assert kb.label("x") == "OUT"


@rule(output="e", name="tests.peers.ftl.e_from_d")
def e_from_d(d: bool) -> bool:
    return True


def test_a_rule_closing_a_cycle_through_an_exception_is_refused_and_fires_nothing() -> None:
    """Found by running random ftl-reasons-style networks (premises, SL justifications as
    rules, out-lists) on corollary against a from-scratch well-founded labelling.

    ``d`` holds unless ``e``; a rule ``e <- d`` would make ``d`` rest on its own absence. "A
    rule firing that would close one raises from the operation that set it off, and that
    combination is not fired" (docs/model.md, "Exceptions"), as the same step given as a claim
    is refused with nothing changed; every firing is checked, not only those of rules with
    exceptions of their own.
    """
    kb = base()
    premise(kb, "p")
    sl(kb, "d", ["p"], unless=["e"])
    with pytest.raises(StratificationError):
        kb.add_rule(e_from_d)
    assert "e" not in kb
    assert held(kb) == {"p", "d"}


# -- the same scenarios run on ftl-reasons itself (needs the bench extra) -------------------


@pytest.fixture
def ftl() -> ModuleType:
    return pytest.importorskip("reasons.network")


def ftl_labels(net: Any, *ids: str) -> dict[str, str]:
    return {i: net.nodes[i].truth_value for i in ids}


def cor_labels(kb: BeliefBase, *keys: str) -> dict[str, str]:
    return {k: kb.label(k) for k in keys}


def test_same_labels_on_a_diamond_with_a_pinned_intermediate(ftl: ModuleType) -> None:
    """test_network.py::TestDiamondDependency::test_diamond_with_retracted_intermediate on both."""
    J = ftl.Justification
    net = ftl.Network()
    net.add_node("a", "A")
    net.add_node("b", "B", justifications=[J(type="SL", antecedents=["a"])])
    net.add_node("c", "C", justifications=[J(type="SL", antecedents=["a"])])
    net.add_node("d", "D", justifications=[J(type="SL", antecedents=["b", "c"])])
    kb = diamond()
    seen = []
    for step in ("retract b", "retract a", "assert a"):
        op, key = step.split()
        if op == "retract":
            net.retract(key)
            kb.retract(key)
        else:
            net.assert_node(key)
            premise(kb, key)
        seen.append(ftl_labels(net, *"abcd") == cor_labels(kb, *"abcd"))
    assert seen == [True, True, True]
    assert cor_labels(kb, *"abcd") == {"a": "IN", "b": "OUT", "c": "IN", "d": "OUT"}


def test_same_labels_on_out_lists_and_alternate_justifications(ftl: ModuleType) -> None:
    """test_outlist.py::TestOutlistWithMultipleJustifications on both, step by step."""
    J = ftl.Justification
    net = ftl.Network()
    net.add_node("y", "Y")
    net.add_node("a", "A")
    net.retract("y")
    net.add_node("x", "X", justifications=[J(type="SL", antecedents=[], outlist=["y"]),
                                           J(type="SL", antecedents=["a"])])
    kb = base()
    premise(kb, "y", "a")
    kb.retract("y")
    sl(kb, "x", [], unless=["y"], via="j1")
    sl(kb, "x", ["a"], via="j2")
    trace = [(ftl_labels(net, "x", "y", "a"), cor_labels(kb, "x", "y", "a"))]
    net.assert_node("y")
    premise(kb, "y")
    trace.append((ftl_labels(net, "x", "y", "a"), cor_labels(kb, "x", "y", "a")))
    net.retract("a")
    kb.retract("a")
    trace.append((ftl_labels(net, "x", "y", "a"), cor_labels(kb, "x", "y", "a")))
    assert [f == c for f, c in trace] == [True, True, True]
    assert [c["x"] for _, c in trace] == ["IN", "IN", "OUT"]


def test_same_labels_when_a_nogood_gives_up_the_weakest_premise(ftl: ModuleType) -> None:
    """test_backtracking.py::TestBacktrackingInNogood::test_retracts_premise_not_derived on both,
    corollary with no policy and a person giving up the first culprit."""
    J = ftl.Justification
    net = ftl.Network()
    net.add_node("a", "A")
    net.add_node("b", "B")
    net.add_node("c", "C", justifications=[J(type="SL", antecedents=["a"])])
    net.add_nogood(["b", "c"])
    kb = base()
    premise(kb, "a")
    premise(kb, "b", kind="assumption")
    sl(kb, "c", ["a"])
    kb.nogood("b", "c")
    kb.resolve("nogood:1", give_up=culprits(kb)[0])
    assert ftl_labels(net, "a", "b", "c") == cor_labels(kb, "a", "b", "c") == {
        "a": "IN", "b": "OUT", "c": "IN"}


def test_a_cycle_stays_in_on_ftl_reasons_and_goes_out_on_corollary(ftl: ModuleType) -> None:
    """test_api.py::TestExplainNode::test_explain_circular_dependency on both: the difference."""
    J = ftl.Justification
    net = ftl.Network()
    net.add_node("p", "P")
    net.add_node("x", "X", justifications=[J(type="SL", antecedents=["p"])])
    net.add_node("y", "Y", justifications=[J(type="SL", antecedents=["x"])])
    net.add_justification("x", J(type="SL", antecedents=["y"]))
    net.retract("p")
    kb = base()
    premise(kb, "p")
    sl(kb, "x", ["p"], via="j1")
    sl(kb, "y", ["x"])
    sl(kb, "x", ["y"], via="j2")
    kb.retract("p")
    assert ftl_labels(net, "p", "x", "y") == {"p": "OUT", "x": "IN", "y": "IN"}
    assert cor_labels(kb, "p", "x", "y") == {"p": "OUT", "x": "OUT", "y": "OUT"}


def test_a_justified_premise_keeps_its_premise_on_corollary_only(ftl: ModuleType) -> None:
    """test_add_justification.py::test_add_justification_to_premise, continued on both: with the
    new justification's input retracted, ftl-reasons' former premise goes OUT."""
    J = ftl.Justification
    net = ftl.Network()
    net.add_node("p", "P")
    net.add_node("c", "C")
    net.add_justification("p", J(type="SL", antecedents=["c"]))
    net.retract("c")
    kb = base()
    premise(kb, "p", "c")
    sl(kb, "p", ["c"])
    kb.retract("c")
    assert ftl_labels(net, "p") == {"p": "OUT"}
    assert cor_labels(kb, "p") == {"p": "IN"}


def test_a_deciding_policy_keeps_the_shared_premise(ftl: ModuleType) -> None:
    """test_backtracking.py::TestBacktrackingInNogood::test_shared_premise_resolves_both on both:
    ftl-reasons retracts the premise, corollary's deciding policy gives up one item."""
    J = ftl.Justification
    net = ftl.Network()
    net.add_node("a", "A")
    net.add_node("b", "B", justifications=[J(type="SL", antecedents=["a"])])
    net.add_node("c", "C", justifications=[J(type="SL", antecedents=["a"])])
    net.add_nogood(["b", "c"])
    kb = base(PreferHigherConfidence())
    premise(kb, "a")
    sl(kb, "b", ["a"], via="j1")
    sl(kb, "c", ["a"], via="j2")
    kb.nogood("b", "c")
    assert ftl_labels(net, "a", "b", "c") == {"a": "OUT", "b": "OUT", "c": "OUT"}
    assert cor_labels(kb, "a") == {"a": "IN"}
    assert sorted(cor_labels(kb, "b", "c").values()) == ["IN", "OUT"]

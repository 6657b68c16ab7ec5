"""Chains thousands of steps deep: explain, print, to_dict, save and load walk them without
recursion (a chain deeper than about 400 steps raised RecursionError), and proofs of ordinary
depth print byte for byte as they always did (``data/proofs_golden.json``, written by the
recursive implementation this one replaced)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.snapshot_cases import T0, rich_base, shared_base, shared_ledger

from corollary import BeliefBase, ManualClock
from corollary.tms.proof import RENDER_DEPTH, Proof

GOLDEN = Path(__file__).parents[1] / "data" / "proofs_golden.json"
DEPTH = 5_000


def chain(depth: int, clock: ManualClock | None = None) -> BeliefBase:
    """``k0`` a premise; each ``k{i}`` a model's claim over ``k{i-1}`` and a side premise, with
    every tenth step also reading ``k0`` again (shown once, then "see above")."""
    kb = BeliefBase(clock=clock or ManualClock(T0), learn_from_checks=False)
    kb.assert_("k0", 0, source="human:ops")
    for i in range(1, depth + 1):
        inputs = [f"k{i - 1}"]
        if i % 10 == 0:
            kb.assert_(f"side{i}", i, source="tool:feed", half_life=3600)
            inputs += [f"side{i}", "k0"]
        kb.claim(f"k{i}", i, source="model:m", inputs=inputs, certainty=0.999)
    return kb


def golden_proofs() -> dict[str, Proof]:
    """The proofs pinned in the golden file: every belief of the representative bases, and
    chains up to the depth at which printing starts continuing below."""
    proofs: dict[str, Proof] = {}
    rich = rich_base(ManualClock(T0))
    clock = ManualClock(T0)
    shared = shared_base(clock, shared_ledger(clock))
    for name, kb in (("rich", rich), ("shared", shared)):
        for key, value, _seq, _withdrawn in kb.to_dict()["beliefs"]:
            proofs[f"{name}:{key}={value!r}"] = kb.explain(key, value)
        for key in sorted(set(kb.keys())):
            proofs[f"{name}:{key}"] = kb.explain(key)
    for depth in (1, 2, 10, 25, RENDER_DEPTH - 1):
        proofs[f"chain:{depth}"] = chain(depth).explain(f"k{depth}")
    return proofs


def as_json(tree: Any) -> str:
    return json.dumps(tree, default=repr, ensure_ascii=False)


def test_proofs_print_and_convert_exactly_as_before() -> None:
    golden = json.loads(GOLDEN.read_text())
    proofs = golden_proofs()
    assert sorted(proofs) == sorted(golden)
    assert len(proofs) == 57
    for name, proof in proofs.items():
        assert str(proof) == golden[name]["text"], name
        assert as_json(proof.to_dict()) == golden[name]["tree"], name


@pytest.fixture(scope="module")
def deep() -> BeliefBase:
    return chain(DEPTH)


def test_a_5000_deep_chain_explains_prints_and_converts(deep: BeliefBase) -> None:
    proof = deep.explain(f"k{DEPTH}")
    tree = proof.to_dict()
    assert isinstance(tree, dict)
    # walk the tree (without recursion) down the chain: every step is there, in order
    node, depth, see_above = tree, 0, 0
    while node["key"] != "k0":
        assert node["key"] == f"k{DEPTH - depth}" and node["label"] == "IN"
        (step,) = node["reasons"]
        inputs = step["inputs"]
        see_above += sum(1 for x in inputs[1:] if x.get("see_above"))
        node, depth = inputs[0], depth + 1
    # k0 is shown in full at the bottom of the chain (reached first, depth first), then referred to
    assert depth == DEPTH and see_above == DEPTH // 10
    text = str(proof)
    lines = text.splitlines()
    assert lines[0] == f"k{DEPTH} = {DEPTH} [IN {format(proof.to_dict()['confidence'], '.2f')}]"
    continued = [line for line in lines if line.startswith("[")]
    assert len(continued) == DEPTH // RENDER_DEPTH
    assert continued[0].startswith(f"[1] k{DEPTH - RENDER_DEPTH} = ")
    assert max(map(len, lines)) <= 6 * RENDER_DEPTH + 200
    assert sum(1 for line in lines if "─ k0 = 0 [IN 0.99] (see above)" in line) == DEPTH // 10
    assert continued[-1] == f"[{DEPTH // RENDER_DEPTH}] k0 = 0 [IN 0.99]"  # k0 in full
    assert repr(proof) == text


def test_a_5000_deep_chain_saves_and_loads(deep: BeliefBase, tmp_path: Path) -> None:
    for fmt in ("msgpack", "json"):
        path = tmp_path / f"deep.{fmt}"
        deep.save(path, format=fmt)
        loaded = BeliefBase.load(path, clock=ManualClock(deep.clock()))
        assert loaded.to_dict()["justifications"] == deep.to_dict()["justifications"]
        assert loaded.confidence(f"k{DEPTH}") == deep.confidence(f"k{DEPTH}")
        assert str(loaded.explain(f"k{DEPTH}")) == str(deep.explain(f"k{DEPTH}"))


def test_truncated_proofs_still_stop_at_max_depth(deep: BeliefBase) -> None:
    from corollary.tms.proof import build_proof

    tree = build_proof(deep.engine, deep.engine.find(f"k{DEPTH}", DEPTH), deep.now(),
                       lambda source: 0.99, max_depth=3).to_dict()
    node, depth = tree, 0
    while "reasons" in node:
        node, depth = node["reasons"][0]["inputs"][0], depth + 1
    assert depth == 3 and node["truncated"] is True


def nesting(data: Any) -> int:
    """How many JSON containers deep ``data`` goes (walked without recursion)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((x, level + 1) for x in (item.values() if isinstance(item, dict) else item))
    return deepest


@pytest.mark.parametrize("cut", [1, 10, RENDER_DEPTH])
def test_a_5000_deep_chain_in_blocks_is_shallow_and_numbered_as_printed(deep: BeliefBase,
                                                                        cut: int) -> None:
    proof = deep.explain(f"k{DEPTH}")
    blocks = proof.to_blocks(cut)
    # json.dumps of to_dict() itself raises RecursionError at this depth; the blocks do not
    text = json.dumps(blocks)
    assert nesting(json.loads(text)) <= 4 * cut + 8
    numbers = [b["number"] for b in blocks["continued"]]
    assert numbers == list(range(1, len(numbers) + 1))
    if cut == RENDER_DEPTH:
        printed = [line for line in str(proof).splitlines() if line.startswith("[")]
        assert len(printed) == len(blocks["continued"])
        for line, block in zip(printed, blocks["continued"], strict=True):
            assert line.startswith(f"[{block['number']}] {block['proof']['key']} = ")
    # every belief of to_dict() is in exactly one block, with the same fields
    beliefs = 0
    stack = [blocks["proof"], *(b["proof"] for b in blocks["continued"])]
    while stack:
        node = stack.pop()
        beliefs += "continued" not in node
        stack.extend(x for r in node.get("reasons", ()) for x in r.get("inputs", ()))
    assert beliefs == DEPTH + 1 + 2 * (DEPTH // 10)  # k0..k5000, each side premise and k0 again


def test_blocks_of_an_ordinary_proof_are_the_tree_and_depth_is_checked() -> None:
    proof = chain(3).explain("k3")
    assert proof.to_blocks() == {"proof": proof.to_dict(), "continued": []}
    from corollary.foundations.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="at least 1"):
        proof.to_blocks(0)

"""kb.recall(..., scope=...): hits and their inputs inside the scope only, and the scoped recall is
the unscoped one with the keys outside the scope taken out (a property over random bases and
scopes, run with k past every candidate so that the two lists can be compared)."""

from __future__ import annotations

from contextlib import suppress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corollary import BeliefBase, CorollaryError, InvalidTypeError, ManualClock, Scope

TASK = "What is customer 42's address?"


def customers() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0))
    for c in (0, 1, 4, 42, 420):
        kb.assert_(f"customer:{c}:address", f"{c} Oak St", source="tool:crm")
    kb.assert_("store:address", "1 Main St", source="tool:crm")
    return kb


def test_the_padding_of_other_customers_is_gone() -> None:
    kb = customers()
    unscoped = [r.key for r in kb.recall(TASK, limit=4)]
    assert len(unscoped) == 4  # other customers pad the list without a scope
    scoped = [r.key for r in kb.recall(TASK, limit=4, scope=("customer:42", "store"))]
    assert scoped == ["customer:42:address", "store:address"]
    assert [r.key for r in kb.recall(TASK, scope="customer:4")] == ["customer:4:address"]


def test_an_input_outside_the_scope_is_not_expanded() -> None:
    kb = customers()
    kb.claim("customer:42:nearest", "store", source="model:m",
             inputs=["customer:42:address", "customer:0:address", "store:address"])
    found = kb.recall("nearest", expand=True, scope=("customer:42", "store"))
    assert [(r.key, r.why) for r in found] == [
        ("customer:42:nearest", ("nearest",)),
        ("customer:42:address", ("input of customer:42:nearest",)),
        ("store:address", ("input of customer:42:nearest",))]


def test_a_bad_scope_is_a_typed_error_and_nothing_changes() -> None:
    kb = customers()
    with pytest.raises(InvalidTypeError):
        kb.recall(TASK, scope=42)  # type: ignore[arg-type]
    assert len(kb.recall(TASK, scope=Scope.of("customer:42"))) == 1


KEYS = [f"{who}:{field}" for who in ("customer:1", "customer:10", "customer:2", "store")
        for field in ("address", "email", "plan")] + ["customer:1", "store"]
PREFIXES = ["customer:1", "customer:10", "customer:2", "store", "customer", "customer:1:email"]


@settings(max_examples=60, deadline=None)
@given(facts=st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(["oak", "pine", "elm"]),
                                st.sampled_from(["tool:crm", "human:ops", "model:m"])),
                      min_size=1, max_size=25),
       retracted=st.lists(st.sampled_from(KEYS), max_size=4),
       prefixes=st.lists(st.sampled_from(PREFIXES), min_size=1, max_size=3),
       query=st.sampled_from(["oak address", "pine email", "elm plan customer", "store"]),
       expand=st.booleans())
def test_scoped_recall_is_the_unscoped_recall_without_the_keys_outside(
        facts: list[tuple[str, str, str]], retracted: list[str], prefixes: list[str],
        query: str, expand: bool) -> None:
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=None)
    for key, value, source in facts:
        kb.assert_(key, value, source=source)
    held = sorted({k for k, _, _ in facts})
    single = [k for k in held if len({v for kk, v, _ in facts if kk == k}) == 1]
    kb.claim("store:summary", "oak", source="model:m", inputs=single[:3])
    for key in retracted:
        if key in held:
            for value in {v for k, v, _ in facts if k == key}:
                with suppress(CorollaryError):  # a value its source replaced is gone already
                    kb.retract(key, value)
    scope = Scope.of(prefixes)
    every = kb.recall(query, limit=100, expand=expand)
    scoped = kb.recall(query, limit=100, expand=expand, scope=scope)
    assert all(scope.contains(r.key) for r in scoped)
    if not expand:  # the same hits in the same order (scores do not depend on the scope)
        assert [(r.key, r.value, r.score) for r in scoped] == [
            (r.key, r.value, r.score) for r in every if scope.contains(r.key)]
        return
    # with expand: the scoped hits, each followed by its inputs inside the scope (a hit outside
    # the scope brings none, and each belief is shown once)
    plain = [(r.key, r.value) for r in kb.recall(query, limit=100, scope=scope)]
    shown = [(r.key, r.value) for r in scoped]
    assert set(plain) <= set(shown)
    for r in scoped:
        if (r.key, r.value) not in plain:
            hit = r.why[0][len("input of "):]
            assert r.why[0].startswith("input of ") and scope.contains(hit)
            assert any(k == hit for k, _ in plain)

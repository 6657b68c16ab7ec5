"""Scopes (corollary.foundations.scope): what a prefix holds (the ``:`` boundary), the typed
errors for bad prefixes, and proofs redacted so that a belief outside the scope is named only as
outside it, however deep the chain."""

from __future__ import annotations

from typing import Any

import pytest

from corollary import BeliefBase, InvalidInputError, InvalidTypeError, OutsideScopeError, Scope
from corollary.foundations.scope import OUTSIDE, to_scope


def test_a_key_is_in_scope_when_it_is_a_prefix_or_starts_with_one_and_a_colon() -> None:
    scope = Scope.of(("customer:42", "store"))
    assert scope.prefixes == ("customer:42", "store")
    inside = ["customer:42", "customer:42:email", "customer:42:a:b", "store", "store:hours"]
    outside = ["customer:420", "customer:4", "customer", "customer:42x", "stores", "x:store",
               "", "Store"]
    assert all(scope.contains(k) for k in inside)
    assert not any(scope.contains(k) for k in outside)
    assert Scope.of(["b", "a", "b"]).prefixes == ("a", "b")  # sorted, once each
    assert Scope.of(scope) is scope and to_scope(None) is None
    assert str(scope) == "customer:42, store"


@pytest.mark.parametrize("bad, error", [
    ("", InvalidInputError), ("  ", InvalidInputError), ((), InvalidInputError),
    ("customer:", InvalidInputError), (("a", ""), InvalidInputError),
    (3, InvalidTypeError), ((1, "a"), InvalidTypeError), (b"a", InvalidTypeError),
    ({"a": 1}, InvalidTypeError), (None, InvalidTypeError),
])
def test_bad_prefixes_are_typed_errors(bad: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        Scope.of(bad)


def test_check_raises_outside_scope_error_an_invalid_input() -> None:
    scope = Scope.of("customer:42")
    scope.check("customer:42:email")
    with pytest.raises(OutsideScopeError, match="'customer:7' is outside the scope") as caught:
        scope.check("customer:7", "input")
    assert isinstance(caught.value, InvalidInputError)


def _keys(tree: Any) -> list[str]:
    out: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node["key"])
        for reason in node.get("reasons", []):
            stack.extend(reason.get("inputs", []))
    return out


def test_a_redacted_proof_names_inputs_outside_only_as_outside() -> None:
    kb = BeliefBase()
    kb.assert_("customer:7:plan", "secret-enterprise", source="tool:crm")
    kb.assert_("customer:42:plan", "basic", source="tool:crm")
    kb.claim("customer:42:upsell", True, source="model:m",
             inputs=["customer:42:plan", "customer:7:plan"])
    tree = Scope.of("customer:42").redact(kb.explain("customer:42:upsell").to_dict())
    assert sorted(_keys(tree)) == [OUTSIDE, "customer:42:plan", "customer:42:upsell"]
    outside = tree["reasons"][0]["inputs"][1]
    assert outside == {"key": OUTSIDE, "value": None, "label": "IN",
                       "confidence": pytest.approx(0.95), "outside_scope": True}
    from corollary import Proof

    text = str(Proof(tree))
    assert "customer:7" not in text and "secret-enterprise" not in text
    assert OUTSIDE in text and "customer:42:plan = 'basic'" in text


def test_a_lost_to_rival_and_a_cited_document_outside_are_redacted() -> None:
    tree = {"key": "a", "value": 1, "label": "OUT", "confidence": 0.0,
            "lost_to": {"key": "b", "value": "secret", "confidence": 0.9},
            "reasons": [{"kind": "claim", "document": "doc:b", "quote": "secret words",
                         "names": {"x": "b", "y": "a"},
                         "unless": [{"item": "b = 2", "key": "b", "value": 2, "held": True,
                                     "by": {"key": "b", "value": 2, "confidence": 0.8}}],
                         "inputs": []}]}
    red = Scope.of("a").redact(tree)
    assert red["lost_to"] == {"key": OUTSIDE, "value": None, "confidence": 0.9}
    reason = red["reasons"][0]
    assert reason["document"] == OUTSIDE and "quote" not in reason
    assert reason["names"] == {"x": OUTSIDE, "y": "a"}
    assert reason["unless"][0]["key"] == OUTSIDE and reason["unless"][0]["by"]["key"] == OUTSIDE
    assert "secret" not in repr(red) and "'b'" not in repr(red)
    assert tree["lost_to"]["key"] == "b"  # the original is left as it was


def test_a_proof_thousands_deep_redacts_without_recursion() -> None:
    node: dict[str, Any] = {"key": "out:0", "value": 0, "label": "IN", "confidence": 1.0,
                            "reasons": []}
    for i in range(1, 5000):
        node = {"key": f"in:{i}", "value": i, "label": "IN", "confidence": 1.0,
                "reasons": [{"kind": "rule", "inputs": [node]}]}
    red = Scope.of("in").redact(node)
    keys = _keys(red)
    assert len(keys) == 5000 and keys[-1] == OUTSIDE

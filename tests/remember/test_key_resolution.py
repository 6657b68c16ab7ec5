"""Key resolution (docs/remember.md, "Key resolution"): normalised subject:attribute, normalised
equality, word similarity at the documented threshold, an optional embedder; never another
subject."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from corollary import BeliefBase
from corollary.facade.key_resolution import THRESHOLD, KeyIndex, fact_key, similarity


def index(*keys: str) -> KeyIndex:
    kb = BeliefBase()
    for key in keys:
        kb.assert_(key, 1, source="tool:t")
    return KeyIndex(kb.engine)


def test_a_fact_key_is_normalised() -> None:
    assert fact_key("  Ann-Marie ", "Favourite   Food!") == "ann_marie:favourite_food"
    assert fact_key("ÉMILE", "ville") == "émile:ville"


@pytest.mark.parametrize(("a", "b", "merged"), [
    ("home city", "city", True), ("city of residence", "city", True),
    ("current phone", "phone", True), ("current employer", "employer", True),
    ("pets", "pet", True), ("birth city", "city", False), ("work email", "email", False),
    ("work phone", "home phone", False), ("employer", "city", False),
    ("place of birth", "birth place", True), ("home address", "address", True),
    # what tells two attributes apart is never dropped (issue 35, item 5)
    ("pet name", "pet", False), ("birth place", "birth name", False),
    ("phone number", "phone", False), ("place of residence", "place of birth", False),
])
def test_the_threshold_decides_as_documented(a: str, b: str, merged: bool) -> None:
    assert (similarity(a, b) >= THRESHOLD) is merged
    assert THRESHOLD == pytest.approx(2 / 3)


def test_resolution_in_order() -> None:
    keys = index("alice:city", "alice:birth_city", "bob:city", "customer:7:email")
    assert keys.resolve("Alice", "City") == ("alice:city", None, "equal")
    assert keys.resolve("alice", "home city") == ("alice:city", "alice:home_city", "similar")
    assert keys.resolve("alice", "city of birth") == ("alice:birth_city", "alice:city_of_birth",
                                                      "similar")
    assert keys.resolve("Customer 7", "e-mail") == ("customer_7:e_mail", None, "new")
    assert keys.resolve("customer 7", "email") == ("customer:7:email", "customer_7:email",
                                                   "equal")
    assert keys.resolve("carol", "city") == ("carol:city", None, "new")
    # a key the model gave of another subject is not taken
    assert keys.resolve("bob", "town", given="alice:city") == ("bob:town", None, "new")
    assert keys.resolve("bob", "town", given="bob:city") == ("bob:city", "bob:town", "given")


def test_keys_made_after_the_index_are_found() -> None:
    kb = BeliefBase()
    keys = KeyIndex(kb.engine)
    assert keys.resolve("alice", "home city").how == "new"
    kb.assert_("alice:city", "Paris", source="tool:t")
    kb.assert_("bob:city", "Rome", source="tool:t")
    assert keys.resolve("alice", "home city").key == "alice:city"
    kb.assert_("alice:employer", "Acme", source="tool:t")
    assert keys.resolve("alice", "current employer").key == "alice:employer"


def test_an_embedder_merges_what_words_do_not() -> None:
    def embed(texts: list[str]) -> Any:
        table = {"town": [1.0, 0.1], "city": [1.0, 0.0], "employer": [0.0, 1.0]}
        return np.array([table.get(t, [0.5, 0.5]) for t in texts])

    keys = index("alice:city", "alice:employer")
    assert keys.resolve("alice", "town").how == "new"
    assert keys.resolve("alice", "town", embedder=embed) == ("alice:city", "alice:town",
                                                             "embedded")

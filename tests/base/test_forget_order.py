"""Forgetting a key that declared replacements wait on leaves the same labels whatever the
objects' identities (docs/model.md, "Forgetting" and "Dependencies and declared
replacements"). Before: the exceptions were taken out in a set's order (by identity), and
when two replacements became the same reason the one kept, and so whether ``c`` held now, was
whichever came first there: building the same base five times in one process gave IN, OUT,
IN, OUT, IN."""

from __future__ import annotations

import concurrent.futures

from support import order_workers as workers  # importable by name in spawned children
from support.pools import SPAWN

from corollary import BeliefBase, ManualClock

#: What the model says: the first replacement (declared at 0) and the third (dated just after
#: c's value began) are one reason once ``a`` is forgotten, the first, so c = 0 holds from 0
#: with a model's confidence (0.9 × 1)
HOLDS_FROM_0 = ("IN", 0, 0.9, "IN", [(0, 0.0, None)])


def test_one_label_however_often_it_is_built() -> None:
    built = [workers.replaced_twice_then_forgotten() for _ in range(8)]
    assert [workers.reading(kb) for kb in built] == [HOLDS_FROM_0] * 8
    for kb in built:  # one reason left, the first declared, and nothing of a in it
        (only,) = kb.engine.values_of("c")[0].justs
        assert only.unless == () and only.info["valid_from"] == 0.0
        assert "holds since a changed" in str(kb.explain("c"))


def test_one_label_in_two_spawned_processes() -> None:
    seen = []
    for _ in range(2):  # a fresh interpreter each: other addresses, another hash seed
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=SPAWN) as pool:
            seen.append(pool.submit(workers.readings, 4).result(timeout=300))
    assert seen[0][0] != seen[1][0]
    assert [found for _, found in seen] == [[HOLDS_FROM_0] * 4] * 2


def test_the_reason_made_first_is_kept_when_forgetting_makes_two_one() -> None:
    # a replacement from 20 waiting on a = 1, then the same model's plain claim of c = 0 from
    # 100: forgetting a leaves them the same reason, which is the first (from 20), not the
    # one that happened to stay put
    kb = BeliefBase(clock=ManualClock(200))
    kb.assert_("a", 1, source="human:ann", valid_from=0)
    kb.replace_when("c", 0, "a", source="model:m", valid_from=20)
    kb.claim("c", 0, source="model:m", valid_from=100)
    assert kb.at(50).label("c") == "OUT"  # the replacement waits, the claim has not begun
    kb.forget("a")
    (only,) = kb.engine.values_of("c")[0].justs
    assert (only.info["valid_from"], only.info["since"]) == (20.0, "a")
    assert [kb.at(t).label("c") for t in (10, 50, 150)] == ["OUT", "IN", "IN"]

"""Promises saved before learn-then-test learned its start (issue 31) load and answer as before.

``tests/data/promises_issue22.snapshot.json`` is ``kb.save`` of a base carrying a fallback
promise (the default then), a fixed-sequence one and a conformal one, written by the code of
issue 22; ``promises_issue22.json`` holds what that code answered under each, and the
``to_dict`` of three promises it calibrated.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from corollary import BeliefBase
from corollary.promises.guarantee import GroupedPromise, Promise, promise_from_dict

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def written():
    return json.loads((DATA / "promises_issue22.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def kb():
    return BeliefBase.load(DATA / "promises_issue22.snapshot.json")


def test_the_saved_procedures_load_as_they_were(kb):
    assert kb.promises["fallback"].procedure == "fallback"
    assert kb.promises["fixed"].procedure == "fixed_sequence"
    assert kb.promises["crc"].procedure is None


@pytest.mark.parametrize("name", ["fallback", "fixed", "crc"])
@pytest.mark.parametrize("key", ["x", "y", "z"])
def test_a_loaded_promise_answers_as_the_code_that_saved_it(kb, written, name, key):
    then = written["answers"][f"{name}/{key}"]
    a = kb.answer(key, name)
    assert (a.status, a.why, a.threshold) == (then["status"], then["why"], then["threshold"])
    assert a.record["fingerprint"] == then["fingerprint"]
    assert kb.replay(a.record).match


def test_the_verdicts_saved_with_the_base_still_replay(kb):
    records = list(kb.verdicts.values())
    assert len(records) == 3  # one per key: the last answer given for it (under "crc")
    assert all(kb.replay(r).match for r in records)


@pytest.mark.parametrize("which", ["fallback", "fixed_sequence", "grouped"])
def test_saved_promise_dicts_rebuild_with_their_fingerprints(written, which):
    d = written["promises"][which]
    p = promise_from_dict(d)
    if which == "grouped":
        assert isinstance(p, GroupedPromise)
        assert p.fingerprint == GroupedPromise.from_dict(d).fingerprint
        pairs = list(zip(p.promises.values(), d["promises"], strict=True))
    else:
        assert isinstance(p, Promise) and p.procedure == which
        pairs = [(p, d)]
    for q, saved in pairs:
        assert q.fingerprint == saved["fingerprint"]
        t = q.threshold
        assert t == float(saved["threshold"])
        if math.isfinite(t):
            assert q.allows(np.array([t, np.nextafter(t, -1.0)])).tolist() == [True, False]
        else:
            assert not q.allows(1e300)

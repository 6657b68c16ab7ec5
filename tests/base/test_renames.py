"""Names changed by issue 17. The project is unreleased (0.1.0), so the old spellings were
removed rather than kept with a warning (issue 36, item 7): each is gone, with the ordinary
error a name that never existed gets, and the new spellings work without a warning."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

import corollary
import corollary.promises
import corollary.trust.ledger
from corollary import (
    BeliefBase,
    GuaranteeOptions,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    PreferHigherConfidence,
    TrustLedger,
)

EXAMPLES = [(0.9, True)] * 40 + [(0.2, False)] * 10 + [(0.2, True)] * 10


def test_conflict_policy_is_the_one_spelling(tmp_path: Path) -> None:
    policy = PreferHigherConfidence()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kb = BeliefBase(clock=ManualClock(0), conflict_policy=policy)
    assert kb.conflict_policy is policy and kb.conflicts() == []
    with pytest.raises(InvalidTypeError, match="conflict_policy"):
        BeliefBase(conflict_policy="higher")  # type: ignore[arg-type]
    kb.save(tmp_path / "kb.json")
    ledger = corollary.open_ledger(tmp_path / "l.db")
    BeliefBase(ledger=ledger, clock=ManualClock(0)).save_session("s")
    for old in (lambda: BeliefBase(conflicts=policy),  # type: ignore[call-arg]
                lambda: BeliefBase.from_dict(kb.to_dict(), conflicts=policy),  # type: ignore[call-arg]
                lambda: BeliefBase.load(tmp_path / "kb.json", conflicts=policy),
                lambda: BeliefBase.load_session(ledger, "s", conflicts=policy)):
        with pytest.raises(TypeError, match="conflicts"):
            old()
    ledger.close()


def test_from_dict_takes_conflict_policy() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("hq", "Dallas", source="tool:b")
    assert len(kb.conflicts()) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        settled = BeliefBase.from_dict(kb.to_dict(), conflict_policy=PreferHigherConfidence())
    assert settled.conflicts() == [] and isinstance(settled.conflict_policy,
                                                    PreferHigherConfidence)


def test_track_record_is_the_gated_query_and_confidence_is_gone() -> None:
    ledger = TrustLedger()
    ledger.record_many([{"source": "model:m", "correct": i % 4 != 0, "at": 0} for i in range(8)])
    record = ledger.track_record("model:m")
    assert record.value == 0.75 and record.samples == 8
    assert not hasattr(ledger, "confidence") and not hasattr(TrustLedger, "open")


@pytest.mark.parametrize("module, name", [
    ("corollary.promises", "Promises"), ("corollary.promises.book", "Promises"),
    ("corollary.trust.ledger", "ROUTING_TIERS"), ("corollary.facade.lookup", "sources_of"),
    ("corollary.facade.assertions", "CheckedRow"), ("corollary.tms.engine", "Policy"),
    ("corollary.reasons.rules", "REGISTRY"), ("corollary.reasons.tools", "REGISTRY"),
])
def test_a_retired_module_name_is_gone(module: str, name: str) -> None:
    with pytest.raises(AttributeError, match=name):
        getattr(importlib.import_module(module), name)


def test_guarantee_options_as_keywords_or_one_value() -> None:
    by_keywords = BeliefBase(clock=ManualClock(0))
    by_value = BeliefBase(clock=ManualClock(0))
    p = by_keywords.guarantee("q", EXAMPLES, max_risk=0.2, min_support=5)
    q = by_value.guarantee("q", EXAMPLES, options=GuaranteeOptions(max_risk=0.2, min_support=5))
    assert p is not None and q is not None
    assert p.fingerprint == q.fingerprint and p.report == q.report
    with pytest.raises(InvalidInputError, match="not both"):
        by_value.guarantee("q", EXAMPLES, options=GuaranteeOptions(max_risk=0.2), max_risk=0.1)
    with pytest.raises(InvalidTypeError, match="threshold"):
        by_value.guarantee("q", EXAMPLES, max_risk=0.2, threshold=0.5)
    with pytest.raises(InvalidTypeError, match="GuaranteeOptions"):
        by_value.parts.promises.guarantee(by_value.ledger, "q", EXAMPLES, {"max_risk": 0.2})  # type: ignore[arg-type]


def test_remove_guarantee_is_the_one_spelling() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    p = kb.guarantee("q", EXAMPLES, max_risk=0.2, min_support=5)
    assert kb.remove_guarantee("q") is p and kb.promises == {}
    kb.guarantee("q", EXAMPLES, max_risk=0.2, min_support=5)
    with pytest.raises(InvalidInputError, match="remove_guarantee"):
        kb.guarantee("q", False)
    assert set(kb.promises) == {"q"}
    assert not hasattr(kb, "calibrate")

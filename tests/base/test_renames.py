"""Names changed by issue 17: each old spelling still works for one release, with a
DeprecationWarning naming the new one; the new spellings work without a warning."""

from __future__ import annotations

import warnings

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


def test_conflict_policy_is_the_constructor_argument_and_conflicts_warns() -> None:
    policy = PreferHigherConfidence()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kb = BeliefBase(clock=ManualClock(0), conflict_policy=policy)
    assert kb.conflict_policy is policy and kb.conflicts() == []
    with pytest.warns(DeprecationWarning, match="conflict_policy="):
        old = BeliefBase(clock=ManualClock(0), conflicts=policy)
    assert old.conflict_policy is policy
    with pytest.raises(InvalidTypeError, match="conflict_policy"):
        BeliefBase(conflict_policy="higher")  # type: ignore[arg-type]


def test_from_dict_takes_conflict_policy_and_warns_for_conflicts() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.assert_("hq", "Dallas", source="tool:b")
    assert len(kb.conflicts()) == 1
    data = kb.to_dict()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        settled = BeliefBase.from_dict(data, conflict_policy=PreferHigherConfidence())
    assert settled.conflicts() == [] and isinstance(settled.conflict_policy,
                                                    PreferHigherConfidence)
    with pytest.warns(DeprecationWarning, match="conflict_policy="):
        old = BeliefBase.from_dict(data, conflicts=PreferHigherConfidence())
    assert old.conflicts() == []


def test_track_record_is_the_gated_query_and_confidence_warns() -> None:
    ledger = TrustLedger()
    ledger.record_many([{"source": "model:m", "correct": i % 4 != 0, "at": 0} for i in range(8)])
    record = ledger.track_record("model:m")
    assert record.value == 0.75 and record.samples == 8
    with pytest.warns(DeprecationWarning, match="track_record"):
        assert ledger.confidence("model:m") == record


def test_the_promise_component_is_a_promise_book() -> None:
    with pytest.warns(DeprecationWarning, match="PromiseBook"):
        old = corollary.promises.Promises
    assert old is corollary.promises.PromiseBook
    assert "Promises" not in corollary.promises.__all__


def test_routing_tiers_is_retired() -> None:
    assert "ROUTING_TIERS" not in corollary.trust.ledger.__all__
    with pytest.warns(DeprecationWarning, match="ROUTE_TIERS"):
        assert corollary.trust.ledger.ROUTING_TIERS == ("empirical", "estimate", "prior")
    with pytest.raises(AttributeError):
        corollary.trust.ledger.NO_SUCH_NAME  # noqa: B018


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
        by_value._promises.guarantee(by_value.ledger, "q", EXAMPLES, {"max_risk": 0.2})  # type: ignore[arg-type]


def test_remove_guarantee_is_the_one_spelling() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    p = kb.guarantee("q", EXAMPLES, max_risk=0.2, min_support=5)
    assert kb.remove_guarantee("q") is p and kb.promises == {}
    kb.guarantee("q", EXAMPLES, max_risk=0.2, min_support=5)
    with pytest.warns(DeprecationWarning, match="remove_guarantee"):
        assert kb.guarantee("q", False) is None
    assert kb.promises == {}


def test_moved_helpers_still_import_from_their_old_modules() -> None:
    import corollary.facade.assertions
    import corollary.facade.blame
    import corollary.facade.lookup

    with pytest.warns(DeprecationWarning, match="corollary.facade.blame"):
        assert corollary.facade.lookup.sources_of is corollary.facade.blame.sources_of
    with pytest.warns(DeprecationWarning, match="Row"):
        assert corollary.facade.assertions.CheckedRow is corollary.facade.assertions.Checked


def test_conflicts_beside_conflict_policy_is_refused_not_one_dropped(tmp_path) -> None:
    # the old spelling used to win silently: conflict_policy= was dropped, even for None
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("hq", "Austin", source="tool:a")
    kb.save(tmp_path / "kb.json")
    ledger = corollary.open_ledger(tmp_path / "l.db")
    BeliefBase(ledger=ledger, clock=ManualClock(0)).save_session("s")
    new, old = PreferHigherConfidence(), None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidTypeError, match="conflict_policy= alone"):
            BeliefBase(conflict_policy=new, conflicts=old)
        with pytest.raises(InvalidTypeError, match="conflict_policy= alone"):
            BeliefBase.from_dict(kb.to_dict(), conflict_policy=new, conflicts=old)
        with pytest.raises(InvalidTypeError, match="conflict_policy= alone"):
            BeliefBase.load(tmp_path / "kb.json", conflict_policy=new, conflicts=old)
        with pytest.raises(InvalidTypeError, match="conflict_policy= alone"):
            BeliefBase.load_session(ledger, "s", conflict_policy=new, conflicts=old)


def test_conflicts_warns_at_the_callers_line_through_load_and_sessions(tmp_path) -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.save(tmp_path / "kb.json")
    ledger = corollary.open_ledger(tmp_path / "l.db")
    BeliefBase(ledger=ledger, clock=ManualClock(0)).save_session("s")
    for load in (lambda: BeliefBase.load(tmp_path / "kb.json", conflicts=None),
                 lambda: BeliefBase.load_session(ledger, "s", conflicts=None),
                 lambda: BeliefBase.from_dict(kb.to_dict(), conflicts=None)):
        with pytest.warns(DeprecationWarning, match="conflict_policy=") as seen:
            assert load().conflict_policy is None
        assert [w.filename for w in seen] == [__file__]


def test_a_retired_name_from_the_promises_package_warns_at_the_importing_line() -> None:
    with pytest.warns(DeprecationWarning, match="PromiseBook") as seen:
        from corollary.promises import Promises
    assert Promises is corollary.promises.PromiseBook
    assert {w.filename for w in seen} == {__file__}
    with pytest.raises(AttributeError, match="'corollary.promises' has no attribute 'Nope'"):
        corollary.promises.Nope  # noqa: B018


def test_the_engine_protocol_exported_as_policy_still_imports_and_warns() -> None:
    from corollary.tms.engine import ConflictStrategy

    with pytest.warns(DeprecationWarning, match="ConflictStrategy") as seen:
        from corollary.tms.engine import Policy
    assert Policy is ConflictStrategy and [w.filename for w in seen] == [__file__]

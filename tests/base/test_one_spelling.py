"""One spelling each (issue 26, the "smaller" list): the floor is ``min_confidence``, "at most
how many" is ``limit``, ``reason`` is keyword-only in ``kb.record_outcome`` as in the
ledger's, and ``kb.engine`` is a view for reading. The old spellings keep working for a release
with a DeprecationWarning (docs/extending.md, "Names")."""

from __future__ import annotations

import pytest

from corollary import Agent, BeliefBase, InvalidTypeError, ManualClock, ScriptedModel, TrustLedger
from corollary.tms import Engine
from corollary.tms.reading import EngineView
from corollary.ui.views import Inspector


def _faded_base() -> BeliefBase:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("price", 10.0, source="tool:quote", half_life=60)
    kb.assert_("hq", "Austin", source="tool:registry")
    clock.advance(600)
    return kb


def test_the_floor_is_min_confidence_and_threshold_warns() -> None:
    kb = _faded_base()
    new = kb.faded(min_confidence=0.5)
    assert [f.key for f in new] == ["price"] and kb.faded(0.5) == new  # by position too
    with pytest.warns(DeprecationWarning, match=r"kb.faded\(threshold=\)"):
        assert kb.faded(threshold=0.5) == new
    with pytest.raises(InvalidTypeError, match="not both"):
        kb.faded(0.5, threshold=0.5)
    with pytest.warns(DeprecationWarning, match="threshold"):
        problems = Inspector(kb).problems(threshold=0.5)
    assert problems == Inspector(kb).problems(min_confidence=0.5)
    agent = Agent(ScriptedModel([]), kb)
    with pytest.warns(DeprecationWarning, match=r"reverify\(threshold=\)"):
        agent.reverify(threshold=0.5)
    assert agent.reverify(min_confidence=0.5) == []


def test_how_many_is_limit_and_n_warns() -> None:
    kb = _faded_base()
    new = kb.what_to_check("price", limit=1)
    with pytest.warns(DeprecationWarning, match=r"what_to_check\(n=\)"):
        assert kb.what_to_check("price", n=1) == new
    with pytest.raises(InvalidTypeError, match="not both"):
        kb.what_to_check("price", limit=2, n=1)
    hits = kb.recall("price", limit=1)
    with pytest.warns(DeprecationWarning, match=r"kb.recall\(k=\)"):
        assert kb.recall("price", k=1) == hits
    with pytest.warns(DeprecationWarning, match=r"recall\(k=\)"):
        assert kb.at(kb.now()).recall("price", k=1) == kb.at(kb.now()).recall("price", 1)


def test_record_outcome_takes_reason_by_name_and_by_position_warns() -> None:
    for kb in (BeliefBase(clock=ManualClock(0)),
               BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))):
        kb.record_outcome("tool:a", False, reason="audit")
        with pytest.warns(DeprecationWarning, match="reason to .*record_outcome.* by position"):
            kb.record_outcome("tool:a", True, "ticket 7")
        assert [o.reason for o in kb.ledger.outcomes("tool:a")] == ["audit", "ticket 7"]


def test_kb_engine_is_a_view_for_reading() -> None:
    kb = _faded_base()
    view = kb.engine
    assert isinstance(view, EngineView) and not isinstance(view, Engine)
    assert [b.value for b in view.values_of("hq")] == ["Austin"] and len(view.keys) == 2
    with pytest.warns(DeprecationWarning, match="kb.engine is for reading"):
        view.mark_all()  # still works for a release
    with pytest.warns(DeprecationWarning, match="setting kb.engine"):
        view.touched = view.touched
    assert kb.value("hq") == "Austin"

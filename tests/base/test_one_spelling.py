"""One spelling each (issue 26, the "smaller" list): the floor is ``min_confidence``, "at most
how many" is ``limit``, ``reason`` is keyword-only in ``kb.record_outcome`` as in the
ledger's, and ``kb.engine`` is a view for reading. The project is unreleased (0.1.0), so the
old spellings are gone (issue 36, item 7); the one kept, changing the engine through
``kb.engine``, warns naming the version that removes it (docs/extending.md, "Names")."""

from __future__ import annotations

import pytest

from corollary import Agent, BeliefBase, ManualClock, ScriptedModel, TrustLedger
from corollary.foundations._deprecated import REMOVED_IN
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


def test_the_floor_is_min_confidence_and_threshold_is_gone() -> None:
    kb = _faded_base()
    new = kb.faded(min_confidence=0.5)
    assert [f.key for f in new] == ["price"] and kb.faded(0.5) == new  # by position too
    agent = Agent(ScriptedModel([]), kb)
    assert agent.reverify(min_confidence=0.5) == []
    for old in (lambda: kb.faded(threshold=0.5), lambda: agent.reverify(threshold=0.5),
                lambda: Inspector(kb).problems(threshold=0.5)):
        with pytest.raises(TypeError, match="threshold"):
            old()


def test_how_many_is_limit_and_n_and_k_are_gone() -> None:
    kb = _faded_base()
    assert len(kb.what_to_check("price", limit=1)) <= 1
    assert [r.key for r in kb.recall("price", limit=1)] == ["price"]
    for old in (lambda: kb.what_to_check("price", n=1), lambda: kb.recall("price", k=1),
                lambda: kb.at(kb.now()).recall("price", k=1)):
        with pytest.raises(TypeError, match="'[nk]'"):
            old()


def test_record_outcome_takes_reason_by_name_only() -> None:
    for kb in (BeliefBase(clock=ManualClock(0)),
               BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))):
        kb.record_outcome("tool:a", False, reason="audit")
        with pytest.raises(TypeError):
            kb.record_outcome("tool:a", True, "ticket 7")  # type: ignore[misc]
        assert [o.reason for o in kb.ledger.outcomes("tool:a")] == ["audit"]


def test_kb_engine_is_a_view_for_reading() -> None:
    kb = _faded_base()
    view = kb.engine
    assert isinstance(view, EngineView) and not isinstance(view, Engine)
    assert [b.value for b in view.values_of("hq")] == ["Austin"] and len(view.keys) == 2
    with pytest.warns(DeprecationWarning, match=f"through kb.engine.*{REMOVED_IN}.*for reading"):
        view.mark_all()  # kept, naming the version that removes it
    with pytest.warns(DeprecationWarning, match=f"setting kb.engine.*{REMOVED_IN}"):
        view.touched = view.touched
    assert kb.value("hq") == "Austin"

"""Dependencies and declared replacements as data (issue 37, item 1): the worked numbers of
docs/model.md, "Dependencies and declared replacements", through the public API."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer
from corollary.foundations.errors import (
    AmbiguousValueError,
    InvalidInputError,
    InvalidTypeError,
    UnknownBeliefError,
)


def _ann() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1000), conflict_policy=PreferNewer())
    kb.assert_("user:condition", "asthma", source="human:ann", valid_from=100)
    kb.assert_("user:exercise", "running", source="human:ann", valid_from=101)
    assert kb.depend("user:medication", "inhaler", on=["user:condition"],
                     source="model:m") == "inhaler"
    assert kb.replace_when("user:exercise", "cycling", changes="user:condition",
                           source="model:m") == "cycling"
    return kb


def test_before_the_root_changes_the_dependent_holds_and_the_replacement_waits() -> None:
    kb = _ann()
    assert kb.value("user:medication") == "inhaler"
    assert kb.confidence("user:medication") == pytest.approx(0.9 * 0.99)
    assert "rests on user:condition = 'asthma'" in str(kb.explain("user:medication"))
    assert kb.value("user:exercise") == "running"
    assert kb.confidence("user:exercise") == pytest.approx(0.99)
    assert kb.label("user:exercise", "cycling") == "OUT"
    why = str(kb.explain("user:exercise", "cycling"))
    assert "an exception holds" in why
    assert "replaces 'running' once user:condition changes" in why


def test_when_the_root_changes_the_dependent_goes_out_and_the_replacement_takes_over() -> None:
    kb = _ann()
    kb.assert_("user:condition", "none", source="human:ann", valid_from=500)
    assert kb.value("user:medication") is None
    assert kb.label("user:medication", "inhaler") == "OUT"
    assert kb.value("user:exercise") == "cycling"
    assert kb.confidence("user:exercise") == pytest.approx(0.9)
    why = str(kb.explain("user:exercise"))
    assert "replaces 'running' since user:condition changed" in why
    assert "supersedes 'running'" in why
    running = [t for t in kb.timeline("user:exercise") if t.value == "running"][0]
    assert (running.status, running.valid_until) == ("superseded", 1000)
    past = kb.at(300)
    assert (past.value("user:condition"), past.value("user:medication"),
            past.value("user:exercise")) == ("asthma", "inhaler", "running")
    assert past.confidence("user:medication") == pytest.approx(0.891)
    kb.retract("user:condition", "none")
    assert (kb.value("user:condition"), kb.value("user:medication"),
            kb.value("user:exercise")) == ("asthma", "inhaler", "running")


def test_an_end_of_the_root_ripples_as_a_change_does() -> None:
    kb = _ann()
    kb.end("user:condition", source="human:ann", at=600, reason="I am cured")
    assert kb.value("user:medication") is None
    assert kb.value("user:exercise") == "cycling"


def test_forgetting_the_root_erases_the_dependent_and_lets_the_replacement_hold() -> None:
    kb = _ann()
    kb.forget("user:condition")
    assert "user:medication" not in kb.engine.keys
    assert kb.value("user:exercise") == "cycling"


def test_the_declaring_document_withdraws_them() -> None:
    kb = _ann()
    kb.assert_("doc:1", "My pills depend on it. If it changes I will swim.", source="human:ann",
               valid_from=102)
    kb.depend("user:pills", "daily", on=["user:condition"], source="model:m",
              citation=("doc:1", "My pills depend on it."))
    kb.replace_when("user:sport", "swim", changes="user:condition", source="model:m",
                    citation=("doc:1", "If it changes I will swim."))
    kb.retract("user:condition", "asthma")
    assert (kb.value("user:pills"), kb.value("user:sport")) == (None, "swim")
    kb.retract("doc:1")
    assert kb.value("user:sport") is None
    kb2 = _ann()
    kb2.assert_("doc:1", "My pills depend on it.", source="human:ann", valid_from=102)
    kb2.depend("user:pills", "daily", on=["user:condition"], source="model:m",
               citation=("doc:1", "My pills depend on it."))
    kb2.forget("doc:1")
    assert "user:pills" not in kb2.engine.keys
    assert kb2.value("user:medication") == "inhaler"  # declared by no document: stays


def test_a_formula_dependency_is_re_executed() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("price", 10, source="tool:shop")
    assert kb.depend("price_with_tax", 13, on={"p": "price"}, formula="p * 1.2",
                     source="model:m") == 12
    kb.assert_("price", 20, source="tool:shop")
    assert kb.value("price_with_tax") is None


def test_a_snapshot_keeps_them(tmp_path) -> None:  # type: ignore[no-untyped-def]
    kb = _ann()
    path = tmp_path / "kb.msgpack"
    kb.save(path)
    back = BeliefBase.load(path, clock=ManualClock(1000))
    assert str(back.explain("user:medication")) == str(kb.explain("user:medication"))
    back.assert_("user:condition", "none", source="human:ann", valid_from=500)
    assert (back.value("user:medication"), back.value("user:exercise")) == (None, "cycling")
    assert "replaces 'running' since user:condition changed" in str(
        back.explain("user:exercise"))


def test_bad_declarations_are_refused_and_change_nothing() -> None:
    kb = _ann()
    before = kb.to_dict()
    with pytest.raises(UnknownBeliefError):
        kb.depend("user:x", 1, on=["user:nothing"], source="model:m")
    with pytest.raises(InvalidInputError):
        kb.depend("user:x", 1, on=[], source="model:m")
    with pytest.raises(InvalidTypeError):
        kb.depend("user:x", 1, on="user:condition", source="model:m")
    with pytest.raises(InvalidInputError):
        kb.depend("user:condition", "x", on=["user:condition"], source="model:m")
    with pytest.raises(InvalidInputError):
        kb.replace_when("user:exercise", "x", changes="user:exercise", source="model:m")
    with pytest.raises(UnknownBeliefError):
        kb.replace_when("user:exercise", "x", changes="user:nothing", source="model:m")
    with pytest.raises(InvalidTypeError):
        kb.replace_when("user:exercise", "x", changes=["user:condition"], source="model:m")
    assert kb.to_dict() == before
    kb.assert_("user:pet", "dog", source="human:ann")
    kb.assert_("user:pet", "cat", source="human:bob")
    with pytest.raises(AmbiguousValueError):
        kb.depend("user:x", 1, on=["user:pet"], source="model:m")


def test_an_end_left_alone_by_forgetting_its_value_reads_as_nothing_at_any_time() -> None:
    # found by tests/tms/test_depend_oracle.py: kb.at(t).value gave the end's own value
    kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferNewer())
    kb.assert_("c", 1, source="human:ann")
    kb.assert_("a", 0, source="human:ann")
    kb.end("c", source="human:ann", at=-50)
    kb.forget("c", 1)
    # (in this order: the reads before settle what kb.at(0) finds)
    assert kb.label("c") == "OUT" and kb.at(-60).value("c") is None
    assert kb.at(0).value("c") is None


def test_forgetting_the_replaced_value_takes_its_name_out_of_the_replacement() -> None:
    kb = _ann()
    kb.forget("user:exercise", "running")
    assert "running" not in repr(kb.to_dict())
    assert "replaces" not in str(kb.explain("user:exercise", "cycling"))
    kb.assert_("user:condition", "none", source="human:ann", valid_from=500)
    assert "holds since user:condition changed" in str(kb.explain("user:exercise"))


def test_an_end_before_a_replacement_its_exception_defeats_holds() -> None:
    # found by tests/tms/test_depend_oracle.py (docs/model.md, "Ending a fact", with no
    # policy): the replacement counts for nothing while a = 0 holds, so it supersedes nothing,
    # and the end of c from -50 holds alone: c reads as nothing held
    kb = BeliefBase(clock=ManualClock(0))
    kb.assert_("a", 0, source="human:ann")
    kb.replace_when("c", 0, "a", source="model:m")
    kb.end("c", source="human:ann", at=-50)
    ended = [b.value for b in kb.engine.values_of("c") if b.value != 0]
    assert kb.label("c", 0) == "OUT" and kb.label("c", ended[0]) == "IN"
    assert kb.label("c") == "OUT" and kb.value("c") is None
    kb.assert_("a", 1, source="human:ann")  # a changes: the replacement counts, after the end
    assert kb.value("c") == 0 and kb.label("c", ended[0]) == "OUT"


def test_an_end_left_alone_reads_the_same_whatever_was_read_first() -> None:
    # kb.value gave the end's own value, and kb.at(now).label said IN after kb.label said OUT:
    # the fast read took a key's one value for a held value when it was an end left alone
    for at_first in (False, True):
        kb = BeliefBase(clock=ManualClock(0), conflict_policy=PreferNewer())
        kb.assert_("c", 1, source="human:ann")
        kb.end("c", source="human:ann", at=-50)
        kb.forget("c", 1)
        reads = []
        for _ in range(2):
            if at_first:
                reads += [kb.at(0).label("c"), kb.at(0).value("c"), kb.at(0).confidence("c")]
            reads += [kb.label("c"), kb.value("c"), kb.confidence("c")]
            if not at_first:
                reads += [kb.at(0).label("c"), kb.at(0).value("c"), kb.at(0).confidence("c")]
        assert reads == ["OUT", None, 0.0] * 4, at_first

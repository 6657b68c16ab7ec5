"""Registries that refuse (issue 26, point 7): a base's rules and tools are its own, and a second
member under a taken name is refused with NameTakenError, changing nothing. Before, a second
tool of a name silently replaced the first one's declaration, and a second rule of a name was
added beside it."""

from __future__ import annotations

import pytest

from corollary import BeliefBase, ManualClock, NameTakenError, TrustLedger, rule, tool


@rule(output="double", inputs={"x": "x"}, name="test_registries.twice")
def double(x: float) -> float:
    return 2 * x


@rule(output="triple", inputs={"x": "x"}, name="test_registries.twice")
def triple(x: float) -> float:
    return 3 * x


@tool(trust="high", name="registries_lookup")  # a name no other test module's tool takes
def lookup(q: str) -> str:
    return q


def _other_lookup() -> object:
    @tool(trust="low", name="registries_lookup")
    def lookup(q: str) -> str:
        return q.upper()

    return lookup


def test_a_second_rule_of_a_name_is_refused_and_changes_nothing() -> None:
    kb = BeliefBase(clock=ManualClock(0), rules=[double])
    kb.assert_("x", 2, source="tool:t")
    with pytest.raises(NameTakenError, match="test_registries.twice"):
        kb.add_rule(triple)
    assert kb.rules == (double,) and kb.value("double") == 4 and "triple" not in kb.keys()
    kb.add_rule(double)  # the same rule again: nothing happens
    assert kb.rules == (double,)
    with pytest.raises(NameTakenError):
        BeliefBase(rules=[double, triple])


def test_a_second_tool_of_a_name_is_refused_and_keeps_the_first_declaration() -> None:
    kb = BeliefBase(clock=ManualClock(0), tools=[lookup])
    with pytest.raises(NameTakenError, match="'registries_lookup'"):
        kb.add_tool(_other_lookup())
    assert kb.tools["registries_lookup"].trust == "high"  # was replaced by "low"
    kb.add_tool(lookup)  # the same declaration again
    assert kb.tools["registries_lookup"].trust == "high"


def test_bases_in_one_process_keep_their_own_tools_and_rules() -> None:
    one = BeliefBase(clock=ManualClock(0), tools=[lookup], rules=[double])
    two = BeliefBase(clock=ManualClock(0), tools=[_other_lookup()], rules=[triple])
    assert one.tools["registries_lookup"].trust == "high"
    assert two.tools["registries_lookup"].trust == "low"
    assert one.rules == (double,) and two.rules == (triple,)


def test_a_refused_add_in_a_session_writes_no_entry() -> None:
    ledger = TrustLedger()
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(0), rules=[double])
    kb.add_rule(double)
    before = len(kb.history())
    with pytest.raises(NameTakenError):
        kb.add_rule(triple)
    assert len(kb.history()) == before


def test_a_snapshot_given_two_rules_of_one_name_is_refused() -> None:
    kb = BeliefBase(clock=ManualClock(0), rules=[double])
    with pytest.raises(NameTakenError):
        BeliefBase.from_dict(kb.to_dict(), rules=[double, triple])


def test_a_step_kind_under_a_taken_name_is_refused_with_the_typed_error() -> None:
    from corollary.tms import register
    from corollary.tms.kinds import RuleStep

    with pytest.raises(NameTakenError, match="rule"):  # was a bare ValueError
        register(RuleStep())


# -- loading by name: nothing process-wide replaces (the rest of point 7) ------------------------
def test_a_snapshot_naming_a_tool_two_live_tools_share_is_refused_not_bound_to_the_last() -> None:
    other = _other_lookup()  # alive beside the module's lookup
    data = BeliefBase(clock=ManualClock(0), tools=[lookup]).to_dict()
    with pytest.raises(NameTakenError, match="tools named 'registries_lookup'"):
        BeliefBase.from_dict(data, clock=ManualClock(0))  # was bound to the last @tool
    assert BeliefBase.from_dict(data, clock=ManualClock(0), tools=[other]).tools[
        "registries_lookup"].trust == "low"


def test_a_definition_nothing_refers_to_is_not_found_by_name() -> None:
    import gc

    from corollary.reasons.registry import DEFINED

    @rule(output="y", inputs={"x": "x"}, name="test_registries.short_lived")
    def short_lived(x: float) -> float:
        return x

    assert DEFINED.find("rule", "test_registries.short_lived") is short_lived
    del short_lived
    gc.collect()
    assert DEFINED.find("rule", "test_registries.short_lived") is None


def test_a_registry_refuses_a_second_member_and_binds_a_loaded_base() -> None:
    from corollary import Registry

    reg = Registry([lookup, double])
    with pytest.raises(NameTakenError, match="'registries_lookup'"):
        reg.add(_other_lookup())
    with pytest.raises(NameTakenError, match="test_registries.twice"):
        reg.add(triple)
    assert reg.tools == (lookup,) and reg.rules == (double,) and len(reg) == 2
    data = BeliefBase(clock=ManualClock(0), tools=[lookup], rules=[double]).to_dict()
    _ = _other_lookup(), triple  # the process defines others of those names
    kb = BeliefBase.from_dict(data, clock=ManualClock(0), rules=reg.rules, tools=reg.tools)
    assert kb.rules == (double,) and kb.tools["registries_lookup"].trust == "high"


def test_the_old_process_wide_tables_are_gone() -> None:
    from corollary.reasons import rules as rules_module
    from corollary.reasons import tools as tools_module

    assert not hasattr(rules_module, "REGISTRY") and not hasattr(tools_module, "REGISTRY")

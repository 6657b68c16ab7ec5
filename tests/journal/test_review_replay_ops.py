"""Adversarial review of journaled sessions (issue 19): operations whose replay does not do what
the live operation did, or that a journaled base refuses where a plain base accepts them.

- ``call`` with a second version of a tool (same name, other declared trust): live, the base
  keeps the tool it knew (calling.py ``_called`` adds a tool only when its name is new); the
  replay installs the entry's spec, so a fresh open has other confidences.
- ``resolve(conflict)`` given a key's :class:`Conflict` while a nogood has the key's name: the
  journal wrapper turns the conflict into its name, which then names the nogood.
"""

from __future__ import annotations

from pathlib import Path

from support.journal_workers import state

from corollary import BeliefBase, ManualClock, open_ledger, tool


@tool(trust=0.6, name="tests_review_weather")
def weather_v1(city: str) -> str:
    return "sunny"


@tool(trust=0.95, name="tests_review_weather")
def weather_v2(city: str) -> str:
    return "sunny"


def test_review_a_call_with_a_new_version_of_a_known_tool_replays_as_it_ran(
        tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    kb.call(weather_v1, "w1", "Paris")
    kb.call(weather_v2, "w2", "Rome")  # live: the base keeps weather_v1's declared trust
    fresh = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    assert fresh.tools == kb.tools
    assert state(fresh) == state(kb)  # today: 0.95 in the fresh open, 0.6 live
    ledger.close()


def test_review_resolve_a_key_conflict_while_a_nogood_has_that_name(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path / "l.db")
    plain = BeliefBase(clock=ManualClock(1000))
    kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))
    for base in (plain, kb):
        base.assert_("a", 1, source="tool:a")
        base.assert_("b", 1, source="tool:a")
        base.nogood("a", "b", name="ceo")
        base.assert_("ceo", "Ann", source="tool:a")
        base.assert_("ceo", "Bob", source="tool:b")
        conflict = next(c for c in base.conflicts() if not c.nogood)
        base.resolve(conflict, winner="Ann")  # journaled: InvalidInputError (give_up...)
        assert base.value("ceo") == "Ann"
    assert state(BeliefBase.open_session(ledger, "s", clock=ManualClock(1000))) == state(kb)
    ledger.close()

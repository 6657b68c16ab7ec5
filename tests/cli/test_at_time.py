"""``corollary explain/beliefs/recall --at T`` reads what holds in the world at ``T`` (issue 27):
``T`` in ISO 8601 or POSIX seconds, on a snapshot and on a journaled session (read with the
policy ``corollary mcp`` serves it with, PreferNewer)."""

from __future__ import annotations

import json

import pytest
from support.cli_support import Shop, one_line_error, run

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger

OAK_FROM = 1704153600.0  # 2024-01-02
PINE_FROM = 1740873600.0  # 2025-03-02
SAVED_AT = 1.8e9  # 2027-01-15


def fill(kb: BeliefBase) -> None:
    kb.assert_("customer:42:address", "Oak St", source="tool:crm", valid_from=OAK_FROM)
    kb.assert_("customer:42:address", "Pine Ave", source="document:email",
               valid_from=PINE_FROM)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    where = tmp_path_factory.mktemp("at")
    kb = BeliefBase(clock=ManualClock(SAVED_AT), conflict_policy=PreferNewer())
    fill(kb)
    kb.save(where / "support.cor")
    with open_ledger(str(where / "ledger.db")) as ledger:
        fill(BeliefBase.open_session(ledger, "support", clock=ManualClock(SAVED_AT),
                                     conflict_policy=PreferNewer()))
    return Shop(where, where / "support.cor", where / "ledger.db")


@pytest.mark.parametrize("base", ["snapshot", "session"])
@pytest.mark.parametrize(("at", "held"), [
    ("2024-06-01", "Oak St"), (str(OAK_FROM + 86400), "Oak St"),
    ("2025-03-02", "Pine Ave"), ("2025-06-01T12:00:00+02:00", "Pine Ave"), (None, "Pine Ave")])
def test_explain_beliefs_and_recall_read_the_world_at_t(home: Shop, base: str, at: str | None,
                                                        held: str) -> None:
    where = ([str(home.snapshot)] if base == "snapshot"
             else ["--ledger", str(home.ledger), "--session", "support"])
    when = [] if at is None else ["--at", at]
    if at is None and base == "session":
        when = ["--at", str(SAVED_AT)]  # a journal is read at the wall clock otherwise
    explained = run(home, "explain", *where, "customer:42:address", *when)
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.startswith(f"customer:42:address = {held!r} [IN")
    beliefs = json.loads(run(home, "beliefs", *where, *when, "--json").stdout)["beliefs"]
    assert [(b["key"], b["value"]) for b in beliefs] == [("customer:42:address", held)]
    recalled = json.loads(run(home, "recall", *where, "address", *when, "--json").stdout)
    assert [b["value"] for b in recalled["beliefs"]] == [held]


def test_now_the_proof_names_what_the_new_value_supersedes(home: Shop) -> None:
    done = run(home, "explain", str(home.snapshot), "customer:42:address")
    assert "supersedes 'Oak St' (valid 2024-01-02 → 2025-03-02)" in done.stdout


def test_before_anything_held_nothing_is_held(home: Shop) -> None:
    beliefs = json.loads(run(home, "beliefs", str(home.snapshot), "--at", "2023-01-01",
                             "--json").stdout)
    assert beliefs["beliefs"] == []


@pytest.mark.parametrize("bad", ["soon", "2024-13-01", "nan"])
def test_a_time_that_is_not_one_is_refused_in_one_line(home: Shop, bad: str) -> None:
    line = one_line_error(run(home, "beliefs", str(home.snapshot), "--at", bad), status=2)
    assert "argument --at: not a" in line and repr(bad) in line


def test_the_journal_time_takes_iso_8601_too_and_composes_with_the_world_time(
        home: Shop) -> None:
    session = ["--ledger", str(home.ledger), "--session", "support"]
    before = json.loads(run(home, "beliefs", *session, "--as-of", "2026-01-01",
                            "--json").stdout)
    assert before["beliefs"] == []  # nothing was recorded by then (the journal's time)
    then = json.loads(run(home, "beliefs", *session, "--as-of", "2030-01-01", "--at",
                          "2024-06-01", "--json").stdout)
    assert [b["value"] for b in then["beliefs"]] == ["Oak St"]

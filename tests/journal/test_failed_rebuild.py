"""A session's rebuild that fails never leaves the base short of the entries it had applied.

A change that ran in memory and did not commit rebuilds the session from its journal: its
newest checkpoint, then the entries after it (docs/journal.md, "A change that fails"). The
replay runs the base's conflict policy's ``after_change`` hook after each replayed change, as
the live change did. Before, when that hook raised during the rebuild, the rebuild stopped at
the checkpoint with the base's journal position rewound to it; the next rebuild (one follows
right away) then "succeeded" up to the checkpoint and called the base sound: a base whose rule
came from entry 1 read no rule (the property test ``tests/changes/test_apply_property.py``
found it on PostgreSQL: add a rule, a claim failing inside, a ``depend`` refused while the
policy's hook was armed), and a checkpoint written then was the checkpoint's state again,
written over the session's first one.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from support.ledger_targets import drop_namespace

from corollary import BeliefBase, ManualClock, TrustLedger, open_ledger, rule
from corollary.changes import AddRule, Change, Claim, Depend, apply, register_change
from corollary.foundations.errors import JournalReplayError, UnknownBeliefError
from corollary.tms.conflicts import ConflictPolicy

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


@rule(inputs={"a": "a"}, output="double_a")
def double_a(a: Any) -> Any:
    return 2 * a if isinstance(a, int) else None


class Armed(RuntimeError):
    """The failure the policy's hook raises when armed."""


class RaisesWhenArmed(ConflictPolicy):
    """A policy whose ``after_change`` raises :class:`Armed` while armed: once (``once``) or
    every time."""

    watches_changes = True

    def __init__(self) -> None:
        self.armed = False
        self.once = True

    def after_change(self, base: Any) -> None:
        if self.armed:
            self.armed = not self.once
            raise Armed("the policy's hook raised")


@attrs.frozen(slots=True)
class ClaimThenFail(Change):
    """A change that makes a claim and then raises (the claim ran: the session rebuilds)."""

    op = "test_claim_then_fail"
    claim: Claim


def claim_then_fail(kb: BeliefBase, change: ClaimThenFail) -> None:
    apply(kb, change.claim)
    raise Armed("raised inside the change, after its claim")


register_change(ClaimThenFail, claim_then_fail)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TrustLedger]:
    if request.param == "sqlite":
        opened = open_ledger(str(tmp_path / "ledger.db"))
        yield opened
        opened.close()
        return
    namespace = f"t_{uuid.uuid4().hex[:16]}"
    opened = open_ledger(PG_URL or "", namespace=namespace, max_size=2)
    try:
        yield opened
    finally:
        opened.close()
        drop_namespace(namespace)


def open_session(ledger: TrustLedger, **options: Any) -> BeliefBase:
    return BeliefBase.open_session(ledger, "s", clock=ManualClock(100), checkpoint_every=2,
                                   **options)


def names(kb: BeliefBase) -> list[str]:
    return [r.name for r in kb.rules]


RULE = f"{__name__}.double_a"


def test_a_refused_change_while_the_hook_is_armed_keeps_the_rule(ledger: TrustLedger) -> None:
    """The property test's minimal case, step by step: the refused ``depend`` (its inner claim
    ran, so the session rebuilds) fires the armed hook inside the rebuild's replay of entry 1."""
    kb = open_session(ledger, conflict_policy=RaisesWhenArmed())
    policy = kb.conflict_policy
    assert isinstance(policy, RaisesWhenArmed)
    apply(kb, AddRule(double_a))
    with pytest.raises(Armed):
        apply(kb, ClaimThenFail(Claim("a", 0, "model:m")))
    assert names(kb) == [RULE]
    policy.armed = True
    with pytest.raises(UnknownBeliefError):  # no belief about 'b': refused, the hook not run
        apply(kb, Depend("a", 0, ["b"], source="model:m"))
    assert (names(kb), kb.journal.journal_seq) == ([RULE], 1)
    assert [h.operation for h in kb.history()] == ["add_rule"]
    assert kb.journal.checkpoint() == 1
    assert names(open_session(ledger)) == [RULE]


def test_a_rebuild_that_keeps_failing_owes_its_entries_until_it_succeeds(
        ledger: TrustLedger) -> None:
    """While the hook raises at every replay, the base stays at the entry it had applied: no
    checkpoint of a lesser state is written (a base opened before still follows the journal),
    and once the hook lets it, the next sync rebuilds it with its rule."""
    kb = open_session(ledger, conflict_policy=RaisesWhenArmed())
    before = open_session(ledger)  # at the first checkpoint: it tells the journal by its bytes
    policy = kb.conflict_policy
    assert isinstance(policy, RaisesWhenArmed)
    apply(kb, AddRule(double_a))
    policy.armed, policy.once = True, False
    with pytest.raises(UnknownBeliefError):
        apply(kb, Depend("a", 0, ["b"], source="model:m"))
    assert kb.journal.journal_seq == 1
    with pytest.raises(JournalReplayError):
        kb.journal.checkpoint()
    policy.armed = False
    assert kb.journal.sync() == 0
    assert (names(kb), kb.journal.journal_seq) == ([RULE], 1)
    assert kb.journal.checkpoint() == 1
    assert before.journal.sync() == 1
    assert names(before) == [RULE]

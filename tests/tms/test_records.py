"""The records of the TMS (corollary/tms/records.py): a premise's expiry, a belief's premises by
source, and the inputs a justification waits for."""

from __future__ import annotations

from corollary.tms import OUT, RULE, Belief, Justification, Premise


def test_a_premise_expires_at_the_end_of_its_ttl() -> None:
    lasting = Premise("tool:a", "db", 100.0, 60.0, None)
    short = Premise("tool:a", "db", 100.0, None, 30.0)
    assert (lasting.expires_at, short.expires_at) == (None, 130.0)
    assert [short.expired(t) for t in (100.0, 129.9, 130.0, 1e9)] == [False, False, True, True]
    assert lasting.expired(1e18) is False
    assert repr(short) == "<Premise tool:a at 100.0>"


def test_a_new_belief_is_out_and_finds_its_premises_by_source() -> None:
    b = Belief("hq", "Austin", "Austin", 4)
    assert (b.label, b.conf, b.best, b.withdrawn, b.why, b.as_of) == (
        OUT, 0.0, None, None, "unsupported", None)
    assert b.premises == () and b.justs == ()
    tool = Premise("tool:registry", "tool:registry", 0.0, None, None)
    doc = Premise("document:10-K", "document:10-K", 0.0, None, None)
    b.evidence = [tool.record, doc.record]  # premises are kept as records; Premise views them
    assert b.premises == (tool, doc)
    assert b.premise_from("document:10-K") == doc and b.premise_from("human:h") is None
    assert repr(b) == "<Belief hq='Austin' OUT 0>"


def test_a_justification_waits_for_each_input_once_in_order() -> None:
    a, b = Belief("a", 1, 1, 1), Belief("b", 2, 2, 2)
    out = Belief("out", 3, 3, 3)
    j = Justification(RULE, "sum", out, (b, a, b), 0.9)
    assert j.distinct == (b, a) and j.inputs == (b, a, b)
    assert (j.info, j.seq, j.live) == ({}, 0, False)
    plain = Justification(RULE, "sum", out, (a, b), 0.9, {"names": ["a", "b"]})
    assert plain.distinct is plain.inputs
    assert repr(j) == "<Justification rule:sum -> out>"

"""``kb.assert_many(rows)`` is repeated ``kb.assert_``, checked first and all or nothing.

Every row is checked before anything changes; the rows then take effect in order with
``assert_``'s meaning (renewals, replacements, confirmations, a tool's declared defaults, a
withdrawn value asserted afresh), and the confirmations' outcomes go to the ledger as one batch.
A ledger that refuses the batch leaves the base exactly as it was. Each test compares the whole
snapshot (``to_dict``) with a base that got the same rows one by one.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from corollary import (
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    TrustLedger,
    open_ledger,
    rule,
    tool,
)
from corollary.foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    StoreError,
    UnknownSourceError,
)
from corollary.storage.memory import MemoryStore


@tool(trust="medium", half_life=600, ttl=3600, origin="registry")
def lookup(name: str) -> str:
    return name


def _plain(data: Any) -> Any:
    """A snapshot without its outcomes' event ids (they name the operation that recorded them:
    one batch here, one operation per row there)."""
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items() if k != "event_id"}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return data


def _pair(**options: Any) -> tuple[BeliefBase, BeliefBase]:
    clock = ManualClock(100)
    return BeliefBase(clock=clock, **options), BeliefBase(clock=clock, **options)


def _one_by_one(kb: BeliefBase, rows: list[Any]) -> None:
    for row in rows:
        if isinstance(row, dict):
            kb.assert_(**row)
        else:
            kb.assert_(*row)


ROWS: list[Any] = [
    ("hq", "Austin", "tool:registry"),
    ("hq", "Austin", "document:10-K"),  # another origin confirms: two right outcomes
    ("hq", "Austin", "document:10-K"),  # a repeat renews, records nothing
    ("ceo", "Ann", "human:ops"),
    ("ceo", "Bob", "human:ops"),  # the source replaces its value: Ann is forgotten
    ("ceo", "Bob", "human:desk", "ops-team"),
    ("ceo", "Bob", "human:ops2", "ops-team"),  # the same origin: no confirmation
    {"key": "quote", "value": 101.5, "source": "tool:feed", "half_life": 60, "ttl": 300},
    ("flags", [1, True, None, {"a": 2.5}], "assumption:guess"),
    ("flag", True, "assumption:guess"),
    ("n", 2**63, "tool:feed"),
    ("who", "ann", "tool:lookup"),  # the tool's declared trust, half-life, ttl and origin
    ("who", "ann", "document:registry-copy", "registry"),  # the tool's origin: no confirmation
    ("who", "ann", "human:ops"),  # another origin than the tool's: confirms all three
]


def test_the_rows_do_what_asserting_them_one_by_one_does() -> None:
    batch, single = _pair(tools=[lookup])
    assert batch.assert_many(ROWS) == len(ROWS)
    _one_by_one(single, ROWS)
    assert _plain(batch.to_dict()) == _plain(single.to_dict())
    outcomes = [(o.key, o.source, o.confidence) for o in batch.ledger.outcomes() if o.correct]
    assert outcomes == [  # the held value's confidence when each confirmation came
        ("hq", "document:10-K", 0.95), ("hq", "tool:registry", 0.95),
        ("ceo", "human:desk", 0.99), ("ceo", "human:ops", 0.99),
        ("who", "human:ops", 0.9), ("who", "document:registry-copy", 0.9),
        ("who", "tool:lookup", 0.9)]
    assert len(batch.ledger.outcomes()) == 7
    assert batch.engine.find("ceo", "Ann") is None  # replaced, and forgotten
    assert batch.engine.find("who", "ann").premise_from("tool:lookup").ttl == 3600


def test_rows_on_a_base_that_has_beliefs_already() -> None:
    batch, single = _pair()
    for kb in (batch, single):
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.claim("office", "Austin", source="model:m", inputs=["hq"])
        kb.assert_("hq", "Dallas", source="human:ops")
        kb.retract("hq", "Dallas")  # Dallas withdrawn
    rows = [("hq", "Dallas", "human:desk"),  # a withdrawn value asserted afresh
            ("hq", "Austin", "document:10-K"),  # confirms the registry
            ("office", "Austin", "human:ops"),
            ("new", 1, "tool:feed")]
    batch.assert_many(rows)
    _one_by_one(single, rows)
    assert _plain(batch.to_dict()) == _plain(single.to_dict())
    assert batch.engine.find("hq", "Dallas").withdrawn is None


def test_confirmations_are_recorded_as_one_ledger_batch() -> None:
    class Counting(MemoryStore):
        adds: list[int] = []

        def add(self, outcomes):  # type: ignore[no-untyped-def]
            self.adds.append(len(outcomes))
            return super().add(outcomes)

    store = Counting()
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, ledger=TrustLedger(store=store, clock=clock))
    kb.assert_many([(f"k{i}", i, "tool:a") for i in range(50)]
                   + [(f"k{i}", i, "document:b") for i in range(50)])
    assert store.adds == [100]  # 50 confirmations, two outcomes each, in one write
    assert len(kb.ledger.outcomes()) == 100


def _refused(path: Path, kb: BeliefBase, rows: list[Any]) -> None:
    """``kb.assert_many(rows)`` while another process holds the ledger's write lock."""
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError):
            kb.assert_many(rows)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


def test_a_ledger_that_refuses_the_batch_leaves_the_base_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    clock = ManualClock(0)
    ledger = open_ledger(path, timeout=0.05, clock=clock)
    try:
        kb = BeliefBase(clock=clock, ledger=ledger)
        kb.assert_many([("hq", "Austin", "tool:registry"), ("ceo", "Ann", "human:ops")])
        kb.retract("ceo")
        before = _plain(kb.to_dict())
        rows = [("fresh", 1, "tool:feed"), ("ceo", "Ann", "human:desk"),  # afresh
                ("hq", "Dallas", "tool:registry"),  # replaces Austin
                ("hq", "Dallas", "document:10-K"),  # confirms: the ledger is written
                ("more", 2, "tool:feed")]
        _refused(path, kb, rows)
        assert _plain(kb.to_dict()) == before
        assert "fresh" not in kb and kb.label("ceo", "Ann") == "OUT"
        assert kb.value("hq") == "Austin" and len(kb) == 2
        # the same rows again, now that the ledger takes them: as one by one
        kb.assert_many(rows)
        single = BeliefBase(clock=clock)
        single.assert_many([("hq", "Austin", "tool:registry"), ("ceo", "Ann", "human:ops")])
        single.retract("ceo")
        _one_by_one(single, rows)
        got, expected = _plain(kb.to_dict()), _plain(single.to_dict())
        got.pop("shared_ledger"), expected.pop("shared_ledger")
        got.pop("ledger"), expected.pop("ledger")
        assert got == expected
        assert [o.source for o in ledger.outcomes()] == ["document:10-K", "tool:registry"]
    finally:
        ledger.close()


@pytest.fixture
def locked_out(tmp_path: Path) -> Iterator[tuple[BeliefBase, Callable[[list[Any]], None]]]:
    """A base on a SQLite ledger, and a call that runs ``assert_many`` while another process
    holds the ledger's write lock (so the batch is refused)."""
    path = tmp_path / "ledger.db"
    clock = ManualClock(0)
    ledger = open_ledger(path, timeout=0.05, clock=clock)
    kb = BeliefBase(clock=clock, ledger=ledger, conflict_policy=PreferHigherConfidence())
    try:
        yield kb, lambda rows: _refused(path, kb, rows)
    finally:
        ledger.close()


def _reads_as_before(kb: BeliefBase, key: str, held: tuple[str, float]) -> None:
    assert (kb.label(key), kb.confidence(key)) == held
    kb.refresh()
    assert (kb.label(key), kb.confidence(key)) == held


def test_a_refused_batch_leaves_no_stale_answer_behind_an_exception(locked_out: Any) -> None:
    # a row makes the exception of d (zzz) held, and a later confirmation reads e's confidence
    # mid-batch, which settles d OUT; the rollback must mark d again, not only drop zzz
    kb, refuse = locked_out
    kb.assert_("a", 1, "human:ann")
    kb.claim("d", 1, source="model:m", inputs=["a"], unless=["zzz"])
    kb.claim("e", 1, source="model:m", inputs=["d"])
    kb.assert_("e", 1, "document:doc")
    held = (kb.label("d"), kb.confidence("d"))
    assert held[0] == "IN"
    refuse([("zzz", 1, "human:bob"), ("e", 1, "tool:t")])
    assert "zzz" not in kb
    _reads_as_before(kb, "d", held)


def test_a_refused_batch_leaves_no_stale_answer_behind_a_nogood(locked_out: Any) -> None:
    kb, refuse = locked_out
    kb.assert_("k", 1, "assumption:g")
    kb.assert_("x", 1, "document:doc")
    kb.nogood(("k", 5), "x")  # k = 5 is not a value yet
    kb.claim("e", 1, source="model:m", inputs=["x"])
    kb.assert_("e", 1, "document:doc2")
    held = (kb.label("x"), kb.confidence("x"))
    assert held[0] == "IN"
    # k = 5 comes (and beats x under the nogood) while e's confirmation is read mid-batch
    refuse([("k", 5, "human:bob"), ("e", 1, "tool:t")])
    assert [b.value for b in kb.engine.values_of("k")] == [1]
    _reads_as_before(kb, "x", held)


class _LikeToolA(str):
    """Text ``rule:x`` that hashes and compares like the source ``tool:a``."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash("tool:a")

    def __eq__(self, other: object) -> bool:
        return other == "tool:a" or str.__eq__(self, other)


class _NotAString:
    """No string at all, hashing and comparing like the source ``tool:a``."""

    def __hash__(self) -> int:
        return hash("tool:a")

    def __eq__(self, other: object) -> bool:
        return other == "tool:a"


BAD_ROWS = [
    (("", 1, "tool:a"), InvalidInputError, "row 1: a key must be a non-empty string"),
    ((" ", 1, "tool:a"), InvalidInputError, "row 1: a key must be"),
    ((3, 1, "tool:a"), InvalidTypeError, "row 1: a key must be a string"),
    (("k", object(), "tool:a"), InvalidTypeError, "row 1: a value must be plain data"),
    (("k", float("nan"), "tool:a"), InvalidInputError, "row 1: a value must be finite"),
    (("k", 2**64, "tool:a"), InvalidInputError, "row 1: an integer value must fit"),
    (("k", 1, "nokind:a"), UnknownSourceError, "row 1:"),
    (("k", 1, "rule:r"), InvalidInputError, "row 1: 'rule:r' is a reasoning step"),
    # a source met before (row 0 is from tool:a) is no pass for an object equal to it
    (("k", 1, _LikeToolA("rule:x")), InvalidInputError, "row 1: 'rule:x' is a reasoning step"),
    (("k", 1, _NotAString()), InvalidTypeError, "row 1: a source must be a string"),
    (("k", 1, "tool:a", ""), InvalidInputError, "row 1: origin must be a non-empty string"),
    (("k", 1, "tool:a", None, -5), InvalidInputError, "row 1: half_life must be finite and non-negative"),
    (("k", 1, "tool:a", None, None, 0), InvalidInputError, "row 1: ttl must be > 0"),
    (("k", 1), InvalidInputError, "row 1: a row holds 3 to 8 fields"),
    (("k", 1, "tool:a", None, None, None, None, None, "x"), InvalidInputError, "row 1: a row holds"),
    (("k", 1, "tool:a", None, None, None, "x"), InvalidTypeError, "row 1: valid_from must be"),
    (("k", 1, "tool:a", None, None, None, 5, 5), InvalidInputError,
     "row 1: valid_until (5) must come after"),
    ("k", InvalidTypeError, "row 1: a row is a tuple or a dict, not str"),
    ({"key": "k", "value": 1}, InvalidInputError, "row 1: missing fields ['source']"),
    ({"key": "k", "value": 1, "source": "tool:a", "colour": 1}, InvalidInputError,
     "row 1: unknown fields ['colour']"),
]


@pytest.mark.parametrize("tools", [[lookup], []], ids=["tools", "fast-path"])
@pytest.mark.parametrize(("bad", "error", "message"), BAD_ROWS)
def test_a_bad_row_changes_nothing(bad: Any, error: type[Exception], message: str,
                                   tools: list[Any]) -> None:
    # without tools, rows of three fields whose sources are new are checked inline
    kb = BeliefBase(clock=ManualClock(0), tools=tools)
    kb.assert_many([("hq", "Austin", "tool:registry")])
    before = kb.to_dict()
    rows = [("fresh", 1, "tool:a"), bad, ("hq", "Austin", "document:10-K")]
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)")):
        kb.assert_many(rows)
    assert kb.to_dict() == before and len(kb) == 1 and "fresh" not in kb


def test_rows_that_are_not_an_iterable_of_rows_are_refused() -> None:
    kb = BeliefBase(clock=ManualClock(0))
    for rows in (5, "k", b"k", {"key": "k", "value": 1, "source": "tool:a"}):
        with pytest.raises(InvalidTypeError, match="iterable of rows"):
            kb.assert_many(rows)  # type: ignore[arg-type]
    assert kb.assert_many([]) == 0 and kb.assert_many(iter([("k", 1, "tool:a")])) == 1


@rule(output="total", inputs={"a": "a", "b": "b"})
def _total(a, b):
    return a + b


def test_with_rules_the_rows_fire_them_as_one_by_one_does() -> None:
    batch, single = _pair(rules=[_total])
    rows = [("a", 1, "tool:x"), ("b", 2, "tool:x"), ("a", 5, "tool:x"), ("b", 2, "human:y")]
    batch.assert_many(rows)
    _one_by_one(single, rows)
    assert _plain(batch.to_dict()) == _plain(single.to_dict())
    assert batch.value("total") == 7
    assert batch.engine.find("total", 3) is not None  # fired on a = 1 before a = 5 came


def test_a_large_batch_of_new_keys_is_held_and_numbered_as_one_by_one() -> None:
    batch, single = _pair()
    rows = [(f"k{i}", i, f"tool:feed{i % 7}") for i in range(5_000)]
    rows += [(f"t{i}", float(i), "tool:feed0", None, 30.0, 60.0) for i in range(100)]
    batch.assert_many(rows)
    _one_by_one(single, rows)
    assert _plain(batch.to_dict()) == _plain(single.to_dict())
    # plain premises of new keys are settled as they are made: only the fading ones are left
    assert batch.refresh() == 100 and single.refresh() == 5_100 and len(batch) == 5_100
    assert batch.confidence("k4999") == 0.95
    assert batch.engine.next_expiry == 160.0


def test_confirmations_in_one_batch_keep_the_reliabilities_of_its_start() -> None:
    # documented in docs/model.md: one by one, b's confirmation would see a's outcomes
    rows = [("a", 1, "human:ann"), ("b", 1, "human:ann"),
            ("a", 1, "document:doc"), ("b", 1, "document:doc")]
    bulk, single = BeliefBase(clock=ManualClock(0)), BeliefBase(clock=ManualClock(0))
    bulk.assert_many(rows)
    _one_by_one(single, rows)
    confidences = {o.key: o.confidence for o in bulk.ledger.outcomes()}
    assert confidences == {"a": pytest.approx(0.99), "b": pytest.approx(0.99)}
    later = {o.key: o.confidence for o in single.ledger.outcomes()}
    assert later["a"] == pytest.approx(0.99) and later["b"] > 0.99
    assert ([(o.source, o.key, o.correct) for o in bulk.ledger.outcomes()]
            == [(o.source, o.key, o.correct) for o in single.ledger.outcomes()])
    got, expected = _plain(bulk.to_dict()), _plain(single.to_dict())
    got.pop("ledger"), expected.pop("ledger")  # the confidences above, and the event ids
    assert got == expected


def test_a_refused_batch_takes_back_the_expiries_it_scheduled(locked_out: Any) -> None:
    # the numbers a refused batch used are used again: its expiries must go with it (two
    # entries of one time and number would make the heap compare beliefs)
    kb, refuse = locked_out
    kb.assert_("hq", "Austin", "tool:registry")
    rows = [("fresh", 1, "tool:feed", None, None, 50), ("hq", "Austin", "document:10-K")]
    refuse(rows)
    assert "fresh" not in kb and kb.engine.next_expiry == math.inf
    kb.assert_("other", 7, "tool:feed", ttl=50)  # the number the refused expiry had
    kb.assert_many(rows)
    assert kb.engine.next_expiry == 50.0
    kb.clock.advance(50)
    assert kb.label("other") == kb.label("fresh") == "OUT"
    assert kb.engine.find("fresh", 1).why == "expired" and kb.label("hq") == "IN"

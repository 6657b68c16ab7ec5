"""Snapshots: msgpack and JSON round trips, the ledger inside or apart, re-binding by name, and
files that must be refused (naming the path, leaving the bytes alone)."""

from __future__ import annotations

import json
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.hostile import base_state, new_base, raises_typed
from support.snapshot_cases import T0, build, quote

from corollary import (
    AskHuman,
    BeliefBase,
    ManualClock,
    PreferHigherConfidence,
    SnapshotError,
    TrustLedger,
    rule,
)
from corollary.foundations._io import SNAPSHOT_VERSION
from corollary.foundations.errors import CorollaryError, InvalidInputError


def state(kb: BeliefBase) -> dict[tuple[str, str], tuple[str, float]]:
    """Label and confidence of every belief (held or not), keyed by key and value."""
    out = {}
    for key, value, _seq, _withdrawn in kb.to_dict()["beliefs"]:
        out[(key, repr(value))] = (kb.label(key, value), kb.confidence(key, value))
    return out


def same(a: dict[Any, tuple[str, float]], b: dict[Any, tuple[str, float]]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k][0] == b[k][0], k
        assert a[k][1] == pytest.approx(b[k][1], abs=1e-12), k


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


def test_the_fixture_base_covers_the_interesting_cases(clock: ManualClock) -> None:
    kb = build(clock)
    s = state(kb)
    assert s[("ceo", "'Bob'")][0] == "OUT"
    assert s[("cfo", "'Dan'")] == ("OUT", 0.0)
    assert s[("ratio", "1.1")][0] == "IN"
    assert s[("mood", "'tense'")][0] == "IN" and s[("mood", "'calm'")][0] == "OUT"
    assert s[("a", "1")] == ("OUT", 0.0) and s[("b", "1")] == ("OUT", 0.0)
    assert s[("a", "2")][0] == s[("b", "2")][0] == "IN"
    assert s[("old", "'x'")] == ("OUT", 0.0)
    assert s[("brief", "'z'")] == ("OUT", 0.0)
    assert 0 < s[("price", "101.5")][1] < 0.95
    assert s[("signal", "'buy'")][0] == "IN"
    assert kb.ledger.outcomes()


@pytest.mark.parametrize("suffix", [".msgpack", ".json", ".cor", ""])
def test_file_round_trip_gives_identical_labels_and_confidences(
        tmp_path: Path, clock: ManualClock, suffix: str) -> None:
    kb = build(clock)
    path = tmp_path / f"base{suffix}"
    kb.save(path)
    raw = path.read_bytes()
    if suffix == ".json":
        assert json.loads(raw)["format"] == "corollary-snapshot"
    else:
        assert msgpack.unpackb(raw)["format"] == "corollary-snapshot"
    clock2 = ManualClock(clock())
    restored = BeliefBase.load(path, clock=clock2)
    same(state(restored), state(kb))
    assert restored.project() == kb.project()
    assert str(restored.explain("signal")) == str(kb.explain("signal"))
    # the restored base keeps living the same life: decay, expiry, new evidence, rules
    for step in (30, 200, 3600):
        clock.advance(step)
        clock2.advance(step)
        same(state(restored), state(kb))
    for base in (kb, restored):
        base.call(quote, "price", "ACME")
        base.retract("revenue:Q2", fault="source")
    same(state(restored), state(kb))
    assert restored.reliability("tool:snap_filings") == kb.reliability("tool:snap_filings")


def test_json_format_option_and_dict_round_trip(tmp_path: Path, clock: ManualClock) -> None:
    kb = build(clock)
    path = tmp_path / "base.bin"
    kb.save(path, format="json")
    assert path.read_bytes()[:1] == b"{"
    same(state(BeliefBase.load(path, clock=ManualClock(clock()))), state(kb))
    data = kb.to_dict()
    same(state(BeliefBase.from_dict(data, clock=ManualClock(clock()))), state(kb))
    # plain data: it survives a JSON round trip as-is
    same(state(BeliefBase.from_dict(json.loads(json.dumps(data)), clock=ManualClock(clock()))),
         state(kb))


def test_msgpack_is_the_compact_default(tmp_path: Path, clock: ManualClock) -> None:
    kb = build(clock)
    kb.save(tmp_path / "a.msgpack")
    kb.save(tmp_path / "a.json")
    assert (tmp_path / "a.msgpack").stat().st_size < (tmp_path / "a.json").stat().st_size


def test_a_snapshot_records_taken_at_and_settings(clock: ManualClock) -> None:
    kb = build(clock)
    data = kb.to_dict()
    assert data["taken_at"] == clock()
    assert data["version"] == 3  # 2: files carry a checksum; 3: calls, exceptions, nogoods
    assert data["policy"]["min_confidence"] == 0.3
    assert data["conflicts"] == {"policy": "PreferHigherConfidence"}
    restored = BeliefBase.from_dict(data, clock=ManualClock(clock()))
    assert restored.policy == kb.policy
    assert isinstance(restored.conflict_policy, PreferHigherConfidence)
    assert restored.learn_from_checks is True


def test_the_own_ledger_travels_inside(tmp_path: Path, clock: ManualClock) -> None:
    kb = build(clock)
    data = kb.to_dict()
    assert data["shared_ledger"] is False
    assert data["ledger"] is not None
    kb.save(tmp_path / "s.msgpack")
    restored = BeliefBase.load(tmp_path / "s.msgpack", clock=ManualClock(clock()))
    for source in ("tool:crm", "tool:scraper", "tool:registry", "document:10-K", "model:analyst"):
        assert restored.reliability(source) == kb.reliability(source)
        assert restored.ledger.record_of(source) == kb.ledger.record_of(source)
    assert len(restored.ledger.outcomes()) == len(kb.ledger.outcomes())


def test_a_shared_ledger_is_saved_apart(tmp_path: Path, clock: ManualClock) -> None:
    ledger = TrustLedger(clock=clock, memory_half_life=timedelta(days=30))
    kb = build(clock, ledger=ledger)
    other = BeliefBase(clock=clock, ledger=ledger)  # a second base learning into the same ledger
    other.record_outcome("tool:scraper", True)
    data = kb.to_dict()
    assert data["shared_ledger"] is True
    assert data["ledger"] is None
    kb.save(tmp_path / "kb.msgpack")
    ledger.save(tmp_path / "trust.json")
    loaded = TrustLedger.load(tmp_path / "trust.json", clock=clock)
    assert loaded.memory_half_life == ledger.memory_half_life
    restored = BeliefBase.load(tmp_path / "kb.msgpack", ledger=loaded, clock=clock)
    same(state(restored), state(kb))
    assert restored.reliability("tool:scraper") == kb.reliability("tool:scraper")
    assert restored.shared_ledger is True
    restored2 = BeliefBase.from_dict(data, ledger=loaded, clock=clock)
    same(state(restored2), state(kb))
    # the shared ledger keeps learning for every base attached to it
    restored.record_outcome("tool:crm", False)
    assert restored2.reliability("tool:crm") == restored.reliability("tool:crm")


def test_a_shared_ledger_snapshot_loaded_without_its_ledger_warns(clock: ManualClock) -> None:
    ledger = TrustLedger(clock=clock)
    kb = BeliefBase(clock=clock, ledger=ledger)
    kb.assert_("k", 1, source="tool:t")
    kb.record_outcome("tool:t", False)
    with pytest.warns(UserWarning, match="ledger"):
        restored = BeliefBase.from_dict(kb.to_dict(), clock=clock)
    assert restored.reliability("tool:t") == 0.95


def test_rules_and_tools_are_re_bound_by_name(clock: ManualClock) -> None:
    kb = build(clock)
    data = kb.to_dict()
    assert "snapshot_cases.signal" in data["rules"]
    assert "snap_quote" in data["tools"]
    restored = BeliefBase.from_dict(data, clock=ManualClock(clock()))
    assert {r.name for r in restored.rules} == {r.name for r in kb.rules}
    assert set(restored.tools) == {"snap_filings", "snap_quote"}
    # the re-bound rule fires on new input: a new price re-derives the signal
    restored.assert_("price", 150.0, source="tool:snap_quote")
    assert restored.value("signal") == "hold"
    # and the re-bound tool keeps its declared trust
    assert restored.reliability("tool:snap_filings") == pytest.approx(0.99)


def test_rules_and_tools_may_be_passed_explicitly(clock: ManualClock) -> None:
    @rule(output="y", inputs={"x": "x"}, name="test_snapshot.local_rule")
    def local(x: int) -> int:
        return x + 1

    kb = BeliefBase(clock=clock, rules=[local])
    kb.assert_("x", 1, source="tool:t")
    data = kb.to_dict()
    restored = BeliefBase.from_dict(data, clock=clock, rules=[local])
    assert restored.value("y") == 2


@pytest.mark.parametrize("what", ["rules", "tools"])
def test_missing_rules_or_tools_raise_snapshot_error(tmp_path: Path, clock: ManualClock, what: str) -> None:
    kb = build(clock)
    data = kb.to_dict()
    data[what] = [*data[what], "nowhere.defined_" + what]
    with pytest.raises(SnapshotError, match="nowhere.defined_"):
        BeliefBase.from_dict(data, clock=clock)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    with pytest.raises(SnapshotError) as info:
        BeliefBase.load(path, clock=clock)
    assert str(path) in str(info.value)
    assert path.read_bytes() == before


def test_ask_human_snapshots_need_the_ask_again(clock: ManualClock) -> None:
    kb = BeliefBase(clock=clock, conflict_policy=AskHuman(lambda c: c.values[0]))
    kb.assert_("ceo", "Alice", source="human:a")
    data = kb.to_dict()
    with pytest.raises(SnapshotError, match="AskHuman"):
        BeliefBase.from_dict(data, clock=clock)
    restored = BeliefBase.from_dict(data, clock=clock, conflict_policy=AskHuman(lambda c: c.values[-1]))
    restored.assert_("ceo", "Bob", source="tool:crm")
    assert restored.value("ceo") == "Bob"


# -- files that must be refused --------------------------------------------------------------------
def _valid(clock: ManualClock) -> dict[str, Any]:
    kb = BeliefBase(clock=clock)
    kb.assert_("hq", "Austin", source="tool:registry")
    return kb.to_dict()


def _bad_files(clock: ManualClock) -> dict[str, bytes]:
    good = msgpack.packb(_valid(clock), use_bin_type=True)
    good_json = json.dumps(_valid(clock)).encode()
    newer = dict(_valid(clock), version=99)
    return {
        "garbage": b"\xc1\xc1\xc1 not a snapshot",
        "empty": b"",
        "truncated msgpack": good[: len(good) // 2],
        "truncated json": good_json[: len(good_json) // 2],
        "trailing bytes": good + b"\x00\x01",
        "foreign json": json.dumps({"format": "something-else", "version": 1}).encode(),
        "foreign list": msgpack.packb([1, 2, 3]),
        "json number": b"42",
        "ledger file": json.dumps(TrustLedger().to_dict()).encode(),
        "newer version": msgpack.packb(newer, use_bin_type=True),
        "newer version json": json.dumps(newer).encode(),
        "bad version": json.dumps(dict(_valid(clock), version="one")).encode(),
        "missing fields": json.dumps({"format": "corollary-snapshot", "version": 1}).encode(),
        "bad belief rows": json.dumps(dict(_valid(clock), beliefs=[["hq"]])).encode(),
        "bad premise index": json.dumps(dict(_valid(clock), premises=[[5, 0, -1, 0.0, None, None]])).encode(),
    }


@pytest.mark.parametrize("case", list(_bad_files(ManualClock(T0))))
def test_bad_files_raise_snapshot_error_naming_the_path(tmp_path: Path, clock: ManualClock,
                                                        case: str) -> None:
    path = tmp_path / "bad.cor"
    raw = _bad_files(clock)[case]
    path.write_bytes(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SnapshotError) as info:
            BeliefBase.load(path, clock=clock)
    assert str(path) in str(info.value)
    assert info.value.path == path
    assert path.read_bytes() == raw  # never touched, never overwritten
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.cor"]  # no stray temp files
    if case.startswith("newer"):
        assert "newer" in str(info.value)


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        BeliefBase.load(tmp_path / "nope.cor")


def test_bad_ledger_files_raise_snapshot_error(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "trust.json"
    path.write_bytes(b'{"format": "corollary-ledger", "version": 99}')
    with pytest.raises(SnapshotError) as info:
        TrustLedger.load(path)
    assert str(path) in str(info.value)
    path.write_bytes(b'{"format": "corollary-ledg')
    with pytest.raises(SnapshotError):
        TrustLedger.load(path)
    assert path.read_bytes() == b'{"format": "corollary-ledg'


def test_from_dict_refuses_foreign_data(clock: ManualClock) -> None:
    for data in ({}, {"format": "corollary-snapshot"}, [], "text",
                 dict(_valid(clock), version=SNAPSHOT_VERSION + 1)):
        with pytest.raises(SnapshotError):
            BeliefBase.from_dict(data, clock=clock)  # type: ignore[arg-type]


def test_save_overwrites_atomically(tmp_path: Path, clock: ManualClock) -> None:
    kb = build(clock)
    path = tmp_path / "s.msgpack"
    path.write_bytes(b"old contents")
    kb.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.msgpack"]
    same(state(BeliefBase.load(path, clock=ManualClock(clock()))), state(kb))


# -- a restored base keeps its fired-rule memo apart from new beliefs ------------------------------


@rule(output="review_out", inputs={"v": "review_in"}, name="tests.review.none_on_two")
def _none_on_two(v):
    return None if v == 2 else v * 10


def test_restored_base_fires_rules_for_new_beliefs():
    kb = BeliefBase(clock=ManualClock(0), rules=[_none_on_two])
    kb.assert_("review_in", 1, source="tool:a")
    kb.assert_("review_in", 2, source="tool:b")  # the rule concludes nothing for 2
    kb.assert_("review_in", 1, source="tool:b")  # 2 is superseded and forgotten
    restored = BeliefBase.from_dict(kb.to_dict(), clock=ManualClock(0))
    for base in (kb, restored):
        base.retract("review_in", 1)
        base.assert_("review_in", 7, source="tool:c")
        assert base.value("review_out") == 70


# -- what cannot be saved is refused when it comes in, or with a typed error -----------------------


def test_values_that_cannot_survive_a_snapshot_are_refused(tmp_path):
    kb = BeliefBase(clock=ManualClock(0))
    with pytest.raises(InvalidInputError):
        kb.assert_("big", 2**70, source="human:x")
    assert "big" not in kb
    kb.assert_("ok", -(2**63), source="human:x")
    kb.save(tmp_path / "kb.msgpack")  # the default format holds every value the base accepts
    assert BeliefBase.load(tmp_path / "kb.msgpack", clock=ManualClock(0)).value("ok") == -(2**63)


def test_save_with_an_unknown_format_is_a_typed_error(tmp_path):
    kb = BeliefBase(clock=ManualClock(0))
    with pytest.raises(CorollaryError):
        kb.save(tmp_path / "kb.bin", format="xml")
    assert not (tmp_path / "kb.bin").exists()


@pytest.mark.parametrize("suffix", ["json", "msgpack"])
@pytest.mark.parametrize("where", ["key", "value"])
def test_save_lone_surrogate_is_typed_error(tmp_path: Path, suffix: str, where: str) -> None:
    kb, _ = new_base()
    before = base_state(kb)
    key, value = ("k\ud800", 1) if where == "key" else ("k", "v\ud800")
    try:
        kb.assert_(key, value, source="tool:x")
    except CorollaryError:
        assert base_state(kb) == before
        return
    kb.save(tmp_path / f"s.{suffix}")


@pytest.mark.parametrize("tag", ["inf", "1.5", "x"])
def test_json_float_tag_is_a_reserved_dict_key(tag: str) -> None:
    """JSON snapshots write infinities as {"$float": "inf"}: a value may not use that key."""
    kb, _ = new_base()
    before = base_state(kb)
    raises_typed(kb.assert_, "f", {"$float": tag}, source="tool:x")
    raises_typed(kb.assert_, "f", [{"a": {"$float": tag}}], source="tool:x")
    assert base_state(kb) == before


@pytest.mark.parametrize("path", [None, 3, ["s.json"]])
def test_save_path_of_wrong_type_is_typed_error(path: Any) -> None:
    kb, _ = new_base()
    raises_typed(kb.save, path)
    raises_typed(BeliefBase.load, path)

"""Snapshots and ledger documents are checked field by field before anything is built, files
carry a checksum (schema 2), and every way bytes can fail to decode is a typed error.

Each crafted document below loaded before the checks existed (or failed with an untyped error);
each must now raise ``SnapshotError`` naming the file and the field, and change nothing."""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.snapshot_cases import (
    T0,
    as_schema,
    exact,
    rich_base,
    shared_base,
    shared_ledger,
    state,
)

from corollary import BeliefBase, ManualClock, SnapshotError, TrustLedger, open_ledger, rule
from corollary.foundations._io import CHECKSUM, _box, decode_bytes, digest, encode
from corollary.reasons.registry import DEFINED
from corollary.snapshot.state import (
    SNAPSHOT_VERSION,
    _beliefs_at_once,
    _beliefs_one_by_one,
    _premises_at_once,
    _premises_one_by_one,
    read_snapshot,
)
from corollary.trust.ledger import LedgerDocument, validate_ledger_document


@pytest.fixture(scope="module")
def rich() -> BeliefBase:
    return rich_base(ManualClock(T0))


@pytest.fixture
def doc(rich: BeliefBase) -> dict[str, Any]:
    return copy.deepcopy(rich.to_dict())


def restore(data: Any, **options: Any) -> BeliefBase:
    return BeliefBase.from_dict(data, clock=ManualClock(T0 + 40), **options)


# -- 1. every field is checked -------------------------------------------------------------------
def _set(*path: Any, to: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        for step in path[:-1]:
            d = d[step]
        d[path[-1]] = to() if callable(to) else to
    return edit


def _append(*path: Any, item: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        target = d
        for step in path:
            target = target[step]
        target.append(item(d))
    return edit


def _repeat_belief(d: dict[str, Any]) -> Any:
    key, value, _seq, withdrawn = d["beliefs"][6]
    return [key, value, d["beliefs"][-1][2] + 1, withdrawn]


#: (what, edit, a part of the error message that names the field)
CRAFTED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("a NaN assertion time", _set("premises", 0, 3, to=math.nan), "premises[0][3]"),
    ("an infinite assertion time", _set("premises", 0, 3, to=math.inf), "premises[0][3]"),
    ("a NaN snapshot time", _set("taken_at", to=math.nan), "taken_at"),
    ("a negative half-life", _set("premises", 2, 4, to=-60.0), "premises[2][4]"),
    ("a ttl that expires past any time",
     lambda d: d["premises"][2].__setitem__(slice(3, 6), [1e308, None, 1e308]), "premises[2][5]"),
    ("a step confidence above 1", _set("justifications", 0, 4, to=1.5), "justifications[0][4]"),
    ("a NaN step confidence", _set("justifications", 1, 4, to=math.nan), "justifications[1][4]"),
    ("an unknown justification kind", _set("justifications", 0, 0, to="oracle"),
     "justifications[0][0]"),
    ("a key that is not a string", _set("beliefs", 0, 0, to=5), "beliefs[0][0]"),
    ("an empty key", _set("beliefs", 0, 0, to=" "), "beliefs[0][0]"),
    ("a value that is not plain data", _set("beliefs", 0, 1, to=b"\x00"), "beliefs[0][1]"),
    ("an integer value beyond 64 bits", _set("beliefs", 0, 1, to=2**70), "beliefs[0][1]"),
    ("a value nested 40 deep", _set("beliefs", 0, 1, to=lambda: json.loads("[" * 40 + "]" * 40)),
     "beliefs[0][1]"),
    ("a boolean belief number", _set("beliefs", 0, 2, to=True), "beliefs[0][2]"),
    ("belief numbers out of order", _set("beliefs", 1, 2, to=1), "beliefs[1][2]"),
    ("a withdrawal reason that is a number", _set("beliefs", 13, 3, to=7), "beliefs[13][3]"),
    ("a source without a kind", _set("strings", 0, to="filings"), "strings[0]"),
    ("a source of a kind the policy does not know", _set("strings", 0, to="oracle:x"),
     "strings[0]"),
    ("a rule posing as a source", _set("strings", 0, to="rule:x"), "strings[0]"),
    ("a premise of a belief that is not there", _set("premises", -1, 0, to=10_000),
     "premises[17][0]"),
    ("a premise with a source out of range", _set("premises", 0, 1, to=99), "premises[0][1]"),
    ("a premise with an origin out of range", _set("premises", 0, 2, to=-2), "premises[0][2]"),
    ("a justification output out of range", _set("justifications", 0, 2, to=99),
     "justifications[0][2]"),
    ("a justification input out of range", _set("justifications", 0, 3, to=[0, 99]),
     "justifications[0][3][1]"),
    ("inputs that are a number", _set("justifications", 0, 3, to=5), "justifications[0][3]"),
    ("inputs that are a string", _set("justifications", 0, 3, to="01"), "justifications[0][3]"),
    ("inputs that are a map", _set("justifications", 0, 3, to={"0": 1}), "justifications[0][3]"),
    ("a repeated belief", _append("beliefs", item=_repeat_belief), "beliefs[24]"),
    ("a repeated premise", _append("premises", item=lambda d: list(d["premises"][-1])),
     "premises[18]"),
    ("a repeated justification", _append("justifications",
                                         item=lambda d: copy.deepcopy(d["justifications"][-1])),
     "justifications[9]"),
    ("a model step whose model has no kind", _set("justifications", 1, 1, to="analyst"),
     "justifications[1][1]"),
    ("a step by a rule the snapshot does not use", _set("justifications", 2, 1, to="nowhere"),
     "justifications[2][1]"),
    ("a formula check without its formula",
     lambda d: d["justifications"][0][5].pop("formula"), "justifications[0][5]"),
    ("a certainty that is text", _set("justifications", 1, 5, "certainty", to="high"),
     "justifications[1][5].certainty"),
    ("half a citation check", lambda d: d["justifications"][3][5].pop("quote"),
     "justifications[3][5]"),
    ("a fired memo that is a list", _set("fired", to=[]), "fired"),
    ("a fired combination that is a number", _set("fired", "snapshot_cases.to_b", to=[5]),
     "fired.snapshot_cases.to_b[0]"),
    ("a fired combination of strings", _set("fired", "snapshot_cases.to_b", to=[["a"]]),
     "fired.snapshot_cases.to_b[0][0]"),
    ("a fired combination of floats", _set("fired", "snapshot_cases.to_b", to=[[1.5]]),
     "fired.snapshot_cases.to_b[0][0]"),
    ("a fired belief number past 2**53", _set("fired", "snapshot_cases.to_b", to=[[2**64 - 1]]),
     "fired.snapshot_cases.to_b[0][0]"),
    ("a fired memo of a rule not in the base", _set("fired", "elsewhere.rule", to=[]),
     "fired.elsewhere.rule"),
    ("verdicts that are a map", _set("verdicts", to={}), "verdicts"),
    ("a verdict row of two", _set("verdicts", 0, to=["hq", "Austin"]), "verdicts[0]"),
    ("a verdict record that is text", _set("verdicts", 0, 2, to="ok"), "verdicts[0][2]"),
    ("a verdict record without its status", lambda d: d["verdicts"][0][2].pop("status"),
     "verdicts[0][2]"),
    ("a verdict on a belief the base lacks", _set("verdicts", 0, 1, to="Zed"), "verdicts[0]"),
    ("a verdict with a NaN signal", _set("verdicts", 0, 2, "signal_value", to=math.nan),
     "verdicts[0][2].signal_value"),
    ("promises that are a list", _set("promises", to=[]), "promises"),
    ("a promise that is a number", _set("promises", "default", to=5), "promises.default"),
    ("a promise threshold that is text", _set("promises", "default", "threshold", to="0.9"),
     "promises.default.threshold"),
    ("a promise of an unknown method", _set("promises", "default", "method", to="magic"),
     "promises.default.method"),
    ("a promise that does not match its fingerprint",
     _set("promises", "default", "threshold", to=0.5), "promises.default"),
    ("promise warnings that are a number",
     _set("promises", "default", "report", "warnings", to=-1), "promises.default.report.warnings"),
    ("a calibrator that is a number", _set("calibrator", to=5), "calibrator"),
    ("a calibrator without its constant", lambda d: d["calibrator"].pop("constant"), "calibrator"),
    ("a calibrator with a NaN slope", _set("calibrator", "a", to=math.nan), "calibrator.a"),
    ("a calibrator with a fractional count", _set("calibrator", "n", to=2.7), "calibrator.n"),
    ("learn_from_checks of 1", _set("learn_from_checks", to=1), "learn_from_checks"),
    ("an unknown conflict policy", _set("conflicts", to={"policy": "Coin"}), "conflicts"),
    ("a minimum confidence of 2", _set("policy", "min_confidence", to=2), "policy.min_confidence"),
    ("a policy without the default kinds", _set("policy", "priors", to={"sensor": 0.5}),
     "policy.priors"),
    ("an embedded ledger marked shared", _set("shared_ledger", to=True), "ledger"),
    ("an outcome that is right as 1", _set("ledger", "outcomes", 0, "correct", to=1),
     "ledger.outcomes[0].correct"),
    ("an outcome at NaN", _set("ledger", "outcomes", 0, "at", to=math.nan),
     "ledger.outcomes[0].at"),
    ("an outcome confidence of 1.5", _set("ledger", "outcomes", 0, "confidence", to=1.5),
     "ledger.outcomes[0].confidence"),
    ("totals with more right than total", _set("ledger", "totals", 0, 2, to=5),
     "ledger.totals[0][2]"),
    ("totals whose weights exceed the count", _set("ledger", "totals", 0, 6, to=9.0),
     "ledger.totals[0][6]"),
    ("a prior weight of 0", _set("ledger", "prior_weight", to=0), "ledger.prior_weight"),
    ("an unknown top-level field", _set("extra", to=1), "unknown fields 'extra'"),
    ("a missing table", lambda d: d.pop("premises"), "lacks ['premises']"),
]


@pytest.mark.parametrize("what,edit,field", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_snapshot_is_refused_naming_the_field(doc: dict[str, Any], tmp_path: Path,
                                                         what: str, edit: Any, field: str) -> None:
    edit(doc)
    with pytest.raises(SnapshotError, match="malformed snapshot|not defined here") as info:
        restore(doc)
    assert field in str(info.value)
    path = tmp_path / "crafted.cor"
    raw = encode(doc, "msgpack") if what != "an integer value beyond 64 bits" else encode(
        doc, "json")
    path.write_bytes(raw)
    with pytest.raises(SnapshotError) as info:
        BeliefBase.load(path, clock=ManualClock(T0))
    assert str(path) in str(info.value) and field in str(info.value)
    assert path.read_bytes() == raw


def test_a_refused_snapshot_changes_nothing(tmp_path: Path) -> None:
    """No registry, and no ledger passed in, is touched by a snapshot that is refused."""
    clock = ManualClock(T0)
    ledger = shared_ledger(clock)
    kb = rich_base(clock)
    data = kb.to_dict()
    data["shared_ledger"], data["ledger"] = True, None
    data["premises"][-1][3] = math.nan  # the last thing read before the base would be built
    defined_before = DEFINED.members()
    declared, listeners = dict(ledger._declared), len(ledger._listeners)
    before = ledger.to_dict()
    with pytest.raises(SnapshotError, match=r"premises\[17\]\[3\]"):
        BeliefBase.from_dict(data, ledger=ledger, clock=clock)
    assert DEFINED.members() == defined_before
    assert ledger._declared == declared and len(ledger._listeners) == listeners
    assert ledger.to_dict() == before


def test_read_snapshot_builds_nothing_and_base_from_dict_builds_from_it(doc: dict[str, Any]) -> None:
    plan = read_snapshot(doc, "here")
    assert len(plan.beliefs) == len(plan.vids) == 24
    assert plan.own_ledger is not None and plan.ledger is None
    assert len(plan.own_ledger.outcomes) == len(doc["ledger"]["outcomes"])
    assert sorted(plan.promises) == ["by_desk", "default"]
    assert len(plan.verdicts) == 3


def test_a_crafted_rule_memo_cannot_break_later_saves(tmp_path: Path) -> None:
    """Before the checks, a memo naming belief 2**64 - 1 loaded, and every belief made after it
    was numbered past what msgpack holds: the next save raised an untyped OverflowError."""
    @rule(output="y", inputs={"x": "x"}, name="test_snapshot_validation.memo")
    def memo(x: int) -> int:
        return x + 1

    kb = BeliefBase(clock=ManualClock(T0), rules=[memo])
    kb.assert_("x", 1, source="tool:t")
    data = kb.to_dict()
    data["fired"]["test_snapshot_validation.memo"] = [[1], [2**64 - 1]]
    with pytest.raises(SnapshotError, match=r"fired.test_snapshot_validation.memo\[1\]\[0\]"):
        BeliefBase.from_dict(data, clock=ManualClock(T0))


def test_a_restored_base_keeps_its_own_ledger_inside(tmp_path: Path) -> None:
    """Found with the fuzz test: a base restored with the ledger its snapshot carried treated
    it as shared, so its next snapshot left the ledger out (and warned when loaded)."""
    clock = ManualClock(T0)
    kb = rich_base(clock)
    for generation in range(3):
        path = tmp_path / f"g{generation}.cor"
        kb.save(path)
        kb = BeliefBase.load(path, clock=ManualClock(clock()))
        assert kb.shared_ledger is False
        assert kb.to_dict()["ledger"] is not None
    assert len(kb.ledger.outcomes()) == len(rich_base(ManualClock(T0)).ledger.outcomes())


def test_a_v1_snapshot_missing_the_promise_fields_loads(doc: dict[str, Any]) -> None:
    """Schema 1 files written before promises existed lack promises, verdicts, calibrator."""
    doc = as_schema(doc, 1)
    for name in ("promises", "verdicts", "calibrator"):
        del doc[name]
    kb = restore(doc)
    assert kb.promises == {} and kb.calibrator is None
    doc["version"] = 2
    with pytest.raises(SnapshotError, match="lacks"):
        restore(doc)


# -- the ledger document ---------------------------------------------------------------------------
def test_validate_ledger_document_returns_what_to_build_from() -> None:
    ledger = shared_ledger(ManualClock(T0))
    checked = validate_ledger_document(ledger.to_dict(), "trust.json")
    assert isinstance(checked, LedgerDocument)
    assert checked.memory_half_life == 30 * 86_400 and checked.prior_weight == 10.0
    assert [t[:4] for t in checked.totals] == [["sensor:thermo", None, 1, 2],
                                               ["sensor:thermo", "weather", 1, 2],
                                               ["tool:crm", None, 1, 1]]
    assert [o.source for o in checked.outcomes] == ["sensor:thermo", "sensor:thermo", "tool:crm"]
    assert checked.header == {}


def test_the_json_store_header_fields_are_allowed_and_checked() -> None:
    data = shared_ledger(ManualClock(T0)).to_dict()
    data.update(store="jsonfile", generation=3)
    assert validate_ledger_document(data).header == {"store": "jsonfile", "generation": 3}
    data["generation"] = -1
    with pytest.raises(SnapshotError, match="generation"):
        validate_ledger_document(data, "trust.json")
    data["generation"], data["checksum"] = 3, "x"
    with pytest.raises(SnapshotError, match="unknown fields"):
        validate_ledger_document(data)
    assert validate_ledger_document(data, extra=["checksum"]).header["checksum"] == "x"


LEDGER_EDITS: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_set("outcomes", 0, "source", to="thermo"), "outcomes[0].source"),
    (_set("outcomes", 0, "source", to="rule:r"), "outcomes[0].source"),
    (_set("outcomes", 1, "event_id", to=None), "outcomes[1].event_id"),
    (lambda d: d["outcomes"].append(dict(d["outcomes"][0])), "outcomes[3].event_id"),
    (_set("outcomes", 0, "topic", to=""), "outcomes[0].topic"),
    (_set("outcomes", 0, "key", to=" "), "outcomes[0].key"),
    (lambda d: d["outcomes"][0].pop("recorded_at"), "outcomes[0]"),
    (_set("outcomes", 0, "reason", to="\ud800"), "outcomes[0].reason"),
    (_set("totals", 0, 3, to=1.5), "totals[0][3]"),
    (_set("totals", 0, 4, to=math.inf), "totals[0][4]"),
    (lambda d: d["totals"].append(list(d["totals"][0])), "totals[3]"),
    (lambda d: d["totals"].pop(2), "outcomes[2]"),
    (_set("totals", 1, 3, to=5), "totals"),
    (_set("memory_half_life", to=-1.0), "memory_half_life"),
    (_set("max_history", to=0), "max_history"),
    (_set("max_history", to=2**63), "max_history"),
    (_set("policy", "corroboration", to="yes"), "policy.corroboration"),
]


@pytest.mark.parametrize("edit,field", LEDGER_EDITS, ids=[f for _, f in LEDGER_EDITS])
def test_a_crafted_ledger_is_refused_naming_the_field(tmp_path: Path, edit: Any, field: str) -> None:
    data = shared_ledger(ManualClock(T0)).to_dict()
    edit(data)
    with pytest.raises(SnapshotError, match="malformed ledger") as info:
        TrustLedger.from_dict(data)
    assert field in str(info.value)
    path = tmp_path / "trust.json"
    path.write_bytes(json.dumps(_box(data)).encode())  # bare, as the JSON store writes
    with pytest.raises(SnapshotError) as info:
        TrustLedger.load(path)
    assert str(path) in str(info.value) and field in str(info.value)


def test_a_ledger_keeps_totals_beyond_its_kept_history() -> None:
    """A ledger keeps the last max_history outcomes; its totals count all of them."""
    ledger = TrustLedger(max_history=2, clock=ManualClock(T0))
    for i in range(5):
        ledger.record_outcome("tool:x", i % 2 == 0, at=T0)
    data = ledger.to_dict()
    assert len(data["outcomes"]) == 2 and data["totals"][0][3] == 5
    assert TrustLedger.from_dict(data).record_of("tool:x", at=T0) == ledger.record_of("tool:x", at=T0)


def test_outcome_from_dict_checks_its_fields() -> None:
    from corollary.trust.ledger import Outcome

    good = shared_ledger(ManualClock(T0)).outcomes()[0]
    assert Outcome.from_dict(good.to_dict()) == good
    with pytest.raises(SnapshotError, match="outcome.correct"):
        Outcome.from_dict(dict(good.to_dict(), correct="yes"))
    with pytest.raises(ValueError, match="unknown fields"):
        Outcome.from_dict(dict(good.to_dict(), extra=1))


# -- 2. checksums ----------------------------------------------------------------------------
def test_saved_files_are_sealed(rich: BeliefBase, tmp_path: Path) -> None:
    rich.save(tmp_path / "a.cor")
    envelope = msgpack.unpackb((tmp_path / "a.cor").read_bytes())
    assert sorted(envelope) == ["body", "checksum", "format", "version"]
    assert envelope["version"] == SNAPSHOT_VERSION == 3
    assert envelope["checksum"] == digest(envelope["body"])
    assert envelope["checksum"].startswith(f"{CHECKSUM}:") and len(envelope["checksum"]) == 44
    rich.save(tmp_path / "a.json")
    text = (tmp_path / "a.json").read_text()
    assert text.startswith('{"format":"corollary-snapshot","version":3,"checksum":"blake2b-128:')
    assert json.loads(text)["body"]["beliefs"][0][0] == "revenue:Q2"  # still plain JSON
    rich.ledger.save(tmp_path / "trust.json")
    rich.ledger.save(tmp_path / "trust.msgpack")
    assert json.loads((tmp_path / "trust.json").read_text())["checksum"].startswith(CHECKSUM)
    assert "checksum" in msgpack.unpackb((tmp_path / "trust.msgpack").read_bytes())


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_a_schema_1_file_without_a_checksum_still_loads(rich: BeliefBase, tmp_path: Path,
                                                        fmt: str) -> None:
    data = as_schema(rich.to_dict(), 1)
    path = tmp_path / f"old.{fmt}"
    path.write_bytes(msgpack.packb(data) if fmt == "msgpack" else json.dumps(data).encode())
    loaded = BeliefBase.load(path, clock=ManualClock(rich.clock()))
    assert exact(loaded.to_dict()["beliefs"], data["beliefs"])
    assert state(loaded) == state(restore(rich.to_dict()))
    # and it is still checked: a schema 1 file is validated like any other
    data["premises"][0][3] = math.nan
    path.write_bytes(encode(data, fmt, seal=False))
    with pytest.raises(SnapshotError, match=r"premises\[0\]\[3\]"):
        BeliefBase.load(path, clock=ManualClock(T0))


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_a_schema_2_file_without_its_checksum_is_refused(rich: BeliefBase, tmp_path: Path,
                                                         fmt: str) -> None:
    data = rich.to_dict()
    path = tmp_path / f"bare.{fmt}"
    path.write_bytes(encode(data, fmt, seal=False))
    with pytest.raises(SnapshotError, match="carries a checksum; this one has none"):
        BeliefBase.load(path, clock=ManualClock(T0))
    # a plain document in memory is fine: to_dict() never had a checksum
    assert len(restore(data)) == len(rich)


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_a_newer_version_is_refused_clearly(rich: BeliefBase, tmp_path: Path, fmt: str) -> None:
    data = dict(rich.to_dict(), version=SNAPSHOT_VERSION + 1)
    newer = rf"version {SNAPSHOT_VERSION + 1} is newer than this corollary reads \({SNAPSHOT_VERSION}\)"
    for sealed in (True, False):
        path = tmp_path / f"new.{fmt}"
        path.write_bytes(encode(data, fmt, seal=sealed))
        with pytest.raises(SnapshotError, match=newer):
            BeliefBase.load(path, clock=ManualClock(T0))
    # a newer version may seal its body differently: refused as newer before the body is read
    future = {"format": "corollary-snapshot", "version": SNAPSHOT_VERSION + 1,
              "body": b"\x28\xb5\x2f\xfd zstd"}
    future["checksum"] = digest(future["body"])
    path.write_bytes(msgpack.packb(future, use_bin_type=True))
    with pytest.raises(SnapshotError, match=f"version {SNAPSHOT_VERSION + 1} is newer"):
        BeliefBase.load(path, clock=ManualClock(T0))
    ledger = dict(rich.ledger.to_dict(), version=2)
    path = tmp_path / f"trust.{fmt}"
    path.write_bytes(encode(ledger, fmt))
    with pytest.raises(SnapshotError, match=r"version 2 is newer than this corollary reads \(1\)"):
        TrustLedger.load(path)


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_a_checksum_mismatch_or_an_unknown_checksum_is_refused(rich: BeliefBase, tmp_path: Path,
                                                               fmt: str) -> None:
    path = tmp_path / f"s.{fmt}"
    rich.save(path, format=fmt)
    raw = path.read_bytes()
    at = raw.index(b"Austin")
    damaged = raw[:at] + b"Boston" + raw[at + 6:]
    path.write_bytes(damaged)
    with pytest.raises(SnapshotError, match="checksum does not match"):
        BeliefBase.load(path, clock=ManualClock(T0))
    assert path.read_bytes() == damaged
    path.write_bytes(raw.replace(CHECKSUM.encode(), b"sha3-1024-x", 1))
    with pytest.raises(SnapshotError, match="unknown checksum 'sha3-1024-x'"):
        BeliefBase.load(path, clock=ManualClock(T0))


def test_a_reformatted_json_file_still_verifies(rich: BeliefBase, tmp_path: Path) -> None:
    """The checksum is over the canonical encoding of the body: indenting changes nothing."""
    path = tmp_path / "s.json"
    rich.save(path)
    pretty = json.dumps(json.loads(path.read_text()), indent=2, ensure_ascii=True)
    path.write_text(pretty)
    loaded = BeliefBase.load(path, clock=ManualClock(rich.clock()))
    assert state(loaded) == state(restore(rich.to_dict()))
    path.write_text(pretty.replace('"Austin"', '"Boston"'))
    with pytest.raises(SnapshotError, match="checksum does not match"):
        BeliefBase.load(path, clock=ManualClock(T0))
    rich.save(path)
    path.write_bytes(path.read_bytes() + b"\n")  # an editor's final newline
    assert state(BeliefBase.load(path, clock=ManualClock(rich.clock()))) == state(
        restore(rich.to_dict()))


def test_the_json_store_file_still_loads_with_trust_ledger_load(tmp_path: Path) -> None:
    """The JSON-file store writes the ledger document bare, as it goes: no checksum needed."""
    path = tmp_path / "trust.json"
    ledger = open_ledger(path, clock=ManualClock(T0))
    ledger.record_outcome("tool:x", True, at=T0, topic="t")
    assert "checksum" not in json.loads(path.read_text())
    assert TrustLedger.load(path).record_of("tool:x", at=T0).correct == 1


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_ledger_files_round_trip_sealed(tmp_path: Path, fmt: str) -> None:
    clock = ManualClock(T0)
    ledger = shared_ledger(clock)
    path = tmp_path / f"trust.{fmt}"
    ledger.save(path, format=fmt)
    assert exact(TrustLedger.load(path, clock=clock).to_dict(), ledger.to_dict())


def test_a_damaged_session_is_refused() -> None:
    clock = ManualClock(T0)
    ledger = shared_ledger(clock)
    kb = shared_base(clock, ledger)
    kb.save_session("s1")
    raw = ledger.store.load_session("s1")
    ledger.store.save_session("s1", raw[:-40] + bytes(40))  # damaged in the store
    with pytest.raises(SnapshotError, match="session 's1'"):
        BeliefBase.load_session(ledger, "s1", clock=clock)


def test_sealing_needs_a_named_versioned_document() -> None:
    with pytest.raises(ValueError, match="can be sealed"):
        encode([1, 2], "msgpack")
    with pytest.raises(ValueError, match="can be sealed"):
        encode({"format": "Has Spaces", "version": 1}, "json")
    assert decode_bytes(encode([1, 2], "json", seal=False), "list") == [1, 2]


# -- 4. bytes that do not decode ---------------------------------------------------------------
def _deep_json(levels: int) -> bytes:
    return b'{"format":"corollary-snapshot","version":1,"beliefs":' + b"[" * levels + b"]" * levels + b"}"


UNDECODABLE: dict[str, bytes] = {
    "a msgpack map keyed by a list": b"\x81\x91\x01\x02",
    "a msgpack map keyed by a map": b"\x81\x81\x01\x02\x03",
    "msgpack nested 100,000 deep": b"\x91" * 100_000 + b"\x00",
    "JSON nested 100,000 deep": _deep_json(100_000),
    "a JSON integer of 5,000 digits": b'{"format":"corollary-snapshot","version":' + b"9" * 5000 + b"}",
    "not UTF-8": b'{"format":"corollary-snapshot","\xff":1}',
    "a bare NaN in JSON": b'{"format":"corollary-snapshot","version":1,"taken_at":NaN}',
    "a boxed float holding a list": b'{"x":{"$float":[]}}',
    "a boxed float holding text": b'{"x":{"$float":"ten"}}',
    "a sealed JSON body cut short": b'{"format":"corollary-snapshot","version":2,"checksum":"blake2b-128:00","body":{}',
}


@pytest.mark.parametrize("case", list(UNDECODABLE))
def test_undecodable_bytes_are_a_snapshot_error(tmp_path: Path, case: str) -> None:
    raw = UNDECODABLE[case]
    for load, name in ((lambda p: BeliefBase.load(p), "s.cor"), (TrustLedger.load, "t.json")):
        path = tmp_path / name
        path.write_bytes(raw)
        with pytest.raises(SnapshotError) as info:
            load(path)
        assert str(path) in str(info.value)
        assert path.read_bytes() == raw


def test_msgpack_extension_types_and_bytes_are_not_values(doc: dict[str, Any], tmp_path: Path) -> None:
    doc["beliefs"][0][1] = msgpack.ExtType(5, b"x")
    path = tmp_path / "s.cor"
    path.write_bytes(msgpack.packb(as_schema(doc, 1), use_bin_type=True))
    with pytest.raises(SnapshotError, match=r"beliefs\[0\]\[1\]"):
        BeliefBase.load(path, clock=ManualClock(T0))


def test_huge_integers_in_json_are_refused_by_field(doc: dict[str, Any], tmp_path: Path) -> None:
    doc["beliefs"][0][2] = 2**70
    path = tmp_path / "s.json"
    path.write_bytes(json.dumps(as_schema(doc, 1)).encode())
    with pytest.raises(SnapshotError, match=r"beliefs\[0\]\[2\]"):
        BeliefBase.load(path, clock=ManualClock(T0))


# -- the column-at-a-time checks accept exactly what the row-by-row checks accept -----------------
def test_fast_and_row_by_row_checks_agree(doc: dict[str, Any]) -> None:
    from corollary.foundations._fields import Fields
    from corollary.trust.policy import TrustPolicy

    rng = random.Random(7)
    f = Fields("here", "snapshot")
    policy = TrustPolicy.from_dict(doc["policy"])
    junk = [None, True, -1, 0, 2**63, 1.5, math.nan, math.inf, "", " ", "x", "\ud800", [], {}, b"b"]
    agreed = {"beliefs": 0, "premises": 0}
    for _ in range(400):
        beliefs = copy.deepcopy(doc["beliefs"])
        premises = copy.deepcopy(doc["premises"])
        table = rng.choice([beliefs, premises])
        row = rng.randrange(len(table))
        if rng.random() < 0.1:
            table[row] = rng.choice(junk)
        else:
            table[row][rng.randrange(len(table[row]))] = rng.choice(junk)
        fast = _beliefs_at_once(beliefs)
        try:
            slow = _beliefs_one_by_one(f, beliefs)
        except SnapshotError:
            slow = None
        assert fast is None or fast == slow
        agreed["beliefs"] += 1
        if slow is None:
            continue
        n = len(beliefs)
        if _premises_at_once(f, premises, n, doc["strings"], policy):
            _premises_one_by_one(f, premises, n, doc["strings"], policy)  # must not raise
        agreed["premises"] += 1
    assert agreed["beliefs"] == 400 and agreed["premises"] > 100

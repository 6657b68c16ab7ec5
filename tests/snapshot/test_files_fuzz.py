"""Corrupt files, counted: a snapshot or ledger file that was damaged loads exactly as saved or is
refused with a typed error, never anything in between.

For representative snapshots (see ``snapshot_cases``) and ledger files, in msgpack and JSON:

* single-bit flips at 300 positions per file (a seeded sample of every bit),
* truncation to every length in a sample (all of the first 64, 48 more, the last 16),
* crafted field edits on the plain document (wrong types, NaN and infinities, out-of-range and
  huge numbers, missing, extra and repeated keys and rows, deep nesting, non-string map keys),
  at a seeded sample of every field of every table.

Each load is classified: ``same`` (``to_dict()`` and every label and confidence identical to the
saved base at the snapshot time), ``refused`` (a ``CorollaryError``), ``silent`` (loaded with
different content) or ``untyped`` (any other exception, at load or in the calls after it).
The tests assert exact counts of 0 ``silent`` and 0 ``untyped``.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.snapshot_cases import (
    T0,
    as_schema,
    exact,
    ledger_state,
    rich_base,
    shared_base,
    shared_ledger,
    snapshot_state,
    state,
)

from corollary import BeliefBase, CorollaryError, ManualClock, TrustLedger
from corollary.promises.guarantee import GroupedPromise

FLIPS = 300


# -- the saved files ---------------------------------------------------------------------------
class Case:
    """A saved base (or ledger) and how to load a file or a document of it."""

    def __init__(self, name: str, kind: str, original: Any, tmp: Path, ledger_doc: Any = None) -> None:
        self.name = name
        self.kind = kind
        self.ledger_doc = ledger_doc
        self.time = original.clock()
        self.files: dict[str, bytes] = {}
        for fmt in ("msgpack", "json"):
            path = tmp / f"{name}.{fmt}"
            original.save(path, format=fmt)
            self.files[fmt] = path.read_bytes()
        self.doc = original.to_dict()
        reference = self.load_doc(self.doc)  # a fresh restore: what an intact file gives back
        self.expected = reference.to_dict()
        assert exact(self.expected, self.doc)
        self.expected_state = state(reference) if kind == "snapshot" else None

    def _ledger(self) -> TrustLedger | None:
        if self.ledger_doc is None:
            return None
        return TrustLedger.from_dict(self.ledger_doc, clock=ManualClock(self.time))

    def load_file(self, path: Path) -> Any:
        if self.kind == "ledger":
            return TrustLedger.load(path, clock=ManualClock(self.time))
        return BeliefBase.load(path, ledger=self._ledger(), clock=ManualClock(self.time))

    def load_doc(self, doc: Any) -> Any:
        if self.kind == "ledger":
            return TrustLedger.from_dict(doc, clock=ManualClock(self.time))
        return BeliefBase.from_dict(doc, ledger=self._ledger(), clock=ManualClock(self.time))

    def matches(self, loaded: Any) -> bool:
        if not exact(loaded.to_dict(), self.expected):
            return False
        return self.kind == "ledger" or state(loaded) == self.expected_state


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    tmp = tmp_path_factory.mktemp("saved")
    clock = ManualClock(T0)
    rich = rich_base(clock)
    clock2 = ManualClock(T0)
    ledger = shared_ledger(clock2)
    shared = shared_base(clock2, ledger)
    own = rich.ledger
    return [
        Case("rich", "snapshot", rich, tmp),
        Case("shared", "snapshot", shared, tmp, ledger_doc=ledger.to_dict()),
        Case("ledger", "ledger", ledger, tmp),
        Case("own-ledger", "ledger", own, tmp),
    ]


def classify(case: Case, load: Callable[[], Any]) -> str:
    try:
        loaded = load()
    except CorollaryError:
        return "refused"
    except Exception as exc:  # noqa: BLE001 - counting exactly these is the point
        return f"untyped at load: {exc.__class__.__name__}: {exc}"
    try:
        return "same" if case.matches(loaded) else "silent"
    except Exception as exc:  # noqa: BLE001
        return f"untyped after load: {exc.__class__.__name__}: {exc}"


def bad(counts: Counter[str]) -> dict[str, int]:
    return {k: n for k, n in counts.items() if k not in ("same", "refused")}


# -- bit flips and truncations -----------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_single_bit_flips_load_exactly_or_are_refused(cases: list[Case], fmt: str,
                                                       tmp_path: Path) -> None:
    total: Counter[str] = Counter()
    for case in cases:
        raw = case.files[fmt]
        rng = random.Random(f"flip-{case.name}-{fmt}")
        bits = rng.sample(range(len(raw) * 8), FLIPS)
        path = tmp_path / f"{case.name}.{fmt}"
        counts: Counter[str] = Counter()
        for bit in bits:
            damaged = bytearray(raw)
            damaged[bit // 8] ^= 1 << (bit % 8)
            path.write_bytes(bytes(damaged))
            counts[classify(case, functools.partial(case.load_file, path))] += 1
            assert path.read_bytes() == bytes(damaged)  # a refused file is left as it was
        assert bad(counts) == {}, (case.name, counts)
        total.update(counts)
    # a sealed file covers every bit: no flip leaves a file that still verifies
    assert total == Counter({"refused": FLIPS * len(cases)}) == Counter({"refused": 1200})


def truncations(size: int, rng: random.Random) -> list[int]:
    lengths = set(range(min(64, size)))
    lengths.update(rng.sample(range(size), min(48, size)))
    lengths.update(range(max(size - 16, 0), size))
    return sorted(lengths)


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_every_truncation_in_the_sample_is_refused(cases: list[Case], fmt: str,
                                                   tmp_path: Path) -> None:
    for case in cases:
        raw = case.files[fmt]
        lengths = truncations(len(raw), random.Random(f"cut-{case.name}-{fmt}"))
        path = tmp_path / f"{case.name}.{fmt}"
        counts: Counter[str] = Counter()
        for n in lengths:
            path.write_bytes(raw[:n])
            counts[classify(case, functools.partial(case.load_file, path))] += 1
        assert counts == Counter({"refused": len(lengths)}), (case.name, bad(counts))


# -- crafted edits -----------------------------------------------------------------------------
def deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


REPLACEMENTS: list[tuple[str, Callable[[], Any]]] = [
    ("None", lambda: None),
    ("True", lambda: True),
    ("-1", lambda: -1),
    ("0", lambda: 0),
    ("2**64-1", lambda: 2**64 - 1),
    ("10**30", lambda: 10**30),
    ("1.5", lambda: 1.5),
    ("nan", lambda: math.nan),
    ("inf", lambda: math.inf),
    ("-inf", lambda: -math.inf),
    ("''", lambda: ""),
    ("'x'", lambda: "x"),
    ("[]", lambda: []),
    ("[0]", lambda: [0]),
    ("{}", lambda: {}),
    ("{'zz': 1}", lambda: {"zz": 1}),
    ("deep", lambda: deep(200)),
    ("tuple key", lambda: {(1, 2): 1}),
    ("int key", lambda: {1: 1}),
    ("bytes", lambda: b"\x00\xff"),
]


def sites(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position in the document (long lists: their first two and last items)."""
    found = [path] if path else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            found.extend(sites(v, (*path, k)))
    elif isinstance(doc, list):
        picks = range(len(doc)) if len(doc) <= 3 else (0, 1, len(doc) - 1)
        for i in picks:
            found.extend(sites(doc[i], (*path, i)))
    return found


def edited(doc: Any, where: tuple[Any, ...], how: str, make: Callable[[], Any] | None) -> Any:
    doc = copy.deepcopy(doc)
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    if how == "delete":
        del parent[last]
    elif how == "repeat":
        parent.insert(last, copy.deepcopy(parent[last]))
    elif how == "extra":
        target = parent[last]
        if isinstance(target, dict):
            target["zz_extra"] = 1
        else:
            target.append(0)
    else:
        assert make is not None
        parent[last] = make()
    return doc


def edits(doc: Any, rng: random.Random, count: int) -> list[tuple[str, Any]]:
    out = []
    for where in rng.sample(sites(doc), min(count, len(sites(doc)))):
        node = doc
        for step in where[:-1]:
            node = node[step]
        out.append((f"{where} delete", edited(doc, where, "delete", None)))
        if isinstance(node, list):
            out.append((f"{where} repeat", edited(doc, where, "repeat", None)))
        target = node[where[-1]]
        if isinstance(target, (dict, list)):
            out.append((f"{where} extra", edited(doc, where, "extra", None)))
        for name, make in REPLACEMENTS:
            out.append((f"{where} = {name}", edited(doc, where, "set", make)))
    return out


def same_content(case: Case, a: Any, b: Any) -> bool:
    """Exactly the same base or ledger (see ``snapshot_state`` and ``ledger_state``)."""
    normal = snapshot_state if case.kind == "snapshot" else ledger_state
    return exact(normal(a), normal(b))


def exercise(case: Case, loaded: Any) -> None:
    """What a caller does next with a loaded base or ledger; any untyped error is a defect."""
    data = loaded.to_dict()
    again = case.load_doc(data)
    assert same_content(case, again.to_dict(), data)
    if case.kind == "ledger":
        for source in loaded.sources():  # a shared ledger may hold kinds its policy does not
            loaded.record_of(source, prior=0.5)
            loaded.reliability(source, prior=0.5)
        loaded.record_outcome("tool:later", True)
        return
    for key, value, _seq, _withdrawn in data["beliefs"]:
        loaded.label(key, value)
        loaded.confidence(key, value)
        str(loaded.explain(key, value))
    loaded.conflicts()
    loaded.project()
    for record in [v for _k, _v, v in data["verdicts"]]:
        loaded.replay(record, live=True)
    for name, promise in loaded.promises.items():
        for key in ("hq", "temp"):
            if key in loaded:
                if isinstance(promise, GroupedPromise):
                    loaded.answer(key, name, group=(promise.groups or ["unseen"])[0])
                else:
                    loaded.answer(key, name)
    loaded.assert_("later", 1, source="human:ops")
    loaded.refresh()
    again = case.load_doc(loaded.to_dict())
    assert same_content(case, again.to_dict(), loaded.to_dict())


def crafted(case: Case, doc: Any) -> str:
    try:
        loaded = case.load_doc(doc)
    except CorollaryError:
        return "refused"
    except Exception as exc:  # noqa: BLE001
        return f"untyped at load: {exc.__class__.__name__}: {exc}"
    try:
        data = loaded.to_dict()
        if case.kind == "snapshot":  # the time and the writer's version are not the content
            for field in ("taken_at", "corollary", "version"):
                data[field] = doc.get(field)
        if not same_content(case, data, doc):
            return "silent"
        exercise(case, loaded)
    except CorollaryError as exc:
        return f"typed error after load: {exc.__class__.__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001
        return f"untyped after load: {exc.__class__.__name__}: {exc}"
    return "same"


#: Fields edited per document (a seeded sample; the smaller documents: every field).
SITES = {"rich": 120, "shared": 1000, "ledger": 1000, "own-ledger": 1000}
#: How many of those edits are refused, and how many are valid content that loads as edited.
OUTCOMES = {"rich": (2177, 395), "shared": (1515, 103), "ledger": (1358, 76),
            "own-ledger": (1358, 76)}


@pytest.mark.parametrize("name", ["rich", "shared", "ledger", "own-ledger"])
def test_crafted_edits_load_faithfully_or_are_refused(cases: list[Case], name: str) -> None:
    case = next(c for c in cases if c.name == name)
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for label, doc in edits(case.doc, random.Random(f"edit-{name}"), SITES[name]):
        outcome = crafted(case, doc)
        counts[outcome] += 1
        examples.setdefault(outcome, label)
    problems = {k: (n, examples[k]) for k, n in counts.items() if k not in ("same", "refused")}
    assert problems == {}
    assert (counts["refused"], counts["same"]) == OUTCOMES[name]


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
def test_crafted_edits_in_v1_files_load_faithfully_or_are_refused(cases: list[Case], fmt: str,
                                                                   tmp_path: Path) -> None:
    """The same edits written as files without a checksum (schema 1, as older versions wrote)."""
    counts: Counter[str] = Counter()
    for case in cases[:1]:
        path = tmp_path / f"v1.{fmt}"
        for label, doc in edits(case.doc, random.Random(f"v1-{fmt}"), 12):
            if isinstance(doc.get("version"), int) and isinstance(doc.get("justifications"), list):
                doc = as_schema(doc, 1)
            elif isinstance(doc.get("version"), int):
                doc = dict(doc, version=1)
            try:
                raw = (msgpack.packb(doc, use_bin_type=True) if fmt == "msgpack"
                       else json.dumps(doc).encode())
            except (TypeError, ValueError, OverflowError):
                continue  # not writable in this format (a tuple key, a huge integer...)
            path.write_bytes(raw)
            outcome = classify(case, functools.partial(case.load_file, path))
            if outcome == "silent":  # an edit that is itself valid content: loaded as written
                outcome = crafted(case, doc)
            counts[outcome] += 1
            assert outcome in ("same", "refused"), (label, outcome)
    assert counts["refused"] > 0

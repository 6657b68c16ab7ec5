"""One ledger shared by threads: no outcome lost, no listener dropped, no read torn.

The documented pattern is one :class:`BeliefBase` per thread on a shared
:class:`TrustLedger`. The switch interval is shortened while the threads run so that the
interpreter switches threads inside the ledger's read-modify-write steps as often as it can.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import files_workers as workers  # importable by name in spawned children
from support.files_workers import refold

from corollary import BeliefBase, open_ledger
from corollary.trust.ledger import Totals, TrustLedger, fold_totals

SPAWN = multiprocessing.get_context("spawn")
THREADS = 8
PER_THREAD = 600


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Switch threads every few microseconds (the default is 5 ms)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _run_threads(targets: list[Callable[[], None]], timeout: float = 60) -> None:
    errors: list[BaseException] = []

    def guard(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
        return run

    threads = [threading.Thread(target=guard(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not [t for t in threads if t.is_alive()], "a thread hung"
    assert errors == []


def _expected_shared(n: int) -> tuple[int, int]:
    """(right, total) of ``tool:shared`` written by one thread of :func:`_hammer`."""
    return sum(1 for i in range(n) if i % 4 != 0), n


def _hammer(ledger: TrustLedger, k: int, n: int, bases: list[BeliefBase],
            start: threading.Barrier) -> None:
    """Write ``n`` outcomes of ``tool:shared`` (and some of ``tool:t<k>``) three ways."""
    start.wait()
    kb: BeliefBase | None = None
    for i in range(n):
        if i == n // 3:
            # subscribe while the other threads are notifying
            kb = BeliefBase(ledger=ledger)
            kb.reliability("tool:probe")  # caches the prior: only a notification clears it
            bases.append(kb)
        right = i % 4 != 0
        topic = f"t{i % 3}"
        if kb is None or i % 3 == 0:
            ledger.record_outcome("tool:shared", right, at=0, topic=topic, event_id=f"{k}-{i}")
        elif i % 3 == 1:
            ledger.record_many([
                {"source": "tool:shared", "correct": right, "at": 0, "topic": topic,
                 "event_id": f"{k}-{i}"},
                {"source": f"tool:t{k}", "correct": True, "at": 0, "event_id": f"{k}-{i}-own"},
            ])
        else:
            kb.record_outcome("tool:shared", right, at=0, topic=topic)


def _reader(ledger: TrustLedger, stop: threading.Event, errors: list[BaseException]) -> None:
    """Read everything a caller can while the writers write (a torn read raises)."""
    try:
        while not stop.is_set():
            ledger.outcomes()
            ledger.sources()
            saved = ledger.to_dict()
            # a saved ledger is one moment: its totals count exactly its outcomes
            kept: dict[str, int] = {}
            for o in saved["outcomes"]:
                kept[o["source"]] = kept.get(o["source"], 0) + 1
            counted = {row[0]: row[3] for row in saved["totals"] if row[1] is None}
            if counted != kept:
                raise AssertionError(f"torn save: totals {counted} for outcomes {kept}")
    except BaseException as exc:  # reported by the test
        errors.append(exc)


@pytest.mark.parametrize("round_", range(3))
def test_threads_sharing_a_memory_ledger_lose_nothing(busy_switching: None, round_: int) -> None:
    ledger = TrustLedger(max_history=THREADS * PER_THREAD)
    bases: list[BeliefBase] = []
    start = threading.Barrier(THREADS)
    stop = threading.Event()
    read_errors: list[BaseException] = []
    reader = threading.Thread(target=_reader, args=(ledger, stop, read_errors))
    reader.start()
    try:
        _run_threads([lambda k=k: _hammer(ledger, k, PER_THREAD, bases, start)  # type: ignore[misc]
                      for k in range(THREADS)])
    finally:
        stop.set()
        reader.join(30)
    assert [repr(e) for e in read_errors] == []

    right, total = _expected_shared(PER_THREAD)
    record = ledger.record_of("tool:shared", at=0)
    assert (record.correct, record.correct + record.wrong) == (THREADS * right, THREADS * total)
    shared = ledger.outcomes("tool:shared")
    assert len(shared) == THREADS * PER_THREAD
    assert len({o.event_id for o in shared}) == THREADS * PER_THREAD
    for t in range(3):
        n_topic = sum(1 for i in range(PER_THREAD) if i % 3 == t)
        assert ledger.track_record("tool:shared", f"t{t}").samples == THREADS * n_topic
    own = sum(1 for i in range(PER_THREAD // 3, PER_THREAD) if i % 3 == 1)
    for k in range(THREADS):
        assert ledger.record_of(f"tool:t{k}", at=0).correct == own
        assert len(ledger.outcomes(f"tool:t{k}")) == own
    assert ledger.sources() == sorted(["tool:shared", *(f"tool:t{k}" for k in range(THREADS))])

    # every base still listens: a new outcome reaches each one's cached reliability
    assert len(bases) == THREADS
    ledger.record_outcome("tool:probe", False, at=0)
    expected = ledger.reliability("tool:probe")
    assert expected < 0.9
    assert [kb.reliability("tool:probe") for kb in bases] == [expected] * THREADS


def test_totals_refold_exactly(busy_switching: None) -> None:
    """With decay, the totals are the fold of the kept outcomes in the order they were kept."""
    ledger = TrustLedger(memory_half_life=3600, max_history=THREADS * 200)
    start = threading.Barrier(THREADS)

    def write(k: int) -> None:
        start.wait()
        for i in range(200):
            ledger.record_outcome("tool:decay", (i + k) % 3 != 0, at=float(i * THREADS + k),
                                  event_id=f"{k}-{i}")

    _run_threads([lambda k=k: write(k) for k in range(THREADS)])  # type: ignore[misc]
    kept = ledger.outcomes("tool:decay")
    assert len(kept) == THREADS * 200
    refolded: dict[tuple[str, str | None], Totals] = {}
    for o in kept:
        fold_totals(refolded, o.source, o.topic, o.correct, o.at, 3600.0)
    assert ledger.store.totals("tool:decay") == refolded[("tool:decay", None)]


# -- a JSON-file ledger: threads of this process polling and writing, another process writing --

JSON_OTHER = 400   # outcomes the spawned process writes
JSON_OURS = 40     # outcomes each of our two writing threads records
POLLERS = 4
JSON_BATCH = 20  # outcomes per write of the other process: longer merges overlap more


@pytest.mark.parametrize("round_", range(3))
def test_json_ledger_polled_from_threads_while_another_process_writes(
        tmp_path: Path, busy_switching: None, round_: int) -> None:
    path = tmp_path / "trust.json"
    open_ledger(path, memory_half_life=600).record_outcome("tool:seed", True, at=0,
                                                           event_id="seed")
    ledger = open_ledger(path)
    assert ledger.memory_half_life == 600
    ready = SPAWN.Event()
    other = SPAWN.Process(target=workers.write_json,
                          args=(str(path), "other", JSON_OTHER, ready, JSON_BATCH))
    other.start()
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            ledger.poll()
            ledger.reliability("tool:shared", at=0)
            ledger.outcomes()
            ledger.sources()

    def write(tag: str) -> None:
        ready.wait(60)
        for i in range(JSON_OURS):
            ledger.record_outcome("tool:shared", i % 2 == 0, at=float(i), topic=f"t{i % 2}",
                                  event_id=f"{tag}-{i}")

    pollers = [threading.Thread(target=poll) for _ in range(POLLERS)]
    for t in pollers:
        t.start()
    try:
        _run_threads([lambda: write("a"), lambda: write("b")], timeout=120)
        other.join(120)
    finally:
        stop.set()
        for t in pollers:
            t.join(30)
        if other.is_alive():  # pragma: no cover - a hang is a failure, not a stuck suite
            other.kill()
    assert other.exitcode == 0
    ledger.record_outcome("tool:last", True, at=0, event_id="last")  # rewrites after all merged

    doc = json.loads(path.read_text())
    ids = [o["event_id"] for o in doc["outcomes"]]
    assert len(ids) == 1 + JSON_OTHER + 2 * JSON_OURS + 1
    assert len(set(ids)) == len(ids)
    assert doc["totals"] == refold(doc)
    shared = [row for row in doc["totals"] if row[:2] == ["tool:shared", None]]
    assert shared[0][3] == JSON_OTHER + 2 * JSON_OURS
    # this process's view agrees with the file
    assert ledger.record_of("tool:shared", at=0).correct == shared[0][2]
    assert len(ledger.outcomes()) == len(ids)

"""SQLite ledger files under faults: killed writers, a full disk, damaged rows and bits,
read-only directories, many processes creating one file, file modes, dropped ledgers.

Everything runs against real files. Permission cases run in a child process that drops root
(the suite may run as root, which ignores file modes).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import random
import resource
import shutil
import signal
import sqlite3
import stat
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from support import sql_workers as workers
from support.pools import spawned_pool

from corollary import BeliefBase, open_ledger
from corollary.foundations.errors import CorollaryError, StoreError
from corollary.storage import StoreCorruptError
from corollary.storage.sqlite import SCHEMA_VERSION, SQLiteStore
from corollary.trust.ledger import TrustLedger

SPAWN = multiprocessing.get_context("spawn")
FORK = multiprocessing.get_context("fork")
NOBODY = 65534

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files and processes")


def _in_child(body: Callable[[], None], *, unprivileged: bool = False) -> None:
    """Run ``body`` in a forked child (as an unprivileged user if asked); re-raise its failure
    here as an AssertionError carrying the child's traceback."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 0
        try:
            if unprivileged and os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            body()
        except BaseException:
            os.write(write, traceback.format_exc().encode())
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        report = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, report


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory an unprivileged child can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="corollary-ro-"))
    path.chmod(0o755)
    yield path
    for p in (path, *path.rglob("*")):
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(path)


def _open_fds_to(path: Path) -> list[str]:
    """The descriptors of this process open on ``path`` (or its -wal / -shm)."""
    names = {str(path), f"{path}-wal", f"{path}-shm"}
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target in names:
            found.append(target)
    return found


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


# -- batches are all-or-nothing ------------------------------------------------------------

def test_a_full_disk_fails_the_whole_batch_with_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    with open_ledger(path) as ledger:
        ledger.record_many([{"source": "tool:before", "correct": True, "at": 0.0}
                            for _ in range(100)])

    def body() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, EFBIG
        limit = os.path.getsize(path) + 256 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        with open_ledger(path) as ledger:
            big = [{"source": "tool:big", "correct": True, "at": 0.0, "reason": "r" * 200}
                   for _ in range(20_000)]  # some 5 MB: past the limit
            try:
                ledger.record_many(big)
            except StoreError as exc:
                assert str(path) in str(exc)
            else:
                raise AssertionError("a batch past the file size limit was reported written")
            assert ledger.store.count() == 100  # the store says what is there: nothing new
            assert ledger.record_of("tool:big", at=0).correct == 0

    _in_child(body)
    with open_ledger(path) as ledger:
        assert ledger.store.count() == 100
        ledger.record_outcome("tool:after", True, at=0.0)  # and it takes writes again
        assert ledger.store.count() == 101
    assert _integrity(path) == "ok"


# -- rows and bits that are not what the schema promises -----------------------------------

def _ledger_with(path: Path, rows: list[str]) -> None:
    with open_ledger(path) as ledger:
        ledger.record_many([{"source": "tool:x", "correct": i % 2 == 0, "at": float(i),
                             "event_id": f"good-{i}"} for i in range(10)])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA ignore_check_constraints = ON")  # as a damaged file could hold
    for values in rows:
        conn.execute("INSERT INTO outcomes (event_id, source, outcome, observed_at, "
                     f"recorded_at, topic, confidence) VALUES {values}")
    conn.commit()
    conn.execute("PRAGMA ignore_check_constraints = OFF")
    conn.execute("INSERT INTO outcomes (event_id, source, outcome, observed_at, recorded_at) "
                 "SELECT 'late-' || value, 'tool:x', 1, 100, 100 FROM json_each('[1,2,3]')")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("values, part_of", [
    ("('bad', 'tool:x', 1, 'noon', 0, NULL, NULL)", "totals"),
    ("('bad', 'tool:x', 1, X'0011', 0, NULL, NULL)", "totals"),
    ("('bad', 'tool:x', 7, 0, 0, NULL, NULL)", "totals"),
    ("('bad', 'tool:x', 1.5, 0, 0, NULL, NULL)", "totals"),
    ("('bad', 'tool:x', 1, 0, 0, X'05', NULL)", "totals"),
    ("('bad', X'74', 1, 0, 0, NULL, NULL)", "sources"),
    ("('bad', 'tool:x', 1, 0, 'then', NULL, NULL)", "outcomes"),
    ("('bad', 'tool:x', 1, 0, 0, NULL, 'high')", "outcomes"),
], ids=["text-time", "blob-time", "outcome-7", "outcome-1.5", "blob-topic", "blob-source",
        "text-recorded", "text-confidence"])
def test_a_row_of_the_wrong_type_is_a_corrupt_store(tmp_path: Path, values: str,
                                                    part_of: str) -> None:
    path = tmp_path / "typed.db"
    _ledger_with(path, [values])
    ledger = open_ledger(path)
    reads: list[Callable[[], Any]] = [lambda: ledger.outcomes()]
    if part_of == "sources":  # a source that is not text: not tool:x's, not a source either
        reads.append(lambda: ledger.sources())
    else:
        reads.append(lambda: ledger.outcomes("tool:x"))
    if part_of == "totals":
        reads += [lambda: ledger.reliability("tool:x", at=0),
                  lambda: ledger.record_of("tool:x", at=0)]
    for read in reads:
        for _ in range(2):  # and again: no half-loaded cache answers the second time
            with pytest.raises(StoreCorruptError) as info:
                read()
            assert str(path) in str(info.value) and "malformed" in str(info.value)
    # repaired, the same ledger object gives exact totals (nothing was folded twice)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM outcomes WHERE event_id = 'bad'")
    conn.commit()
    conn.close()
    ledger.poll()
    record = ledger.record_of("tool:x", at=0)
    assert (record.correct, record.wrong) == (5 + 3, 5)
    ledger.close()


def test_flipped_bits_give_answers_or_typed_errors_only(tmp_path: Path) -> None:
    original = tmp_path / "clean.db"
    with open_ledger(original) as ledger:
        ledger.record_many([{"source": f"tool:s{i % 7}", "correct": i % 3 != 0,
                             "at": float(i), "topic": f"t{i % 4}", "reason": "why",
                             "confidence": (i % 10) / 10} for i in range(400)])
        ledger.store.save_session("s", b"snapshot" * 50)
    size = original.stat().st_size
    rng = random.Random(7)
    untyped: list[str] = []
    typed = answered = 0
    for trial in range(150):
        damaged = tmp_path / f"flip{trial}.db"
        data = bytearray(original.read_bytes())
        for _ in range(4):
            at = rng.randrange(100, size)  # past the header: pages, cells, record headers
            data[at] ^= 1 << rng.randrange(8)
        damaged.write_bytes(bytes(data))
        try:
            with open_ledger(damaged) as ledger:
                for s in range(7):
                    ledger.reliability(f"tool:s{s}", at=0)
                    ledger.track_record(f"tool:s{s}", "t1")
                ledger.outcomes()
                ledger.store.read_session("s")
                ledger.record_outcome("tool:after", True, at=0.0)
            answered += 1
        except CorollaryError:
            typed += 1
        except Exception as exc:  # the defect: an untyped error from deep inside
            untyped.append(f"{type(exc).__name__}: {exc}")
        damaged.unlink()
        for suffix in ("-wal", "-shm"):
            Path(f"{damaged}{suffix}").unlink(missing_ok=True)
    assert untyped == []
    assert typed + answered == 150


# -- where the file cannot be written --------------------------------------------------------

def test_a_new_ledger_in_a_read_only_directory_is_a_clear_store_error(
        shared_dir: Path) -> None:
    ro = shared_dir / "ro"
    ro.mkdir()
    ro.chmod(0o555)

    def body() -> None:
        path = ro / "ledger.db"
        with pytest.raises(StoreError) as info:
            open_ledger(path)
        assert not isinstance(info.value, StoreCorruptError)
        assert str(path) in str(info.value) and "may not write" in str(info.value)
        assert not path.exists()

    _in_child(body, unprivileged=True)


def test_an_unwritable_xdg_data_home_is_a_store_error(shared_dir: Path) -> None:
    xdg = shared_dir / "xdg"
    xdg.mkdir()
    xdg.chmod(0o555)

    def body() -> None:
        os.environ.pop("COROLLARY_LEDGER", None)
        os.environ["XDG_DATA_HOME"] = str(xdg)
        with pytest.raises(StoreError) as info:
            open_ledger()
        assert str(xdg / "corollary") in str(info.value)
        assert not isinstance(info.value, StoreCorruptError)

    _in_child(body, unprivileged=True)


def test_an_existing_ledger_in_a_read_only_directory(shared_dir: Path) -> None:
    ro = shared_dir / "ro"
    ro.mkdir()
    path = ro / "ledger.db"
    with open_ledger(path) as ledger:
        ledger.record_many([{"source": "tool:x", "correct": i < 7, "at": 0.0}
                            for i in range(10)])
        ledger.store.save_session("s", b"kept")
    path.chmod(0o644)
    ro.chmod(0o555)

    def cannot_read_alone() -> None:
        # no -shm beside it and none can be made: SQLite cannot read a WAL file like this
        with pytest.raises(StoreError) as info:
            open_ledger(path).reliability("tool:x", at=0)
        assert not isinstance(info.value, StoreCorruptError)
        assert "read-only" in str(info.value) and str(path) in str(info.value)

    _in_child(cannot_read_alone, unprivileged=True)

    def reads_while_open_elsewhere() -> None:
        ledger = open_ledger(path)
        assert ledger.store.read_only
        record = ledger.record_of("tool:x", at=0)
        assert (record.correct, record.wrong) == (7, 3)
        assert ledger.store.read_session("s") == (b"kept", 1)
        with pytest.raises(StoreError, match="read-only") as info:
            ledger.record_outcome("tool:x", True, at=0.0)
        assert not isinstance(info.value, StoreCorruptError)
        ledger.close()

    with open_ledger(path) as owner:  # the owner has it open: its -shm exists, readable
        owner.reliability("tool:x", at=0)
        _in_child(reads_while_open_elsewhere, unprivileged=True)
        assert owner.store.count() == 10


# -- many processes creating one file --------------------------------------------------------

@pytest.fixture(scope="module")
def pool12() -> Iterator[ProcessPoolExecutor]:
    with spawned_pool(12, workers.warm) as executor:
        yield executor


def test_twelve_processes_create_one_new_ledger_at_once(tmp_path: Path,
                                                        pool12: ProcessPoolExecutor) -> None:
    for round_ in range(10):
        path = str(tmp_path / f"new{round_}" / "ledger.db")
        start_at = time.time() + 0.25
        results = [f.result(timeout=60) for f in
                   [pool12.submit(workers.open_new, path, start_at) for _ in range(12)]]
        assert [version for version, _ in results] == [SCHEMA_VERSION] * 12
        with open_ledger(path) as ledger:
            assert ledger.store.count() == 12
        conn = sqlite3.connect(path)
        history = conn.execute("SELECT version FROM schema_history ORDER BY version").fetchall()
        conn.close()
        assert history == [(v,) for v in range(1, SCHEMA_VERSION + 1)]  # created once


# -- file modes ------------------------------------------------------------------------------

def _mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_ledger_file_follows_the_umask(tmp_path: Path, umask: int, expected: int) -> None:
    path = tmp_path / "mode.db"
    old = os.umask(umask)
    try:
        ledger = open_ledger(path)
        ledger.record_outcome("tool:x", True, at=0.0)
        for name in (path, f"{path}-wal", f"{path}-shm"):
            assert _mode(name) == expected, name
        ledger.close()
    finally:
        os.umask(old)


def test_an_existing_ledger_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "kept.db"
    open_ledger(path).close()
    path.chmod(0o640)
    old = os.umask(0o022)
    try:
        ledger = open_ledger(path)
        ledger.record_outcome("tool:x", True, at=0.0)
        for name in (path, f"{path}-wal", f"{path}-shm"):
            assert _mode(name) == 0o640, name
        ledger.close()
    finally:
        os.umask(old)
    assert _mode(path) == 0o640


# -- closing ---------------------------------------------------------------------------------

def test_a_dropped_ledger_closes_its_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "dropped.db"
    was = gc.isenabled()
    gc.disable()  # no collector: only reference counts may close it
    try:
        ledger = open_ledger(path)
        ledger.record_outcome("tool:x", True, at=0.0)
        ledger.reliability("tool:x", at=0)
        ledger.subscribe(print)
        assert _open_fds_to(path)
        del ledger
        assert _open_fds_to(path) == []
    finally:
        if was:
            gc.enable()


def test_a_ledger_dropped_with_its_base_closes_at_once(tmp_path: Path) -> None:
    path = tmp_path / "dropped.db"
    was = gc.isenabled()
    gc.disable()
    try:
        ledger = open_ledger(path)
        kb = BeliefBase(ledger=ledger)
        kb.assert_("x", 1, source="tool:x")
        del kb, ledger
        assert _open_fds_to(path) == []
    finally:
        if was:
            gc.enable()
        gc.collect()


def test_with_closes_ledgers_and_stores(tmp_path: Path) -> None:
    path = tmp_path / "with.db"
    with open_ledger(path) as ledger:
        ledger.record_outcome("tool:x", True, at=0.0)
        assert _open_fds_to(path)
    assert _open_fds_to(path) == []
    with pytest.raises(StoreError, match="closed"):
        ledger.store.count()
    with SQLiteStore(path) as store:
        assert store.count() == 1
    assert _open_fds_to(path) == []
    with TrustLedger() as memory:
        memory.record_outcome("tool:x", True, at=0.0)

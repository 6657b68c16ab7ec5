"""Ledger and snapshot files under real faults: a full disk, a file-size limit, read-only and
impossible directories, FIFOs and devices, huge files, and the modes files are written with.

Every fault is real: ``RLIMIT_FSIZE`` in a forked child, a 48 KiB tmpfs in a private mount
namespace, a directory the writing user cannot write (as root, a child that drops to
``nobody``), a parent path that is a regular file, ``os.mkfifo``, ``/dev/zero``, a sparse
file past the size bound, and umasks set in child processes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.files_workers import FAILED_ATTEMPTS, described, fail_then_retry, refold

from corollary import BeliefBase, ManualClock, SnapshotError, TrustLedger, open_ledger
from corollary.foundations.errors import InvalidInputError, InvalidTypeError, StoreError
from corollary.storage.jsonfile import JSONFileStore

FORK = multiprocessing.get_context("fork")
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = 65534


def in_child(fn: Callable[..., Any], *args: Any, timeout: float = 60) -> Any:
    """Run ``fn(*args)`` in a forked child and return its (picklable) result."""
    queue = FORK.Queue()

    def run() -> None:
        try:
            queue.put(("ok", fn(*args)))
        except BaseException:
            queue.put(("error", traceback.format_exc()))

    child = FORK.Process(target=run)
    child.start()
    try:
        status, value = queue.get(timeout=timeout)
    finally:
        child.join(timeout)
        if child.is_alive():  # pragma: no cover - a hang is a failure, not a stuck suite
            child.kill()
    assert status == "ok", value
    return value


def file_ids(path: Path) -> list[str]:
    return [o["event_id"] for o in json.loads(path.read_text())["outcomes"]]


def no_temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# -- a write that fails: typed error, nothing changed, the retry writes -------------------------

def _at_file_size_limit(path: str) -> dict[str, Any]:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(path), hard))

    def lift() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))

    return fail_then_retry(path, limit, lift)


def check_failed_then_retried(result: dict[str, Any], path: Path, cause: str) -> None:
    assert len(result["errors"]) == 2 * FAILED_ATTEMPTS
    for error in result["errors"]:
        assert error is not None and error["store_error"], error
        assert str(path) in error["message"] and cause in error["message"], error
    assert result["unchanged"] and result["file_unchanged"]
    assert result["retried"] == 2
    ids = file_ids(path)
    assert len(ids) == 23 and len(set(ids)) == 23
    assert sorted(i for i in ids if i.startswith("late")) == ["late-1", "late-2", "late-3"]
    doc = json.loads(path.read_text())
    assert doc["totals"] == refold(doc)
    assert no_temp_files(path.parent) == []


def test_json_write_at_the_file_size_limit_fails_typed_and_the_retry_writes(
        tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    result = in_child(_at_file_size_limit, str(path))
    check_failed_then_retried(result, path, "File too large")


TINY_FS_CHILD = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, sys.argv[2])
    from support.files_workers import fail_then_retry
    mount = sys.argv[1]
    path = os.path.join(mount, "trust.json")
    filler = os.path.join(mount, "filler")

    def fill():
        # take every free block: the next rewrite of the ledger cannot fit
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"x" * 512):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)

    result = fail_then_retry(path, fill, lambda: os.unlink(filler))
    result["file"] = json.loads(open(path).read())
    print(json.dumps(result))
""")


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None or not ROOT:
        return False
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=48k tmpfs /mnt && umount /mnt"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs unshare and mount (root)")
def test_json_write_on_a_full_disk_fails_typed_and_the_retry_writes(tmp_path: Path) -> None:
    mount = tmp_path / "tiny"
    mount.mkdir()
    script = ("mount -t tmpfs -o size=48k tmpfs \"$1\" && exec \"$2\" -c \"$3\" \"$1\" \"$4\"")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                           "sh", str(mount), sys.executable, TINY_FS_CHILD,
                           str(Path(__file__).parents[1])],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    path = mount / "trust.json"  # the child's file (gone with its mount namespace)
    assert len(result["errors"]) == 2 * FAILED_ATTEMPTS
    for error in result["errors"]:
        assert error is not None and error["store_error"], error
        assert str(path) in error["message"] and "No space left" in error["message"], error
    assert result["unchanged"] and result["file_unchanged"] and result["retried"] == 2
    doc = result["file"]
    ids = [o["event_id"] for o in doc["outcomes"]]
    assert len(ids) == 23 and len(set(ids)) == 23
    assert doc["totals"] == refold(doc)


def _save_at_file_size_limit(directory: str) -> dict[str, Any]:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    for i in range(50):
        kb.assert_(f"k{i}", i, source="tool:x")
    ledger = TrustLedger()
    for _ in range(50):
        ledger.record_outcome("tool:x", True, at=0)
    snap, led = Path(directory, "kb.cor"), Path(directory, "trust.json")
    kb.save(snap)
    ledger.save(led)
    kept = snap.read_bytes(), led.read_bytes()
    kb.assert_("more", "x" * 5000, source="tool:x")
    ledger.record_outcome("tool:x", False, at=0, reason="y" * 5000)
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    errors = []
    for save, old in ((lambda: kb.save(snap), kept[0]), (lambda: ledger.save(led), kept[1])):
        # each file may not grow by the 5,000 bytes just added to it
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(old) + 1000, hard))
        try:
            save()
            errors.append(None)
        except Exception as exc:
            errors.append(described(exc))
    return {"errors": errors, "kept": (snap.read_bytes(), led.read_bytes()) == kept,
            "files": sorted(os.listdir(directory))}


def test_snapshot_and_ledger_save_at_the_file_size_limit(tmp_path: Path) -> None:
    result = in_child(_save_at_file_size_limit, str(tmp_path))
    for error, name in zip(result["errors"], ["kb.cor", "trust.json"], strict=True):
        assert error is not None and error["snapshot_error"], error
        assert str(tmp_path / name) in error["message"] and "File too large" in error["message"]
    assert result["kept"]
    assert result["files"] == ["kb.cor", "trust.json"]


# -- directories that cannot be written -------------------------------------------------------

def _in_read_only_directory(directory: str, drop_to: int | None) -> dict[str, Any]:
    if drop_to is not None:
        try:
            os.setgid(drop_to)
            os.setuid(drop_to)
        except PermissionError as exc:  # a root without CAP_SETUID
            return {"skip": f"cannot drop to uid {drop_to}: {exc}"}
    assert not os.access(directory, os.W_OK)
    path = Path(directory, "trust.json")
    ledger = open_ledger(path)  # reading works
    before = ledger.to_dict()
    errors = {}
    attempts: dict[str, Callable[[], Any]] = {
        "record": lambda: ledger.record_outcome("tool:x", True, at=0, event_id="new"),
        "session": lambda: ledger.store.save_session("s", b"data"),
        "ledger.save": lambda: ledger.save(Path(directory, "copy.json")),
        "kb.save": lambda: BeliefBase(clock=ManualClock(0)).save(Path(directory, "kb.cor")),
        "new ledger": lambda: open_ledger(Path(directory, "sub", "other.json")),
    }
    for name, attempt in attempts.items():
        try:
            attempt()
            errors[name] = None
        except Exception as exc:
            errors[name] = described(exc)
    return {"errors": errors, "unchanged": ledger.to_dict() == before,
            "count": len(ledger.outcomes())}


def test_read_only_directory_gives_typed_errors_and_changes_nothing(tmp_path: Path) -> None:
    if ROOT:
        # root writes anywhere: the fault is a directory this user cannot write, so a child
        # drops to nobody, in a directory nobody can reach but not write
        directory = Path(tempfile.mkdtemp(prefix="corollary-ro-", dir="/tmp"))
        os.chmod(directory, 0o755)
        drop_to: int | None = NOBODY
    else:
        directory = tmp_path / "ro"
        directory.mkdir()
        drop_to = None
    try:
        ledger = open_ledger(directory / "trust.json")
        ledger.record_outcome("tool:x", True, at=0, event_id="old")
        ledger.close()
        if not ROOT:
            os.chmod(directory, 0o555)
            if os.access(directory, os.W_OK):  # pragma: no cover - e.g. CAP_DAC_OVERRIDE
                pytest.skip("chmod does not stop this user from writing")
        before = sorted(os.listdir(directory))
        result = in_child(_in_read_only_directory, str(directory), drop_to)
        after = sorted(os.listdir(directory))
    finally:
        os.chmod(directory, 0o755)
        if ROOT:
            shutil.rmtree(directory)
    if "skip" in result:  # pragma: no cover - depends on the container
        pytest.skip(result["skip"])
    errors = result["errors"]
    for name in ("record", "session", "new ledger"):
        assert errors[name] is not None and errors[name]["store_error"], (name, errors[name])
        assert "Permission denied" in errors[name]["message"], (name, errors[name])
    for name in ("ledger.save", "kb.save"):
        assert errors[name] is not None and errors[name]["snapshot_error"], (name, errors[name])
        assert "Permission denied" in errors[name]["message"], (name, errors[name])
    assert str(directory / "trust.json") in errors["record"]["message"]
    assert result["unchanged"] and result["count"] == 1
    assert after == before


def test_a_parent_that_is_a_regular_file_gives_typed_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("I am a file")
    with pytest.raises(StoreError) as info:
        open_ledger(blocker / "trust.json")
    assert str(blocker / "trust.json") in str(info.value)
    with pytest.raises(StoreError):
        JSONFileStore(blocker / "deeper" / "trust.json")
    with pytest.raises(SnapshotError) as snap:
        TrustLedger().save(blocker / "trust.json")
    assert str(blocker / "trust.json") in str(snap.value)
    with pytest.raises(SnapshotError):
        BeliefBase(clock=ManualClock(0)).save(blocker / "kb.cor")
    # a ledger whose session directory cannot be made
    ledger = open_ledger(tmp_path / "trust.json")
    (tmp_path / "trust.json.sessions").write_text("in the way")
    with pytest.raises(StoreError) as sess:
        ledger.store.save_session("s", b"x")
    assert "trust.json.sessions" in str(sess.value)
    assert blocker.read_text() == "I am a file"


# -- FIFOs, devices, directories and huge files -----------------------------------------------

READ_CHILD = textwrap.dedent("""
    import resource, sys
    # a regression reads /dev/zero into memory: fail fast instead of exhausting the machine
    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, resource.RLIM_INFINITY))
    from corollary import BeliefBase, TrustLedger
    from corollary import open_ledger
    from corollary.storage.jsonfile import JSONFileStore
    how, path = sys.argv[1], sys.argv[2]
    try:
        {"snapshot": BeliefBase.load, "ledger": TrustLedger.load, "open": open_ledger,
         "store": JSONFileStore, "header": JSONFileStore.read_header}[how](path)
        print("no error")
    except Exception as exc:
        print(type(exc).__name__, "|", exc)
""")


def read_in_child(how: str, path: Path, env: dict[str, str] | None = None) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", READ_CHILD, how, str(path)], text=True,
                          capture_output=True, timeout=30, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    kind, _, message = done.stdout.strip().partition(" | ")
    return kind, message


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    directory = tmp_path / "dir.json"
    directory.mkdir()
    return {"fifo": fifo, "devzero": zero, "directory": directory}


@pytest.mark.parametrize("how,expected", [
    ("snapshot", "SnapshotError"), ("ledger", "SnapshotError"), ("open", "StoreCorruptError"),
    ("store", "StoreCorruptError"), ("header", "StoreCorruptError")])
@pytest.mark.parametrize("special", ["fifo", "devzero", "directory"])
def test_non_regular_files_are_refused_without_blocking(
        specials: dict[str, Path], special: str, how: str, expected: str) -> None:
    path = specials[special]
    kind, message = read_in_child(how, path)
    assert kind == expected, message
    assert str(path) in message and "not a regular file" in message
    # nothing was created beside it
    assert sorted(p.name for p in path.parent.iterdir()) == ["dir.json", "fifo.json",
                                                             "zero.json"]


def test_dev_zero_itself_is_refused(tmp_path: Path) -> None:
    kind, message = read_in_child("snapshot", Path("/dev/zero"))
    assert kind == "SnapshotError" and "/dev/zero" in message


def test_saving_over_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "kb.cor"
    os.mkfifo(fifo)
    with pytest.raises(SnapshotError, match="not a regular file"):
        BeliefBase(clock=ManualClock(0)).save(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("how,expected", [
    ("snapshot", "SnapshotError"), ("ledger", "SnapshotError"), ("store", "StoreError"),
    ("header", "StoreError")])
def test_files_over_the_size_bound_are_refused_unread(
        tmp_path: Path, how: str, expected: str) -> None:
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as f:
        f.truncate(5 * 2**30)  # sparse: 5 GiB of zeros that take no disk
    kind, message = read_in_child(how, huge)
    assert kind == expected, message
    assert str(huge) in message and "COROLLARY_MAX_FILE_BYTES" in message


def test_the_size_bound_is_configurable(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    ledger = open_ledger(path)
    for _ in range(30):
        ledger.record_outcome("tool:x", True, at=0, reason="r" * 40)
    size = path.stat().st_size
    kind, message = read_in_child("ledger", path, {"COROLLARY_MAX_FILE_BYTES": str(size - 1)})
    assert kind == "SnapshotError" and f"{size} bytes" in message
    assert read_in_child("ledger", path, {"COROLLARY_MAX_FILE_BYTES": str(size)})[0] == "no error"
    with pytest.raises(StoreError, match="max_file_bytes"):
        JSONFileStore(path, max_file_bytes=size - 1)
    # a store that may not write past the bound refuses the write and keeps its state
    store = JSONFileStore(path, max_file_bytes=size + 10)
    ledger = TrustLedger(store=store)
    before = ledger.to_dict()
    with pytest.raises(StoreError, match="max_file_bytes"):
        ledger.record_outcome("tool:x", True, at=0, reason="r" * 40)
    assert ledger.to_dict() == before and path.stat().st_size == size
    for bad in (0, -1, True, "1"):
        with pytest.raises((InvalidInputError, InvalidTypeError)):
            JSONFileStore(path, max_file_bytes=bad)


# -- modes -----------------------------------------------------------------------------------

def _write_everything(directory: str, umask: int, session: bytes = b"data") -> dict[str, int]:
    """Write (or rewrite) one file of every kind under ``umask``; return the files' modes."""
    os.umask(umask)
    d = Path(directory)
    TrustLedger().save(d / "ledger.json")
    BeliefBase(clock=ManualClock(0)).save(d / "kb.cor")
    ledger = open_ledger(d / "store.json")
    ledger.record_outcome("tool:x", True, at=0)
    ledger.store.save_session("s", session)
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in d.rglob("*") if p.is_file()}


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002, 0o077])
def test_new_files_get_the_umask_mode(tmp_path: Path, umask: int) -> None:
    modes = in_child(_write_everything, str(tmp_path), umask)
    expected = 0o666 & ~umask
    assert {name: oct(mode) for name, mode in modes.items()} == {
        name: oct(expected) for name in
        ("ledger.json", "kb.cor", "store.json", "store.json.lock", "s_s.bin")}


def test_rewritten_files_keep_their_mode_and_group(tmp_path: Path) -> None:
    in_child(_write_everything, str(tmp_path), 0o022)
    files = [tmp_path / n for n in ("ledger.json", "kb.cor", "store.json",
                                    "store.json.sessions/s_s.bin")]
    group = None
    if ROOT:
        group = 4242
    else:
        others = [g for g in os.getgroups() if g != os.getegid()]
        group = others[0] if others else None
    for i, f in enumerate(files):
        os.chmod(f, (0o664, 0o640, 0o660, 0o604)[i])
        if group is not None:
            os.chown(f, -1, group)
    in_child(_write_everything, str(tmp_path), 0o077, b"data two")
    assert [oct(stat.S_IMODE(f.stat().st_mode)) for f in files] == [
        oct(0o664), oct(0o640), oct(0o660), oct(0o604)]
    if group is not None:
        assert [f.stat().st_gid for f in files] == [group] * 4
    assert JSONFileStore(tmp_path / "store.json").load_session("s") == b"data two"


# -- TrustLedger's constructor ----------------------------------------------------------------

@pytest.mark.parametrize("options", [
    {"max_history": 10**30}, {"max_history": 2**31 + 1}, {"max_history": "10"},
    {"max_history": 10.0}, {"prior_weight": 10**400}, {"prior_weight": -(10**400)},
    {"prior_weight": "10"}, {"memory_half_life": 10**400}, {"clock": 5}, {"clock": "now"},
    {"store": object()}, {"store": "trust.json"}, {"policy": {}},
], ids=repr)
def test_hostile_ledger_options_are_typed_errors(options: dict[str, Any]) -> None:
    with pytest.raises((InvalidInputError, InvalidTypeError)) as info:
        TrustLedger(**options)
    assert str(info.value)


def test_ledger_options_at_the_bounds_work() -> None:
    import numpy as np

    ledger = TrustLedger(max_history=2**31, prior_weight=np.float64(1e300))
    ledger.record_outcome("tool:x", True, at=0)
    assert ledger.reliability("tool:x", at=0, prior=0.5) == pytest.approx(0.5)
    assert TrustLedger(max_history=np.int64(5)).max_history == 5
    assert TrustLedger(prior_weight=np.int64(3)).prior_weight == 3.0

"""Sessions in the JSON-file store: versions (compare-and-set across processes), ids a file
system cannot name, and ids that cannot be stored at all."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
from support import files_workers as workers  # importable by name in spawned children

from corollary import open_ledger
from corollary.foundations.errors import ConcurrentWriteError, InvalidInputError, InvalidTypeError
from corollary.storage import SessionNotFoundError
from corollary.storage.base import check_session
from corollary.storage.jsonfile import JSONFileStore

SPAWN = multiprocessing.get_context("spawn")


def test_versions_count_saves_and_guard_them(tmp_path: Path) -> None:
    store = JSONFileStore(tmp_path / "trust.json")
    assert store.save_session("s", b"one") == 1
    assert store.read_session("s") == (b"one", 1)
    assert store.save_session("s", b"two", expected_version=1) == 2
    assert store.save_session("s", b"three") == 3  # unconditional
    for stale in (0, 1, 2, 4):
        with pytest.raises(ConcurrentWriteError) as info:
            store.save_session("s", b"lost", expected_version=stale)
        assert "'s'" in str(info.value) and "version 3" in str(info.value)
    assert store.read_session("s") == (b"three", 3)
    assert store.load_session("s") == b"three"
    assert store.save_session("new", b"x", expected_version=0) == 1
    with pytest.raises(ConcurrentWriteError):
        store.save_session("new", b"y", expected_version=0)
    with pytest.raises(ConcurrentWriteError):
        store.save_session("absent", b"y", expected_version=1)
    with pytest.raises(SessionNotFoundError):
        store.read_session("absent")
    assert store.list_sessions() == ["new", "s"]
    # another process's view (a fresh store) agrees
    assert JSONFileStore(tmp_path / "trust.json").read_session("s") == (b"three", 3)
    assert store.delete_session("s") and store.list_sessions() == ["new"]
    for bad in (True, -1, 1.0, "1"):
        with pytest.raises((InvalidInputError, InvalidTypeError)):
            store.save_session("new", b"z", expected_version=bad)
    assert store.read_session("new") == (b"x", 1)


def test_a_session_saved_by_an_older_corollary_reads_as_version_one(tmp_path: Path) -> None:
    store = JSONFileStore(tmp_path / "trust.json")
    store.sessions_dir.mkdir()
    (store.sessions_dir / "s_old%2Fid.bin").write_bytes(b"\x82\xa1araw msgpack")
    assert store.list_sessions() == ["old/id"]
    assert store.read_session("old/id") == (b"\x82\xa1araw msgpack", 1)
    assert store.save_session("old/id", b"new", expected_version=1) == 2
    assert store.load_session("old/id") == b"new"


@pytest.mark.parametrize("session_id", [
    "a" * 300, "é" * 512, "会話" * 256, "/" * 512, "x/../" * 100, "a" * 200 + "%" * 40,
], ids=["ascii-300", "accented-512", "cjk-512", "slashes-512", "dotdot", "percent"])
def test_ids_a_file_system_cannot_name_still_work(tmp_path: Path, session_id: str) -> None:
    path = tmp_path / "trust.json"
    store = JSONFileStore(path)
    store.save_session("short", b"s")
    assert store.save_session(session_id, b"long") == 1
    assert store.save_session(session_id, b"longer", expected_version=1) == 2
    fresh = JSONFileStore(path)
    assert fresh.read_session(session_id) == (b"longer", 2)
    assert fresh.list_sessions() == sorted(["short", session_id])
    assert all(len(p.name.encode()) <= 255 for p in store.sessions_dir.iterdir())
    assert fresh.delete_session(session_id) and fresh.list_sessions() == ["short"]
    with pytest.raises(SessionNotFoundError):
        fresh.load_session(session_id)


@pytest.mark.parametrize("session_id", ["\ud800", "ok\udcff", "a" * 513, "", "a\x00b"])
def test_ids_that_cannot_be_stored_are_refused_up_front(tmp_path: Path, session_id: str) -> None:
    with pytest.raises(InvalidInputError):
        check_session(session_id)
    store = JSONFileStore(tmp_path / "trust.json")
    for call in (lambda: store.save_session(session_id, b"x"),
                 lambda: store.load_session(session_id),
                 lambda: store.delete_session(session_id)):
        with pytest.raises(InvalidInputError):
            call()
    assert not store.sessions_dir.exists() or list(store.sessions_dir.iterdir()) == []


ROUNDS = 12


def test_two_processes_racing_on_one_session_never_both_win(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    ledger = open_ledger(path)
    assert ledger.store.save_session("shared", b"start") == 1
    start, done = SPAWN.Barrier(2), SPAWN.Barrier(2)
    results: Any = SPAWN.Queue()
    racers = [SPAWN.Process(target=workers.race_session,
                            args=(str(path), "shared", ROUNDS, start, done, tag, results))
              for tag in ("A", "B")]
    for p in racers:
        p.start()
    outcomes = [results.get(timeout=120) for _ in range(2 * ROUNDS)]
    for p in racers:
        p.join(60)
        if p.is_alive():  # pragma: no cover - a hang is a failure, not a stuck suite
            p.kill()
    assert [p.exitcode for p in racers] == [0, 0]
    for r in range(ROUNDS):
        this_round = sorted(verdict for round_, _, verdict in outcomes if round_ == r)
        assert this_round == ["lost", "won"], (r, this_round)
    data, version = ledger.store.read_session("shared")
    assert version == 1 + ROUNDS
    winners = "".join(tag for _, tag, verdict in sorted(outcomes) if verdict == "won")
    assert data == b"start" + winners.encode()
    assert len(os.listdir(ledger.store.sessions_dir)) == 1

"""A subclass's override of the base's own changing methods (a ``super()`` call) in a session:
its entry is the entry of the value its arguments make, and another process replays it
(docs/extending.md). When changes became values (issue 36) an override's entry kept its
arguments as given: a tool function, a rule, a generator of rows were refused ("a journaled
change takes plain data"), a conflict object was packed as a mapping no replay could read, and
a forget's entry kept the key it erased."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from support.ledger_targets import PG_URL, Target
from support.overriding_base import (
    Interrupting,
    Overriding,
    every_override,
    reads,
    tripled,
    write_concurrently,
)

from corollary import ManualClock, open_ledger
from corollary.tms import OUT

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=[
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")])])
def test_each_override_is_one_entry_replayed_in_another_process(tmp_path: Path,
                                                                kind: str) -> None:
    plain_clock = ManualClock(1000)
    plain = Overriding(clock=plain_clock)
    every_override(plain, plain_clock)
    expected = json.loads(json.dumps(reads(plain)))
    target = Target(kind, tmp_path)
    try:
        with target.open() as ledger:
            clock = ManualClock(1000)
            kb = Overriding.open_session(ledger, "s", clock=clock)
            every_override(kb, clock)
            assert json.loads(json.dumps(reads(kb))) == expected
            ops = [h.operation for h in kb.history()]
            assert ops.count("add_tool") == 1 and ops.count("resolve") == 1
            ledger.store.prune_checkpoints("s", 0)  # a reopen replays every entry
        if kind == "sqlite":
            assert b"pw-4711-zz" not in Path(target.url).read_bytes()  # the forget's entry
        script = textwrap.dedent(f"""
            import json, sys
            sys.path.insert(0, {str(ROOT / "tests")!r})
            from corollary import ManualClock, open_ledger
            from support.overriding_base import Overriding, reads
            with open_ledger({target.url!r}, **{target.options!r}) as ledger:
                kb = Overriding.open_session(ledger, "s", clock=ManualClock(1001))
                print(json.dumps(reads(kb)))
        """)
        ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout) == expected
    finally:
        target.cleanup()


OVERRIDES: dict[str, Callable[[Overriding], object]] = {
    "add_rule": lambda kb: kb.add_rule(tripled),
    "assert_many": lambda kb: kb.assert_many(r for r in [("x", 1, "tool:a")]),
    "resolve": lambda kb: kb.resolve(kb.conflicts()[0], winner="Ann"),
    "nogood": lambda kb: kb.nogood("n", "x"),
    "remove_rule": lambda kb: kb.remove_rule(tripled),
    "forget": lambda kb: kb.forget("n"),
}


@pytest.mark.parametrize("session", [False, True])
def test_an_override_whose_policy_raises_after_it_is_undone(tmp_path: Path,
                                                            session: bool) -> None:
    with open_ledger(tmp_path / "ledger.db") as ledger:
        clock = ManualClock(1000)
        kb = (Overriding.open_session(ledger, "s", clock=clock, conflict_policy=Interrupting())
              if session else Overriding(clock=clock, conflict_policy=Interrupting()))
        kb.assert_("n", 2, source="tool:a")
        kb.assert_("ceo", "Ann", source="tool:one")
        kb.assert_("ceo", "Bob", source="tool:two")
        for name, change in OVERRIDES.items():
            for failure in (RuntimeError, KeyboardInterrupt):
                before = reads(kb), [h.seq for h in kb.history()] if session else []
                kb.conflict_policy.arm(failure)  # type: ignore[attr-defined]
                with pytest.raises(failure):
                    change(kb)
                assert (reads(kb), [h.seq for h in kb.history()] if session else []) == before, name
            change(kb)  # then made
        if session:
            ledger.store.prune_checkpoints("s", 0)
            again = Overriding.open_session(ledger, "s", clock=ManualClock(1001))
            assert reads(again) == reads(kb)


def test_two_processes_writing_one_session_through_overrides(tmp_path: Path) -> None:
    url = str(tmp_path / "shared.db")
    spawn = multiprocessing.get_context("spawn")
    writers = [spawn.Process(target=write_concurrently, args=(url, who, 12))
               for who in ("p", "q")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(300)
    assert [w.exitcode for w in writers] == [0, 0]
    with open_ledger(url) as ledger:
        kb = Overriding.open_session(ledger, "shared", clock=ManualClock(2000))
        assert len(kb.history()) == 2 * 12 * 7  # every change acknowledged, once
        assert {kb.value(f"{w}:{i}:ceo") for w in "pq" for i in range(12)} == {"Bob"}
        assert {kb.label(f"{w}:{i}:b") for w in "pq" for i in range(12)} == {OUT}
        ledger.store.prune_checkpoints("shared", 0)
        again = Overriding.open_session(ledger, "shared", clock=ManualClock(2000))
        assert reads(again) == reads(kb)

"""Helpers of the journal tests (tests/journal): a base's observable state, tools and rules that
every process knows by name, and the worker processes (importable by spawned children)."""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corollary import BeliefBase, ManualClock, open_ledger, rule, tool
from corollary.facade.blame import outcome_events
from corollary.foundations.errors import CorollaryError, StoreError
from corollary.foundations.values import canon
from corollary.storage.sqlite import SQLiteStore


@tool(trust=0.8, key="quote:{symbol}")
def journal_quote(symbol: str) -> float:
    """A tool whose result the journal keeps (replays never call it again)."""
    return float(len(symbol)) + random.random()


@rule(output="total", inputs={"x": "a", "y": "b"}, name="tests.journal.total")
def journal_total(x: float, y: float) -> float:
    return x + y


def record_on_replay(kb: Any) -> list[int]:
    """Make ``kb``'s replays record their outcomes too, as the live change did (the store must
    then skip every one of them as known: tests/journal/test_journaled.py); return how many
    outcomes each replayed recording held, so a test sees its replays did record.

    The base records through ``kb.parts.record`` (its collaborators, one slotted object): its
    class is swapped for one whose ``record`` has no "a replay records nothing"; a rebuild
    keeps it (the base's parts take a rebuilt state, not another class)."""
    recorded: list[int] = []

    class RecordingParts(type(kb.parts)):  # type: ignore[misc]
        __slots__ = ()

        def record(self, items: Any, *, at: float | None = None,
                   topic: str | None = None) -> None:
            if items:
                recorded.append(len(items))
                kb.ledger.record_many(outcome_events(self.uid, self.ops, items,
                                                     kb.now() if at is None else at, topic))
                self.ops += 1

    kb.parts.__class__ = RecordingParts
    return recorded


def look_at_every_key(kb: Any) -> None:
    """Make ``kb``'s watches compare every key before and after each entry (the reference a
    watch of every key, which compares only the keys the label feed names, is checked against:
    tests/journal/test_watch_feed.py)."""
    kb.journal.before = lambda op: kb.journal.capture()


def state(kb: BeliefBase) -> dict[str, list[tuple[Any, str, float]]]:
    """Every key's values with their labels and confidences now (sorted: comparable)."""
    kb.refresh()
    out: dict[str, list[tuple[Any, str, float]]] = {}
    for key in sorted(kb.keys()):
        rows = []
        for b in kb.engine.values_of(key):
            rows.append((repr(canon(b.value)), str(b.label), round(b.conf, 12)))
        out[key] = sorted(rows)
    return out


def change(kb: BeliefBase, op: tuple[Any, ...]) -> None:
    """Make one change of the journal properties (tests/journal): ``(kind, x, y, z)``. A change
    the base refuses (a :class:`CorollaryError`) writes nothing, which the properties check."""
    kind, x, y, z = op
    try:
        if kind == "assert":
            kb.assert_(x, y, source=z, half_life=3600.0)
        elif kind == "expiring":
            kb.assert_(x, y, source=z, ttl=1500.0)
        elif kind == "retract":
            kb.retract(x, fault=y)
        elif kind == "drop":
            kb.retract(x, source=y)
        elif kind == "claim":
            if z:
                kb.claim(x, y, source="model:m", inputs={"p": "a"}, formula="p + 1")
            else:
                kb.claim(x, y, source="model:m", inputs=["a", "b"], certainty=0.8)
        elif kind == "nogood":
            if x != y:
                kb.nogood(x, y)
        elif kind == "resolve":
            kb.resolve(x, winner=y)
        elif kind == "many":  # a bulk load: new keys settled as they are made, no sweep
            kb.assert_many([(x, y, z), (f"{x}:{y}", y, z), (f"{x}:{y}:2", y, z)])
        elif kind == "outcome":
            kb.record_outcome(x, y, key="a")
        else:
            raise ValueError(f"no such change in the journal properties: {kind!r}")
    except CorollaryError:
        pass


class CommitFails(SQLiteStore):
    """A SQLite store whose next journal commit fails (a full disk, say) after the change ran:
    set ``fail`` to make the next one fail."""

    fail = False

    @contextlib.contextmanager
    def journal(self, session_id: str) -> Iterator[Any]:
        with super().journal(session_id) as w:
            yield w
            if self.fail:
                self.fail = False
                raise StoreError("the disk is full (simulated); nothing was written")


def open_at(path: str, session: str = "s", now: float = 1000.0) -> BeliefBase:
    """The journaled session in the SQLite ledger at ``path``, at a manual time."""
    return BeliefBase.open_session(open_ledger(path), session, clock=ManualClock(now),
                                   rules=[journal_total])


def writer(path: str, me: int, changes: int, seed: int, acks: Any = None,
           pause: float = 0.0) -> list[tuple[int, str, str]]:
    """``changes`` mixed changes on the shared session: assertions of its own keys, shared keys
    in conflict, claims over other writers' beliefs, retractions. Returns (and, with ``acks``,
    sends each as soon as it returned) the acknowledged changes: ``(seq, operation, tag)``."""
    rng = random.Random(seed)
    kb = BeliefBase.open_session(open_ledger(path), "s", clock=ManualClock(1000.0 + me),
                                 rules=[journal_total])
    done: list[tuple[int, str, str]] = []
    for i in range(changes):
        tag = f"w{me}-{i}"
        pick = rng.random()
        try:
            if pick < 0.35:
                kb.assert_(f"own:{me}:{i % 15}", i, source=f"tool:w{me}")
                op = "assert_"
            elif pick < 0.6:
                kb.assert_(f"shared:{i % 5}", f"v{me}", source=f"tool:w{me}")
                op = "assert_"
            elif pick < 0.8:
                other = rng.randrange(4)
                inputs = [k for k in kb.keys() if k.startswith(f"own:{other}:")]
                held = [k for k in inputs[:5] if kb.label(k) == "IN"]
                kb.claim(f"claim:{me}:{i % 10}", tag, source=f"model:w{me}", inputs=held[:2])
                op = "claim"
            else:
                keys = [k for k in kb.keys() if k.startswith(("own:", "shared:"))]
                held = [k for k in keys if kb.label(k) == "IN"] if keys else []
                if not held:
                    kb.assert_(f"own:{me}:r", i, source=f"tool:w{me}")
                    op = "assert_"
                else:
                    target = rng.choice(held)
                    kb.retract(target, source=None, fault="none", reason=tag)
                    op = "retract"
        except CorollaryError:
            continue  # refused (a conflict, a value gone meanwhile): nothing was written
        ack = (kb.journal_seq, op, tag)  # type: ignore[attr-defined]
        done.append(ack)
        if acks is not None:
            acks.put(ack)
        if pause:
            time.sleep(pause)
    kb.ledger.close()
    return done


def final_state(path: str) -> dict[str, list[tuple[Any, str, float]]]:
    """A process's state of the session after a final sync (the writers' view)."""
    kb = open_at(path, now=5000.0)
    kb.sync()  # type: ignore[attr-defined]
    found = state(kb)
    kb.ledger.close()
    return found


def retract_later(path: str, key: str, ready: str) -> None:
    """Wait for ``ready`` (a file) to exist, then retract ``key`` in this process."""
    while not os.path.exists(ready):
        time.sleep(0.01)
    kb = open_at(path, now=1100.0)
    kb.retract(key, reason="gone")
    kb.ledger.close()
    Path(ready + ".done").write_text("1")


def kill_target(path: str, seed: int, acks: Any) -> None:
    """Write changes until killed, reporting each acknowledged one."""
    writer(path, seed % 4, 10_000, seed, acks)

"""Pools of spawned interpreters that have all started before a test uses them.

A pool starts its processes as work is submitted, and a worker that finishes a task may take
the next before its siblings exist: lingering in the first task (a sleep) was not enough on a
loaded machine. Each worker's first task here waits at a barrier until all ``n`` are running
theirs, so the pool holds ``n`` distinct warmed processes when it is handed out.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

SPAWN = multiprocessing.get_context("spawn")
_everyone: Any = None


def _join(barrier: Any) -> None:
    global _everyone
    _everyone = barrier


def _warm(warm: Callable[[], object]) -> int:
    warm()
    _everyone.wait(timeout=120)
    return os.getpid()


@contextlib.contextmanager
def spawned_pool(n: int, warm: Callable[[], object]) -> Iterator[ProcessPoolExecutor]:
    """``n`` spawned workers, each started and warmed by ``warm`` (a function importable by
    name) before the pool is yielded."""
    barrier = SPAWN.Barrier(n)
    with ProcessPoolExecutor(n, mp_context=SPAWN, initializer=_join,
                             initargs=(barrier,)) as executor:
        assert len(set(executor.map(_warm, [warm] * n))) == n
        yield executor

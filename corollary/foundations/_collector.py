"""Pausing the cyclic garbage collector around work that builds many objects and frees none.

A bulk load, a snapshot's restore or write, a file's decoding and a large sweep allocate
millions of small containers that all stay alive (or all die together at the end): the
collector's full passes over them would find nothing and cost more than the work itself.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off, restoring its state afterwards.

    >>> with collector_paused():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

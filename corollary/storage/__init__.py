"""Storage: where a ledger's outcomes, bases' sessions and their journals are kept.

What a store keeps is one protocol per concern (:mod:`.protocols`: outcomes, sessions,
journals); the SQL stores build their tables from one schema and one migration list
(:mod:`.schema`), each in its database's dialect (:mod:`.dialects`). See docs/ledger.md,
"Storage". The stores are memory, a JSON file, SQLite and PostgreSQL. Every backend gives the same reliabilities, decay and track records for the same outcomes;
they differ in who can share them:

========== ============================================ =======================================
backend    target                                       shared by
========== ============================================ =======================================
memory     ``TrustLedger()``                            one process
JSON file  ``"trust.json"``                             a few processes on one host (small)
SQLite     ``"ledger.db"``, ``"sqlite:///ledger.db"``   many processes on one host
PostgreSQL ``"postgresql://user@host/db"``              processes on many machines
========== ============================================ =======================================

:func:`corollary.open_ledger` picks the backend from the target, in the table of backends
(:mod:`corollary.storage.backends`, where a new backend registers). With no target it opens
``$COROLLARY_LEDGER`` if set, else the SQLite file
``${XDG_DATA_HOME:-~/.local/share}/corollary/ledger.db``.

Examples
--------
>>> import tempfile, os
>>> from corollary import open_ledger
>>> path = os.path.join(tempfile.mkdtemp(), "ledger.db")
>>> ledger = open_ledger(path, prior_weight=10)
>>> for i in range(100):
...     _ = ledger.record_outcome("tool:scraper", i < 70, at=0)
>>> round(ledger.reliability("tool:scraper", at=0), 2)
0.72
>>> ledger.close()
>>> round(open_ledger(path).reliability("tool:scraper", at=0), 2)  # settings kept in the file
0.72
"""

from __future__ import annotations

from ..foundations.errors import (
    ConcurrentWriteError,
    SessionNotFoundError,
    StoreCorruptError,
    StoreError,
    StoreVersionError,
)
from .backends import StoreBackend, register_backend, unregister_backend
from .memory import MemoryStore
from .targets import LEDGER_ENV, default_ledger_path, open_store

__all__ = [
    "LEDGER_ENV",
    "StoreBackend",
    "ConcurrentWriteError",
    "MemoryStore",
    "SessionNotFoundError",
    "StoreError",
    "StoreCorruptError",
    "StoreVersionError",
    "default_ledger_path",
    "open_store",
    "register_backend",
    "unregister_backend",
]


"""The in-memory ledger store (the default): dictionaries in one process, gone when it ends.

>>> from corollary.stores.memory import MemoryStore
>>> from corollary.ledger import TrustLedger
>>> TrustLedger(store=MemoryStore()).reliability("tool:x", prior=0.9)
0.9
"""

from __future__ import annotations

from ..ledger import MemoryStore

__all__ = ["MemoryStore"]

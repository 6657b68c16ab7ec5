"""corollary: a truth-maintenance belief engine for AI agent runtimes.

Agents assert what their tools, documents, people and models tell them; corollary keeps why
each belief is held, whether it is held (IN/OUT), and how far to trust it, and keeps all of it
right as evidence is retracted, fades, expires or conflicts.
"""

from .base import BeliefBase, Faded, Held, self_consistency
from .clock import ManualClock
from .conflicts import AskHuman, Conflict, PreferHigherConfidence, PreferSource
from .errors import (
    AmbiguousValueError,
    BlameError,
    CorollaryError,
    FormulaError,
    InvalidInputError,
    InvalidTypeError,
    SnapshotError,
    UnknownBeliefError,
    UnknownSourceError,
)
from .ledger import Outcome, SourceRecord, TrustLedger
from .policy import TrustPolicy
from .rules import rule
from .tools import tool

__version__ = "0.1.0"

_LAZY = {"Answer": "answers", "Replay": "answers", "UnknownPromiseError": "answers"}


def __getattr__(name: str) -> object:
    # Promises need scipy.stats, which takes most of a second to import: load it on first use
    # (agent processes that never answer under a promise start fast).
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Answer", "Replay", "UnknownPromiseError",
    "AmbiguousValueError", "AskHuman", "BeliefBase", "BlameError", "Conflict", "CorollaryError",
    "Faded", "FormulaError", "Held", "InvalidInputError", "InvalidTypeError", "ManualClock",
    "Outcome", "PreferHigherConfidence", "PreferSource", "SnapshotError", "SourceRecord",
    "TrustLedger", "TrustPolicy", "UnknownBeliefError", "UnknownSourceError", "rule",
    "self_consistency", "tool",
]

"""corollary: a truth-maintenance belief engine for AI agent runtimes.

Agents assert what their tools, documents, people and models tell them; corollary keeps why
each belief is held, whether it is held (IN/OUT), and how far to trust it, and keeps all of it
right as evidence is retracted, fades, expires or conflicts.
"""

from .answers import Answer, Replay, UnknownPromiseError
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

__all__ = [
    "Answer", "Replay", "UnknownPromiseError",
    "AmbiguousValueError", "AskHuman", "BeliefBase", "BlameError", "Conflict", "CorollaryError",
    "Faded", "FormulaError", "Held", "InvalidInputError", "InvalidTypeError", "ManualClock",
    "Outcome", "PreferHigherConfidence", "PreferSource", "SnapshotError", "SourceRecord",
    "TrustLedger", "TrustPolicy", "UnknownBeliefError", "UnknownSourceError", "rule",
    "self_consistency", "tool",
]

"""corollary: a truth-maintenance belief engine for AI agent runtimes.

Agents assert what their tools, documents, people and models tell them; corollary keeps why
each belief is held, whether it is held (IN/OUT), and how far to trust it, and keeps all of it
right as evidence is retracted, fades, expires or conflicts.
"""

from ._version import __version__
from .base import BeliefBase, Faded, Held
from .clock import ManualClock
from .confidence import self_consistency
from .conflicts import AskHuman, Candidate, Conflict, PreferHigherConfidence, PreferSource
from .errors import (
    AmbiguousValueError,
    BlameError,
    ConcurrentWriteError,
    CorollaryError,
    FormulaError,
    InvalidInputError,
    InvalidTypeError,
    RuleError,
    RuleLimitError,
    SessionNotFoundError,
    SnapshotError,
    StoreError,
    UnknownBeliefError,
    UnknownPromiseError,
    UnknownSourceError,
)
from .ledger import (
    GatedConfidence,
    Outcome,
    RankedSource,
    Route,
    SourceRecord,
    TrustLedger,
    open_ledger,
)
from .policy import TrustPolicy
from .promises import Answer, Replay
from .proof import Proof
from .rules import Rule, rule
from .tools import tool

__all__ = [
    "AmbiguousValueError", "Answer", "AskHuman", "BeliefBase", "BlameError", "Candidate",
    "ConcurrentWriteError", "Conflict", "CorollaryError", "Faded", "FormulaError",
    "GatedConfidence", "Held", "InvalidInputError", "InvalidTypeError", "ManualClock", "Outcome",
    "PreferHigherConfidence", "PreferSource", "Proof", "RankedSource", "Replay", "Route", "Rule",
    "RuleError", "RuleLimitError", "SessionNotFoundError", "SnapshotError", "SourceRecord",
    "StoreError", "TrustLedger", "TrustPolicy", "UnknownBeliefError", "UnknownPromiseError",
    "UnknownSourceError", "__version__", "open_ledger", "rule", "self_consistency", "tool",
]

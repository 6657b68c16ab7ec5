"""corollary: a truth-maintenance belief engine for AI agent runtimes.

Agents assert what their tools, documents, people and models tell them; corollary keeps why
each belief is held, whether it is held (IN/OUT), and how far to trust it, and keeps all of it
right as evidence is retracted, fades, expires or conflicts.
"""

from ._version import __version__
from .agent import Agent, Refreshed, Run, Step
from .base import BeliefBase, Faded, Held
from .calls import Expired, ToolCallRecord
from .clock import ManualClock
from .confidence import self_consistency
from .conflicts import AskHuman, Candidate, Conflict, PreferHigherConfidence, PreferSource
from .errors import (
    AmbiguousValueError,
    AsyncToolError,
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
from .models import FunctionModel, OpenAIChat, Reply, ScriptedModel, ToolCall
from .policy import TrustPolicy
from .promises import Answer, Replay
from .proof import Proof
from .recall import Recalled, render_recalled
from .rules import Rule, rule
from .sensitivity import Check
from .tools import tool

__all__ = [
    "Agent", "AmbiguousValueError", "Answer", "AskHuman", "AsyncToolError", "BeliefBase",
    "BlameError", "Candidate", "Check", "ConcurrentWriteError", "Conflict", "CorollaryError",
    "Expired", "Faded", "FormulaError", "FunctionModel", "GatedConfidence", "Held",
    "InvalidInputError", "InvalidTypeError", "ManualClock", "OpenAIChat", "Outcome",
    "PreferHigherConfidence", "PreferSource", "Proof", "RankedSource", "Recalled", "Refreshed", "Replay", "Route",
    "Reply", "Rule", "RuleError", "RuleLimitError", "Run", "ScriptedModel",
    "SessionNotFoundError", "SnapshotError", "SourceRecord", "Step", "StoreError", "ToolCall",
    "ToolCallRecord", "TrustLedger", "TrustPolicy", "UnknownBeliefError", "UnknownPromiseError",
    "UnknownSourceError", "__version__", "open_ledger", "render_recalled", "rule", "self_consistency", "tool",
]

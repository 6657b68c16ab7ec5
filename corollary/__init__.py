"""corollary: a truth-maintenance belief engine for AI agent runtimes.

Agents assert what their tools, documents, people and models tell them; corollary keeps why
each belief is held, whether it is held (IN/OUT), and how far to trust it, and keeps all of it
right as evidence is retracted, fades, expires or conflicts.
"""

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .agent import Agent, AgentOptions, Refreshed, Run, Step
from .evidence.confidence import self_consistency
from .facade.base import BeliefBase, Faded, Held
from .facade.forgetting import Forgotten
from .facade.journal_entries import HistoryEntry, WatchEvent
from .facade.recall import Recalled, render_recalled
from .facade.remembering import Refused, Remembered, RememberedList
from .facade.sensitivity import Check
from .facade.session import Session
from .facade.watching import Watch
from .facade.world import TimelineEntry, WorldView
from .foundations.clock import ManualClock
from .foundations.errors import (
    AmbiguousValueError,
    AsyncToolError,
    BlameError,
    CitationError,
    ConcurrentWriteError,
    CorollaryError,
    FormulaError,
    InvalidInputError,
    InvalidTypeError,
    JournalCorruptError,
    JournalError,
    JournalMovedError,
    JournalReplayError,
    JournalUnsupportedError,
    JournalVersionError,
    MissingExtraError,
    MissingProgramError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
    NameTakenError,
    NotFittedError,
    OutsideScopeError,
    ReadOnlyBaseError,
    RuleError,
    RuleLimitError,
    ScriptExhaustedError,
    SessionJournaledError,
    SessionNotFoundError,
    SessionPolicyError,
    SnapshotError,
    StoreCorruptError,
    StoreError,
    StoreVersionError,
    StratificationError,
    UnknownBeliefError,
    UnknownPromiseError,
    UnknownSourceError,
    WeakSignalError,
)
from .foundations.scope import Scope
from .foundations.values import Value
from .models import AsyncModel, FunctionModel, Model, OpenAIChat, Reply, ScriptedModel, ToolCall
from .promises.book import Answer, Replay
from .promises.options import GuaranteeOptions
from .reasons.calls import Expired, ToolCallRecord
from .reasons.registry import Registry
from .reasons.rules import Rule, rule
from .reasons.tools import ToolSpec, tool
from .reasons.valid import Valid
from .tms import StepKind
from .tms.conflicts import (
    AskHuman,
    Candidate,
    Conflict,
    ConflictPolicy,
    PreferHigherConfidence,
    PreferNewer,
    PreferSource,
)
from .tms.proof import Proof
from .trust.ledger import (
    GatedConfidence,
    Outcome,
    RankedSource,
    Route,
    SourceRecord,
    TrustLedger,
    open_ledger,
)
from .trust.policy import TrustPolicy

if TYPE_CHECKING:  # pragma: no cover
    from .promises.calibration import Platt
    from .promises.guarantee import GroupedPromise, Promise, WeakSignalWarning

#: Exported names whose modules need numpy and scipy: imported when first asked for, so that
#: ``import corollary`` stays light for a base that never makes a promise.
_STATISTICS = {"Platt": "promises.calibration", "GroupedPromise": "promises.guarantee",
               "Promise": "promises.guarantee",
               "WeakSignalWarning": "promises.guarantee"}


def __getattr__(name: str) -> Any:
    if name in _STATISTICS:
        import importlib

        value = getattr(importlib.import_module(f".{_STATISTICS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_STATISTICS))



__all__ = [
    "TimelineEntry", "WorldView",
    "Agent", "AmbiguousValueError", "Answer", "AskHuman", "AsyncModel", "AsyncToolError",
    "BeliefBase", "BlameError", "Candidate", "Check", "CitationError", "ConcurrentWriteError",
    "Conflict", "ConflictPolicy", "CorollaryError", "Expired", "Faded", "FormulaError",
    "FunctionModel", "GatedConfidence", "GroupedPromise", "GuaranteeOptions", "Held",
    "HistoryEntry", "InvalidInputError", "InvalidTypeError", "JournalCorruptError",
    "JournalError", "JournalMovedError", "JournalReplayError", "JournalUnsupportedError",
    "JournalVersionError",
    "ManualClock", "MissingExtraError",
    "MissingProgramError", "Model", "ModelConnectionError", "ModelError", "ModelHTTPError",
    "ModelResponseError", "ModelTimeoutError", "NotFittedError", "OpenAIChat", "Outcome", "Platt",
    "PreferHigherConfidence", "PreferNewer", "PreferSource", "Promise", "Proof", "RankedSource", "ReadOnlyBaseError", "Recalled",
    "Refreshed",
    "Replay", "Reply", "Route", "Rule", "RuleError", "RuleLimitError", "Run",
    "ScriptExhaustedError", "ScriptedModel", "SessionNotFoundError", "SnapshotError",
    "SourceRecord", "Step", "StepKind", "StoreCorruptError", "StoreError", "StoreVersionError",
    "StratificationError", "ToolCall", "ToolCallRecord", "ToolSpec", "TrustLedger", "TrustPolicy",
    "UnknownBeliefError", "UnknownPromiseError", "UnknownSourceError", "Valid", "Watch",
    "WatchEvent",
    "WeakSignalError", "SessionJournaledError", "SessionPolicyError", "NameTakenError", "Session",
    "OutsideScopeError", "Scope",
    "WeakSignalWarning", "__version__", "open_ledger", "render_recalled", "rule", "self_consistency", "tool",
]
__all__ += ["AgentOptions", "Registry"]  # rules and tools by name, refusing a taken one (docs/extending.md)
__all__ += ["Refused", "Remembered", "RememberedList"]  # kb.remember (docs/remember.md)
__all__ += ["Forgotten"]  # kb.forget (docs/model.md, "Forgetting")
__all__ += ["Value"]  # what a belief's value is, as the API types it (corollary.foundations.values)

"""The typed errors corollary raises.

Every error is a subclass of :class:`CorollaryError` and of the built-in exception an
experienced Python user would reach for (``ValueError``, ``TypeError``, ``KeyError``), so
``except ValueError`` keeps working for callers that do not know our types.
"""

from __future__ import annotations


class CorollaryError(Exception):
    """Base class of every error corollary raises on purpose."""


class InvalidInputError(CorollaryError, ValueError):
    """An argument has the right type but a value the engine cannot accept."""


class OutsideScopeError(InvalidInputError):
    """A key outside the scope a reader was given (an agent's, a recall's, a server's)."""


class InvalidTypeError(CorollaryError, TypeError):
    """An argument has the wrong type."""


class UnknownBeliefError(CorollaryError, KeyError):
    """A key (or key and value) that the base does not hold."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class UnknownSourceError(CorollaryError, ValueError):
    """A source whose kind the trust policy does not know."""


class BlameError(CorollaryError, ValueError):
    """A retraction blamed something that cannot be at fault (a rule, a re-executed formula)."""


class AmbiguousValueError(CorollaryError, ValueError):
    """A key holds two values in an open conflict, and one was needed."""


class FormulaError(CorollaryError, ValueError):
    """A formula outside the safe arithmetic allowlist, or one that cannot be evaluated."""


class CitationError(CorollaryError, ValueError):
    """A citation that is malformed (not a check that failed: that is an outcome)."""


class AsyncToolError(CorollaryError, TypeError):
    """An ``async def`` tool (or one that returned an awaitable) given to the synchronous
    ``kb.call``: await ``kb.acall(...)`` instead. Nothing is asserted."""


class RuleError(CorollaryError, RuntimeError):
    """A rule function raised while firing."""


class RuleLimitError(RuleError):
    """Rules kept firing past the base's budget for one operation (they never settle)."""


class NameTakenError(InvalidInputError):
    """A second, different member under a name a registry holds already (a base's rules or
    tools), or a name two different live ``@rule``/``@tool`` definitions carry when a snapshot
    or a journal binds it (docs/extending.md)."""


class StratificationError(InvalidInputError):
    """A reason that would make a belief depend on its own absence ("x unless y" where y rests
    on x): such a cycle has no well-founded labelling, so it is refused and nothing changes."""


class SnapshotError(CorollaryError, ValueError):
    """A snapshot that is corrupt, truncated, foreign, or from a newer schema version."""

    def __init__(self, message: str, path: object = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path is not None else message)


class StoreError(CorollaryError, RuntimeError):
    """A ledger store that cannot be opened, read or written."""

    def __init__(self, message: str, path: object = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path is not None else message)


class StoreCorruptError(StoreError):
    """A store file that is corrupt, truncated, or not a corollary ledger (left untouched)."""


class StoreVersionError(StoreError):
    """A store written by a newer corollary (its schema version is higher than this one reads)."""


class SessionNotFoundError(StoreError, KeyError):
    """No session was saved under that id."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class ConcurrentWriteError(StoreError):
    """Another writer changed a store in a way that cannot be merged safely."""


class JournalError(StoreError):
    """A session journal that cannot be read, written or replayed (base of the journal errors)."""


class JournalUnsupportedError(JournalError):
    """A store that keeps no session journals (the JSON-file store: use SQLite or PostgreSQL)."""


class JournalCorruptError(JournalError, StoreCorruptError):
    """A journal entry or checkpoint whose bytes are damaged, truncated or malformed."""


class JournalVersionError(JournalError, StoreVersionError):
    """A journal entry written by a newer corollary (its entry version is higher than this one
    reads)."""


class JournalMovedError(JournalError, ConcurrentWriteError):
    """An append that assumed it held a session's latest entry found another writer's after
    it (nothing was written; a journaled change runs again under the session's lock)."""


class JournalReplayError(JournalError):
    """An entry another process appended that cannot be applied here (a rule or tool this
    process does not have, or an operation that fails on replay); see docs/journal.md."""


class SessionJournaledError(JournalError, ConcurrentWriteError):
    """A whole-snapshot write (``save_session``) to a session that is a journal: its changes
    are made through :meth:`~corollary.BeliefBase.open_session` (docs/journal.md). A
    :class:`ConcurrentWriteError`, so a reload-and-retry loop reloads the journal and retries."""


class SessionPolicyError(InvalidInputError):
    """``open_session`` was given a conflict policy other than the one the session keeps (the
    one its creator read it with): a session reads the same wherever it is opened
    (docs/journal.md, "What a session keeps"). The message names both."""


class ReadOnlyBaseError(CorollaryError, RuntimeError):
    """A change asked of a read-only base (``kb.as_of(t)``, a base as it stood at a past time)."""


class ModelError(CorollaryError, RuntimeError):
    """A model could not give a reply (base of every error of :mod:`corollary.models`).

    Raised out of ``Agent.run``, it carries the partial run as ``run`` (the steps taken
    before the model failed); ``None`` elsewhere.
    """

    run: object = None


class ScriptExhaustedError(ModelError):
    """A :class:`~corollary.models.ScriptedModel` was asked for more replies than it holds."""


class ModelHTTPError(ModelError):
    """A model server answered with an HTTP error status.

    ``status`` is the HTTP status, ``message`` the server's own error message (with any API key
    masked), ``attempts`` how many requests were sent before giving up.
    """

    def __init__(self, status: int, message: str, attempts: int = 1) -> None:
        self.status = status
        self.message = message
        self.attempts = attempts
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        super().__init__(f"the model server answered HTTP {status}{tries}: {message}")

    def __reduce__(self) -> tuple[type, tuple[int, str, int]]:
        # The message is built from the fields: pickle the fields, not the message.
        return (type(self), (self.status, self.message, self.attempts))


class ModelTimeoutError(ModelError, TimeoutError):
    """A model server did not answer within the timeout."""


class ModelConnectionError(ModelError, ConnectionError):
    """A model server could not be reached, or dropped the connection, on every attempt."""


class ModelResponseError(ModelError, ValueError):
    """A model server answered something that is not a chat completion (bad JSON, no message)."""


class UnknownPromiseError(CorollaryError, KeyError):
    """A promise name that the base does not carry."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class WeakSignalError(InvalidInputError):
    """The signal does not rank right answers above wrong ones well enough to carry a promise."""


class NotFittedError(InvalidInputError, AttributeError):
    """A calibrator was asked to predict before it was fitted."""


class MissingExtraError(CorollaryError, ImportError):
    """An optional dependency is not installed."""

    def __init__(self, package: str, extra: str, feature: str) -> None:
        super().__init__(
            f"{feature} needs the optional package {package!r}: "
            f"pip install 'corollary[{extra}]'"
        )


class MissingProgramError(CorollaryError, FileNotFoundError):
    """An external program corollary runs (Graphviz's ``dot``) is not on ``PATH``."""


def require(module: str, extra: str, feature: str):  # type: ignore[no-untyped-def]
    """Import an optional dependency, or raise :class:`MissingExtraError` saying how to get it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError(module.split(".")[0], extra, feature) from exc

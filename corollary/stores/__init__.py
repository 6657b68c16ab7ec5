"""Where a trust ledger keeps its outcomes: memory, a JSON file, SQLite or PostgreSQL.

Every backend gives the same reliabilities, decay and track records for the same outcomes;
they differ in who can share them:

========== ============================================ =======================================
backend    target                                       shared by
========== ============================================ =======================================
memory     ``TrustLedger()``                            one process
JSON file  ``"trust.json"``                             a few processes on one host (small)
SQLite     ``"ledger.db"``, ``"sqlite:///ledger.db"``   many processes on one host
PostgreSQL ``"postgresql://user@host/db"``              processes on many machines
========== ============================================ =======================================

:func:`open_ledger` (also :meth:`TrustLedger.open <corollary.ledger.TrustLedger.open>`) picks
the backend from the target. With no target it opens ``$COROLLARY_LEDGER`` if set, else the
SQLite file ``${XDG_DATA_HOME:-~/.local/share}/corollary/ledger.db``.

Examples
--------
>>> import tempfile, os
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

import json
import os
from pathlib import Path
from typing import Any

from ..clock import Clock, Duration, to_seconds
from ..errors import ConcurrentWriteError, InvalidInputError, InvalidTypeError, StoreError
from ..ledger import MemoryStore, TrustLedger
from ..policy import TrustPolicy
from .base import SessionNotFoundError, StoreCorruptError, StoreVersionError

__all__ = [
    "ConcurrentWriteError",
    "LEDGER_ENV",
    "MemoryStore",
    "SessionNotFoundError",
    "StoreError",
    "StoreCorruptError",
    "StoreVersionError",
    "default_ledger_path",
    "open_ledger",
    "open_store",
]

#: Environment variable naming the ledger to open when no target is given (a path or URL).
LEDGER_ENV = "COROLLARY_LEDGER"
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_UNSET: Any = object()


def default_ledger_path() -> Path:
    """``${XDG_DATA_HOME:-~/.local/share}/corollary/ledger.db``.

    >>> default_ledger_path().name
    'ledger.db'
    """
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "corollary" / "ledger.db"


def _resolve(target: str | os.PathLike[str] | None) -> tuple[str, str | Path]:
    """``(kind, location)`` with kind one of ``sqlite``, ``json``, ``postgres``, ``memory``."""
    if target is None:
        env = os.environ.get(LEDGER_ENV, "").strip()
        target = env or default_ledger_path()
    if isinstance(target, os.PathLike):
        target = os.fspath(target)
    if not isinstance(target, str):
        raise InvalidTypeError(f"a ledger target is a path or URL, not {type(target).__name__}")
    if not target:
        raise InvalidInputError("a ledger target is a path or URL, not an empty string")
    lowered = target.lower()
    if lowered.startswith(("postgresql://", "postgres://")):
        return "postgres", target
    if lowered.startswith("sqlite://"):
        rest = target[len("sqlite://"):]
        if rest in ("", "/", "/:memory:"):
            return "sqlite", ":memory:"
        if not rest.startswith("/"):
            raise InvalidInputError(f"a SQLite URL is sqlite:///relative or sqlite:////absolute, "
                                    f"got {target!r}")
        return "sqlite", Path(rest[1:])
    if lowered == "memory:" or lowered == ":memory:":
        return "memory", target
    if "://" in target:
        raise InvalidInputError(f"unknown ledger URL scheme in {target!r} "
                                "(use sqlite:/// or postgresql://)")
    path = Path(target).expanduser()
    suffix = path.suffix.lower()
    if suffix in SQLITE_SUFFIXES:
        return "sqlite", path
    if suffix == ".json":
        return "json", path
    raise InvalidInputError(f"cannot tell the ledger backend from {target!r}: use a .db/.sqlite "
                            "path (SQLite), a .json path, or a sqlite:/// or postgresql:// URL")


def open_store(target: str | os.PathLike[str] | None = None, *,
               half_life: float | None = None, **options: Any) -> Any:
    """Open just the store behind a target (see :func:`open_ledger` for the targets)."""
    kind, location = _resolve(target)
    if kind == "memory":
        return MemoryStore(half_life)
    if kind == "sqlite":
        from .sqlite import SQLiteStore

        return SQLiteStore(location, half_life, **options)
    if kind == "json":
        from .jsonfile import JSONFileStore

        return JSONFileStore(location, half_life, **options)
    from .postgres import PostgresStore

    return PostgresStore(str(location), half_life, **options)


def open_ledger(
    target: str | os.PathLike[str] | None = None,
    *,
    prior_weight: float | None = None,
    memory_half_life: Duration | None = _UNSET,
    max_history: int = 10_000,
    policy: TrustPolicy | None = None,
    clock: Clock | None = None,
    **options: Any,
) -> TrustLedger:
    """A :class:`~corollary.ledger.TrustLedger` on durable storage.

    Parameters
    ----------
    target : str or path-like, optional
        ``*.db`` / ``*.sqlite`` or ``sqlite:///path`` (SQLite), ``*.json`` (JSON file),
        ``postgresql://...`` (PostgreSQL), ``":memory:"``. Default: ``$COROLLARY_LEDGER``, else
        :func:`default_ledger_path`.
    prior_weight, memory_half_life : optional
        As for :class:`~corollary.ledger.TrustLedger`. The first process to open a store
        records them in it; later openers that pass nothing use the recorded values, so a
        fleet agrees on them.
    max_history, policy, clock : optional
        As for :class:`~corollary.ledger.TrustLedger` (the JSON file also records the policy).
    **options
        Backend options: SQLite ``timeout``, ``synchronous``; PostgreSQL ``namespace``,
        ``min_size``, ``max_size``, ``timeout``.

    Returns
    -------
    TrustLedger
        Close it with :meth:`~corollary.ledger.TrustLedger.close` when done.
    """
    kind, location = _resolve(target)
    half_life_given = memory_half_life is not _UNSET
    half_life = to_seconds(memory_half_life, "memory_half_life") if half_life_given else None
    # validate every setting before a file or table is created
    in_memory = TrustLedger(prior_weight=10 if prior_weight is None else prior_weight,
                            memory_half_life=half_life, max_history=max_history, policy=policy,
                            clock=clock)
    if kind == "memory":
        if options:
            raise InvalidInputError(f"unknown options for an in-memory ledger: {sorted(options)}")
        return in_memory
    if kind == "json":
        from .jsonfile import JSONFileStore

        header = JSONFileStore.read_header(location) or {}
        if not half_life_given:
            half_life = header.get("memory_half_life")
        if prior_weight is None:
            prior_weight = header.get("prior_weight") or 10
        if policy is None and isinstance(header.get("policy"), dict):
            try:
                policy = TrustPolicy.from_dict(header["policy"])
            except (TypeError, ValueError) as exc:
                raise StoreCorruptError(f"malformed policy in ledger file: {exc}",
                                        location) from exc
        settings = {"prior_weight": float(prior_weight), "max_history": max_history,
                    "policy": (policy or TrustPolicy()).to_dict()}
        store: Any = JSONFileStore(location, half_life, settings=settings, **options)
    else:
        store = _open_sql(kind, location, half_life, options)
        try:
            stored = store.get_meta()
            if prior_weight is None and "prior_weight" in stored:
                prior_weight = json.loads(stored["prior_weight"])
            if not half_life_given and "memory_half_life" in stored:
                half_life = json.loads(stored["memory_half_life"])
                store.half_life = half_life  # nothing is cached yet
            store.set_meta_defaults({
                "prior_weight": json.dumps(float(10 if prior_weight is None else prior_weight)),
                "memory_half_life": json.dumps(half_life),
            })
        except BaseException:
            store.close()
            raise
    try:
        return TrustLedger(prior_weight=10 if prior_weight is None else prior_weight,
                           memory_half_life=half_life, max_history=max_history, policy=policy,
                           clock=clock, store=store)
    except BaseException:
        store.close()
        raise


def _open_sql(kind: str, location: str | Path, half_life: float | None,
              options: dict[str, Any]) -> Any:
    try:
        if kind == "sqlite":
            from .sqlite import SQLiteStore

            return SQLiteStore(location, half_life, **options)
        from .postgres import PostgresStore

        return PostgresStore(str(location), half_life, **options)
    except TypeError as exc:
        if "unexpected keyword" in str(exc):
            raise InvalidInputError(f"unknown {kind} store option: {exc}") from exc
        raise

"""Which store a ledger target names: a path (by its suffix), a URL, or nothing (the default).

>>> resolve_target("ledger.db")[0], resolve_target("trust.json")[0], resolve_target(":memory:")[0]
('sqlite', 'json', 'memory')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, InvalidTypeError
from .memory import MemoryStore

__all__ = ["LEDGER_ENV", "SQLITE_SUFFIXES", "default_ledger_path", "open_store", "resolve_target"]

#: Environment variable naming the ledger to open when no target is given (a path or URL).
LEDGER_ENV = "COROLLARY_LEDGER"
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def default_ledger_path() -> Path:
    """``${XDG_DATA_HOME:-~/.local/share}/corollary/ledger.db``.

    >>> default_ledger_path().name
    'ledger.db'
    """
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "corollary" / "ledger.db"


def resolve_target(target: str | os.PathLike[str] | None) -> tuple[str, str | Path]:
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
    """Open just the store behind a target (see :func:`corollary.ledger.open_ledger` for the
    targets)."""
    kind, location = resolve_target(target)
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


def open_sql(kind: str, location: str | Path, half_life: float | None,
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

"""Which store a ledger target names: a path (by its suffix), a URL, or nothing (the default).

The backend of a target comes from the table of backends (:mod:`corollary.storage.backends`).

>>> resolve_target("ledger.db")[0].name, resolve_target("sqlite:///ledger.db")[1].name
('sqlite', 'ledger.db')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..foundations.errors import InvalidInputError, InvalidTypeError
from .backends import StoreBackend, open_at, resolve

__all__ = ["LEDGER_ENV", "default_ledger_path", "local_file", "open_store", "resolve_target"]

#: Environment variable naming the ledger to open when no target is given (a path or URL).
LEDGER_ENV = "COROLLARY_LEDGER"


def default_ledger_path() -> Path:
    """``${XDG_DATA_HOME:-~/.local/share}/corollary/ledger.db``.

    >>> default_ledger_path().name
    'ledger.db'
    """
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "corollary" / "ledger.db"


def resolve_target(target: str | os.PathLike[str] | None) -> tuple[StoreBackend, Any]:
    """``(backend, location)`` of a ledger target: a path or URL, else ``$COROLLARY_LEDGER``,
    else :func:`default_ledger_path`. The backend comes from the table
    (:mod:`corollary.storage.backends`)."""
    if target is None:
        env = os.environ.get(LEDGER_ENV, "").strip()
        target = env or default_ledger_path()
    if isinstance(target, os.PathLike):
        target = os.fspath(target)
    if not isinstance(target, str):
        raise InvalidTypeError(f"a ledger target is a path or URL, not {type(target).__name__}")
    if not target:
        raise InvalidInputError("a ledger target is a path or URL, not an empty string")
    return resolve(target)


def local_file(target: str | os.PathLike[str] | None) -> Path | None:
    """The file a target names on this host (``None``: a server, or memory)."""
    location = resolve_target(target)[1]
    return location if isinstance(location, Path) else None


def open_store(target: str | os.PathLike[str] | None = None, *,
               half_life: float | None = None, **options: Any) -> Any:
    """Open just the store behind a target (see :func:`corollary.trust.ledger.open_ledger` for the
    targets), with ``half_life`` for its decay.

    >>> open_store(":memory:").half_life is None
    True
    """
    backend, location = resolve_target(target)
    return open_at(backend, location, {"memory_half_life": half_life}, options)

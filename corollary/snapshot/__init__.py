"""snapshot: see :mod:`corollary.snapshot.state` (``corollary.snapshot`` names stay importable from here)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from . import state

    try:
        return getattr(state, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

"""trust: see :mod:`corollary.trust.view` (``corollary.trust`` names stay importable from here)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from . import view

    try:
        return getattr(view, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

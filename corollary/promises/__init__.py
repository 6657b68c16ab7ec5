"""promises: see :mod:`corollary.promises.book` (``corollary.promises`` names stay importable from here)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from . import book

    try:
        return vars(book)[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

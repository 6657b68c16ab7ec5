"""promises: see :mod:`corollary.promises.book` (``corollary.promises`` names stay importable from here)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from . import book

    try:
        return vars(book)[name]
    except KeyError:
        pass
    try:  # a retired name: warned at the line that imports it from here, not at this one
        return book.__getattr__(name, 4)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

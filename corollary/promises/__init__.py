"""promises: see :mod:`corollary.promises.book` (``corollary.promises`` names stay importable from here)."""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    # import_module, not ``from . import book``: the latter asks this module for ``book``
    # first, and a copy of this module that is not the one in sys.modules (pytest's doctest
    # collection imports it so) would call this function again, without end
    book = importlib.import_module(f"{__name__}.book")
    try:
        return vars(book)[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

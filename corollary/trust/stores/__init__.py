"""Deprecated: the stores moved to :mod:`corollary.storage` (docs/ledger.md, "Storage").

``corollary.trust.stores`` and its modules (``.sqlite``, ``.postgres``, ``.base``, ...) still
import for one release, with a :class:`DeprecationWarning` when this package is imported: each
module at the old path is the module at the new one, and a name read from this package is read
from :mod:`corollary.storage`.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...foundations._deprecated import alias_modules

warnings.warn("corollary.trust.stores moved to corollary.storage; the old path goes in the next "
              "release", DeprecationWarning, stacklevel=2)
alias_modules(__name__, "corollary.storage", ("backends", "base", "jsonfile", "memory",
                                               "postgres", "sqlite", "targets", "waiting"))


def __getattr__(name: str) -> Any:
    import importlib

    storage = importlib.import_module("corollary.storage")
    try:
        return getattr(storage, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

"""Old public names kept for a while, each with a :class:`DeprecationWarning` that names the
version removing it (:data:`REMOVED_IN`).

corollary 0.1.0 is unreleased, so names renamed before it are simply gone (issue 36, item 7);
the ones kept are behaviours a caller could not be told of otherwise (changing the engine
through ``kb.engine``, reading ``Recalled.label``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


#: The version that removes the old names still kept (0.1.0 is unreleased: the names renamed
#: before it were removed outright, issue 36; what is kept is what a caller cannot be told
#: apart from a reader, such as changing the engine through ``kb.engine``).
REMOVED_IN = "0.2.0"


def warn(old: str, new: str, stacklevel: int = 3) -> None:
    """Say that ``old`` is deprecated in favour of ``new`` (``new`` may be a sentence), and
    the version that removes it (:data:`REMOVED_IN`)."""
    warnings.warn(f"{old} is deprecated and goes in version {REMOVED_IN}: {new}",
                  DeprecationWarning, stacklevel=stacklevel)

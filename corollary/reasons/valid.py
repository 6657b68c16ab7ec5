"""What a tool returns when it knows the world time its value holds from: :class:`Valid`.

A ``@tool`` returns its value; wrapped as ``Valid(value, valid_from=..., valid_until=...)``,
the value is believed as holding from ``valid_from`` (until ``valid_until``), as
``kb.assert_(key, value, source, valid_from=..., valid_until=...)`` would say it: a CRM that
knows the customer moved on 2025-03-02 says so, and under ``PreferNewer`` the new address
supersedes the old one from that day (docs/model.md). ``kb.call`` believes and returns the
value itself; the wrapper is never a belief.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..foundations.clock import to_instant

__all__ = ["Valid", "unwrap"]


def _from(value: Any) -> float | None:
    return to_instant(value, "valid_from")


def _until(value: Any) -> float | None:
    return to_instant(value, "valid_until")


@attrs.frozen(slots=True)
class Valid:
    """A tool's result and the world time it holds from (and until).

    Parameters
    ----------
    value : object
        The result (plain data), as the tool would return it bare.
    valid_from, valid_until : float, datetime or None
        POSIX seconds or a timezone-aware ``datetime``; ``None``: from when it is observed,
        and open-ended.

    Examples
    --------
    >>> from datetime import datetime, timezone
    >>> from corollary import BeliefBase, tool
    >>> @tool(key="customer:{customer}:address")
    ... def crm(customer: int) -> Valid:
    ...     '''The address the CRM holds, with the day it took effect.'''
    ...     return Valid("Pine Ave", valid_from=datetime(2025, 3, 2, tzinfo=timezone.utc))
    >>> kb = BeliefBase()
    >>> kb.call(crm, None, 42)
    'Pine Ave'
    >>> kb.timeline("customer:42:address")[0].valid_from
    1740873600.0
    """

    value: Any
    valid_from: float | None = attrs.field(default=None, converter=_from)
    valid_until: float | None = attrs.field(default=None, converter=_until)


def unwrap(result: Any) -> tuple[Any, float | None, float | None]:
    """``(value, valid_from, valid_until)`` of a tool's result, bare or :class:`Valid`.

    >>> unwrap(3), unwrap(Valid(3, valid_from=10))
    ((3, None, None), (3, 10.0, None))
    """
    if isinstance(result, Valid):
        return result.value, result.valid_from, result.valid_until
    return result, None, None

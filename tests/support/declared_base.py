"""A user's subclass of BeliefBase with a changing method of its own, declared once with
``@operation`` (tests/journal/test_declared_operations.py; importable by a child process)."""

from __future__ import annotations

from typing import Any

from corollary import BeliefBase
from corollary.facade.operations import operation


def _priced(arguments: Any, result: Any, resolved: Any) -> list[list[Any]]:
    return [[f"price:{arguments['item']}", arguments["price"], "tool:shop", None]]


class Shop(BeliefBase):
    """A base that lists prices: one call is two assertions, and one journal entry."""

    @operation(subjects=_priced)
    def list_price(self, item: str, price: float, *, currency: str = "EUR") -> None:
        """Assert an item's price and its currency, as one change."""
        self.assert_(f"price:{item}", price, source="tool:shop")  # noqa: UP005
        self.assert_(f"currency:{item}", currency, source="tool:shop")  # noqa: UP005

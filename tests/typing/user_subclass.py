"""A user's script, checked with ``mypy --strict`` (tests/typing/test_strict.py): a subclass of
``BeliefBase`` with a declared change of its own and a change value, opened as a session."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from corollary import BeliefBase, ManualClock, Session, TrustLedger
from corollary.changes import Assert, Change, apply, register_change
from corollary.facade.operations import by_key, operation


class Shop(BeliefBase):
    """A base with a changing method of its own."""

    @operation(subjects=by_key)
    def restock(self, key: str, count: int) -> None:
        self.assert_(key, count, source="tool:shop")  # noqa: UP005


@attrs.frozen(slots=True)
class ListPrice(Change):
    """A change of its own, as a value."""

    op = "typing_list_price"
    item: str
    price: float

    def subjects(self, result: object, resolved: Mapping[str, object]) -> list[list[object]]:
        return [[f"price:{self.item}", self.price, "tool:shop", None]]


def list_price(kb: BeliefBase, change: ListPrice) -> None:
    kb.assert_(f"price:{change.item}", change.price, source="tool:shop")


register_change(ListPrice, list_price)


def main() -> None:
    kb: Shop = Shop.open_session(TrustLedger(), "shop", clock=ManualClock(0))
    apply(kb, ListPrice("tea", 4.5))
    apply(kb, Assert("hq", "Austin", "tool:registry"))
    kb.restock("stock:tea", 3)
    past: Shop = kb.as_of(0)
    operations: list[str] = [h.operation for h in kb.history()]
    print(isinstance(kb, Session), kb.value("price:tea"), operations, past.journal_seq)


if __name__ == "__main__":
    main()

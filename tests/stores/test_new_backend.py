"""A new ledger store backend is one registration in one file (this one): a dict-backed store,
registered in the table of backends (corollary/storage/backends.py), is found by its URL scheme,
opened by ``open_ledger``, keeps the first opener's settings for later openers, carries a base's
sessions, and reports its unknown options; no corollary module names it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, TrustPolicy, open_ledger
from corollary.foundations.errors import InvalidInputError
from corollary.storage import StoreBackend, register_backend, unregister_backend
from corollary.storage.memory import MemoryStore

#: Every shelf of this process, by location: what a shelf holds outlives the ledgers on it.
SHELVES: dict[str, ShelfStore] = {}


class ShelfStore(MemoryStore):
    """Outcomes, sessions and the ledger's settings on a named shelf of this process."""

    def __init__(self, location: str, half_life: float | None, max_history: int, *,
                 label: str = "") -> None:
        super().__init__(half_life, max_history)
        self.location = location
        self.label = label
        self.settings: dict[str, Any] = {}


def open_shelf(location: str, settings: Mapping[str, Any], options: dict[str, Any]) -> ShelfStore:
    store = SHELVES.get(location)
    if store is None:
        half_life = settings.get("memory_half_life")
        store = ShelfStore(location, half_life, settings.get("max_history", 100), **options)
        SHELVES[location] = store
    elif settings.get("memory_half_life", store.half_life) != store.half_life:
        raise InvalidInputError(f"{location} keeps totals folded with another half-life")
    return store


def keep_defaults(store: ShelfStore, settings: Mapping[str, Any]) -> None:
    for name, value in settings.items():
        store.settings.setdefault(name, value)


def shelf_location(target: str) -> str:
    return "shelf://" + target.partition("://")[2]  # the scheme in any case, the name as given


SHELF = StoreBackend("shelf", open_shelf, schemes=("shelf",), locate=shelf_location,
                     read_settings=lambda store: dict(store.settings),
                     write_defaults=keep_defaults, durable=False)


@pytest.fixture
def shelf() -> Iterator[StoreBackend]:
    register_backend(SHELF)
    try:
        yield SHELF
    finally:
        unregister_backend("shelf")
        SHELVES.clear()


def test_open_ledger_finds_the_new_backend_by_its_scheme(shelf: StoreBackend) -> None:
    policy = TrustPolicy(priors={"tool": 0.9})
    ledger = open_ledger("shelf://team", prior_weight=4, policy=policy)
    assert isinstance(ledger.store, ShelfStore) and ledger.store is SHELVES["shelf://team"]
    for i in range(10):
        ledger.record_outcome("tool:scraper", i < 7, at=0)
    assert ledger.reliability("tool:scraper", at=0) == pytest.approx((4 * 0.9 + 7) / (4 + 10))
    ledger.close()
    again = open_ledger("SHELF://team")  # schemes match in any case; no settings given
    assert again.store is ledger.store
    assert (again.prior_weight, again.policy) == (4.0, policy)  # the first opener's, kept
    assert again.reliability("tool:scraper", at=0) == ledger.reliability("tool:scraper", at=0)
    mine = open_ledger("shelf://team", prior_weight=8)  # an explicit setting is this opener's
    assert mine.prior_weight == 8 and SHELVES["shelf://team"].settings["prior_weight"] == 4


def test_a_base_keeps_its_sessions_on_the_new_backend(shelf: StoreBackend) -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, ledger=open_ledger("shelf://agents", clock=clock))
    kb.assert_("price", 12, source="tool:scraper")
    kb.save_session("customer/42")
    resumed = BeliefBase.load_session(open_ledger("shelf://agents", clock=clock), "customer/42")
    assert resumed.value("price") == 12
    assert resumed.confidence("price") == kb.confidence("price")


def test_backend_options_and_their_mistakes(shelf: StoreBackend) -> None:
    assert open_ledger("shelf://labelled", label="ops").store.label == "ops"
    with pytest.raises(InvalidInputError, match="unknown shelf store option"):
        open_ledger("shelf://other", colour="red")
    assert "shelf://other" not in SHELVES


def test_the_table_refuses_a_second_claim_on_a_target(shelf: StoreBackend) -> None:
    with pytest.raises(InvalidInputError, match="new, non-empty name"):
        register_backend(SHELF)
    with pytest.raises(InvalidInputError, match="the suffix '.db' is already sqlite's"):
        register_backend(StoreBackend("other", open_shelf, suffixes=(".db",)))
    with pytest.raises(InvalidInputError, match="the scheme 'shelf' is already shelf's"):
        register_backend(StoreBackend("other", open_shelf, schemes="shelf"))
    with pytest.raises(InvalidInputError, match="lower-case"):
        register_backend(StoreBackend("other", open_shelf, suffixes=(".Shelf",)))
    with pytest.raises(InvalidInputError, match="starts with its dot"):
        register_backend(StoreBackend("other", open_shelf, suffixes=("shelf",)))
    with pytest.raises(InvalidInputError, match="register a StoreBackend"):
        register_backend(open_shelf)  # type: ignore[arg-type]


def test_refusals_name_every_registered_backend(shelf: StoreBackend) -> None:
    with pytest.raises(InvalidInputError, match=r"shelf:// URL \(shelf\)"):
        open_ledger("ledger.txt")
    unregister_backend("shelf")
    try:
        with pytest.raises(InvalidInputError, match="unknown ledger URL scheme") as caught:
            open_ledger("shelf://team")
        assert "shelf" not in str(caught.value).partition(": use ")[2]
    finally:
        register_backend(SHELF)

"""``CorollaryStore.sharded(...).forget(namespace, key=None)`` (docs/integrations.md): as the
single-base store's, in the session the items live in: a user forgotten is in no row of the
PostgreSQL namespace (nor byte of the SQLite file), the other users stay, another replica reads
the same, a prefix spanning sessions forgets in each, and no session is made to forget nothing.
Before: the sharded store had no forget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base", reason="the langgraph extra: corollary[langgraph]")
from support.ledger_targets import PG_URL, Target  # noqa: E402

from corollary import ManualClock  # noqa: E402
from corollary.foundations.errors import UnknownBeliefError  # noqa: E402
from corollary.integrations.langgraph import CorollaryStore  # noqa: E402

PG = [pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set")]
SECRET = "ann-likes-pistachio-7731"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=PG)])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    found = Target(request.param, tmp_path)
    yield found
    found.cleanup()


def _stored(target: Target) -> bytes:
    """Every byte the ledger keeps: the SQLite file and its log, or every PostgreSQL row."""
    if target.kind == "sqlite":
        path = Path(target.url)
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (target.namespace,)).fetchall()]
        cells: list[Any] = []
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {target.namespace}.{table}"):
                cells.extend(row)
    return b"".join(bytes(c) if isinstance(c, (bytes, memoryview)) else str(c).encode()
                    for c in cells)


def _fill(store: Any) -> None:
    for i in range(20):  # enough entries for checkpoints (16 on)
        store.put(("memories", "ann"), f"m{i}", {"text": f"{SECRET} {i}"})
    store.put(("memories", "ann", "prefs"), "theme", {"text": f"{SECRET} dark"})
    store.put(("memories", "bob"), "diet", {"text": "bob-eats-lentils"})


def test_forgetting_a_user_leaves_no_byte_of_them_and_keeps_the_others(target: Target) -> None:
    ledger = target.open()
    try:
        store = CorollaryStore.sharded(ledger, clock=ManualClock(1_000.0))
        _fill(store)
        assert SECRET.encode() in _stored(target)
        done = store.forget(("memories", "ann"), reason="the user asked")
        assert done.beliefs == 21 and done.entries > 0
        assert store.search(("memories", "ann")) == []
        assert store.get(("memories", "bob"), "diet").value == {"text": "bob-eats-lentils"}
        raw = _stored(target)
        assert SECRET.encode() not in raw and b"bob-eats-lentils" in raw
        other = target.open()  # another replica reads the same
        try:
            again = CorollaryStore.sharded(other)
            assert again.search(("memories", "ann")) == []
            assert again.get(("memories", "bob"), "diet") is not None
        finally:
            other.close()
    finally:
        ledger.close()


def test_forgetting_one_item_and_a_prefix_across_sessions(target: Target) -> None:
    ledger = target.open()
    try:
        store = CorollaryStore.sharded(ledger, clock=ManualClock(1_000.0))
        _fill(store)
        assert store.forget(("memories", "ann"), "m3").beliefs == 1
        assert store.get(("memories", "ann"), "m3") is None
        assert store.get(("memories", "ann"), "m4") is not None
        assert f"{SECRET} 3".encode() not in _stored(target)
        with pytest.raises(UnknownBeliefError):
            store.forget(("memories", "ann"), "m3")
        sessions = sorted(ledger.store.journal_sessions())
        assert store.forget(("memories", "nobody")).beliefs == 0  # no session made for it
        assert sorted(ledger.store.journal_sessions()) == sessions
        assert store.forget(("memories",)).beliefs == 21  # ann's 20 left and bob's one
        assert store.search(("memories",)) == []
        raw = _stored(target)
        assert SECRET.encode() not in raw and b"bob-eats-lentils" not in raw
    finally:
        ledger.close()

"""The ledger stores: every backend gives the same answers, keeps what it is given, refuses bad input.

PostgreSQL cases are marked ``postgres`` and need ``COROLLARY_TEST_PG_URL`` (``.ci/postgres.sh``).
"""

from __future__ import annotations

import os
import random
import uuid
from datetime import timedelta
from typing import Any

import pytest
from support.ledger_targets import drop_namespace

from corollary import open_ledger
from corollary.foundations.clock import ManualClock
from corollary.foundations.errors import InvalidInputError, InvalidTypeError, StoreError
from corollary.storage import SessionNotFoundError
from corollary.trust.ledger import Outcome, TrustLedger

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
DAY = 86_400.0


class Backend:
    """Opens ledgers on one target (a fresh file, table namespace, or an in-memory store)."""

    def __init__(self, kind: str, tmp_path: Any) -> None:
        self.kind = kind
        self.options: dict[str, Any] = {}
        self._memory: TrustLedger | None = None
        if kind == "json":
            self.target = str(tmp_path / "trust.json")
        elif kind == "sqlite":
            self.target = str(tmp_path / "ledger.db")
        elif kind == "postgres":
            self.target = PG_URL or ""
            self.options = {"namespace": f"t_{uuid.uuid4().hex[:16]}"}
        else:
            self.target = ":memory:"
        self.opened: list[TrustLedger] = []

    @property
    def shared(self) -> bool:
        return self.kind != "memory"

    def open(self, **settings: Any) -> TrustLedger:
        if self.kind == "memory":
            ledger = TrustLedger(**settings)
        else:
            ledger = open_ledger(self.target, **settings, **self.options)
        self.opened.append(ledger)
        return ledger

    def count(self, ledger: TrustLedger) -> int:
        return len(ledger.outcomes()) if self.kind == "memory" else ledger.store.count()

    def cleanup(self) -> None:
        for ledger in self.opened:
            try:
                ledger.close()
            except Exception:
                pass
        if self.kind == "postgres":
            drop_namespace(self.options["namespace"])


BACKENDS = [
    "memory",
    "json",
    "sqlite",
    pytest.param("postgres", marks=[
        pytest.mark.postgres,
        pytest.mark.skipif(not PG_URL, reason="COROLLARY_TEST_PG_URL is not set"),
    ]),
]


@pytest.fixture(params=BACKENDS)
def backend(request: Any, tmp_path: Any) -> Any:
    b = Backend(request.param, tmp_path)
    yield b
    b.cleanup()


def _random_outcomes(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    sources = ["tool:a", "tool:b", "model:m", "document:d"]
    topics = [None, "math", "code"]
    return [
        {"source": rng.choice(sources), "correct": rng.random() < 0.7,
         "at": rng.uniform(0, 90 * DAY),  # out of order: late outcomes arrive after newer ones
         "topic": rng.choice(topics), "event_id": f"e{seed}-{i}"}
        for i in range(n)
    ]


# -- the same answers everywhere ------------------------------------------------------------

def test_worked_numbers(backend: Backend) -> None:
    ledger = backend.open()
    for i in range(100):
        ledger.record_outcome("tool:scraper", i < 70, at=0)
    assert round(ledger.reliability("tool:scraper", at=0), 2) == 0.72
    assert ledger.record_of("tool:scraper", at=0).wrong == 30


def test_decay_worked_numbers(backend: Backend) -> None:
    clock = ManualClock(0)
    ledger = backend.open(memory_half_life=timedelta(days=30), clock=clock)
    ledger.record_many([{"source": "tool:api", "correct": False} for _ in range(20)])
    seen = []
    for day in (0, 30, 60, 120):
        clock.set(day * DAY)
        seen.append(ledger.reliability("tool:api"))
    # 9.5/(10 + 20·2^(-d/30)); 0.475 prints as 0.48 (half up)
    assert seen == pytest.approx([0.32, 0.48, 0.63, 0.84], abs=0.0051)
    assert seen[1] == 0.475


@pytest.mark.parametrize("half_life", [None, 7 * DAY])
def test_identical_answers_to_memory(backend: Backend, half_life: float | None) -> None:
    outcomes = _random_outcomes(7, 400)
    reference = TrustLedger(memory_half_life=half_life, clock=ManualClock(100 * DAY))
    ledger = backend.open(memory_half_life=half_life, clock=ManualClock(100 * DAY))
    for chunk in range(0, 400, 50):  # singles and batches, as a real writer mixes them
        if chunk % 100:
            reference.record_many(outcomes[chunk:chunk + 50])
            ledger.record_many(outcomes[chunk:chunk + 50])
        else:
            for o in outcomes[chunk:chunk + 50]:
                reference.record_outcome(**o)
                ledger.record_outcome(**o)
    if backend.shared:  # and a fresh process-view of the stored outcomes
        again = backend.open(memory_half_life=half_life, clock=ManualClock(100 * DAY))
    else:
        again = ledger
    for view in (ledger, again):
        for source in ("tool:a", "tool:b", "model:m", "document:d", "tool:never"):
            for topic in (None, "math", "code", "none-such"):
                for at in (0.0, 45 * DAY, 100 * DAY, 400 * DAY):
                    assert view.reliability(source, at=at, topic=topic) == \
                        reference.reliability(source, at=at, topic=topic)
                    assert view.record_of(source, at=at, topic=topic) == \
                        reference.record_of(source, at=at, topic=topic)
                assert view.track_record(source, topic) == reference.track_record(source, topic)
        assert view.sources() == reference.sources()
        assert view.to_dict()["totals"] == reference.to_dict()["totals"]


def test_late_and_replayed_outcomes(backend: Backend) -> None:
    clock = ManualClock(60 * DAY)
    ledger = backend.open(memory_half_life=timedelta(days=30), clock=clock)
    ledger.record_outcome("tool:api", True, event_id="new")
    ledger.record_outcome("tool:api", False, at=0.0, event_id="late")  # a verdict from day 0
    assert {o.event_id: o.at for o in ledger.outcomes("tool:api")} == {"new": 60 * DAY,
                                                                       "late": 0.0}
    before = ledger.record_of("tool:api")
    # a replay (single, batched, repeated in one batch) never double-counts
    ledger.record_outcome("tool:api", False, at=0.0, event_id="late")
    assert ledger.record_many([
        {"source": "tool:api", "correct": False, "at": 0.0, "event_id": "late"},
        {"source": "tool:api", "correct": True, "at": 30 * DAY, "event_id": "backfill"},
        {"source": "tool:api", "correct": True, "at": 30 * DAY, "event_id": "backfill"},
    ]) == 1
    after = ledger.record_of("tool:api")
    assert (before.correct, before.wrong, after.correct, after.wrong) == (1, 1, 2, 1)
    # the late wrong outcome weighs a quarter: two half-lives old
    assert before.weighted_total == pytest.approx(1.25)
    assert backend.count(ledger) == 3


def test_reopen_keeps_outcomes_and_settings(backend: Backend) -> None:
    if not backend.shared:
        pytest.skip("memory does not outlive the ledger")
    ledger = backend.open(prior_weight=4, memory_half_life=timedelta(days=30))
    ledger.record_many(_random_outcomes(3, 60))
    expected = ledger.record_of("tool:a", at=50 * DAY)
    ledger.close()
    again = backend.open()  # no settings: the stored ones apply
    assert again.prior_weight == 4
    assert again.memory_half_life == 30 * DAY
    assert again.record_of("tool:a", at=50 * DAY) == expected
    assert backend.count(again) == 60


def test_gated_confidence_per_topic(backend: Backend) -> None:
    ledger = backend.open()
    for _ in range(4):
        ledger.record_outcome("model:m", True, topic="math", at=0)
    for i in range(6):
        ledger.record_outcome("model:m", i < 3, topic="code", at=0)
    math = ledger.track_record("model:m", "math")
    assert (math.value, math.samples, math.insufficient_data, math.min_samples) == \
        (None, 4, True, 5)
    assert ledger.track_record("model:m", "math", min_samples=4).value == 1.0
    assert ledger.track_record("model:m", "code").value == 0.5
    assert ledger.track_record("model:m").value == 0.7
    ranked = ledger.rank_sources(["model:m", "tool:x"], topic="math")
    assert [(r.source, r.tier) for r in ranked] == [("tool:x", "prior"), ("model:m", "estimate")]


# -- bad input: typed errors, nothing recorded ---------------------------------------------

BAD_OUTCOMES = [
    ({"source": "tool:x", "correct": 2}, InvalidInputError),
    ({"source": "tool:x", "correct": -1}, InvalidInputError),
    ({"source": "tool:x", "correct": 0.5}, InvalidInputError),
    ({"source": "tool:x", "correct": "yes"}, InvalidInputError),
    ({"source": "tool:x", "correct": None}, InvalidInputError),
    ({"source": "", "correct": True}, InvalidInputError),
    ({"source": "tool:", "correct": True}, InvalidInputError),
    ({"source": 42, "correct": True}, InvalidTypeError),
    ({"source": None, "correct": True}, InvalidTypeError),
    ({"source": "tool:x", "correct": True, "at": float("nan")}, InvalidInputError),
    ({"source": "tool:x", "correct": True, "at": float("inf")}, InvalidInputError),
    ({"source": "tool:x", "correct": True, "at": 1e12}, InvalidInputError),
    ({"source": "tool:x", "correct": True, "at": "today"}, InvalidTypeError),
    ({"source": "tool:x", "correct": True, "topic": ""}, InvalidInputError),
    ({"source": "tool:x", "correct": True, "confidence": 1.5}, InvalidInputError),
    ({"source": "rule:r", "correct": True}, InvalidInputError),
]


@pytest.mark.parametrize(("bad", "error"), BAD_OUTCOMES,
                         ids=[repr(b) for b, _ in BAD_OUTCOMES])
def test_bad_outcomes_raise_and_record_nothing(backend: Backend, bad: dict[str, Any],
                                               error: type[Exception]) -> None:
    ledger = backend.open(clock=ManualClock(1_000))
    ledger.record_outcome("tool:ok", True, at=0)
    with pytest.raises(error):
        ledger.record_outcome(**bad)
    with pytest.raises(error):  # one bad outcome spoils the whole batch, before any write
        ledger.record_many([{"source": "tool:ok", "correct": True, "at": 0}, bad])
    assert backend.count(ledger) == 1
    assert ledger.sources() == ["tool:ok"]


@pytest.mark.parametrize(("settings", "error"), [
    ({"prior_weight": 0}, InvalidInputError),
    ({"prior_weight": -1}, InvalidInputError),
    ({"prior_weight": float("nan")}, InvalidInputError),
    ({"prior_weight": "10"}, InvalidTypeError),
    ({"memory_half_life": 0}, InvalidInputError),
    ({"memory_half_life": -5}, InvalidInputError),
    ({"memory_half_life": timedelta(0)}, InvalidInputError),
    ({"memory_half_life": "1d"}, InvalidTypeError),
])
def test_bad_settings_raise(backend: Backend, settings: dict[str, Any],
                            error: type[Exception], tmp_path: Any) -> None:
    with pytest.raises(error):
        backend.open(**settings)
    if backend.kind in ("json", "sqlite"):
        assert not os.path.exists(backend.target)  # nothing created either


def test_store_rejects_non_outcomes(backend: Backend) -> None:
    ledger = backend.open()
    with pytest.raises(InvalidTypeError):
        ledger.record_many([("tool:x", True)])  # type: ignore[list-item]
    if backend.shared:
        with pytest.raises(InvalidTypeError):
            ledger.store.add([{"source": "tool:x"}])  # type: ignore[list-item]
    assert backend.count(ledger) == 0


# -- sharing one store ---------------------------------------------------------------------

def test_poll_sees_other_writers(backend: Backend) -> None:
    if not backend.shared:
        pytest.skip("an in-memory store is not shared")
    writer, reader = backend.open(), backend.open()
    assert reader.reliability("tool:s", at=0) == 0.95  # loads (and caches) the empty record
    heard: list[set[str]] = []

    def listener(sources: set[str]) -> None:
        heard.append(sources)

    reader.subscribe(listener)
    writer.record_many([{"source": "tool:s", "correct": False, "at": 0} for _ in range(10)])
    assert reader.reliability("tool:s", at=0) == 0.95  # unchanged until the reader polls
    assert reader.poll() == {"tool:s"}
    assert heard == [{"tool:s"}]
    assert reader.reliability("tool:s", at=0) == writer.reliability("tool:s", at=0) == 9.5 / 20
    assert reader.poll() == set()
    # the writer's own outcomes are not news to it; another's outcome arriving with its own
    # write is reported with it
    assert writer.poll() == set()
    reader.record_outcome("tool:t", True, at=0)
    writer.subscribe(listener)
    writer.record_outcome("tool:s", True, at=0)
    assert heard[-1] == {"tool:s", "tool:t"}


def test_sessions(backend: Backend) -> None:
    store = backend.open().store
    assert store.list_sessions() == []
    store.save_session("customer/42", b"\x00snapshot")
    store.save_session("b", b"one")
    store.save_session("b", b"two")  # replaces
    assert store.load_session("customer/42") == b"\x00snapshot"
    assert store.load_session("b") == b"two"
    assert store.list_sessions() == ["b", "customer/42"]
    with pytest.raises(SessionNotFoundError):
        store.load_session("nope")
    with pytest.raises(KeyError):
        store.load_session("nope")
    with pytest.raises(InvalidInputError):
        store.save_session("", b"x")
    with pytest.raises(InvalidTypeError):
        store.save_session("x", "not bytes")
    assert store.delete_session("b") is True
    assert store.delete_session("b") is False
    if backend.shared:
        assert backend.open().store.list_sessions() == ["customer/42"]


def test_store_add_reports_only_new(backend: Backend) -> None:
    ledger = backend.open()
    outcome = ledger.make_outcome("tool:x", True, at=0, event_id="one")
    assert ledger.store.add([outcome, outcome]) == [outcome]
    assert ledger.store.add([outcome]) == []
    assert isinstance(ledger.outcomes("tool:x")[0], Outcome)


def test_store_errors_are_typed() -> None:
    assert issubclass(SessionNotFoundError, StoreError)

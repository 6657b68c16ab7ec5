"""The trust ledger in memory: the formula, forgetting, the gated query, routing, listeners, and
hostile input (a typed error and no change)."""

from __future__ import annotations

import gc
import warnings
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.hostile import (
    HUGE,
    SETTINGS,
    hostile,
    hostile_or_raiser,
    hostile_text,
    keys,
    raises_typed,
    reasons,
    sources,
    units,
)

from corollary.foundations.clock import ManualClock
from corollary.foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    SnapshotError,
)
from corollary.trust.ledger import (
    DEFAULT_MIN_SAMPLES,
    DEFAULT_PRIOR,
    GatedConfidence,
    MemoryStore,
    RankedSource,
    TrustLedger,
    resolve_min_samples,
)
from corollary.trust.policy import TrustPolicy

DAY = 86_400.0


def test_scraper_worked_number() -> None:
    ledger = TrustLedger()
    for i in range(100):
        ledger.record_outcome("tool:scraper", i < 70, at=0)
    assert ledger.reliability("tool:scraper") == (10 * 0.95 + 70) / 110
    record = ledger.record_of("tool:scraper")
    assert (record.correct, record.wrong, record.prior) == (70, 30, 0.95)


def test_forgetting_returns_to_the_prior() -> None:
    clock = ManualClock(0)
    ledger = TrustLedger(memory_half_life=timedelta(days=30), clock=clock)
    for _ in range(20):
        ledger.record_outcome("tool:api", False)
    assert ledger.is_time_dependent("tool:api")
    assert ledger.reliability("tool:api") == pytest.approx(9.5 / 30)
    clock.advance(timedelta(days=30))
    assert ledger.reliability("tool:api") == pytest.approx(9.5 / 20)
    assert ledger.reliability("tool:api", at=10_000 * DAY) == pytest.approx(0.95)
    assert not TrustLedger().is_time_dependent("tool:api")


def test_no_outcomes_means_the_prior() -> None:
    ledger = TrustLedger(policy=TrustPolicy(source_priors={"tool:x": 0.8}))
    assert ledger.reliability("tool:x") == 0.8
    assert ledger.reliability("human:a") == 0.99
    assert ledger.reliability("tool:x", prior=0.3) == 0.3
    assert ledger.record_of("tool:x").last_at is None


# -- the sample-gated query -----------------------------------------------------------------

def test_gate_defaults_and_default_prior() -> None:
    assert DEFAULT_PRIOR == 0.5 and DEFAULT_MIN_SAMPLES == 5
    ledger = TrustLedger()
    empty = ledger.track_record("model:m")
    assert empty == GatedConfidence(None, 0, True, 5)
    for i in range(5):
        ledger.record_outcome("model:m", i != 0, at=0)
    assert ledger.track_record("model:m") == GatedConfidence(0.8, 5, False, 5)
    with pytest.raises(AttributeError):
        empty.value = 1.0  # type: ignore[misc]  # frozen


def test_gate_ignores_prior_and_decay() -> None:
    clock = ManualClock(0)
    ledger = TrustLedger(memory_half_life=60, clock=clock)
    for i in range(10):
        ledger.record_outcome("tool:x", i < 9)
    clock.advance(3600)
    assert ledger.track_record("tool:x").value == 0.9


def test_gate_per_topic() -> None:
    ledger = TrustLedger()
    for i in range(6):
        ledger.record_outcome("model:m", True, topic="math", at=0)
        ledger.record_outcome("model:m", i < 2, topic="code", at=0)
    assert ledger.track_record("model:m", "math").value == 1.0
    assert ledger.track_record("model:m", "code").value == pytest.approx(1 / 3)
    assert ledger.track_record("model:m").samples == 12
    assert ledger.track_record("model:m", "law").insufficient_data
    assert ledger.reliability("model:m", topic="code") == pytest.approx((9 + 2) / 16)


def test_gate_env_override(monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = TrustLedger()
    for _ in range(3):
        ledger.record_outcome("tool:x", True, at=0)
    monkeypatch.setenv("COROLLARY_MIN_SAMPLES", "3")
    assert ledger.track_record("tool:x") == GatedConfidence(1.0, 3, False, 3)
    assert ledger.track_record("tool:x", min_samples=4).min_samples == 4  # argument wins
    monkeypatch.setenv("COROLLARY_MIN_SAMPLES", " 2 ")
    assert resolve_min_samples() == 2


@pytest.mark.parametrize("raw", ["zero", "0", "-3", "2.5", "1e3"])
def test_gate_invalid_env_warns_and_uses_default(monkeypatch: pytest.MonkeyPatch,
                                                 raw: str) -> None:
    monkeypatch.setenv("COROLLARY_MIN_SAMPLES", raw)
    with pytest.warns(RuntimeWarning, match="COROLLARY_MIN_SAMPLES"):
        assert TrustLedger().track_record("tool:x").min_samples == 5


def test_gate_empty_env_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COROLLARY_MIN_SAMPLES", "")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_min_samples() == 5


@pytest.mark.parametrize(("value", "error"), [
    (0, InvalidInputError), (-1, InvalidInputError), (2.5, InvalidTypeError),
    ("5", InvalidTypeError), (True, InvalidTypeError),
])
def test_gate_invalid_argument_raises(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        TrustLedger().track_record("tool:x", min_samples=value)  # type: ignore[arg-type]


def test_gate_checks_source_and_topic() -> None:
    ledger = TrustLedger()
    with pytest.raises(InvalidInputError):
        ledger.track_record("nosource")
    with pytest.raises(InvalidInputError):
        ledger.track_record("tool:x", topic="")


# -- routing ---------------------------------------------------------------------------------

def test_rank_sources_tiers() -> None:
    ledger = TrustLedger()
    for i in range(10):
        ledger.record_outcome("model:big", i < 9, topic="code", at=0)
        ledger.record_outcome("model:small", i < 5, topic="code", at=0)
    ledger.record_outcome("model:new", False, topic="code", at=0)
    ranked = ledger.rank_sources(["model:small", "model:new", "model:big", "model:untried"],
                                 topic="code")
    assert ranked == [
        RankedSource("model:big", 0.9, "empirical", 10),  # a tie: the measured one first
        RankedSource("model:untried", 0.9, "prior", 0),
        RankedSource("model:new", 9 / 11, "estimate", 1),
        RankedSource("model:small", 0.5, "empirical", 10),
    ]
    # ties: the better-measured source first; an explicit prior beats the policy
    by_prior = ledger.rank_sources(["model:untried", "model:big"], topic="code",
                                   priors={"model:untried": 0.1})
    assert [r.source for r in by_prior] == ["model:big", "model:untried"]
    # another topic: nothing measured there
    assert {r.tier for r in ledger.rank_sources(["model:big", "model:small"], "law")} == \
        {"prior"}
    # a lower gate promotes the single outcome to the empirical tier
    assert ledger.rank_sources(["model:new"], "code", min_samples=1)[0].tier == "empirical"


def test_rank_sources_input() -> None:
    ledger = TrustLedger()
    assert ledger.rank_sources([]) == []
    assert len(ledger.rank_sources(["tool:a", "tool:a"])) == 1
    with pytest.raises(InvalidTypeError):
        ledger.rank_sources("tool:a")
    with pytest.raises(InvalidInputError):
        ledger.rank_sources(["tool:a", "bad"])
    with pytest.raises(InvalidInputError):
        ledger.rank_sources(["rule:r"])


# -- recording, replays, listeners --------------------------------------------------------

def test_replays_never_double_count() -> None:
    ledger = TrustLedger()
    ledger.record_outcome("tool:x", False, at=5, event_id="e1")
    ledger.record_outcome("tool:x", False, at=5, event_id="e1")
    assert ledger.record_many([{"source": "tool:x", "correct": True, "at": 1, "event_id": "e2"},
                               {"source": "tool:x", "correct": True, "at": 1, "event_id": "e1"}]
                              ) == 1
    assert [(o.event_id, o.at) for o in ledger.outcomes("tool:x")] == [("e1", 5.0), ("e2", 1.0)]
    assert ledger.record_many([]) == 0


def test_listeners() -> None:
    ledger = TrustLedger()
    heard: list[set[str]] = []
    ledger.subscribe(heard.append)  # a builtin bound method: held as given

    class Base:
        def __init__(self) -> None:
            self.heard: list[set[str]] = []

        def on(self, sources: set[str]) -> None:
            self.heard.append(sources)

    base = Base()
    ledger.subscribe(base.on)  # held weakly
    ledger.record_outcome("tool:x", True, at=0)
    ledger.record_many([{"source": "tool:y", "correct": True, "at": 0},
                        {"source": "tool:z", "correct": True, "at": 0}])
    assert heard == [{"tool:x"}, {"tool:y", "tool:z"}] == base.heard
    del base
    gc.collect()
    ledger.record_outcome("tool:x", True, at=0)
    assert len(ledger._listeners) == 1
    assert ledger.poll() == set()
    with pytest.raises(InvalidTypeError):
        ledger.subscribe(42)  # type: ignore[arg-type]


def test_memory_store_sessions_and_topics() -> None:
    store = MemoryStore()
    ledger = TrustLedger(store=store)
    ledger.record_outcome("tool:x", True, at=0, topic="b")
    ledger.record_outcome("tool:x", True, at=0, topic="a")
    assert store.topics("tool:x") == ["a", "b"]
    store.save_session("s", b"1")
    assert store.load_session("s") == b"1" and store.list_sessions() == ["s"]


def test_save_and_load_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ledger = TrustLedger(prior_weight=4, memory_half_life=DAY)
    for i in range(20):
        ledger.record_outcome("tool:x", i % 3 == 0, at=i * 3600.0, topic="t" if i % 2 else None)
    for name in ("l.json", "l.msgpack"):
        ledger.save(tmp_path / name)
        again = TrustLedger.load(tmp_path / name)
        for topic in (None, "t"):
            assert again.record_of("tool:x", at=DAY, topic=topic) == \
                ledger.record_of("tool:x", at=DAY, topic=topic)
    (tmp_path / "bad.json").write_text('{"format": "corollary-ledger", "version": 99}')
    with pytest.raises(SnapshotError, match="newer"):
        TrustLedger.load(tmp_path / "bad.json")


# -- hostile input to the ledger: a typed error and no change (the API fuzzer) ---------------------


def ledger_state(ledger: TrustLedger) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return [o.to_dict() for o in ledger.outcomes()], ledger.to_dict()


outcome_kwargs = st.fixed_dictionaries(
    {"source": sources,
     "correct": st.one_of(st.booleans(), st.sampled_from([0, 1, 2, np.bool_(True)]), hostile)},
    optional={
        "at": st.one_of(st.none(), st.sampled_from([0, 50, 100, 100 + 10**6, -1e300]), hostile),
        "topic": st.one_of(st.none(), st.just("t"), hostile_text),
        "event_id": st.one_of(st.none(), st.sampled_from(["e1", "e2"]), hostile_text),
        "evidence": st.one_of(st.none(), st.just("ticket 12"), hostile_text),
        "reason": reasons,
        "key": st.one_of(st.none(), keys),
        "confidence": st.one_of(units, st.just(HUGE)),
    },
)


@SETTINGS
@given(st.data(), st.sampled_from([None, 30.0, 1e-300]))
def test_fuzz_ledger(data: st.DataObject, half_life: float | None) -> None:
    clock = ManualClock(100.0)
    ledger = TrustLedger(clock=clock, memory_half_life=half_life)
    for _ in range(data.draw(st.integers(1, 15))):
        before = ledger_state(ledger)
        if data.draw(st.booleans()):
            call, arg = "record_outcome", data.draw(outcome_kwargs)
            run = lambda arg=arg: ledger.record_outcome(**arg)  # noqa: E731
        else:
            # Only well-formed dicts (str keys, known names, `source` and `correct` present):
            # test_record_many_malformed_dict_is_typed_error; and only iterables:
            # test_record_many_non_iterable_is_typed_error.
            call = "record_many"
            arg = data.draw(st.lists(st.one_of(
                outcome_kwargs, hostile_or_raiser.filter(lambda x: not isinstance(x, dict))),
                max_size=4))
            run = lambda arg=arg: ledger.record_many(arg)  # noqa: E731
        try:
            run()
        except CorollaryError:
            assert ledger_state(ledger) == before, f"{call}({arg!r}) failed after a change"
        except Exception as exc:  # pragma: no cover
            raise AssertionError(f"{call}({arg!r}) raised {type(exc).__name__}: {exc}") from exc
        for source in {o.source for o in ledger.outcomes()}:
            # the ledger keeps sources of any kind (a shared ledger serves bases with other
            # policies), so read them with an explicit prior
            r = ledger.reliability(source, prior=0.5)
            assert 0.0 <= r <= 1.0
        TrustLedger.from_dict(ledger.to_dict(), clock=clock)
        clock.advance(data.draw(st.sampled_from([0, 1, 3600])))


@pytest.mark.parametrize("bad", [{1: 2}, {"source": "tool:x", "correct": True, "zzz": 1},
                                 {"source": "tool:x"}])
def test_record_many_malformed_dict_is_typed_error(bad: dict[Any, Any]) -> None:
    ledger = TrustLedger(clock=ManualClock(100))
    raises_typed(ledger.record_many, [{"source": "tool:x", "correct": True}, bad])
    assert ledger.outcomes() == []


@pytest.mark.parametrize("bad", [None, 3, 0.5])
def test_record_many_non_iterable_is_typed_error(bad: Any) -> None:
    ledger = TrustLedger(clock=ManualClock(100))
    raises_typed(ledger.record_many, bad)


@pytest.mark.parametrize("bad, error", [
    (float("nan"), InvalidInputError), (float("inf"), InvalidInputError), (1.5, InvalidInputError),
    (-0.1, InvalidInputError), ("x", InvalidTypeError), ("0.9", InvalidTypeError),
    (True, InvalidTypeError), (None, None),
])
def test_a_prior_passed_in_is_checked_like_any_other(bad: object, error: type | None) -> None:
    """``priors={"tool:u": nan}`` ranked with NaN scores; ``"x"`` raised an untyped ValueError,
    ``reliability(prior="x")`` an untyped TypeError."""
    ledger = TrustLedger(clock=ManualClock(0))
    ledger.record_outcome("tool:seen", True, at=0)
    for source in ("tool:u", "tool:seen"):  # untried (the prior is its score) and tried
        calls = [(ledger.rank_sources, ([source, "tool:other"],), {"priors": {source: bad}}),
                 (ledger.reliability, (source,), {"prior": bad}),
                 (ledger.record_of, (source,), {"prior": bad})]
        for call, args, options in calls:
            if error is None:  # None means "no prior given": the policy's
                call(*args, **options)
                continue
            with pytest.raises(error, match="prior") as caught:
                call(*args, **options)
            assert isinstance(caught.value, CorollaryError)
    if error is None:
        ranked = ledger.rank_sources(["tool:u"], priors={"tool:u": bad})
        assert ranked[0].score == ledger.prior_of("tool:u")

"""Sessions saved beside a shared, durable ledger, and outcomes seen across processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid

import pytest

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, TrustLedger, open_ledger
from corollary.foundations.errors import SessionNotFoundError, SnapshotError

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")


def targets(tmp_path):
    found = [("sqlite", str(tmp_path / "ledger.db"), {}), ("json", str(tmp_path / "ledger.json"), {})]
    if PG_URL:
        found.append(("postgres", PG_URL, {"namespace": f"s_{uuid.uuid4().hex[:10]}"}))
    return found


def open_target(target, options):
    return open_ledger(target, **options)


@pytest.mark.parametrize("kind", ["sqlite", "json", "postgres"])
def test_session_round_trip(tmp_path, kind):
    chosen = [t for t in targets(tmp_path) if t[0] == kind]
    if not chosen:
        pytest.skip("COROLLARY_TEST_PG_URL is not set")
    _, target, options = chosen[0]
    clock = ManualClock(1_000)
    ledger = open_target(target, options)
    kb = BeliefBase(ledger=ledger, clock=clock, conflict_policy=PreferHigherConfidence())
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K")
    kb.assert_("price", 101.5, source="tool:quote", half_life=60)
    kb.claim("cheap", True, source="model:m", inputs=["price"], certainty=0.8)
    kb.assert_("ceo", "Bob", source="assumption:guess")
    kb.assert_("ceo", "Alice", source="human:ops")
    kb.save_session("customer-42")
    clock.advance(30)

    other = open_target(target, options)
    restored = BeliefBase.load_session(other, "customer-42", clock=clock)
    for key in ("hq", "price", "cheap", "ceo"):
        assert restored.value(key) == kb.value(key)
        assert restored.confidence(key) == kb.confidence(key)
    assert restored.confidence("hq") == pytest.approx(1 - (1 - 10.5 / 11) * (1 - 10 / 11))
    assert restored.label("ceo", "Bob") == "OUT"
    with pytest.raises(SessionNotFoundError):
        BeliefBase.load_session(other, "nobody")
    ledger.close()
    other.close()


def test_memory_ledger_keeps_sessions_in_process():
    ledger = TrustLedger()
    kb = BeliefBase(ledger=ledger, clock=ManualClock(0))
    kb.assert_("x", 1, source="human:a")
    kb.save_session("s")
    assert BeliefBase.load_session(ledger, "s", clock=ManualClock(0)).value("x") == 1


def test_a_corrupt_session_is_a_snapshot_error(tmp_path):
    ledger = open_ledger(tmp_path / "ledger.db")
    ledger.store.save_session("bad", b"\xc1\xc1 not msgpack")
    with pytest.raises(SnapshotError, match="session 'bad'"):
        BeliefBase.load_session(ledger, "bad")
    ledger.close()


CHILD = textwrap.dedent("""
    import sys
    from corollary import BeliefBase, open_ledger
    options = {"namespace": sys.argv[3]} if len(sys.argv) > 3 else {}
    ledger = open_ledger(sys.argv[1], **options)
    kb = BeliefBase(ledger=ledger)
    for i in range(int(sys.argv[2])):
        kb.assert_(f"price:{i}", i, source="tool:scraper")
        kb.retract(f"price:{i}", reason="stale page", fault="source")
    ledger.close()
""")


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_outcome_recorded_by_one_process_reaches_another_process_base(tmp_path, kind):
    chosen = [t for t in targets(tmp_path) if t[0] == kind]
    if not chosen:
        pytest.skip("COROLLARY_TEST_PG_URL is not set")
    _, target, options = chosen[0]
    ledger = open_target(target, options)
    kb = BeliefBase(ledger=ledger)
    kb.assert_("price:ACME", 101.5, source="tool:scraper")
    kb.claim("cheap", True, source="model:m", inputs=["price:ACME"])
    assert kb.confidence("price:ACME") == pytest.approx(0.95)

    extra = [options["namespace"]] if options else []
    subprocess.run([sys.executable, "-c", CHILD, target, "4", *extra], check=True, timeout=120)

    # four wrong outcomes from the other process: (9.5 + 0) / (10 + 4)
    assert kb.reliability("tool:scraper") == pytest.approx(9.5 / 14)
    assert kb.confidence("price:ACME") == pytest.approx(9.5 / 14)
    assert kb.confidence("cheap") == pytest.approx(0.9 * 9.5 / 14)
    ledger.close()


def test_outcomes_from_another_thread_reach_a_base_on_its_next_query():
    import threading

    ledger = TrustLedger()
    kb = BeliefBase(ledger=ledger, clock=ManualClock(0))
    kb.assert_("price", 1.0, source="tool:scraper")
    other = BeliefBase(ledger=ledger, clock=ManualClock(0))

    def work():
        for i in range(200):
            other.assert_(f"p{i}", i, source="tool:scraper")
            other.retract(f"p{i}", fault="source")

    threads = [threading.Thread(target=work) for _ in range(1)]
    for t in threads:
        t.start()
    for _ in range(200):  # queries interleave with the other thread's outcomes
        kb.confidence("price")
    for t in threads:
        t.join()
    assert kb.confidence("price") == pytest.approx(9.5 / 210)
    assert kb.reliability("tool:scraper") == pytest.approx(9.5 / 210)

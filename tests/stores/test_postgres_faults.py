"""PostgreSQL faults for real: the server stopped and restarted, a connection cut after COMMIT.

Nothing here is mocked. The server is the one ``.ci/postgres.sh`` started (the test stops and
starts it with that script's ``stop-server`` / ``start-server``: only when
``$COROLLARY_PG_DIR/url`` names the server under test, else the tests skip). A connection is
cut by a small TCP proxy between the store and the server, which drops the link right after
the server has acknowledged a COMMIT, before the client hears of it: the write committed, the
client sees an error.

What must hold: a write is reported as done only if it committed, and when it committed it is
stored once (retried with the same event ids, recognised); a reader that was cut off while
catching up ends with exactly the totals of a fresh reader.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from support.ledger_targets import drop_namespace

from corollary import open_ledger
from corollary.foundations.errors import StoreError
from corollary.storage import postgres as pg_module
from corollary.trust.ledger import TrustLedger

PG_URL = os.environ.get("COROLLARY_TEST_PG_URL")
PG_DIR = Path(os.environ.get("COROLLARY_PG_DIR", "/tmp/corollary-pg"))
SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "postgres.sh"


def _why_not_controllable() -> str | None:
    if not PG_URL:
        return "COROLLARY_TEST_PG_URL is not set"
    url_file = PG_DIR / "url"
    if not url_file.is_file() or url_file.read_text().strip() != PG_URL.strip():
        return (f"the server under test was not started by .ci/postgres.sh in "
                f"COROLLARY_PG_DIR={PG_DIR}, so this test cannot stop and restart it")
    return None


pytestmark = [pytest.mark.postgres, pytest.mark.skipif(
    _why_not_controllable() is not None, reason=str(_why_not_controllable()))]


def server(action: str) -> None:
    """``stop-server`` or ``start-server`` through .ci/postgres.sh (the cluster is kept)."""
    subprocess.run(["bash", str(SCRIPT), action], check=True, timeout=120,
                   env={**os.environ, "COROLLARY_PG_DIR": str(PG_DIR)},
                   stdout=subprocess.DEVNULL)


@pytest.fixture
def namespace() -> Any:
    ns = f"pf_{uuid.uuid4().hex[:12]}"
    yield ns
    server("start-server")  # whatever the test did, the server is up for the next one
    drop_namespace(ns)


def _count(ns: str) -> tuple[int, int]:
    """(rows, distinct event ids) straight from the server."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        row = conn.execute(f"SELECT count(*), count(DISTINCT event_id) FROM {ns}.outcomes"
                           ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _same_totals(reader: TrustLedger, ns: str, sources: list[str],
                 topics: list[str | None]) -> None:
    fresh = open_ledger(PG_URL, namespace=ns)
    try:
        for source in sources:
            for topic in topics:
                assert reader.store.totals(source, topic) == fresh.store.totals(source, topic), (
                    source, topic)
    finally:
        fresh.close()


def _backlog(n: int, tag: str) -> list[dict[str, Any]]:
    return [{"source": "tool:a" if i % 3 else "tool:b", "correct": i % 4 != 0,
             "at": float(i), "topic": None if i % 5 else "t", "event_id": f"{tag}-{i}"}
            for i in range(n)]


# -- a reader cut off while catching up -----------------------------------------------------

def test_a_catch_up_cut_by_a_server_stop_folds_nothing_twice(
        namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_module, "_PAGE", 1_000)  # 30 pages instead of one
    writer = open_ledger(PG_URL, namespace=namespace)
    writer.record_outcome("tool:a", True, at=0.0, event_id="first")
    reader = open_ledger(PG_URL, namespace=namespace, timeout=1.0)
    for source in ("tool:a", "tool:b"):  # both cached, so the catch-up folds into both
        reader.reliability(source, at=0)
    writer.record_many(_backlog(30_000, "backlog"))
    writer.close()

    store: Any = reader.store
    fetch = store._fetch
    pages: list[int] = []

    def fetch_then_stop(sql: str, params: Any = ()) -> list[Any]:
        rows = fetch(sql, params)
        if "WHERE id >" in sql:
            pages.append(len(rows))
            if len(pages) == 5:  # the server goes away after the fifth page
                server("stop-server")
        return rows

    store._fetch = fetch_then_stop
    with pytest.raises(StoreError, match="unreachable"):
        store.sync()
    assert pages == [1_000] * 5
    del store._fetch
    server("start-server")
    assert store.sync() == {"tool:a", "tool:b"}
    record = reader.record_of("tool:a", at=0)
    assert record.correct + record.wrong == 1 + 20_000  # not 25,001: five pages once only
    assert reader.record_of("tool:b", at=0).correct + reader.record_of(
        "tool:b", at=0).wrong == 10_000
    _same_totals(reader, namespace, ["tool:a", "tool:b"], [None, "t"])
    reader.close()


# -- writes across a restart ----------------------------------------------------------------

def test_writes_across_a_server_restart_are_stored_once_and_readers_agree(
        namespace: str) -> None:
    writer = open_ledger(PG_URL, namespace=namespace, timeout=30)
    reader = open_ledger(PG_URL, namespace=namespace, timeout=30)
    writer.record_outcome("tool:a", True, at=0.0, event_id="seed")
    reader.reliability("tool:a", at=0)
    acknowledged: list[str] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        i = 0
        try:
            while not stop.is_set() or i < 40:
                batch = _backlog(25, f"w{i}")
                writer.record_many(batch)  # returns only once committed
                acknowledged.extend(o["event_id"] for o in batch)
                i += 1
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    time.sleep(0.2)
    server("stop-server")
    time.sleep(0.3)
    server("start-server")
    time.sleep(0.2)
    stop.set()
    thread.join(60)
    assert errors == []
    rows, distinct = _count(namespace)
    assert rows == distinct == 1 + len(acknowledged)  # every acknowledged write, once
    reader.store.sync()
    record = reader.record_of("tool:a", at=0)
    assert record.correct + record.wrong == 1 + sum(
        1 for e in acknowledged if int(e.rsplit("-", 1)[1]) % 3)
    _same_totals(reader, namespace, ["tool:a", "tool:b"], [None, "t"])
    writer.close()
    reader.close()


def test_a_write_that_cannot_reach_the_server_raises_a_store_error_and_stores_nothing(
        namespace: str) -> None:
    ledger = open_ledger(PG_URL, namespace=namespace, timeout=1.0)
    ledger.record_outcome("tool:a", True, at=0.0, event_id="before")
    server("stop-server")
    started = time.monotonic()
    with pytest.raises(StoreError, match="unreachable for 1 s"):
        ledger.record_many(_backlog(500, "never"))
    assert time.monotonic() - started < 30  # bounded by the store's timeout (and backoff)
    server("start-server")
    assert _count(namespace) == (1, 1)  # the batch is all-or-nothing: nothing
    assert ledger.store.count() == 1  # and the store works again
    ledger.close()


def test_a_batch_cut_by_a_server_stop_is_all_or_nothing(namespace: str) -> None:
    ledger = open_ledger(PG_URL, namespace=namespace, timeout=1.0)
    ledger.record_outcome("tool:a", True, at=0.0, event_id="before")
    result: list[Any] = []

    def write() -> None:
        try:
            result.append(ledger.record_many(_backlog(60_000, "big")))
        except StoreError as exc:
            result.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    time.sleep(0.3)  # the batch is on its way to (or inside) the server
    server("stop-server")
    thread.join(60)
    server("start-server")
    rows, distinct = _count(namespace)
    assert rows == distinct
    if isinstance(result[0], StoreError):  # reported failed: then nothing of it is stored
        assert rows == 1
    else:  # reported written: then all of it is
        assert result == [60_000] and rows == 60_001
    ledger.close()


# -- a connection cut right after COMMIT ----------------------------------------------------

#: What a server says when a write is done: a COMMIT, or a one-row autocommit statement...
DONE = (b"COMMIT\x00", b"UPDATE 1\x00", b"INSERT 0 1\x00")
#: ...and then that it is idle again (ReadyForQuery, status I): the write is committed.
IDLE = b"Z\x00\x00\x00\x05I"


class CutAfterCommit:
    """A TCP proxy to the server that, when armed, drops a connection once the server has
    committed a write and says it is idle again, without passing that on: the transaction
    is durable, the client only sees the link die."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self.listener = socket.create_server(("127.0.0.1", 0))
        port = self.listener.getsockname()[1]
        netloc = (f"{parts.username}@" if parts.username else "") + f"127.0.0.1:{port}"
        self.url = urlunsplit(parts._replace(netloc=netloc))
        self.armed = threading.Event()
        self.cuts = 0
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server_side = socket.create_connection(self.upstream)
            self._sockets += [client, server_side]
            threading.Thread(target=self._pump, args=(client, server_side, False),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(server_side, client, True),
                             daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_server: bool) -> None:
        done = False
        try:
            while data := source.recv(65536):
                if from_server and self.armed.is_set():
                    done = done or any(marker in data for marker in DONE)
                    if done and IDLE in data:
                        self.armed.clear()
                        self.cuts += 1
                        return
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()
        for s in self._sockets:
            s.close()


@pytest.fixture
def proxy() -> Any:
    p = CutAfterCommit(PG_URL or "")
    yield p
    p.close()


def _record_like_a_caller(ledger: TrustLedger, n: int) -> int:
    """What an application does when a write raises: try again (new outcomes, new ids)."""
    for _ in range(3):
        try:
            return ledger.record_many([{"source": "tool:cut", "correct": True, "at": 0.0}
                                       for _ in range(n)])
        except StoreError:
            continue
    raise AssertionError("three attempts failed")


def test_a_commit_whose_acknowledgement_is_lost_is_stored_once(namespace: str,
                                                               proxy: CutAfterCommit) -> None:
    ledger = open_ledger(proxy.url, namespace=namespace, timeout=10)
    proxy.armed.set()
    assert _record_like_a_caller(ledger, 100) == 100  # all new, as far as the caller knows
    assert proxy.cuts == 1
    assert _count(namespace) == (100, 100)  # not 200: the retry found its own rows
    proxy.armed.set()
    outcome = ledger.record_outcome("tool:cut", False, at=0.0)  # an automatic event id
    assert proxy.cuts == 2
    assert _count(namespace) == (101, 101)
    assert [o.event_id for o in ledger.outcomes("tool:cut")].count(outcome.event_id) == 1
    record = ledger.record_of("tool:cut", at=0)
    assert (record.correct, record.wrong) == (100, 1)
    ledger.close()


def test_a_session_save_whose_acknowledgement_is_lost_is_no_conflict(
        namespace: str, proxy: CutAfterCommit) -> None:
    ledger = open_ledger(proxy.url, namespace=namespace, timeout=10)
    store: Any = ledger.store
    assert store.save_session("s", b"one", expected_version=0) == 1
    proxy.armed.set()
    assert store.save_session("s", b"two", expected_version=1) == 2  # committed, then cut
    assert proxy.cuts == 1
    assert store.read_session("s") == (b"two", 2)
    proxy.armed.set()
    assert store.save_session("s", b"three") == 3  # unconditional: still one version step
    assert proxy.cuts == 2
    assert store.read_session("s") == (b"three", 3)
    ledger.close()

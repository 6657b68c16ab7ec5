"""Many users on PostgreSQL (issue 38): the sharded store beside LangGraph's ``PostgresStore``.

``--users`` users of ``--beliefs`` memories each are loaded into a fresh PostgreSQL database
twice: into journaled sessions (one per user, ``CorollaryStore.sharded``: one ``assert_many``
entry per user) and into LangGraph's ``PostgresStore`` (one batch of puts per user). Then, each
store in a process of its own (spawned, so its memory is its own):

* opening a user's session through the cache (``SessionCache``): cold (not open: the newest
  checkpoint plus the entries after it) and cached (open: one round trip asking whether the
  journal moved), p50/p99 over ``--opens`` users;
* ``--ops`` operations on a skewed mix of users (80% on the 5% hot users, the rest uniform),
  the same sequence on both stores: get, put (a new value for a memory) and search by the
  user's namespace and a filter (limit 10), each p50/p99, and the ratio to ``PostgresStore``;
  the sharded store twice: with the ledger asking for other processes' trust outcomes on every
  read (``poll_interval=0``, the default) and at most every ``--poll-interval`` seconds
  (journal entries are asked for on every use either way);
* the process's resident memory (VmRSS) after its workload, the cache's bound and estimate,
  and the PostgreSQL connections the process holds;
* puts per second with 1 and then 2 processes at once (different users: 50 of each half,
  their sessions opened before the clock starts; the sharded ledger with
  ``--poll-interval``), for ``--seconds``, the CPU time each process spent a put (the
  machine is shared: a replica that gets less CPU makes fewer puts), and the puts' p50/p99
  with 1 replica (a put that writes a checkpoint on its way shows in the p99);
* with ``--mcp``: the same get/put/search sequence through MCP over HTTP, a server of many users
  (``make_server(SessionCache(ledger), tokens=...)`` behind ``sessions_app``, uvicorn on
  loopback, spawned) driven by the SDK's client over one connection, each request naming its
  user's session in the ``Corollary-Session`` header: get is the ``belief`` tool, put
  ``assert_fact``, search ``beliefs`` (limit 10) in the user's session; p50/p99, and the ratio
  to the same tool run in the driver's process on a ``SessionCache`` of the same ledger just
  before each call (interleaved: what HTTP, MCP and the server add);
* with ``--rounds n``: the get/put/search mix run n times, the two stores interleaved, each
  round's ratio at p50 printed (the spread, on a shared machine).

Storage per belief is the database size of each store divided by the beliefs loaded.

Usage::

    COROLLARY_TEST_PG_URL=postgresql://... python benchmarks/bench_many_users.py \\
        [--users 2000] [--beliefs 50] [--ops 600] [--max-sessions 200] [--rounds 1] [--mcp]

Needs the ``postgres`` and ``langgraph`` extras and ``langgraph-checkpoint-postgres`` (the
``bench`` extra).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import time
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

NS = "memories"
WORDS = ["tea", "coffee", "vegan", "Lisbon", "Austin", "cats", "dogs", "chess", "jazz", "rust"]


def namespace(user: int) -> tuple[str, ...]:
    return (NS, f"u{user}")


def value(user: int, i: int, version: int = 0) -> dict[str, Any]:
    return {"text": f"user {user} likes {WORDS[(i + version) % len(WORDS)]}", "kind": i % 5,
            "version": version}


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def connections(url: str) -> int:
    """Connections to the benchmark's database, not counting the one asking."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid()").fetchone()
    return int(row[0]) if row else 0


def pcts(times: list[float]) -> tuple[float, float]:
    """p50 and p99 in milliseconds."""
    ordered = sorted(times)
    return (statistics.median(ordered) * 1e3,
            ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3)


def workload(users: int, ops: int, seed: int) -> list[tuple[str, int, int]]:
    """``(kind, user, memory)`` operations: 80% on the 5% hot users, the rest uniform."""
    rng = random.Random(seed)
    hot = max(1, users // 20)
    plan = []
    for _ in range(ops):
        user = rng.randrange(hot) if rng.random() < 0.8 else rng.randrange(users)
        plan.append((rng.choice(("get", "put", "search")), user, rng.randrange(50)))
    return plan


# -- loading ----------------------------------------------------------------------------------
def load_sharded(url: str, users: int, beliefs: int) -> float:
    from corollary import open_ledger
    from corollary.integrations.langgraph import SOURCE, belief_key, session_of_namespace
    from corollary.serving.shards import SessionCache

    start = time.perf_counter()
    ledger = open_ledger(url, namespace="bench", poll_interval=0.0)
    cache = SessionCache(ledger, max_sessions=50)
    for u in range(users):
        with cache.session(str(session_of_namespace(namespace(u)))) as kb:
            kb.assert_many([(belief_key(namespace(u), f"m{i}"), value(u, i), SOURCE)
                            for i in range(beliefs)])
    ledger.close()
    return time.perf_counter() - start


def load_postgres_store(url: str, users: int, beliefs: int) -> float:
    from langgraph.store.base import PutOp
    from langgraph.store.postgres import PostgresStore

    start = time.perf_counter()
    with PostgresStore.from_conn_string(url) as store:
        store.setup()
        for u in range(users):
            store.batch([PutOp(namespace(u), f"m{i}", value(u, i)) for i in range(beliefs)])
    return time.perf_counter() - start


# -- one process's workload -------------------------------------------------------------------
def run_sharded(url: str, users: int, plan: list[tuple[str, int, int]], opens: int,
                max_sessions: int, seed: int, poll: float = 0.0) -> dict[str, Any]:
    from corollary import open_ledger
    from corollary.integrations.langgraph import CorollaryStore

    ledger = open_ledger(url, namespace="bench", poll_interval=poll)
    store = CorollaryStore.sharded(ledger, max_sessions=max_sessions)
    rng = random.Random(seed)
    sample = rng.sample(range(users), min(opens, users))
    cold, cached = [], []
    for u in sample:
        sid = f"{NS}:u{u}"
        t = time.perf_counter()
        with store.cache.session(sid):
            pass
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        with store.cache.session(sid):
            pass
        cached.append(time.perf_counter() - t)
    out = {"open_cold": pcts(cold), "open_cached": pcts(cached)}
    out.update(drive(store, plan))
    stats = store.cache.stats()
    out.update(rss=rss_mib(), connections=connections(url), sessions=stats.sessions,
               estimated=stats.estimated_bytes / 2**20, misses=stats.misses, hits=stats.hits)
    ledger.close()
    return out


def run_postgres_store(url: str, users: int, plan: list[tuple[str, int, int]], opens: int,
                       max_sessions: int, seed: int) -> dict[str, Any]:
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(url) as store:
        out = drive(store, plan)
        out.update(rss=rss_mib(), connections=connections(url))
    return out


def drive(store: Any, plan: list[tuple[str, int, int]]) -> dict[str, Any]:
    """Each kind's p50/p99 (ms); for the sharded store also ``kind + " open"``: those whose
    user's session was open in the cache already (the others open it first)."""
    times: dict[str, list[float]] = {"get": [], "put": [], "search": []}
    cache = getattr(store, "cache", None)
    warm: dict[str, list[float]] = {"get open": [], "put open": [], "search open": [],
                                    "get cold": [], "put cold": [], "search cold": []}
    for n, (kind, user, i) in enumerate(plan):
        was_open = cache is not None and f"{NS}:u{user}" in cache
        t = time.perf_counter()
        if kind == "get":
            store.get(namespace(user), f"m{i}")
        elif kind == "put":
            store.put(namespace(user), f"m{i}", value(user, i, n + 1))
        else:
            store.search(namespace(user), filter={"kind": i % 5}, limit=10)
        times[kind].append(time.perf_counter() - t)
        if cache is not None:
            warm[kind + (" open" if was_open else " cold")].append(times[kind][-1])
    times.update({kind: ts for kind, ts in warm.items() if ts})
    out: dict[str, Any] = {kind: pcts(ts) for kind, ts in times.items()}
    out.update({kind + " n": len(ts) for kind, ts in warm.items() if ts})
    return out


def put_for(kind: str, url: str, users: list[int], seconds: float,
            poll: float = 0.0) -> tuple[int, float, float, float]:
    """Puts made in ``seconds`` on ``users`` (one process: one replica), the CPU seconds
    the process spent making them, and the puts' p50 and p99 (ms): a put that wrote a
    checkpoint on its way is in the p99."""
    if kind == "sharded":
        from corollary import open_ledger
        from corollary.integrations.langgraph import CorollaryStore

        ledger = open_ledger(url, namespace="bench", poll_interval=poll)
        store: Any = CorollaryStore.sharded(ledger)
        done = _puts(store, users, seconds)
        ledger.close()
        return done
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(url) as pg:
        return _puts(pg, users, seconds)


def _puts(store: Any, users: list[int], seconds: float) -> tuple[int, float, float, float]:
    """Puts made, CPU seconds, and each put's p50 and p99 (ms)."""
    rng = random.Random(users[0])
    for u in users[:50]:  # the users' sessions opened (and connections made) before the clock
        store.get(namespace(u), "m0")
    cpu = time.process_time()
    deadline = time.perf_counter() + seconds
    done = 0
    times = []
    while (start := time.perf_counter()) < deadline:
        u = rng.choice(users[:50])
        store.put(namespace(u), f"m{rng.randrange(50)}", value(u, done, done + 7))
        times.append(time.perf_counter() - start)
        done += 1
    return (done, time.process_time() - cpu, *pcts(times))


# -- through MCP over HTTP ----------------------------------------------------------------------
MCP_TOKEN = "bench-token-for-every-user-0123456789"


def serve_mcp(url: str, port: int, max_sessions: int) -> None:
    """A server of many users over the sharded store's sessions (run in a process of its own)."""
    import uvicorn

    from corollary import open_ledger
    from corollary.mcp import make_server, sessions_app
    from corollary.serving.shards import SessionCache

    ledger = open_ledger(url, namespace="bench", poll_interval=0.0)
    server = make_server(SessionCache(ledger, max_sessions=max_sessions),
                         tokens={MCP_TOKEN: [f"{NS}:*"]})
    config = uvicorn.Config(sessions_app(server), host="127.0.0.1", port=port,
                            log_level="warning", access_log=False)
    uvicorn.Server(config).run()


def drive_mcp(url: str, port: int, plan: list[tuple[str, int, int]],
              max_sessions: int) -> dict[str, Any]:
    """The plan through the SDK's client on one connection, naming each user's session; each
    operation also run in this process, just before, as the same tool of the tool table on a
    ``SessionCache`` of the same ledger (the baseline, interleaved)."""
    import asyncio

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from corollary import open_ledger
    from corollary.integrations.langgraph import SOURCE, belief_key, session_of_namespace
    from corollary.serving.shards import SessionCache
    from corollary.serving.tool_host import ToolHost
    from corollary.serving.tools import tool_named

    ledger = open_ledger(url, namespace="bench", poll_interval=0.0)
    cache = SessionCache(ledger, max_sessions=max_sessions)
    names = {"get": "belief", "put": "assert_fact", "search": "beliefs"}

    def in_process(session: str, tool: str, arguments: dict[str, Any]) -> None:
        with cache.session(session) as kb:
            try:
                tool_named(tool).call(ToolHost(kb), arguments)
            except Exception:  # noqa: BLE001 - a get of a memory never put: an answer too
                if tool != "belief":
                    raise

    async def go() -> dict[str, Any]:
        times: dict[str, list[float]] = {k: [] for k in ("get", "put", "search")}
        local: dict[str, list[float]] = {k: [] for k in ("get", "put", "search")}
        first = str(session_of_namespace(namespace(plan[0][1])))  # the guard wants a session
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {MCP_TOKEN}",
                                               "Corollary-Session": first}, timeout=60) as http:
            async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                                     http_client=http),
                              read_timeout_seconds=60) as client:
                for n, (kind, user, i) in enumerate(plan):
                    session = str(session_of_namespace(namespace(user)))
                    http.headers["Corollary-Session"] = session
                    key = belief_key(namespace(user), f"m{i}")
                    arguments: dict[str, Any] = (
                        {"key": key} if kind == "get" else {"limit": 10} if kind == "search"
                        else {"key": key, "value": value(user, i, n + 1), "source": SOURCE})
                    t = time.perf_counter()
                    in_process(session, names[kind], arguments)
                    local[kind].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    done = await client.call_tool(names[kind], arguments)
                    times[kind].append(time.perf_counter() - t)
                    # a get of a memory never put answers "no belief" (as the store's None)
                    assert kind == "get" or not done.is_error, done.content
        return {"mcp": {k: pcts(ts) for k, ts in times.items()},
                "local": {k: pcts(ts) for k, ts in local.items()}}

    try:
        return asyncio.run(go())
    finally:
        ledger.close()


def run_mcp(url: str, plan: list[tuple[str, int, int]], max_sessions: int,
            ctx: Any) -> dict[str, Any]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = ctx.Process(target=serve_mcp, args=(url, port, max_sessions), daemon=True)
    server.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline or not server.is_alive():
                raise SystemExit("the MCP server did not start")
            time.sleep(0.1)
        with ctx.Pool(1) as pool:
            return dict(pool.apply(drive_mcp, (url, port, plan, max_sessions)))
    finally:
        server.terminate()
        server.join(30)


def database_bytes(url: str, schema: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relkind = 'r'", (schema,)).fetchone()
    return int(row[0]) if row else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--beliefs", type=int, default=50)
    parser.add_argument("--ops", type=int, default=600)
    parser.add_argument("--opens", type=int, default=200)
    parser.add_argument("--max-sessions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--url", default=os.environ.get("COROLLARY_TEST_PG_URL"))
    parser.add_argument("--poll-interval", type=float, default=1.0,
                        help="the ledger's poll_interval of the second sharded run (seconds)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the get/put/search mix this many times, the stores "
                             "interleaved, and print each round's ratio")
    parser.add_argument("--mcp", action="store_true",
                        help="also drive get/put/search through MCP over HTTP")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("give --url or COROLLARY_TEST_PG_URL (a PostgreSQL server)")
    import psycopg

    name = f"bench_users_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(args.url)._replace(path=f"/{name}"))
    ctx = multiprocessing.get_context("spawn")
    try:
        beliefs = args.users * args.beliefs
        print(f"many users: {args.users:,} users x {args.beliefs} memories = {beliefs:,} "
              f"beliefs on PostgreSQL; {args.ops} ops (80% on the 5% hot users); cache of "
              f"{args.max_sessions} sessions; 2 cores shared with other work")
        with ctx.Pool(1) as pool:
            ours_load = pool.apply(load_sharded, (url, args.users, args.beliefs))
        with ctx.Pool(1) as pool:
            theirs_load = pool.apply(load_postgres_store, (url, args.users, args.beliefs))
        ours_bytes, theirs_bytes = database_bytes(url, "bench"), database_bytes(url, "public")
        print(f"load: sharded {ours_load:.1f} s (one assert_many entry a user), PostgresStore "
              f"{theirs_load:.1f} s (one batch a user)")
        print(f"storage: sharded {ours_bytes / beliefs:.0f} B/belief "
              f"({ours_bytes / 2**20:.1f} MiB), PostgresStore {theirs_bytes / beliefs:.0f} "
              f"B/belief ({theirs_bytes / 2**20:.1f} MiB)")
        plan = workload(args.users, args.ops, 38)
        run_args = (url, args.users, plan, args.opens, args.max_sessions, 7)
        spread: dict[str, list[float]] = {"get": [], "put": [], "search": []}
        cold_puts: list[float] = []  # a put to a session not open (opened first)
        for _ in range(args.rounds):  # the stores interleaved: each round's ratio at p50
            with ctx.Pool(1) as pool:
                ours = pool.apply(run_sharded, run_args)
            with ctx.Pool(1) as pool:
                theirs = pool.apply(run_postgres_store, run_args)
            for kind, ratios in spread.items():
                ratios.append(ours[kind][0] / theirs[kind][0])
            cold_puts.append(ours["put cold"][0] / theirs["put"][0])
        with ctx.Pool(1) as pool:
            polled = pool.apply(run_sharded, (*run_args, args.poll_interval))
        print("open a user's session (ms): cold p50 {:.2f} p99 {:.2f}; cached p50 {:.2f} "
              "p99 {:.2f}".format(*ours["open_cold"], *ours["open_cached"]))
        for kind in ("get", "put", "search"):
            (a50, a99), (b50, b99) = ours[kind], theirs[kind]
            c50, c99 = polled[kind]
            print(f"{kind:>6} (ms): sharded p50 {a50:.2f} p99 {a99:.2f}; PostgresStore p50 "
                  f"{b50:.2f} p99 {b99:.2f} -> {a50 / b50:.1f}x at p50; sharded with the "
                  f"ledger's poll_interval={args.poll_interval:g} s p50 {c50:.2f} p99 {c99:.2f} "
                  f"-> {c50 / b50:.1f}x")
            if kind + " open" in polled and kind + " open" in ours:  # the session open already
                (d50, d99), (e50, e99) = ours[kind + " open"], polled[kind + " open"]
                print(f"{kind:>6} on an open session (ms): sharded p50 {d50:.2f} p99 {d99:.2f} "
                      f"-> {d50 / b50:.1f}x; with poll_interval={args.poll_interval:g} s p50 "
                      f"{e50:.2f} p99 {e99:.2f} -> {e50 / b50:.1f}x")
            if kind + " cold" in ours:  # the session not open: opened first
                (f50, f99), count = ours[kind + " cold"], ours[kind + " cold n"]
                print(f"{kind:>6} on a session not open, opened first ({count} of them; ms): "
                      f"sharded p50 {f50:.2f} p99 {f99:.2f} -> {f50 / b50:.1f}x")
        if args.rounds > 1:
            print(f"{args.rounds} rounds, the stores interleaved: sharded / PostgresStore at p50, "
                  + "; ".join(f"{kind} " + " ".join(f"{r:.2f}x" for r in ratios)
                              + f" (median {statistics.median(ratios):.2f}x)"
                              for kind, ratios in spread.items())
                  + " (the figures above: the last round); a put to a session not open "
                  + " ".join(f"{r:.2f}x" for r in cold_puts)
                  + f" (median {statistics.median(cold_puts):.2f}x)")
        print(f"process memory (VmRSS after the workload): sharded {ours['rss']:.0f} MiB with "
              f"{ours['sessions']} sessions open (estimate {ours['estimated']:.1f} MiB, cache "
              f"bound {args.max_sessions}); PostgresStore {theirs['rss']:.0f} MiB")
        print(f"PostgreSQL connections held by the process: sharded {ours['connections']}, "
              f"PostgresStore {theirs['connections']}")
        print(f"cache: {ours['misses']} opens, {ours['hits']} hits")
        if args.mcp:
            over_mcp = run_mcp(url, plan, args.max_sessions, ctx)
            for kind in ("get", "put", "search"):
                (m50, m99), (l50, l99) = over_mcp["mcp"][kind], over_mcp["local"][kind]
                print(f"{kind:>6} through MCP over HTTP (ms): p50 {m50:.2f} p99 {m99:.2f}; the "
                      f"same tool in-process p50 {l50:.2f} p99 {l99:.2f} -> {m50 / l50:.1f}x "
                      f"at p50")
        half = args.users // 2
        for kind in ("sharded", "PostgresStore"):
            with ctx.Pool(1) as pool:
                one, cpu1, p50, p99 = pool.apply(put_for, (kind, url, list(range(half)),
                                                           args.seconds, args.poll_interval))
            with ctx.Pool(2) as pool:
                two = pool.starmap(put_for, [
                    (kind, url, list(range(half)), args.seconds, args.poll_interval),
                    (kind, url, list(range(half, args.users)), args.seconds,
                     args.poll_interval)])
            rate1, rate2 = one / args.seconds, sum(r[0] for r in two) / args.seconds
            cpu2 = sum(r[1] for r in two) / max(1, sum(r[0] for r in two))
            print(f"puts/s, {kind}: 1 replica {rate1:.0f}, 2 replicas on different users "
                  f"{rate2:.0f} -> {rate2 / rate1:.2f}x; client CPU a put {cpu1 / one * 1e3:.3f}"
                  f" ms (1 replica), {cpu2 * 1e3:.3f} ms (2); a put (1 replica) p50 {p50:.2f} "
                  f"p99 {p99:.2f} ms; load average {os.getloadavg()[0]:.1f} on "
                  f"{os.cpu_count()} cores")
    finally:
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Start or stop a throwaway PostgreSQL server on loopback for the ledger tests.
#
#   bash .ci/postgres.sh start   # installs Debian's postgresql if missing, starts a cluster,
#                                # writes its URL to $COROLLARY_PG_DIR/url and prints it
#   export COROLLARY_TEST_PG_URL=$(cat /tmp/corollary-pg/url)
#   bash .ci/postgres.sh stop    # stops the server and removes the cluster
#   bash .ci/postgres.sh stop-server   # stops the server, keeps the cluster (for fault tests)
#   bash .ci/postgres.sh start-server  # starts the kept cluster again on the same port
#   bash .ci/postgres.sh status        # says whether it runs; if not, the end of its log
#
# Runs as root (CI) or as any user; the cluster belongs to the `postgres` user when run as root.
set -euo pipefail

DIR=${COROLLARY_PG_DIR:-/tmp/corollary-pg}
PORT=${COROLLARY_PG_PORT:-54329}
DB=${COROLLARY_PG_DB:-corollary_test}

find_bin() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/pg_ctl" ] && [ -x "$dir/initdb" ]; then echo "$dir"; return 0; fi
    done
    if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
        dirname "$(command -v pg_ctl)"; return 0
    fi
    return 1
}

as_owner() {  # run a command as the cluster's owner
    if [ "$(id -u)" = 0 ]; then
        if command -v runuser >/dev/null; then runuser -u postgres -- "$@"
        else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
    else
        "$@"
    fi
}

port_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
    if [ -f "$DIR/url" ] && running; then
        cat "$DIR/url"; return 0
    fi
    BIN=$(find_bin) || {
        echo "postgres.sh: installing Debian's postgresql" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
        BIN=$(find_bin)
    }
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
    fi
    while ! port_free "$PORT"; do PORT=$((PORT + 1)); done
    rm -rf "$DIR"
    mkdir -p "$DIR/data" "$DIR/run"
    [ "$(id -u)" = 0 ] && chown -R postgres: "$DIR"
    chmod 700 "$DIR/data"
    as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --encoding=UTF8 \
        --no-locale >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
    echo "$PORT" >"$DIR/port"
    run_server "$BIN"
    as_owner "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DB"
    echo "$BIN" >"$DIR/bin"
    echo "postgresql://postgres@127.0.0.1:$PORT/$DB" >"$DIR/url"
    chmod 644 "$DIR/url"
    cat "$DIR/url"
}

run_server() {  # start the cluster in $DIR on the port it was created with
    local bin=$1 port
    port=$(cat "$DIR/port")
    as_owner "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $DIR/run -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
}

stop_server() {  # stop the server (fast shutdown: sessions are cut), keep the cluster
    [ -f "$DIR/bin" ] || { echo "postgres.sh: no cluster in $DIR" >&2; exit 1; }
    if running; then
        as_owner "$(cat "$DIR/bin")/pg_ctl" -D "$DIR/data" -m fast -w -t 60 stop >/dev/null
    fi
}

running() {  # whether the cluster's postmaster runs (a pid file may outlive a killed server)
    local pid
    [ -f "$DIR/data/postmaster.pid" ] || return 1
    pid=$(head -n 1 "$DIR/data/postmaster.pid")
    kill -0 "$pid" 2>/dev/null || return 1
    # a killed server lingers as a zombie where nothing reaps orphans
    [ ! -r "/proc/$pid/stat" ] || ! sed 's/.*) //' "/proc/$pid/stat" | grep -q '^[ZX]'
}

cluster_processes() {  # live processes working in the cluster's data directory
    local p state
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/cwd" 2>/dev/null)" = "$DIR/data" ] || continue
        state=$(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -c1)
        case "$state" in Z|X|"") ;; *) echo "${p#/proc/}" ;; esac
    done
}

start_server() {  # start a cluster stopped by stop-server (or found dead)
    [ -f "$DIR/bin" ] || { echo "postgres.sh: no cluster in $DIR" >&2; exit 1; }
    running && return 0
    if [ -f "$DIR/data/postmaster.pid" ]; then
        # the server was killed, not stopped: its children leave once they notice, and its
        # lock files name a pid that may linger as a zombie, which PostgreSQL takes for alive
        local _
        for _ in $(seq 100); do [ -z "$(cluster_processes)" ] && break; sleep 0.1; done
        rm -f "$DIR/data/postmaster.pid" "$DIR"/run/.s.PGSQL.*.lock
    fi
    run_server "$(cat "$DIR/bin")"
}

status() {  # say whether the server runs; if it died, show the end of its log
    if running; then echo "postgres.sh: the server in $DIR runs"; return 0; fi
    echo "postgres.sh: the server in $DIR is not running; the end of its log:" >&2
    tail -n 40 "$DIR/server.log" >&2 2>/dev/null || true
    return 1
}

stop() {
    [ -d "$DIR" ] || return 0
    BIN=$(cat "$DIR/bin" 2>/dev/null || find_bin || true)
    if [ -n "$BIN" ] && running; then
        as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$DIR"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    stop-server) stop_server ;;
    start-server) start_server ;;
    status) status ;;
    *) echo "usage: $0 start|stop|stop-server|start-server|status" >&2; exit 2 ;;
esac

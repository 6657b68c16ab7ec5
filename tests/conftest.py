"""Shared test set-up: make the test helpers (the ``support`` package) importable; the ``clock``
fixture; a watch on the PostgreSQL server under test.

The tests are laid out like the package (``tests/tms``, ``tests/stores``, ...) and imported with
``--import-mode=importlib``, which puts no test folder on ``sys.path``; this puts ``tests/`` there
so ``support.*`` imports the same way here and in spawned child processes.
"""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from corollary import ManualClock

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def clock() -> ManualClock:
    """A manual clock at t = 1000 s (a module may define its own ``clock`` instead)."""
    return ManualClock(1_000)


# -- the PostgreSQL server under test ------------------------------------------------------------
# CI starts one server with .ci/postgres.sh for the whole run. If it dies (it did once in CI,
# before the first PostgreSQL test, for a reason its output did not show), every later
# PostgreSQL test would fail on "connection refused" and say nothing of why. So after each test
# the server's postmaster is checked; a death is reported loudly (the test just run, the server
# log, the kernel's last words) and the server is started again so the remaining tests measure
# the library, not the lost server. The summary repeats every death at the end of the run.

PG_DIR = Path(os.environ.get("COROLLARY_PG_DIR", "/tmp/corollary-pg"))
PG_SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "postgres.sh"
PG_DEATHS: list[str] = []  # a report of each death, repeated in the summary


def _managed_server_pid() -> int | None:
    """The postmaster's pid if the server under test is the one .ci/postgres.sh started."""
    url = os.environ.get("COROLLARY_TEST_PG_URL")
    try:
        if not url or (PG_DIR / "url").read_text().strip() != url:
            return None
        return int((PG_DIR / "data" / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None  # not ours, or stopped on purpose (a fault test stops it cleanly)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a killed server may linger as a zombie until it is reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _tail(command: list[str], lines: int = 30) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"({' '.join(command)}: {exc})"
    return "\n".join((done.stdout + done.stderr).splitlines()[-lines:])


def _check_server(config: pytest.Config, after: str) -> None:
    pid = _managed_server_pid()
    if pid is None or _alive(pid):
        return
    log = PG_DIR / "server.log"
    report = [f"!! the PostgreSQL server under test (pid {pid}) died; last test: {after}",
              f"-- {log} (last lines):", _tail(["tail", "-n", "40", str(log)]),
              "-- dmesg (last lines):", _tail(["dmesg"], 15),
              "-- processes (no kernel threads):",
              _tail(["ps", "--ppid", "2", "--pid", "2", "-N", "-o", "pid,ppid,user,stat,etime,args"], 40)]
    restart = subprocess.run(["bash", str(PG_SCRIPT), "start-server"], capture_output=True,
                             text=True, env={**os.environ, "COROLLARY_PG_DIR": str(PG_DIR)})
    report.append(f"-- restarted: exit {restart.returncode} {restart.stderr.strip()}")
    PG_DEATHS.append("\n".join(report))
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    for line in PG_DEATHS[-1].splitlines():
        if reporter is not None:
            reporter.write_line(line)
        else:
            print(line, file=sys.stderr)


def pytest_sessionstart(session: pytest.Session) -> None:
    _check_server(session.config, "(before the first test)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    yield
    _check_server(item.config, item.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for report in PG_DEATHS:
        for line in report.splitlines():
            terminalreporter.write_line(line)

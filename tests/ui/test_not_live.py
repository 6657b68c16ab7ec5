"""A served base that cannot follow its other writers says so (issue 26 point 5, the measured
case): another process appends an entry the server cannot replay (it adds a rule the server
was started without). Before, the inspector stopped following for good, ``/api/summary`` kept
saying ``live: true`` and nothing was logged. Now the served base records why
(``not_live``), logs it once, the summary and the page say "not live: <reason>", and the MCP
server's next call fails with it (tests/mcp/test_not_live.py). Real child processes, a real
SQLite ledger and headless Chromium."""

from __future__ import annotations

import http.client
import json
import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from corollary import BeliefBase, open_ledger
from corollary.serving import LOG, NotLive, ServedBase
from ui.conftest import TESTS, env, free_port, needs_ui_extra

#: Adds a rule only this process defines: no other process can replay that entry.
WRITER = """
import sys
from corollary import BeliefBase, open_ledger, rule

@rule(output="double", inputs={"x": "x"}, name="elsewhere.double")
def double(x):
    return 2 * x

with open_ledger(sys.argv[1]) as ledger:
    kb = BeliefBase.open_session(ledger, "s")
    kb.add_rule(double)
"""


def session(path: Path) -> None:
    with open_ledger(path) as ledger:
        BeliefBase.open_session(ledger, "s").assert_("x", 21, source="tool:t")


def write_elsewhere(path: Path) -> None:
    subprocess.run([sys.executable, "-c", WRITER, str(path)], env=env(), check=True,
                   timeout=60, cwd=TESTS)


def test_a_served_base_that_cannot_replay_an_entry_is_not_live_and_says_why(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "l.db"
    session(path)
    with open_ledger(path) as ledger:
        served = ServedBase(BeliefBase.open_session(ledger, "s"))
        assert served.live and served.not_live is None
        write_elsewhere(path)
        with caplog.at_level(logging.WARNING, logger=LOG.name):
            assert served.follow(5.0) == 0
            assert served.follow(0.1) == 0  # the same failure: waits, logs nothing again
        assert not served.live
        assert served.not_live is not None and "elsewhere.double" in served.not_live
        said = [r.getMessage() for r in caplog.records if r.name == LOG.name]
        assert said == [f"session 's': not live: {served.not_live}"]
        with pytest.raises(NotLive, match="not live: .*elsewhere.double"), served.reading():
            pass


def _get(url: str, path: str) -> Any:
    where = urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def test_the_inspector_shows_and_logs_that_it_is_not_live(tmp_path: Path, browser: Any) -> None:
    needs_ui_extra()
    path = tmp_path / "l.db"
    session(path)
    port = free_port()
    child = subprocess.Popen([sys.executable, "-m", "corollary", "ui", "--ledger", str(path),
                              "--session", "s", "--port", str(port)], env=env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                first = _get(url, "/api/summary")
                break
            except OSError:
                assert child.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert (first["live"], first["not_live"]) == (True, None)
        write_elsewhere(path)
        deadline = time.monotonic() + 30
        while (summary := _get(url, "/api/summary"))["live"]:
            assert time.monotonic() < deadline, "the summary still says live"
            time.sleep(0.2)
        assert "elsewhere.double" in summary["not_live"]
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(url + "/#/beliefs")
            shown = page.wait_for_selector("#live.lost", timeout=10_000)
            assert shown.inner_text().startswith("not live: ")
            assert "elsewhere.double" in shown.inner_text()
        finally:
            context.close()
    finally:
        child.terminate()
        _, stderr = child.communicate(timeout=30)
    assert f"corollary ui: session 's': not live: {summary['not_live']}" in stderr

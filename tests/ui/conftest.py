"""A real ``corollary ui`` server over the test base (tests/support/ui_base.py) in a child
process, and a real headless Chromium (Debian's ``chromium``) driven by Playwright.

The browser tests skip, saying why, when Playwright's Python package or a Chromium is missing
(``.ci/run`` installs both). Screenshots go to ``$COROLLARY_UI_SCREENSHOTS`` (default: a
directory under pytest's tmp dir) and are kept as artifacts.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: Where Debian (and most Linux distributions) put Chromium.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def env() -> dict[str, str]:
    """The children's environment: this checkout first, no COROLLARY_ settings of the host."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    return {**kept, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(*args: str, host: str = "127.0.0.1", env_extra: dict[str, str] | None = None
            ) -> Iterator[str]:
    """``python -m corollary ui ARGS --port P`` in a child process (``env_extra`` added to its
    environment); yields its URL."""
    port = free_port()
    child = subprocess.Popen([sys.executable, "-m", "corollary", "ui", *args, "--host", host,
                              "--port", str(port)], env={**env(), **(env_extra or {})},
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex((host, port)) == 0:
                    break
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the ui server did not start in 60 s"
            time.sleep(0.05)
        yield f"http://{host}:{port}"
    finally:
        child.terminate()
        child.wait(timeout=30)


def needs_ui_extra() -> None:
    """Skip unless the ui extra (Starlette, uvicorn) is installed."""
    for module in ("starlette", "uvicorn"):
        pytest.importorskip(module, reason="the ui extra (starlette, uvicorn) is not installed: "
                                           "pip install 'corollary[ui]'")


def build_base(where: Path) -> Path:
    """The test base's ledger (the server that reads it is another process)."""
    from support.ui_base import build

    ledger = where / "ledger.db"
    build(ledger)
    return ledger


@pytest.fixture(scope="session")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_base(tmp_path_factory.mktemp("ui-base"))


@pytest.fixture(scope="session")
def server(ledger: Path) -> Iterator[str]:
    needs_ui_extra()
    with serving("--ledger", str(ledger), "--session", "demo") as url:
        yield url


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


# one browser per module: Playwright's sync API runs an event loop on this thread while it is
# open, and tests after tests/ui (doctests calling asyncio.run) must not find it running
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="Playwright's Python package is not installed (pip install playwright)")
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium on PATH (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


class Watched:
    """A page, and the console errors and uncaught exceptions it has had."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def page(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield Watched(context.new_page())
    finally:
        context.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go (``$COROLLARY_UI_SCREENSHOTS``, else under pytest's tmp dir)."""
    given = os.environ.get("COROLLARY_UI_SCREENSHOTS")
    where = Path(given) if given else tmp_path_factory.mktemp("ui-screenshots")
    where.mkdir(parents=True, exist_ok=True)
    return where

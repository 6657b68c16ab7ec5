"""Inspector benchmark (issue 21): how fast a base of a million beliefs shows in a browser.

A base of ``--size`` beliefs (``customer:<i>:<field>``, loaded through ``assert_many``, the
bulk path) is served by ``corollary.ui.make_app`` under uvicorn in this process, and a real
headless Chromium (Debian's ``chromium``, driven by Playwright) opens it. Timed from the
navigation's start to the table's first row on screen:

* the server's start (apart): it reads the beliefs table before it listens (every belief
  read once into columns, the key order sorted);
* ``first page, first visit``: in a new tab of a running browser, the page, its script, the
  header's summary and 50 rows;
* ``first page, warm``: the same page loaded again in a new tab;
* ``next page``, ``sort by confidence`` (its order computed the first time) and ``filter by
  source``: clicks on the open page, timed to the new rows;
* ``search, first`` (recall builds its index over the base) and ``search, again``.

Usage::

    python benchmarks/bench_ui.py [--size 1000000] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_recall import customer_rows  # noqa: E402

from corollary import BeliefBase, ManualClock  # noqa: E402
from corollary.ui import make_app  # noqa: E402


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_in_thread(kb: BeliefBase) -> tuple[str, Any]:
    import uvicorn

    port = _port()
    server = uvicorn.Server(uvicorn.Config(make_app(kb), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server


def timed(action: Any, ready: Any) -> float:
    start = time.perf_counter()
    action()
    ready()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    t0 = time.perf_counter()
    kb = BeliefBase(clock=ManualClock(1_767_225_600))
    kb.assert_many(customer_rows(args.size))
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    url, server = serve_in_thread(kb)
    started = time.perf_counter() - t0
    rows = "table#beliefs tbody tr"
    results: list[tuple[str, float]] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto("about:blank")  # a tab of a running browser, as a person opens the link
        results.append(("first page, first visit", timed(
            lambda: page.goto(f"{url}/#/beliefs"), lambda: page.wait_for_selector(rows))))
        again = browser.new_page(viewport={"width": 1280, "height": 900})
        results.append(("first page, warm", timed(
            lambda: again.goto(f"{url}/#/beliefs"), lambda: again.wait_for_selector(rows))))
        results.append(("next page", timed(
            lambda: page.get_by_role("button", name="Next →").click(),
            lambda: page.wait_for_selector("text=51–100 of"))))
        results.append(("sort by confidence (first time)", timed(
            lambda: page.get_by_role("button", name="Confidence").click(),
            lambda: page.wait_for_selector("th[aria-sort=ascending]"))))
        results.append(("filter by source", timed(
            lambda: page.get_by_label("Source", exact=True).select_option("human:support"),
            lambda: page.wait_for_selector(f"text=1–50 of {args.size // 5:,}"))))
        for name in ("search, first (builds the recall index)", "search, again"):
            query = "customer 7 email" if "first" in name else "customer 12345 city"
            results.append((name, timed(
                lambda q=query: page.goto(f"{url}/#/beliefs?q={q.replace(' ', '%20')}"),
                lambda q=query: page.wait_for_selector(f"text=found for “{q}”"))))
        browser.close()
    server.should_exit = True
    print(f"bench_ui: {args.size:,} beliefs (built with assert_many in {built:.1f} s); "
          f"{platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores, {Path(args.chromium).name}; the server started (its "
          f"beliefs table read) in {started:.1f} s")
    print("| step | seconds |\n|---|---|")
    for name, seconds in results:
        print(f"| {name} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
